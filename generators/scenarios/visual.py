"""Visual question answering (Omni): the user asks about what the camera shows, the assistant answers from it.

The planner draws a scene (generators/scenes) whose first objects appear in the first frames,
and asks one or two questions about them: an object's colour (shown by the frame it appears in)
or what its text says (shown by the frame from which it is readable). Each answer names the
asked object and states only its fact, and records which frame shows it (`VisualAsk`), so
composition starts it no earlier than the window after that frame (DESIGN §6).
"""
from __future__ import annotations

from generators.banks.engine import render_rng
from generators.common import Planner
from generators.scenes.bank import QA, visual_bank
from generators.scenes.planner import draw_scene, keep_visible, overlap, with_asks
from schemas.scene import Scene, SceneObject, VisualAsk, VisualChange
from schemas.script import ScriptTurn

EARLY_OBJECTS = 3   # objects that appear in the first frames: what questions may be about
TWO_QUESTIONS_PROB = 0.7


def _question(p: Planner, scene: Scene, obj: SceneObject) -> tuple[QA, dict[str, str], VisualChange]:
    """What to ask about `obj`: its text when it has some (mostly), else its colour."""
    bank = visual_bank(p.lang.code)
    slots = {"label": obj.label, "place": scene.place, "colour": obj.colour}
    if obj.text is not None and p.rng.random() < 0.8:
        return bank.text, {**slots, "text": obj.text}, VisualChange.TEXT_READABLE
    return bank.colour, slots, VisualChange.APPEARS


def _apart(a: SceneObject, b: SceneObject) -> bool:
    boxes = lambda o: [o.box, *(c.box for c in o.timeline if c.box is not None)]  # noqa: E731
    return all(overlap(x, y) == 0 for x in boxes(a) for y in boxes(b))


def plan(p: Planner) -> tuple[str, list[ScriptTurn]]:
    scene = draw_scene(p.rng, early=EARLY_OBJECTS, need_text=p.rng.random() < 0.6)
    early = {f"o{i + 1}" for i in range(EARLY_OBJECTS)}
    candidates = [o for o in scene.objects if o.id in early]
    first = candidates[int(p.rng.integers(len(candidates)))]
    asked = [first]
    others = [o for o in candidates if o is not first and _apart(o, first)]
    if others and p.rng.random() < TWO_QUESTIONS_PROB:
        asked.append(others[int(p.rng.integers(len(others)))])
    turns: list[ScriptTurn] = []
    asks: list[VisualAsk] = []
    for obj in asked:
        qa, slots, change = _question(p, scene, obj)
        turns.append(p.user(render_rng(p.rng, qa.ask, slots)))
        answer = p.assistant(render_rng(p.rng, qa.answer, slots))
        turns.append(answer)
        asks.append(VisualAsk(turn=answer.id, object=obj.id, change=change))
    p.scene = with_asks(keep_visible(scene, {o.id for o in asked}), asks)
    return f"visual_{scene.kind}", turns
