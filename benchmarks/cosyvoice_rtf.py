"""CosyVoice 2 real-time factor, batched (N lines per actor call) vs one line per call.

    python benchmarks/cosyvoice_rtf.py --model DIR [--bank BANK --speaker NAME] [--lines 16] [--batch 8]
                                   [--actors 1] [--python .venv-cosyvoice/bin/python]

DIR is a CosyVoice2 model folder (never downloaded; `python -m tests.cosyvoice_fixtures DIR` in
.venv-cosyvoice writes the tiny random-init one). Without --bank a synthetic prompt is used. RTF =
seconds of compute / seconds of audio made (lower is better). With an NVIDIA GPU the actors get
num_gpus=1 and the script samples `nvidia-smi` utilisation while it runs; without one it says
plainly that these are CPU figures and the GPU numbers have not been measured.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

LINES = ["The meeting moved to half past three on Thursday.", "Sure, I can set a timer for ten minutes.",
         "It looks sunny in Paris tomorrow, with a light breeze.", "Okay, let me check that for you.",
         "你好，今天北京天气晴朗。", "好的，我帮你设一个十分钟的闹钟。"]


def gpu_sampler(stop: threading.Event, out: list[float]) -> None:
    """Mean GPU utilisation (%) every 0.5 s while the run lasts, from nvidia-smi."""
    while not stop.is_set():
        try:
            q = subprocess.run(["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"],
                               capture_output=True, text=True, timeout=5, check=False)
            vals = [float(v) for v in q.stdout.split() if v.strip()]
            if vals:
                out.append(sum(vals) / len(vals))
        except (OSError, subprocess.SubprocessError, ValueError):
            return
        stop.wait(0.5)


def run(client, backend, texts: list[str], voice, batch: int) -> tuple[float, float, list[float]]:
    """(compute seconds, audio seconds, GPU samples) for ``texts`` in calls of ``batch`` lines."""
    util: list[float] = []
    stop = threading.Event()
    sampler = threading.Thread(target=gpu_sampler, args=(stop, util), daemon=True)
    if shutil.which("nvidia-smi"):
        sampler.start()
    t0 = time.perf_counter()
    audio_s = 0.0
    for i in range(0, len(texts), batch):
        reqs = [backend.request(t, voice) for t in texts[i:i + batch]]
        for r in client(reqs):
            audio_s += len(r["audio"]) / r["sample_rate"]
    took = time.perf_counter() - t0
    stop.set()
    return took, audio_s, util


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--bank")
    ap.add_argument("--speaker", default="bench")
    ap.add_argument("--lines", type=int, default=16)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--actors", type=int, default=1)
    ap.add_argument("--python")
    a = ap.parse_args(argv)

    import ray
    import soundfile as sf

    from jobs.cosyvoice_actor import CosyVoiceClient
    from pipeline.tts.cosyvoice import CosyVoiceBackend
    from schemas.script import VoiceSpec

    bank = Path(a.bank) if a.bank else Path(tempfile.mkdtemp(prefix="cosy-bank-"))
    if not a.bank:
        sr, t = 16000, np.arange(24000) / 16000
        (bank / "prompts").mkdir()
        sf.write(bank / "prompts" / "bench.wav", (0.3 * np.sin(2 * np.pi * 150 * t)).astype(np.float32), sr)
        (bank / "prompts" / "bench.txt").write_text("the weather in paris is sunny.", encoding="utf-8")
    ray.init(address="local", include_dashboard=False, log_to_driver=False)
    try:
        gpus = ray.cluster_resources().get("GPU", 0)
        client = CosyVoiceClient(a.model, python=a.python, actors=a.actors)
        info = client.info()
        backend = CosyVoiceBackend(client, bank, language="en")
        voice = VoiceSpec(name=f"cosyvoice:{a.speaker}")
        texts = [LINES[i % len(LINES)] + ("" if i < len(LINES) else f" ({i})") for i in range(a.lines)]
        texts = [t for t in texts if t.isascii()]   # one language per backend here
        client([backend.request(texts[0], voice)])  # warm-up: first-call allocations
        print(f"device: {info[0]['device']} ({a.actors} actor(s), {gpus:g} GPU(s) in Ray)")
        for label, b in (("one per call", 1), (f"{a.batch} per call", a.batch)):
            took, audio_s, util = run(client, backend, texts, voice, b)
            gpu = f", GPU util mean {np.mean(util):.0f}% (n={len(util)})" if util else ""
            print(f"{label:>14}: {len(texts)} lines, {audio_s:.1f} s audio in {took:.1f} s, RTF {took / audio_s:.3f}{gpu}")
        if gpus == 0:
            print("note: no GPU here: these are CPU figures; GPU RTF and utilisation have not been measured")
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
