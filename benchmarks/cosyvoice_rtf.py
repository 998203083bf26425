"""CosyVoice 2 on a GPU: RTF batched (N lines per actor call) vs one line per call, and the GPU
utilisation and throughput of whole `generate` runs at batch_size 1 and N, side by side.

    export DUPLEXSYNTH_COSYVOICE_DIR=/path/to/CosyVoice2-0.5B   # a local folder, never downloaded
    python benchmarks/cosyvoice_rtf.py [--bank BANK --speaker NAME] [--lines 16] [--batch 8]
                                       [--actors 1] [--generate 8] [--python .venv-cosyvoice/bin/python]

Without a model folder (`--model` or DUPLEXSYNTH_COSYVOICE_DIR), or on a machine without an
NVIDIA GPU, it prints that it has NOT been run and how to run it, and exits 0; `--cpu` runs it
anyway for CPU figures (e.g. with the tiny random-init model that `python -m
tests.cosyvoice_fixtures DIR` writes in .venv-cosyvoice: not real-weights numbers). RTF =
seconds of compute / seconds of audio made (lower is better). GPU utilisation is `nvidia-smi`
sampled every 0.5 s. The generate runs speak the assistant with CosyVoice (users espeak-ng) from
a scratch view of the model folder (links to its files plus the bank's prompts/), so the model
folder is never written to. Named `cosyvoice_rtf.py`, not cosyvoice.py: Ray puts the driver's
folder on the workers' sys.path, where a cosyvoice.py would shadow the package.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MODEL_ENV = "DUPLEXSYNTH_COSYVOICE_DIR"
LINES = ["The meeting moved to half past three on Thursday.", "Sure, I can set a timer for ten minutes.",
         "It looks sunny in Paris tomorrow, with a light breeze.", "Okay, let me check that for you.",
         "你好，今天北京天气晴朗。", "好的，我帮你设一个十分钟的闹钟。"]
HOW_TO_RUN = (f"to run it: on a machine with an NVIDIA GPU, `bash scripts/setup.sh --cosyvoice`, then\n"
              f"  export {MODEL_ENV}=/path/to/CosyVoice2-0.5B\n"
              "  python benchmarks/cosyvoice_rtf.py --lines 16 --batch 8 --generate 8\n"
              "(`--bank DIR --speaker NAME` for your own prompts/<speaker>.wav + .txt; `--cpu` for CPU figures)")


class GpuSampler:
    """Mean GPU utilisation (%) from nvidia-smi every 0.5 s while the block runs."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                q = subprocess.run(["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"],
                                   capture_output=True, text=True, timeout=5, check=False)
                vals = [float(v) for v in q.stdout.split() if v.strip()]
                if vals:
                    self.samples.append(sum(vals) / len(vals))
            except (OSError, subprocess.SubprocessError, ValueError):
                return
            self._stop.wait(0.5)

    def __enter__(self) -> "GpuSampler":
        if shutil.which("nvidia-smi"):
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    def text(self) -> str:
        return f", GPU util mean {np.mean(self.samples):.0f}% (n={len(self.samples)})" if self.samples else ""


def has_gpu() -> bool:
    if not shutil.which("nvidia-smi"):
        return False
    q = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, check=False)
    return q.returncode == 0 and "GPU" in q.stdout


def make_bank(bank: str | None) -> Path:
    """The voice bank (prompts/<speaker>.wav + .txt): the one given, or a synthetic 'bench' voice."""
    if bank:
        return Path(bank)
    import soundfile as sf

    out = Path(tempfile.mkdtemp(prefix="cosy-bank-"))
    sr, t = 16000, np.arange(24000) / 16000
    (out / "prompts").mkdir()
    sf.write(out / "prompts" / "bench.wav", (0.3 * np.sin(2 * np.pi * 150 * t)).astype(np.float32), sr)
    (out / "prompts" / "bench.txt").write_text("the weather in paris is sunny.", encoding="utf-8")
    return out


def rtf(client, backend, texts: list[str], voice, batch: int) -> tuple[float, float, GpuSampler]:
    """(compute seconds, audio seconds, GPU samples) for ``texts`` in calls of ``batch`` lines."""
    with GpuSampler() as gpu:
        t0 = time.perf_counter()
        audio_s = 0.0
        for i in range(0, len(texts), batch):
            for r in client([backend.request(t, voice) for t in texts[i:i + batch]], cache=False):
                audio_s += len(r["audio"]) / r["sample_rate"]
        took = time.perf_counter() - t0
    return took, audio_s, gpu


def model_view(model: Path, bank: Path, into: Path) -> Path:
    """A folder of links to the model's files plus the bank's prompts/ (a run's voices live there)."""
    view = into / model.name
    view.mkdir(parents=True)
    for p in model.iterdir():
        if p.name != "prompts":
            (view / p.name).symlink_to(p.resolve())
    (view / "prompts").symlink_to((bank / "prompts").resolve())
    return view


def generate_run(view: Path, speaker: str, num: int, batch: int, actors: int, work: Path) -> tuple[float, float, GpuSampler]:
    """(wall seconds, audio seconds, GPU samples) of `duplexsynth generate --num num` at batch_size `batch`."""
    cfg = work / f"cosy-b{batch}.yaml"
    cfg.write_text(json.dumps({"voices": {"cast": "espeak", "assistant": f"cosyvoice:{speaker}", "cosyvoice": {
        "model_dir": str(view), "batch_size": batch, "actors": actors}}}), encoding="utf-8")
    out = work / f"out-b{batch}"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with GpuSampler() as gpu:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "jobs.cli", "generate", "--config", str(cfg), "--num", str(num),
                               "--out", str(out), "--no-progress"], cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"generate at batch_size {batch} failed: {(proc.stderr or proc.stdout).strip()[-2000:]}")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return wall, float(sum(s["audio_s"] for s in manifest["shards"])), gpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=os.environ.get(MODEL_ENV), help=f"model folder (default ${MODEL_ENV})")
    ap.add_argument("--bank")
    ap.add_argument("--speaker", default="bench")
    ap.add_argument("--lines", type=int, default=16)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--actors", type=int, default=1)
    ap.add_argument("--generate", type=int, default=8, help="rows per generate run (0: skip the generate runs)")
    ap.add_argument("--python")
    ap.add_argument("--cpu", action="store_true", help="run without a GPU (CPU figures)")
    a = ap.parse_args(argv)
    if not a.model:
        print(f"NOT RUN: no CosyVoice model folder (--model or {MODEL_ENV}); no GPU figures have been measured.")
        print(HOW_TO_RUN)
        return 0
    from jobs.cosyvoice_actor import check_model_dir

    try:
        model = check_model_dir(a.model)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not has_gpu() and not a.cpu:
        print("NOT RUN: no NVIDIA GPU on this machine (nvidia-smi finds none); no GPU figures have been measured.")
        print(HOW_TO_RUN)
        return 0

    import ray

    from jobs.cosyvoice_actor import CosyVoiceClient
    from pipeline.tts.cosyvoice import CosyVoiceBackend
    from schemas.script import VoiceSpec

    bank = make_bank(a.bank)
    speaker = a.speaker if a.bank else "bench"
    ray.init(address="local", include_dashboard=False, log_to_driver=False)
    try:
        gpus = ray.cluster_resources().get("GPU", 0)
        client = CosyVoiceClient(model, python=a.python, actors=a.actors)
        info = client.info()
        backend = CosyVoiceBackend(client, bank, language="en")
        voice = VoiceSpec(name=f"cosyvoice:{speaker}")
        texts = [LINES[i % len(LINES)] + ("" if i < len(LINES) else f" ({i})") for i in range(a.lines)]
        texts = [t for t in texts if t.isascii()]   # one language per backend here
        client([backend.request(texts[0], voice)])  # warm-up: first-call allocations
        print(f"device: {info[0]['device']} ({a.actors} actor(s), {gpus:g} GPU(s) in Ray), model {model.name}")
        figures = {}
        for label, b in (("one per call", 1), (f"{a.batch} per call", a.batch)):
            took, audio_s, gpu = rtf(client, backend, texts, voice, b)
            figures[b] = took / audio_s
            print(f"{label:>14}: {len(texts)} lines, {audio_s:.1f} s audio in {took:.1f} s, RTF {took / audio_s:.3f}"
                  f"{gpu.text()}")
        print(f"batched / unbatched RTF: {figures[a.batch] / figures[1]:.3f}")
    finally:
        ray.shutdown()
    if a.generate > 0:
        work = Path(tempfile.mkdtemp(prefix="cosy-gen-"))
        try:
            view = model_view(model, bank, work / "model")
            speeds = {}
            for b in (1, a.batch):
                wall, audio_s, gpu = generate_run(view, speaker, a.generate, b, a.actors, work)
                speeds[b] = audio_s / wall
                print(f"generate --num {a.generate}, batch_size {b:>3}: {audio_s:.1f} audio-s in {wall:.1f} s wall, "
                      f"{audio_s / wall:.2f} audio-s per wall-s{gpu.text()}")
            print(f"generate throughput batched / unbatched: {speeds[a.batch] / speeds[1]:.3f}")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if not has_gpu():
        print("note: no GPU here: these are CPU figures; GPU RTF and utilisation have not been measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
