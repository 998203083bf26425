"""Omni frames in the consumer exports: lhotse and nemo-s2s carry them (a frames folder per session,
named in `cut.custom`, read back through lhotse's own `CutSet.from_shar`), moshi drops them and says
so in one warning line, FDB puts them in the sample's folder (tests/test_export_fdb.py).

Rows are real Omni rows (tests/generated.py: planner, composer, espeak-ng, Pillow frames), an English
visual_qa and a Mandarin visual_watch, plus an audio-only row that must get no frames entry.
"""
from __future__ import annotations

import json
from pathlib import Path

import lhotse   # the export extra (scripts/setup.sh installs it)
import pytest

from jobs.cli import main as cli
from schemas.config import RunConfig
from schemas.trajectory import TrajectoryRow
from tests.generated import FIXTURE_CONFIG, write_dataset


@pytest.fixture(scope="module")
def source(tmp_path_factory, generated) -> tuple[Path, dict[str, TrajectoryRow]]:
    rows = [generated.row("visual_qa", 7, row_id="x-en-visual"),
            generated.row("visual_watch", 1, row_id="x-zh-visual", language="zh"),
            generated.row("backchannel", 1, row_id="x-en-audio")]
    mixed = {k: v for k, v in FIXTURE_CONFIG.model_dump(mode="json").items() if k != "language"}
    cfg = RunConfig.model_validate({**mixed, "languages": {"en": 0.5, "zh": 0.5}})
    return write_dataset(tmp_path_factory.mktemp("frames") / "src", rows, cfg=cfg), {r.id: r for r in rows}


def _frames_of(root: Path, custom: dict) -> list[bytes]:
    f = custom["frames"]
    return [(root / f["dir"] / name).read_bytes() for name in f["files"]]


@pytest.mark.parametrize("fmt, shar", [("lhotse", "shar"), ("nemo-s2s", "nemo_s2s")])
def test_lhotse_cuts_name_a_folder_holding_each_units_frame(source, tmp_path, fmt, shar):
    src, rows = source
    out = tmp_path / fmt
    assert cli(["export", str(src), "--format", fmt, "--out", str(out)]) == 0
    cuts = {c.id: c for c in lhotse.CutSet.from_shar(in_dir=out / shar)}
    assert set(cuts) == set(rows)
    for rid, row in rows.items():
        custom = cuts[rid].custom
        if not row.frames:
            assert "frames" not in custom
            continue
        assert _frames_of(out, custom) == row.frames and len(row.frames) == len(row.units)   # byte for byte, per unit
        assert custom["frames"]["unit_s"] == row.unit_s
    if fmt == "lhotse":   # the NeMo lines of an Omni session point at the same folder
        lines = [json.loads(x) for x in (out / "nemo" / "manifest.jsonl").read_text(encoding="utf-8").splitlines()]
        assert {x["session_id"]: x.get("frames_dir") for x in lines} == {
            rid: cuts[rid].custom["frames"]["dir"] if rows[rid].frames else None for rid in rows}


def test_moshi_drops_frames_with_one_warning_line(source, tmp_path, capsys):
    src, rows = source
    out = tmp_path / "moshi"
    assert cli(["export", str(src), "--format", "moshi", "--out", str(out)]) == 0
    err = [x for x in capsys.readouterr().err.splitlines() if "frames" in x]
    assert err == ["warning: --format moshi drops the frames of 2 Omni row(s): its consumer reads audio and text "
                   "only (README, Exports)"]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["layout"]["frames_dropped_rows"] == sum(bool(r.frames) for r in rows.values())
    assert not list(out.rglob("*.jpg"))
