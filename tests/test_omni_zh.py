"""Mandarin Omni rows: the zh visual lines (generators/banks/zh/visual.yaml) planned, rendered and validated.

Rows come from the real generator (tests/generated.py, `--language zh`); the named-object rule is
broken on a real zh row the way tests/test_omni_validate.py breaks it on an English one.
"""
from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

from generators.banks.loader import BANKS_DIR
from generators.scenes.bank import VisualBankError, read_visual_bank, visual_bank
from schemas.script import Script
from tests.generated import attrs
from tests.test_omni_validate import fact_of, fired, set_attrs

ZH = "zh"
_LATIN = re.compile("[A-Za-z]{2,}")


@pytest.mark.parametrize("scenario, seed", [("visual_qa", 7), ("visual_watch", 1), ("visual_change", 3)])
def test_zh_visual_rows_validate_and_say_what_the_frame_shows_in_mandarin(generated, scenario, seed):
    row = generated.row(scenario, seed, language=ZH)   # validated, the Omni rules included
    assert row.language == ZH and len(row.frames) == len(row.units) > 0
    assert all(Image.open(io.BytesIO(f)).format == "JPEG" for f in row.frames)
    bank, scene = visual_bank(ZH), Script.model_validate_json(row.script).scene
    by_id = {o.id: o for o in scene.objects}
    turns = {e.id: e for e in row.events if e.kind == "assistant_turn"}
    assert turns and not any(_LATIN.search(t.text) for t in turns.values())
    for ask in scene.asks:   # each answer is about its object: its Mandarin name, colour or text
        obj, said = by_id[ask.object], turns[ask.turn].text
        facts = {bank.label(obj.label), bank.colour_name(obj.colour)}
        facts |= {bank.text_of(obj.text)} if obj.text else set()
        if scenario == "visual_qa":
            assert any(f in said for f in facts), (said, facts)
        else:   # the watched or changed object is named by the answer, the announcement and the repair
            assert bank.label(obj.label) in said, (said, obj.label)


def test_a_zh_reply_naming_an_unshown_object_fires_the_named_object_rule(generated):
    row = generated.row("visual_watch", 1, language=ZH)
    ann = next(e for e in row.events if e.kind == "assistant_turn" and attrs(e)["trigger"] == "visual")
    name = visual_bank(ZH).label(attrs(fact_of(row, ann.id))["label"])
    assert name in ann.text   # "哎，公交车停下来了。" names the bus by its Mandarin name
    appears = next(e for e in row.events if e.kind == "visual" and attrs(e)["change"] == "appears"
                   and attrs(e)["label"] == attrs(fact_of(row, ann.id))["label"])
    set_attrs(appears, label="thing")   # no frame shows an object of the label the reply names
    # (the user's "tell me when the bus stops" is still fine: the question rule reads the drawn scene)
    assert fired(row) == {"omni_named_objects_shown"}


def test_a_zh_bank_missing_a_catalogue_word_names_the_entry(tmp_path: Path):
    path = tmp_path / "visual.yaml"
    shutil.copy(BANKS_DIR / ZH / "visual.yaml", path)
    path.write_text(path.read_text(encoding="utf-8").replace("    kettle: [水壶]\n", ""), encoding="utf-8")
    with pytest.raises(VisualBankError, match=r"visual.yaml: words.labels has no entry for 'kettle'"):
        read_visual_bank(path, ZH)
    path.write_text(path.read_text(encoding="utf-8").replace("    bowl: [碗]\n", "    kettle: [碗]\n    bowl: [碗]\n"),
                    encoding="utf-8")
    with pytest.raises(VisualBankError, match="both called '碗'"):
        read_visual_bank(path, ZH)
