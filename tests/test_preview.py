"""Preview page, PNG timeline, gallery, CLI and the shared dataset reader (no browser needed).

The browser-driven checks of the page live in test_preview_browser.py.
"""
from __future__ import annotations

import argparse
import base64
import html
import io
import json
import re
from collections import Counter

import numpy as np
import pytest
import soundfile as sf

from jobs import preview_cmd
from jobs.dataset_reader import (DatasetError, DatasetReader, IncompleteDatasetError, RowNotFoundError,
                                 ShardError, list_shards)
from pipeline.preview import audio_tracks, event_kinds, render_html, render_png
from tests.generated import attrs, find_truncated_turn, write_dataset as _write_dataset

FAMILIES = ("interruption_discard", "delegation", "proactive_timer")


@pytest.fixture(scope="module")
def rows(generated):
    """Generated rows: an interruption that cuts a word, a delegation with its result, a timer firing."""
    return [generated.situation(name, row_id=f"s0-{i // 2:05d}-{i:07d}") for i, name in enumerate(FAMILIES)]


def write_dataset(root, rows, **kw):
    """Two rows per shard (so a reader spans shards), with the failure tables readers must skip."""
    return _write_dataset(root, rows, **{"rows_per_shard": 2, "failed_shard": True, **kw})


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, rows):
    return write_dataset(tmp_path_factory.mktemp("ds") / "out", rows)


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="duplexsynth")
    preview_cmd.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


# -- dataset reader ------------------------------------------------------------------------------

def test_reader_lists_shards_from_manifest_and_finds_rows(dataset, rows):
    reader = DatasetReader(dataset)
    assert [p.name for p in reader.shards] == ["shard-00000.parquet", "shard-00001.parquet"]
    assert len(reader) == 3
    assert [r["id"] for r in reader.iter_rows(columns=["id"])] == [r.id for r in rows]
    ref = reader.find(scenario="delegation")
    assert (ref.index, ref.shard.name, ref.shard_row) == (1, "shard-00000.parquet", 1)
    assert reader.find(id=rows[2].id).index == 2
    assert reader.find().id == rows[0].id
    assert reader.read_trajectory(reader.find(index=2)) == rows[2]
    assert reader.get(id=rows[1].id)["scenario"] == "delegation"
    assert list(reader.scenarios()) == list(FAMILIES)
    assert [t.id for t in reader.iter_trajectories()] == [r.id for r in rows]


def test_reader_without_manifest_globs_shards_and_skips_failed(tmp_path, rows):
    root = write_dataset(tmp_path / "out", rows, manifest=False, failed_shard=True)
    assert (root / "shards" / "failed-00000.parquet").exists()
    with pytest.raises(IncompleteDatasetError, match=r"manifest\.json: missing.*--allow-incomplete"):
        DatasetReader(root)                      # strict by default: no manifest, no read
    names = [p.name for p in list_shards(root, allow_incomplete=True)]
    assert names == ["shard-00000.parquet", "shard-00001.parquet"]
    reader = DatasetReader(root, allow_incomplete=True)
    assert len(reader) == 3 and not reader.check.complete


def test_reader_errors_say_what_exists(dataset, rows):
    reader = DatasetReader(dataset)
    with pytest.raises(RowNotFoundError) as err:
        reader.find(id="nope")
    assert "nope" in str(err.value) and all(r.id in str(err.value) for r in rows)
    with pytest.raises(RowNotFoundError) as err:
        reader.find(scenario="pause_handling")
    msg = str(err.value)
    assert "pause_handling" in msg
    assert all(s in msg for s in ("interruption_discard", "delegation", "proactive_timer"))
    with pytest.raises(RowNotFoundError, match=r"holds 3 rows \(0\.\.2\)"):
        reader.find(index=3)
    with pytest.raises(LookupError):       # RowNotFoundError is a LookupError too
        reader.find(index=-1)
    with pytest.raises(ValueError):
        reader.find(id=rows[0].id, index=0)


def test_reader_names_the_corrupt_shard(tmp_path, rows):
    root = write_dataset(tmp_path / "out", rows)
    bad = root / "shards" / "shard-00001.parquet"
    bad.write_bytes(b"PAR1 this is not a parquet file")
    with pytest.raises(IncompleteDatasetError) as err:        # sha256 differs: refused up front
        DatasetReader(root)
    assert f"{bad}: sha256 differs" in str(err.value)
    reader = DatasetReader(root, allow_incomplete=True)      # the other shard still reads
    assert reader.shards == [root / "shards" / "shard-00000.parquet"] and len(reader) == 2
    # a shard that passes the folder check but whose data is gone later is named when read
    (root / "shards" / "shard-00000.parquet").write_bytes(b"PAR1 this is not a parquet file")
    with pytest.raises(ShardError) as err:
        list(reader.iter_rows(columns=["id"]))
    assert err.value.path == root / "shards" / "shard-00000.parquet" and "shard-00000" in str(err.value)


def test_reader_folder_errors(tmp_path, rows):
    with pytest.raises(DatasetError, match="no such output folder"):
        DatasetReader(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="no trajectory shards"):
        DatasetReader(tmp_path / "empty")
    root = write_dataset(tmp_path / "out", rows)
    (root / "shards" / "shard-00000.parquet").unlink()
    with pytest.raises(IncompleteDatasetError, match=r"shard-00000\.parquet: listed in manifest\.json"):
        DatasetReader(root)
    (root / "manifest.json").write_text("{not json")
    with pytest.raises(DatasetError, match="manifest.json"):
        DatasetReader(root)


# -- the HTML page -------------------------------------------------------------------------------

def _lane_kinds(page: str) -> list[str]:
    return re.findall(r'<div class="lane[^"]*" data-kind="([a-z_]+)"', page)


@pytest.mark.parametrize("i", [0, 1, 2])
def test_page_has_one_lane_per_event_kind(rows, i):
    row = rows[i]
    page = render_html(row)
    kinds = {e.kind for e in row.events}
    lanes = _lane_kinds(page)
    assert Counter(lanes) == Counter(kinds)
    assert event_kinds(row) == lanes
    for kind in kinds:   # one item per event in its lane
        lane = page.split(f'data-kind="{kind}"', 1)[1].split('<div class="row', 1)[0]
        assert lane.count('<div class="item ') == sum(e.kind == kind for e in row.events)
    for w in row.words:
        assert f">{html.escape(w.word)}</span>" in page


def test_page_is_self_contained_and_reasonable(rows):
    page = render_html(rows[0])
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "@import" not in page and "url(http" not in page
    for name in ("user", "assistant", "mix"):
        assert re.search(rf'<audio id="audio-{name}" preload="auto" src="data:audio/flac;base64,', page)
    assert len(page) < 3_000_000


def test_page_shows_interruption_cut_and_unspoken_text(rows):
    row = rows[0]
    turn = find_truncated_turn(row)
    unspoken = attrs(turn)["unspoken_text"]
    assert unspoken
    page = render_html(row)
    assert f'<span class="txt">{html.escape(unspoken)}</span>' in page
    assert f"✂ cut {attrs(turn)['cut_s']:.2f} s" in page
    assert "⚡ discard" in page


def test_unit_output_is_drawn_in_the_next_window(rows):
    row = rows[1]
    page = render_html(row)
    for u in row.units:
        m = re.search(rf'<div class="unit-out (speak|listen)" data-index="{u.index}" '
                      rf'data-seek="([0-9.]+)" style="--s:([0-9.]+)', page)
        assert m and m.group(1) == u.decision
        assert float(m.group(2)) == float(m.group(3)) == (u.index + 1) * row.unit_s
        assert re.search(rf'<div class="unit" data-index="{u.index}" data-seek="{u.index}"', page)
    assert "no output yet" in page     # window 0 plays nothing


def test_delegate_backend_arrows_in_page_data(rows):
    page = render_html(rows[1])
    data = json.loads(re.search(r'<script type="application/json" id="preview-data">(.*?)</script>',
                                page, re.S).group(1))
    tasks = [attrs(e) for e in rows[1].events if e.kind == "backend"]
    assert tasks, "the delegation fixture has a result"
    assert [(a["task_id"], a["tool"], a["issued_s"], a["ready_s"]) for a in data["arrows"]] == [
        (t["task_id"], t["tool"], t["issued_s"], t["ready_s"]) for t in tasks]
    t = tasks[0]
    assert data["arrows"][0]["label"] == f"{t['task_id']} · {t['tool']} · {t['ready_s'] - t['issued_s']:.2f} s"


def test_mix_is_user_plus_assistant(rows):
    tracks = audio_tracks(rows[0])
    assert set(tracks) == {"user", "assistant", "mix"} and all(ext == "flac" for _, ext in tracks.values())
    dec = {k: sf.read(io.BytesIO(b), dtype="float32")[0] for k, (b, _) in tracks.items()}
    assert np.allclose(dec["mix"], np.clip(dec["user"] + dec["assistant"], -1, 1), atol=2 / 32768)
    assert tracks["user"][0] == rows[0].user_audio.bytes


def test_page_accepts_plain_dict_rows(dataset, rows):
    d = DatasetReader(dataset).get(index=0)
    assert _lane_kinds(render_html(d)) == _lane_kinds(render_html(rows[0]))


# -- PNG -----------------------------------------------------------------------------------------

def test_png_size_and_not_blank(rows):
    from PIL import Image

    for row in rows:
        png = render_png(row, width_px=1600)
        img = Image.open(io.BytesIO(png))
        assert img.format == "PNG"
        w, h = img.size
        assert w == 1600 and 300 <= h <= 1200
        px = np.asarray(img.convert("RGB")).astype(int)
        nonwhite = (px.sum(axis=2) < 3 * 245).mean()
        assert nonwhite > 0.05, f"{row.scenario}: only {nonwhite:.1%} of the figure is drawn"
        assert len(np.unique(px.reshape(-1, 3), axis=0)) > 100    # lanes in several colours
        # every lane colour of the row is present somewhere
        for kind in event_kinds(row):
            from pipeline.preview import KIND_STYLE
            c = np.array([int(KIND_STYLE[kind].color[i:i + 2], 16) for i in (1, 3, 5)])
            assert (np.abs(px - c).sum(axis=2) < 30).any(), kind


# -- CLI -----------------------------------------------------------------------------------------

def test_cli_is_wired_into_duplexsynth():
    from jobs.cli import build_parser

    args = build_parser().parse_args(["preview", "DIR", "--index", "1", "--out", "x.html"])
    assert args.func is preview_cmd.run and args.index == 1


def test_cli_writes_page_and_png(dataset, rows, tmp_path, capsys):
    out, png = tmp_path / "p" / "page.html", tmp_path / "p" / "fig.png"
    assert _cli(["preview", str(dataset), "--id", rows[1].id, "--out", str(out), "--png", str(png)]) == 0
    assert _lane_kinds(out.read_text()) == event_kinds(rows[1])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert rows[1].id in capsys.readouterr().out


def test_cli_audio_beside(dataset, rows, tmp_path):
    out = tmp_path / "page.html"
    assert _cli(["preview", str(dataset), "--index", "2", "--out", str(out), "--audio", "beside"]) == 0
    page = out.read_text()
    audio_bytes = 0
    for name in ("user", "assistant", "mix"):
        assert f'src="page.{name}.flac"' in page
        flac = (tmp_path / f"page.{name}.flac").read_bytes()
        assert flac[:4] == b"fLaC"
        audio_bytes += len(flac)
    # the page itself grows with the session (waveform bins, lanes), never with the audio: far below
    # what the three files would add as base64 (4/3 of their bytes)
    assert "base64," not in page and len(page) < 100_000 + 12_000 * rows[2].duration_s < audio_bytes * 4 / 3


def test_cli_errors(dataset, rows, tmp_path, capsys):
    assert _cli(["preview", str(dataset), "--scenario", "nope", "--out", str(tmp_path / "x.html")]) == 1
    err = capsys.readouterr().err
    assert "nope" in err and "delegation (1)" in err and "proactive_timer (1)" in err
    assert _cli(["preview", str(dataset), "--id", "zzz", "--png", str(tmp_path / "x.png")]) == 1
    err = capsys.readouterr().err
    assert "zzz" in err and all(r.id in err for r in rows)
    assert _cli(["preview", str(dataset)]) == 2
    assert "nothing to write" in capsys.readouterr().err
    assert _cli(["preview", str(dataset), "--gallery"]) == 2
    bad = write_dataset(tmp_path / "bad", rows)
    (bad / "shards" / "shard-00000.parquet").write_bytes(b"garbage")
    assert _cli(["preview", str(bad), "--index", "0", "--out", str(tmp_path / "y.html")]) == 1
    assert str(bad / "shards" / "shard-00000.parquet") in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists() and not (tmp_path / "y.html").exists()


def test_cli_gallery(dataset, rows, tmp_path):
    out = tmp_path / "gallery" / "index.html"
    assert _cli(["preview", str(dataset), "--gallery", "--out", str(out), "--width", "900"]) == 0
    index = out.read_text()
    cards = re.findall(r'<article class="card" data-scenario="([a-z_]+)">', index)
    assert cards == list(FAMILIES)
    for scenario, row in zip(cards, rows):
        page = out.parent / f"{scenario}.html"
        assert f'href="{scenario}.html"' in index and page.exists()
        assert f'src="{scenario}.png"' in index and (out.parent / f"{scenario}.png").exists()
        text = page.read_text()
        assert row.id in text and 'href="index.html"' in text
    # the gallery itself is tiny and points only at its neighbours
    assert len(index) < 50_000 and not re.search(r'(src|href)="(https?:)?//', index)


def test_data_uri_audio_decodes(rows):
    page = render_html(rows[2])
    b64 = re.search(r'id="audio-user" preload="auto" src="data:audio/flac;base64,([^"]+)"', page).group(1)
    assert base64.b64decode(b64) == rows[2].user_audio.bytes


def test_page_and_png_survive_odd_rows(rows):
    """A debugging tool must show broken data too: no audio, unknown kinds, non-JSON attrs, no units."""
    d = rows[0].model_dump()
    d["user_audio"] = {"bytes": b"", "path": None}
    d["assistant_audio"] = {"bytes": b"not audio", "path": None}
    d["events"].append({"id": "x1", "kind": "mystery", "role": "harness", "start_s": 1.0, "end_s": 2.0,
                        "text": "?", "attrs": "not json"})
    page = render_html(d)
    assert "missing audio: user, mix" in page and 'data-kind="mystery"' in page
    assert render_png(d)[:4] == b"\x89PNG"
    d.update(units=[], events=[], words=[])
    assert _lane_kinds(render_html(d)) == [] and render_png(d)[:4] == b"\x89PNG"
