"""Omni step 1: scenes as data, the scene planner, the frame renderer and the visual_qa family.

Rows come from the real generator (tests/generated.py); scenes from the real planner, and the
renderer, composer and loaders are the shipped ones. Where a test needs a situation the planner
draws rarely (a fact shown late), it edits a planned scene the way a different draw would have.
"""
from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from generators.banks.loader import BANKS_DIR
from generators.registry import families_for, missing_content, plan_script
from generators.scenes.bank import VisualBankError, read_visual_bank
from generators.scenes.catalog import CATALOG_FILE, CatalogError, read_catalog
from generators.scenes.planner import draw_scene
from pipeline.compose import ScheduleError, compose
from pipeline.frames import render_frame, render_frames
from schemas.config import ConfigError, RunConfig, TimingConfig, parse_config
from schemas.scene import DEFAULT_FRAME_SIZE, Change, SceneKind, VisualChange
from schemas.script import Script
from schemas.trajectory import attrs_of
from schemas.vocab import EventKind
from tests.generated import FAST_VOICES

SEEDS = (1, 4, 5, 7)   # text and colour questions, one and two of them


def _jpeg(blob: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(blob))
    im.load()
    assert im.format == "JPEG"
    return im


@pytest.mark.parametrize("seed", SEEDS)
def test_every_visual_row_has_one_jpeg_per_unit(generated, seed):
    row = generated.row("visual_qa", seed)   # validated, the Omni rules included
    assert len(row.frames) == len(row.units) > 0
    assert {_jpeg(f).size for f in row.frames} == {(DEFAULT_FRAME_SIZE, DEFAULT_FRAME_SIZE)}
    visual = [e for e in row.events if e.kind == EventKind.VISUAL]
    assert visual and all(e.start_s == attrs_of(e).unit * row.unit_s for e in visual)
    shown = {attrs_of(e).unit for e in visual}
    assert shown == {u.index for u in row.units if "visual_event" in u.labels}   # derived from the events
    stated = {t for e in visual for t in attrs_of(e).stated_by or []}
    assert stated == {e.id for e in row.events if e.kind == EventKind.ASSISTANT_TURN}


def test_visual_qa_is_not_in_the_default_mix_and_needs_a_visual_bank(monkeypatch):
    assert "visual_qa" not in RunConfig().scenarios
    assert missing_content("visual_qa", "en") == "" and missing_content("visual_qa", "zh") == ""
    monkeypatch.setattr("generators.registry.has_visual", lambda lang: lang != "zh")   # a bank without visual.yaml
    assert "visual.yaml" in missing_content("visual_qa", "zh")
    assert "visual_qa" not in families_for("zh")


def test_frames_are_a_function_of_scene_seed_and_size():
    scene = draw_scene(np.random.default_rng(3), early=2, need_text=True)
    a = render_frames(scene, 4, 448, seed=11)
    assert a == render_frames(scene, 4, 448, seed=11)
    assert a != render_frames(scene, 4, 448, seed=12)   # per-frame jitter, flicker and noise
    assert {_jpeg(f).size for f in render_frames(scene, 2, 224, seed=11)} == {(224, 224)}


def test_an_object_is_in_the_frames_from_its_appearance_on():
    scene = plan_script("visual_qa", 7, TimingConfig()).scene
    # at rest (no state): an object in a motion state is drawn further along each frame (schemas/scene.travel)
    obj = scene.objects[0].model_copy(update={"timeline": (Change(unit=2, change=VisualChange.APPEARS),),
                                              "state": None})
    still = scene.render.model_copy(update={"jitter_px": 0.0, "flicker": 0.0, "noise": 0.0, "blur": 0.0, "light": (1.0, 0.0)})
    alone = scene.model_copy(update={"objects": (obj,), "render": still, "asks": ()})
    f = [render_frame(alone, k, 448, seed=0) for k in range(4)]
    assert f[0] == f[1] != f[2] == f[3]


def test_an_answer_waits_for_the_frame_that_shows_its_fact(espeak):
    script = plan_script("visual_qa", 5, TimingConfig(), voices=FAST_VOICES)   # composed with espeak below
    ask = script.scene.asks[0]
    late = 6   # the object now comes into view at unit 6, after the question
    objs = tuple(o.model_copy(update={"timeline": (Change(unit=late, change=VisualChange.APPEARS),)})
                 if o.id == ask.object else o for o in script.scene.objects)
    tl = compose(script.model_copy(update={"scene": script.scene.model_copy(update={"objects": objs})}),
                 espeak, 16000, 1.0)
    turn = next(e for e in tl.events if e.id == ask.turn)
    fact = next(e for e in tl.events if e.kind == EventKind.VISUAL and ask.turn in (attrs_of(e).stated_by or []))
    assert attrs_of(fact).unit == late and int(turn.start_s) == late + 1
    early = compose(script, espeak, 16000, 1.0)
    assert next(e for e in early.events if e.id == ask.turn).start_s < turn.start_s


def test_scenes_vary_in_what_layout_could_give_away():
    scripts = [plan_script("visual_qa", s, TimingConfig()) for s in range(40)]
    kinds = {s.scene.kind for s in scripts}
    asked = [(s.scene, s.scene.object(a.object)) for s in scripts for a in s.scene.asks]
    assert kinds == set(SceneKind)
    assert len({o.colour for _, o in asked}) >= 6
    assert np.std([o.box.x for _, o in asked]) > 0.15 and np.std([o.box.y for _, o in asked]) > 0.05
    # the asked object is not always the front-most one, and the look of the frames varies
    assert 0 < sum(sc.objects[-1].id == o.id for sc, o in asked) < len(asked)
    assert len({sc.render.jpeg_quality for sc, _ in asked}) >= 10
    assert any(sc.render.occluder is not None for sc, _ in asked)


def test_frame_size_is_configurable_and_checked():
    assert "vision" not in RunConfig().model_dump()   # the default dumps (and hashes) as before frames
    assert RunConfig(vision={"frame_size": 224}).vision.frame_size == 224
    with pytest.raises(ConfigError) as info:
        parse_config({"vision": {"frame_size": 10}})
    assert "vision.frame_size" in str(info.value) and "\n" not in str(info.value)


def test_a_bad_catalogue_names_the_file_and_entry(tmp_path: Path):
    bad = tmp_path / "scenes.yaml"
    bad.write_text(CATALOG_FILE.read_text().replace("colours: [red, blue, green, yellow, white, black, pink]",
                                                    "colours: [red, mauve]", 1))
    with pytest.raises(CatalogError, match=r"scenes.yaml: .*kitchen\.mug: colour 'mauve'"):
        read_catalog(bad)


def test_a_bad_visual_bank_names_the_file_and_entry(tmp_path: Path):
    shutil.copy(BANKS_DIR / "en" / "visual.yaml", tmp_path / "visual.yaml")
    path = tmp_path / "visual.yaml"
    path.write_text(path.read_text().replace('"It says {text}."', '"It says {txt}."', 1))
    with pytest.raises(VisualBankError, match=r"visual.yaml: text.answer\[0\]: slot \{txt\}"):
        read_visual_bank(path, "en")
    path.write_text((BANKS_DIR / "en" / "visual.yaml").read_text().replace(
        '"The {label} is {colour}."', '"The {label} {label} is {colour}."', 1))
    with pytest.raises(VisualBankError, match=r"colour.answer\[1\].*repeated_word"):
        read_visual_bank(path, "en")


def test_preview_shows_one_frame_per_unit_in_its_window(generated):
    import re

    from pipeline.preview import render_html
    row = generated.row("visual_qa", 7)
    page = render_html(row)
    cells = re.findall(r'data-index="(\d+)" data-seek="([\d.]+)"[^>]*><img alt="frame (\d+)"', page)
    assert [int(k) for k, _, _ in cells] == [int(f) for _, _, f in cells] == list(range(len(row.units)))
    assert all(float(t) == int(k) * row.unit_s for k, t, _ in cells)   # frame k sits in window k
    assert 'alt="frame' not in render_html(generated.situation("turn_taking"))


def test_visual_watch_speaks_up_in_the_window_after_the_watched_frame(generated):
    row = generated.row("visual_watch", 1)   # validated: "tell me when the bus stops"
    assert len(row.frames) == len(row.units)
    ann = next(e for e in row.events if e.kind == EventKind.ASSISTANT_TURN and attrs_of(e).trigger == "visual")
    fact = next(e for e in row.events if e.kind == EventKind.VISUAL and ann.id in (attrs_of(e).stated_by or []))
    k = attrs_of(fact).unit
    assert attrs_of(fact).change == VisualChange.CHANGES_STATE and attrs_of(fact).value in ann.text
    assert int(ann.start_s // row.unit_s) == k + 1                       # the earliest window the rule allows
    assert "proactive" in row.units[k].labels and "visual_event" in row.units[k].labels
    assert all(u.decision == "listen" for u in row.units[k - 2:k])      # silent while it waits


def test_a_bad_visual_change_bank_names_the_entry(tmp_path: Path):
    path = tmp_path / "visual.yaml"
    good = (BANKS_DIR / "en" / "visual.yaml").read_text()
    path.write_text(good.replace('"{then}.", ', '"{then}. Trust me.", ', 1))   # a repair resumes by sentence
    with pytest.raises(VisualBankError, match=r"change.answer\[2\]\[0\].*not exactly one sentence"):
        read_visual_bank(path, "en")
    path.write_text(good.replace("to: [closed]}", "to: [shut]}", 1))
    with pytest.raises(VisualBankError, match=r"change.texts.open: flips to 'shut'"):
        read_visual_bank(path, "en")


# (seed, what changes): validated rows; the sign flips from open to closed, the bus stops
CHANGE_SEEDS = ((3, VisualChange.TEXT_CHANGES), (4, VisualChange.CHANGES_STATE))


@pytest.mark.parametrize(("seed", "kind"), CHANGE_SEEDS)
def test_visual_change_cuts_the_stale_answer_after_the_changing_frame_and_repairs_it(generated, seed, kind):
    row = generated.row("visual_change", seed)
    turns = [e for e in row.events if e.kind == EventKind.ASSISTANT_TURN]
    stale, repair = turns
    a, r = attrs_of(stale), attrs_of(repair)
    change = next(e for e in row.events if e.id == a.cut_by)
    k, c = attrs_of(change).unit, attrs_of(change)
    assert c.change == kind and repair.id in c.stated_by and r.trigger == "visual_change"
    assert a.interrupted and a.action == "repair" and a.cut_s == (k + 1) * row.unit_s   # the reaction window
    assert stale.start_s < k * row.unit_s                                # the change comes mid-answer
    assert row.units[k].decision == "listen" and {"stop_repair", "visual_event"} <= set(row.units[k].labels)
    assert "proactive" in row.units[k + 1].labels and int(repair.start_s // row.unit_s) == k + 2
    assert c.value in repair.text and c.value not in stale.text + " " + a.unspoken_text   # the new fact, after the cut
    script = Script.model_validate_json(row.script)
    assert script.scene.object(c.object).first(kind).unit == k   # the stored scene is the one placed
    # the frames draw it: frame k differs from the same scene with the change a frame later, frame k-1 does not
    later = tuple(o.model_copy(update={"timeline": tuple(ch.model_copy(update={"unit": k + 1}) if ch.change == kind
                                                         else ch for ch in o.timeline)})
                  if o.id == c.object else o for o in script.scene.objects)
    moved = script.scene.model_copy(update={"objects": later})
    assert render_frame(script.scene, k, 224, row.seed) != render_frame(moved, k, 224, row.seed)
    assert render_frame(script.scene, k - 1, 224, row.seed) == render_frame(moved, k - 1, 224, row.seed)


def test_visual_change_is_opt_in():
    assert "visual_change" not in RunConfig().scenarios
    assert missing_content("visual_change", "en") == "" and missing_content("visual_change", "zh") == ""


def test_a_change_that_cuts_no_assistant_turn_is_refused(espeak):
    script = plan_script("visual_change", 3, TimingConfig(), voices=FAST_VOICES)
    cut = script.scene.cuts[0].model_copy(update={"turn": "u1"})   # the user's question, not the answer
    bad = script.model_copy(update={"turns": script.turns[:2],
                                    "scene": script.scene.model_copy(update={"cuts": (cut,)})})
    with pytest.raises(ScheduleError, match="cuts turn u1, which is no assistant turn"):
        compose(bad, espeak, 16000, 1.0)
