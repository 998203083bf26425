"""`duplexsynth voices [--config FILE] [--language en] [--json]`: the voice bank, one voice a line."""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys

from schemas.language import LANGUAGES


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("voices", help="list the voice bank: engine, id, language, gender, licence, sample rate",
                       description="Every voice a run can speak with (generators/voice_bank.yaml plus the Piper "
                                   "folders of --config's voices.piper_dirs and the prompts of its voices.cosyvoice model), whether its engine is installed "
                                   "here, and how the default cast uses it. Name voices in a config's `voices:` by id.")
    p.add_argument("--config", help="YAML run config whose voices.piper_dirs and voices.cosyvoice join the bank")
    p.add_argument("--language", choices=sorted(LANGUAGES), help="only voices of this language code")
    p.add_argument("--json", action="store_true", help="print the voices as JSON lines")
    p.set_defaults(func=run)


def installed(engine: str, source: str) -> bool:
    """Whether the engine (and for a voice wheel, the wheel) is installed in this environment."""
    from generators.voice_bank import COSYVOICE, FLITE, PIPER, RHVOICE

    if engine == FLITE:
        from pipeline.tts.flite import flite_available
        return flite_available()   # Debian's libflite1
    if engine == RHVOICE:
        from pipeline.tts.rhvoice import rhvoice_available
        return rhvoice_available()   # Debian's librhvoice5 + rhvoice-english
    if engine == COSYVOICE:   # its own venv (setup.sh --cosyvoice), or cosyvoice in this one
        from jobs.cosyvoice_actor import default_python
        return default_python() is not None or importlib.util.find_spec("cosyvoice") is not None
    if engine != PIPER:
        return True   # espeak-ng comes with our own dependencies
    if importlib.util.find_spec("piper") is None:
        return False
    return not source or "/" in source or importlib.util.find_spec(source.replace("-", "_")) is not None


def run(args: argparse.Namespace) -> int:
    from generators.voice_bank import bank, cast_names, default_use
    from schemas.config import DEFAULT_CAST
    from schemas.config import load_config

    cfg = load_config(args.config) if args.config else None
    if cfg is not None and cfg.voices.cosyvoice is not None:
        print(f"note: the CosyVoice model folder {cfg.voices.cosyvoice.model_dir} is trusted code (its yaml "
              "builds Python objects, its .pt files are loaded by CosyVoice); use only folders you trust",
              file=sys.stderr)
    voices = [v for v in bank(cfg.voices if cfg else None) if args.language in (None, v.language)]
    rows = [{**v.model_dump(), "natural": v.natural, "default": default_use(v.id),
             "installed": installed(v.engine, v.source)} for v in voices]
    if args.json:
        for r in rows:
            print(json.dumps(r, sort_keys=True))
        return 0
    cols = ("id", "engine", "language", "gender", "natural", "default", "licence", "sample_rate", "installed")
    table = [[str(r[c] if r[c] not in (None, "") else "-") for c in cols] for r in rows]
    widths = [max(len(c), *(len(t[i]) for t in table)) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip())
    for t in table:
        print("  ".join(x.ljust(w) for x, w in zip(t, widths)).rstrip())
    natural = sum(r["natural"] and r["installed"] for r in rows)
    print(f"{len(rows)} voices, {natural} natural (non-formant) installed; `default`: how the default cast "
          f"({DEFAULT_CAST}) uses a voice (`voices.cast` picks another: {', '.join(cast_names())})")
    return 0
