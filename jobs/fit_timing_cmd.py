"""`duplexsynth fit-timing FILES --out timing.yaml`: fit timing distributions to real conversations."""
from __future__ import annotations

import argparse
import json
import os
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fit-timing", help="fit gap / overlap / pause / backchannel timing to real conversations",
                       description="Reads word- or segment-level timings (RTTM, CTM with the channel as speaker, "
                                   "or JSON with speaker/start/end), builds IPUs (dGSLM: >= 0.2 s silence), and "
                                   "writes a `timing:` config fragment: use it with "
                                   "`duplexsynth generate --preset natural --config timing.yaml`.")
    p.add_argument("files", nargs="+", help="RTTM / CTM / JSON files")
    p.add_argument("--out", required=True, help="output YAML (a config fragment with a `timing:` section)")
    p.add_argument("--family", choices=("empirical", "parametric"), default="empirical",
                   help="empirical: quantile tables that reproduce the data (default); parametric: "
                        "ex-Gaussian offsets and lognormal pauses")
    p.set_defaults(func=run)


def quote_name(name: str) -> str:
    """A file name as one double-quoted token safe inside a YAML comment.

    A name may hold a newline (or YAML's other line breaks, NEL and U+2028/9) that would end the
    comment and inject config keys, or control characters YAML refuses: every non-printable
    character, and the quote and backslash, are written as JSON-style escapes.
    """
    return '"' + printable(name.replace("\\", "\\\\").replace('"', '\\"')) + '"'


def printable(text: str) -> str:
    """`text` with every non-printable character as a JSON-style escape: \\n, \\u0085, \\udcff (an
    undecodable byte), ... so it stays on one line."""
    return "".join(ch if ch.isprintable() else json.dumps(ch)[1:-1] for ch in text)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import yaml

    from generators.timing.fit import fit_timing, read_segments
    from schemas.bounds import writable_file
    from schemas.config import ConfigError, parse_config

    convs = {}
    try:
        writable_file(args.out, "--out")   # a FIFO there would block the write, a device take it
        for f in args.files:
            for k, v in read_segments(f).items():
                convs[f"{Path(f).name}:{k}"] = v
        fit = fit_timing(convs, family=args.family)
        parse_config({"timing": fit["timing"]}, "fitted timing")   # it must load as a config
    except (OSError, ValueError, ConfigError) as err:
        print(f"error: {printable(str(err))}", file=sys.stderr)   # one line, whatever the file names hold
        return 2
    rep = fit["report"]
    header = ["# duplexsynth fit-timing: " + " ".join(quote_name(Path(f).name) for f in args.files)]
    header += [f"# {k}: {v}" for k, v in rep.items()]
    out = Path(args.out)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")   # renamed over OUT whole: no half-written fragment
    tmp.write_text("\n".join(header) + "\n" + yaml.safe_dump({"timing": fit["timing"]}, sort_keys=False),
                   encoding="utf-8")
    os.replace(tmp, out)
    pm = rep.get("per_minute", {})
    print(f"{rep['conversations']} conversations, {rep['minutes']:.2f} min, {rep['transitions']} speaker changes "
          f"(mean offset {rep['fto_mean_s']:.3f} s, {100 * rep['overlap_transition_share']:.0f}% overlapping), "
          f"{rep['pauses']} pauses, {rep['backchannels']} backchannels")
    if pm:
        print("per minute: " + ", ".join(f"{k} {v:.2f}" for k, v in pm.items()))
    print(f"wrote {args.out}")
    return 0
