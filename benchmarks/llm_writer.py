"""Issue #14's done-when run: `generate --config llm.yaml --num N --out L` against an OpenAI-compatible
endpoint, `validate L`, then the same run again from the response cache (shards removed, cache kept),
which must make no call and write the same shard bytes.

    python benchmarks/llm_writer.py [--num 40] [--out /tmp/llm-bench] [--max-concurrency 8]
    python benchmarks/llm_writer.py --base-url http://127.0.0.1:8000/v1 --model MODEL [--api-key-env VAR]

Without --base-url it starts the scripted loopback server of the tests (tests/scripted_llm.py, valid
replies after a short delay, one 429 and one malformed reply first), so the figures measure the
pipeline around the LLM, not a model. It prints rows, failed rows, LLM calls, calls/s, cache hits
and wall time of both runs (the rerun is the reference: the same run with no call), and three of the
dialogues written, user and assistant lines as the rows hold them.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from generators.llm import FAMILIES  # noqa: E402
from schemas.config import ESPEAK_CAST  # noqa: E402
from tests.scripted_llm import ScriptedServer  # noqa: E402 - the tests' server, imported, not copied


def _cli(*args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "jobs.cli", *args], cwd=REPO, capture_output=True, text=True,
                          check=False, timeout=3600, env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
    return proc, time.perf_counter() - t0


def _llm_figures(stderr: str) -> tuple[int, int, int]:
    """(calls, failed calls, cache hits) of the run's last progress line."""
    last = [ln for ln in stderr.splitlines() if ln.startswith("progress ")][-1]
    m = re.search(r"llm (\d+) calls \([0-9.]+/s\), (\d+) failed, (\d+) cache hits$", last)
    if m is None:
        raise SystemExit(f"no llm figures in the progress line: {last}")
    return int(m[1]), int(m[2]), int(m[3])


def _shas(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((out / "shards").glob("*.parquet"))}


def _run(config: Path, out: Path, num: int) -> dict[str, Any]:
    proc, wall = _cli("generate", "--config", str(config), "--num", str(num), "--out", str(out),
                      "--progress-interval", "0")
    if proc.returncode not in (0, 3):   # 3: some rows failed, explicitly
        raise SystemExit(f"generate exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    manifest = json.loads((out / "manifest.json").read_text())
    calls, failed_calls, hits = _llm_figures(proc.stderr)
    return {"rows": manifest["rows"], "failed": manifest["failed"], "calls": calls, "failed_calls": failed_calls,
            "cache_hits": hits, "wall_s": wall, "calls_per_s": calls / wall}


def _print_run(name: str, r: dict[str, Any]) -> None:
    print(f"{name:<8} rows {r['rows']}, failed {r['failed']}, llm calls {r['calls']} ({r['failed_calls']} failed), "
          f"{r['calls_per_s']:.2f} calls/s, cache hits {r['cache_hits']}, wall {r['wall_s']:.1f} s")


def _dialogues(out: Path, n: int) -> None:
    """n rows of different families: every line said in them, by start time, with its speaker and event
    kind (an interrupted turn's text is its voiced part; a cut-in, a backchannel are events of their own)."""
    import pyarrow.parquet as pq
    seen: set[str] = set()
    for row in pq.read_table(out / "shards").to_pylist():
        if row["scenario"] in seen or len(seen) >= n:
            continue
        seen.add(row["scenario"])
        print(f"\n[{row['id']}] {row['scenario']}")
        for e in sorted(row["events"], key=lambda e: e["start_s"]):
            if e["role"] in ("user", "assistant") and e["text"]:
                kind = "" if e["kind"].endswith("_turn") else f" ({e['kind']})"
                print(f"  {e['start_s']:6.2f}s {e['role']}{kind}: {e['text']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num", type=int, default=40)
    ap.add_argument("--out", type=Path, default=Path("/tmp/llm-bench"))
    ap.add_argument("--base-url", help="a real endpoint's /v1 (vllm serve MODEL --port 8000: http://127.0.0.1:8000/v1)")
    ap.add_argument("--model", default="scripted-test-model", help="the endpoint's model id")
    ap.add_argument("--api-key-env", help="the environment variable holding the endpoint's key, if it needs one")
    ap.add_argument("--max-concurrency", type=int, default=8)
    args = ap.parse_args()

    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    server = ScriptedServer(["429", "malformed"], delay_s=0.05) if args.base_url is None else None
    with server if server is not None else nullcontext():
        url = server.base_url if server is not None else args.base_url
        source = {"kind": "llm", "base_url": url, "model": args.model, "max_concurrency": args.max_concurrency,
                  "timeout_s": 120.0 if server is None else 10.0, "backoff_s": 0.05 if server is not None else 1.0}
        if args.api_key_env:
            source["api_key_env"] = args.api_key_env
        config = args.out / "llm.yaml"
        config.write_text(yaml.safe_dump({"seed": 7, "shard_size": 8, "voices": {"cast": ESPEAK_CAST},
                                          "scenarios": {s: 1.0 for s in FAMILIES}, "script_source": source}))
        out = args.out / "L"
        print(f"endpoint {url} model {args.model}, max_concurrency {args.max_concurrency}, config {config}")
        first = _run(config, out, args.num)
        _print_run("first", first)
        val, val_s = _cli("validate", str(out))
        print(f"validate exit {val.returncode} ({val_s:.1f} s)")
        if val.returncode != 0:
            raise SystemExit(val.stdout[-3000:] + val.stderr[-3000:])
        shas = _shas(out)
        served = len(server.requests) if server is not None else None
        shutil.rmtree(out / "shards")
        shutil.rmtree(out / "summaries")
        shutil.rmtree(out / "failed", ignore_errors=True)
        again = _run(config, out, args.num)
        _print_run("rerun", again)
        if server is not None:
            print(f"server   {served} requests in the first run (peak {server.peak_in_flight} in flight), "
                  f"{len(server.requests) - served} in the rerun")
        same = _shas(out) == shas
        print(f"rerun/first wall ratio {again['wall_s'] / first['wall_s']:.2f}; rerun calls {again['calls']}; "
              f"shard bytes identical: {same}")
        if again["calls"] != 0 or not same:
            raise SystemExit("the rerun made calls or wrote other bytes")
        _dialogues(out, 3)


if __name__ == "__main__":
    main()
