"""Real video import (scene_source kind video): annotated video files become visual_qa / visual_watch scenes.

The videos are made here with the ffmpeg binary the pipeline decodes with (imageio-ffmpeg): a grey
desk, a sign whose text "OPEN" is printed from 2 s, and a lamp (a square in the middle of the frame)
that appears red at 3 s and turns green (on) at 16 s. Rows come from the real planner and renderer
and pass validate (rule 4 by re-composition included); frame k must show the video at start + k s.
"""
from __future__ import annotations

import io
import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from generators.registry import plan_trajectory
from generators.scenes.video import ffmpeg_exe, pin_videos
from jobs.cli import main as cli_main
from jobs.runner import generate
from pipeline.render import render_trajectory
from pipeline.validate import validate_row
from pipeline.video import VideoError
from schemas.config import ConfigError, RunConfig, SceneSourceConfig, parse_config
from schemas.scene import DEFAULT_FRAME_SIZE, Change, Scene, VisualChange
from schemas.script import Script
from schemas.trajectory import attrs_of
from schemas.vocab import EventKind
from tests.generated import FAST_VOICES

FPS, W, H = 10, 160, 120
GREY, RED, GREEN = (90, 90, 90), (220, 30, 30), (30, 200, 30)
LAMP_APPEARS_S, LAMP_ON_S, SIGN_READABLE_S = 3.0, 16.0, 2.0
VIDEO_S = 32.0


def _encode(path: Path, seconds: float, lamp: bool = True) -> None:
    """A libx264 video of the desk: the sign from 0 s (its text from SIGN_READABLE_S), the lamp as the docstring says."""
    frames = []
    for k in range(int(seconds * FPS)):
        t = k / FPS
        im = Image.new("RGB", (W, H), GREY)
        d = ImageDraw.Draw(im)
        d.rectangle((25, 20, 58, 40), fill=(240, 240, 240))
        if t >= SIGN_READABLE_S:
            d.text((28, 24), "OPEN", fill=(0, 0, 0))
        if lamp and t >= LAMP_APPEARS_S:
            d.rectangle((60, 40, 100, 80), fill=RED if t < LAMP_ON_S else GREEN)
        frames.append(np.asarray(im))
    subprocess.run([ffmpeg_exe(), "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{W}x{H}",
                    "-r", str(FPS), "-i", "-", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", str(path)],
                   input=np.stack(frames).tobytes(), check=True)


def _annotations(video: str) -> list[dict]:
    common = {"video": video, "place": "desk", "scene": "desk"}
    return [
        {**common, "t_s": 0.0, "kind": "appears", "object": "sign", "colour": "white", "description": "a white sign"},
        {**common, "t_s": SIGN_READABLE_S, "kind": "text_readable", "object": "sign", "text": "open",
         "description": "the sign reads OPEN"},
        {**common, "t_s": LAMP_APPEARS_S, "kind": "appears", "object": "lamp", "colour": "red", "state": "off",
         "description": "a red lamp on the desk"},
        {**common, "t_s": LAMP_ON_S, "kind": "changes_state", "object": "lamp", "state": "on",
         "description": "the lamp turns green: it is on"},
    ]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("videos")
    (root / "vids").mkdir()
    _encode(root / "vids" / "desk.mp4", VIDEO_S)
    _write(root / "ann.jsonl", _annotations("desk.mp4"))
    return root


def _cfg(root: Path, ann: str = "ann.jsonl", vids: str = "vids") -> RunConfig:
    return RunConfig(voices=FAST_VOICES, scenarios={"visual_qa": 1.0, "visual_watch": 1.0, "visual_change": 1.0},
                     scene_source=SceneSourceConfig(kind="video", path=root / vids, annotations=root / ann))


def _colour_at(t: float) -> tuple[int, int, int]:
    return GREY if t < LAMP_APPEARS_S else RED if t < LAMP_ON_S else GREEN


@pytest.fixture(scope="module")
def rows(library, espeak):
    cfg = _cfg(library)
    out = {}
    for scenario, seed in (("visual_qa", 3), ("visual_watch", 1), ("visual_change", 0)):
        row = render_trajectory(cfg=cfg, traj_id=scenario, script=plan_trajectory(cfg, scenario, seed), tts=espeak)
        out[scenario] = row
    return out


@pytest.mark.parametrize("scenario", ["visual_qa", "visual_watch", "visual_change"])
def test_video_rows_validate_and_frame_k_is_the_video_at_start_plus_k(rows, scenario, espeak):
    row = rows[scenario]
    assert validate_row(row, recompose=True, tts=espeak) == []
    scene = Script.model_validate_json(row.script).scene
    assert scene is not None and scene.video is not None and scene.render is None
    assert scene.video.file == "desk.mp4" and scene.video.start_s == int(scene.video.start_s)
    start = scene.video.start_s
    assert len(row.frames) == len(row.units)
    for k, blob in enumerate(row.frames):
        im = Image.open(io.BytesIO(blob))
        assert im.format == "JPEG" and im.size == (DEFAULT_FRAME_SIZE, DEFAULT_FRAME_SIZE)
        got = np.asarray(im.convert("RGB"))[DEFAULT_FRAME_SIZE // 2, DEFAULT_FRAME_SIZE // 2].astype(int)
        assert np.abs(got - _colour_at(start + k)).max() < 40, (k, start, got)
    # each annotated event is a visual event at the unit of the first frame showing it
    units = {(attrs_of(e).label, attrs_of(e).change): attrs_of(e).unit for e in row.events if e.kind == EventKind.VISUAL}
    want = {("sign", VisualChange.APPEARS): 0, ("lamp", VisualChange.APPEARS): max(0, math.ceil(LAMP_APPEARS_S - start)),
            ("lamp", VisualChange.CHANGES_STATE): math.ceil(LAMP_ON_S - start),
            ("sign", VisualChange.TEXT_READABLE): max(0, math.ceil(SIGN_READABLE_S - start))}
    assert units == {k: v for k, v in want.items() if v < len(row.units)}


def test_video_lines_say_the_annotation_and_follow_its_frame(rows):
    qa, watch = rows["visual_qa"], rows["visual_watch"]
    visual = {e.id: e for e in watch.events if e.kind == EventKind.VISUAL}
    on = next(e for e in visual.values() if attrs_of(e).change == VisualChange.CHANGES_STATE)
    assert on.text == "the lamp turns green: it is on"   # the annotation's description
    announce = next(e for e in watch.events if e.id in (attrs_of(on).stated_by or []))
    assert "lamp is on" in announce.text and announce.start_s >= (attrs_of(on).unit + 1) * watch.unit_s
    asked = [e for e in qa.events if e.kind == EventKind.VISUAL and attrs_of(e).stated_by]
    assert asked
    for e in asked:   # the answer says the annotated colour or text
        a = attrs_of(e)
        said = " ".join(x.text for x in qa.events if x.id in a.stated_by).lower()
        assert ("open" if a.change == VisualChange.TEXT_READABLE else "white") in said


def test_a_video_change_cuts_the_answer_at_the_frame_the_segment_puts_it_in(rows):
    """visual_change: composition starts the segment so the video's change falls inside the answer; the
    answer is cut at the start of the window after that frame and repaired with the new state."""
    row = rows["visual_change"]
    on = next(e for e in row.events if e.kind == EventKind.VISUAL and attrs_of(e).change == VisualChange.CHANGES_STATE)
    start = Script.model_validate_json(row.script).scene.video.start_s
    assert attrs_of(on).unit == math.ceil(LAMP_ON_S - start)   # the row's scene is the placed one
    cut = next(e for e in row.events if e.kind == EventKind.ASSISTANT_TURN and attrs_of(e).cut_by == on.id)
    assert attrs_of(cut).cut_s == (attrs_of(on).unit + 1) * row.unit_s and "is off" in cut.text
    repair = next(e for e in row.events if e.id in attrs_of(on).stated_by and e.id != cut.id)
    assert "lamp is on" in repair.text and repair.start_s >= attrs_of(cut).cut_s


def test_no_question_about_a_fact_the_video_later_changes(library):
    """The lamp is red when it appears and green once on: "it's red" could be said after frame 9, so its
    colour is never asked about; the sign's colour and text never change, so they are."""
    cfg = _cfg(library)
    asked = {(a.object, a.change) for seed in range(12)
             for a in plan_trajectory(cfg, "visual_qa", seed).scene.asks}
    assert ("lamp", VisualChange.APPEARS) not in asked
    assert {("sign", VisualChange.APPEARS), ("sign", VisualChange.TEXT_READABLE)} <= asked


def test_same_seed_same_bytes_and_the_videos_join_the_config_hash(library, rows, espeak, tmp_path):
    cfg = _cfg(library)
    again = render_trajectory(cfg=cfg, traj_id="visual_qa", script=plan_trajectory(cfg, "visual_qa", 3), tts=espeak)
    assert again.frames == rows["visual_qa"].frames and again.script == rows["visual_qa"].script
    pinned = pin_videos(cfg)
    assert pinned.scene_source.videos_sha256 is not None and pinned.config_hash() != cfg.config_hash()
    assert RunConfig().model_dump(mode="json").get("scene_source") is None   # procedural: hashes as before
    # the same annotations over another copy of the video whose bytes differ: the pin refuses it
    other = tmp_path / "vids"
    other.mkdir()
    _encode(other / "desk.mp4", 17.0)
    moved = pinned.model_copy(update={"scene_source": pinned.scene_source.model_copy(update={"path": other})})
    with pytest.raises(ConfigError, match="videos_sha256"):
        pin_videos(moved)


def test_a_video_shorter_than_the_trajectory_fails_naming_the_file(tmp_path, espeak):
    (tmp_path / "vids").mkdir()
    _encode(tmp_path / "vids" / "short.mp4", 4.0, lamp=False)
    _write(tmp_path / "ann.jsonl", _annotations("short.mp4")[:2])
    cfg = RunConfig(voices=FAST_VOICES, scenarios={"visual_qa": 1.0},
                    scene_source=SceneSourceConfig(kind="video", path=tmp_path / "vids", annotations=tmp_path / "ann.jsonl"))
    script = plan_trajectory(cfg, "visual_qa", 3)
    with pytest.raises(VideoError, match=r"^short\.mp4: the trajectory needs \d+ frames .* holds 4 s"):
        render_trajectory(cfg=cfg, traj_id="x", script=script, tts=espeak)


@pytest.mark.parametrize("case, match", [
    ("missing_video", r"ann\.jsonl:1: video: no file nope\.mp4 in "),
    ("past_end", r"ann\.jsonl:4: t_s: 40\.0 s is past the end of desk\.mp4 \(32\.000 s\)"),
    ("unreadable", r"scene_source\.path: junk\.mp4 is not a readable video"),
    ("bad_kind", r"ann\.jsonl:1: kind: "),
    ("no_watchable", r"no object in ann\.jsonl can be watched in visual_watch"),
    ("nothing_changes", r"no object in ann\.jsonl changes in a way visual_change can say"),
    ("procedural_family", r"scenarios: visual_interruption draw procedural scenes only; a video scene_source serves"),
    ("zh", r"scene_source: video annotations are said as written .* a video run is English only, not zh"),
])
def test_bad_video_input_is_refused_in_one_line_before_anything_is_written(library, tmp_path, case, match):
    recs = _annotations("desk.mp4")
    vids = "vids"
    if case == "missing_video":
        recs = [{**recs[0], "video": "nope.mp4"}]
    elif case == "past_end":
        recs[3] = {**recs[3], "t_s": 40.0}
    elif case == "unreadable":
        (tmp_path / "vids").mkdir()
        (tmp_path / "vids" / "junk.mp4").write_bytes(bytes(range(256)) * 20)
        recs = [{**r, "video": "junk.mp4"} for r in recs]
        vids = str(tmp_path / "vids")
    elif case == "bad_kind":
        recs = [{**recs[0], "kind": "explodes"}]
    elif case in ("no_watchable", "nothing_changes"):
        recs = recs[:3]
    _write(tmp_path / "ann.jsonl", recs)
    families = {"visual_qa": 1.0, "visual_change" if case == "nothing_changes" else "visual_watch": 1.0}
    if case == "procedural_family":
        families["visual_interruption"] = 1.0
    cfg = RunConfig(voices=FAST_VOICES, scenarios=families, languages={"en": 0.5, "zh": 0.5} if case == "zh" else None,
                    scene_source=SceneSourceConfig(kind="video", path=library / vids, annotations=tmp_path / "ann.jsonl"))
    with pytest.raises(ConfigError, match=match) as err:
        generate(cfg, tmp_path / "out", progress=False)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "out").exists()


def test_config_refusals_name_the_field(library):
    src = {"kind": "video", "path": str(library / "vids"), "annotations": str(library / "ann.jsonl")}
    with pytest.raises(ConfigError, match="scene_source.path: video folder not found"):
        parse_config({"scene_source": {**src, "path": str(library / "none")}})
    with pytest.raises(ConfigError, match="scene_source.annotations: annotation file not found"):
        parse_config({"scene_source": {**src, "annotations": str(library / "none.jsonl")}})
    with pytest.raises(ConfigError, match="scene_source: path is only for kind video"):
        parse_config({"scene_source": {"path": str(library / "vids")}})


def test_cli_exits_non_zero_with_one_line(library, tmp_path, capfd):
    _write(tmp_path / "ann.jsonl", [{**_annotations("desk.mp4")[0], "video": "nope.mp4"}])
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"voices: {{cast: espeak}}\nscenarios: {{visual_qa: 1}}\nscene_source: {{kind: video, path: "
                   f"{library / 'vids'}, annotations: {tmp_path / 'ann.jsonl'}}}\n")
    rc = cli_main(["generate", "--config", str(cfg), "--num", "2", "--out", str(tmp_path / "out")])
    err = capfd.readouterr().err
    assert rc != 0 and err.strip().count("\n") == 0 and "Traceback" not in err
    assert "ann.jsonl:1: video: no file nope.mp4" in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("field, value, line", [
    ("object", "giraffe", 3),    # no giraffe in the catalogue: "The giraffe is purple." is never said
    ("colour", "mauve", 1),
    ("state", "sleeping", 4),
])
def test_an_annotation_the_lines_cannot_say_is_refused_at_its_line(library, tmp_path, capfd, field, value, line):
    """Objects, colours and states come from the vocabulary the lines say (scenes.yaml, visual.yaml), or
    the annotation is refused naming file:line, through the CLI with a non-zero exit and no traceback."""
    recs = _annotations("desk.mp4")
    recs[line - 1] = {**recs[line - 1], field: value}
    if field == "object":   # the whole object renamed, so only the vocabulary is wrong
        recs[line] = {**recs[line], "object": value}
    _write(tmp_path / "ann.jsonl", recs)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"voices: {{cast: espeak}}\nscenarios: {{visual_qa: 1}}\nscene_source: {{kind: video, path: "
                   f"{library / 'vids'}, annotations: {tmp_path / 'ann.jsonl'}}}\n")
    rc = cli_main(["generate", "--config", str(cfg), "--num", "2", "--out", str(tmp_path / "out")])
    err = capfd.readouterr().err
    assert rc != 0 and err.strip().count("\n") == 0 and "Traceback" not in err, err
    assert f"ann.jsonl:{line}: {field}: {value!r} is not one the lines can say" in err
    assert not (tmp_path / "out").exists()


def test_every_video_question_names_an_object_frame_0_shows(library):
    """The user's first words name the object asked about or watched: every segment starts with it in view."""
    cfg = _cfg(library)
    for scenario in ("visual_qa", "visual_watch", "visual_change"):
        for seed in range(8):
            scene = plan_trajectory(cfg, scenario, seed).scene
            for obj in {a.object for a in scene.asks}:
                assert scene.object(obj).timeline[0].unit == 0, (scenario, seed, obj)


def test_a_colour_said_after_the_video_shows_a_change_of_state_is_refused(library, espeak):
    """An annotated colour is the look an object appears with: once the video shows it change state (a
    lamp turning on turns green), saying that colour is refused (omni_said_colour), as the planner's
    STALES never asks it."""
    cfg = _cfg(library)
    seed = next(s for s in range(12) if any(a.change == VisualChange.APPEARS
                                           for a in plan_trajectory(cfg, "visual_qa", s).scene.asks))
    row = render_trajectory(cfg=cfg, traj_id="qa", script=plan_trajectory(cfg, "visual_qa", seed), tts=espeak)
    assert validate_row(row, expect_tokens=False) == []
    script = Script.model_validate_json(row.script)
    ask = next(a for a in script.scene.asks if a.change == VisualChange.APPEARS)
    turn = next(e for e in row.events if e.id == ask.turn)
    obj = script.scene.object(ask.object)
    assert obj.colour in turn.text.lower()
    r = int(turn.start_s // row.unit_s) - 1   # the last frame the answer's first unit has read
    change = Change(unit=r, change=VisualChange.CHANGES_STATE, state="on")
    timeline = tuple(sorted((*obj.timeline, change), key=lambda c: c.unit))
    objs = tuple(o.model_copy(update={"timeline": timeline}) if o.id == obj.id else o for o in script.scene.objects)
    scene = Scene.model_validate(script.scene.model_copy(update={"objects": objs}).model_dump())
    row.script = script.model_copy(update={"scene": scene}).model_dump_json()
    bad = validate_row(row, expect_tokens=False)
    assert {v.rule for v in bad} == {"omni_said_colour"} and f"changed state in frame {r}" in bad[0].message
