"""The default voices (the bank's `natural` cast) end to end: what the planners draw with no config,
and a small `duplexsynth generate` + `validate` with no config at all, as README command 1 runs it.

Every other test that does not test voices uses the fast espeak cast (tests/generated.py
FAST_VOICES); this file is the one that runs the real default mix. Skipped where scripts/setup.sh's
engines (Piper, flite, RHVoice) are not installed.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from generators import voice_bank as vb
from generators.registry import plan_trajectory, scenario_for, trajectory_seed
from jobs.cli import main
from jobs.voices_cmd import installed
from schemas.config import RunConfig
from schemas.vocab import Role

ASSISTANT = "rhvoice:slt"


def _natural_installed() -> bool:
    known = vb.by_id()
    return all(installed(known[i].engine, known[i].source) for i in vb.voices_used(RunConfig().voices, ["en"]))


needs_engines = pytest.mark.skipif(not _natural_installed(), reason="scripts/setup.sh installs Piper, flite and RHVoice")


def _speakers(script) -> list[tuple[str, str]]:
    """(role, voice name) of every utterance: turns and their overlays."""
    return [(t.role, t.voice.name) for t in script.turns] + [(o.role, o.voice.name) for t in script.turns for o in t.overlays]


def test_default_plans_one_natural_assistant_and_mostly_natural_people():
    cfg = RunConfig()
    known = vb.by_id()
    scripts = [plan_trajectory(cfg, scenario_for(j, cfg.seed, cfg.scenarios), trajectory_seed(cfg.seed, j)) for j in range(120)]
    assistant = {t.voice for s in scripts for t in s.turns if t.role == Role.ASSISTANT}
    assert [v.name for v in assistant] == [ASSISTANT] and known[ASSISTANT].natural   # one voice, unjittered
    people = Counter(name for s in scripts for role, name in _speakers(s) if role != Role.ASSISTANT)
    natural = sum(n for name, n in people.items() if known[name].natural)
    assert natural / sum(people.values()) > 0.8                       # mostly natural...
    assert any(not known[name].natural for name in people)           # ...espeak-ng only as extra diversity
    assert len({name for name in people if known[name].natural}) >= 5
    assert ASSISTANT not in people and "flite:slt" not in people     # nobody sounds like the assistant
    zh = [plan_trajectory(cfg, "turn_taking", trajectory_seed(cfg.seed, j), "zh") for j in range(10)]
    assert {name.partition("+")[0] for s in zh for _, name in _speakers(s)} == {"cmn"}   # Mandarin stays espeak-ng cmn


@needs_engines
def test_default_run_with_no_config_renders_natural_voices_and_validates(tmp_path: Path, ray_head: str):
    """README command 1 in small: no config, so the default voices; the rows name them in meta.voices."""
    out = tmp_path / "demo"
    assert main(["generate", "--num", "2", "--shard-size", "2", "--address", ray_head, "--no-progress", "--out", str(out),
                 "--scenario", "interruption_repair", "background_speech"]) == 0
    assert main(["validate", str(out)]) == 0
    rows = pq.read_table(next((out / "shards").glob("*.parquet")), columns=["meta", "events"]).to_pylist()
    known = vb.by_id()
    names: set[str] = set()
    for r in rows:
        meta = json.loads(r["meta"])
        voices = {json.loads(v)["name"] for v in meta["voices"]}
        assert ASSISTANT in voices
        names |= voices
        assert set(meta["tts"]["engines"]) == set(vb.engines_used(RunConfig().voices))   # the router of every engine
    assert sum(known[n].natural for n in names) >= 3 and {known[n].engine for n in names} - {vb.ESPEAK}
