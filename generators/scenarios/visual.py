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
from generators.scenes.planner import (draw_scene, keep_visible, overlap, state_targets, with_asks,
                                       with_state_change)
from schemas.scene import Box, Scene, SceneObject, VisualAsk, VisualChange
from schemas.script import ScriptTurn
from schemas.vocab import Trigger

EARLY_OBJECTS = 3   # objects that appear in the first frames: what questions may be about
TWO_QUESTIONS_PROB = 0.7
WATCH_AFTER = (6, 13)   # the watched change comes this many frames after the first frame


def _question(p: Planner, scene: Scene, obj: SceneObject) -> tuple[QA, dict[str, str], VisualChange]:
    """What to ask about `obj`: its text when it has some (mostly), else its colour."""
    bank = visual_bank(p.lang.code)
    slots = {"label": obj.label, "place": scene.place, "colour": obj.colour}
    if obj.text is not None and p.rng.random() < 0.8:
        return bank.text, {**slots, "text": obj.text}, VisualChange.TEXT_READABLE
    return bank.colour, slots, VisualChange.APPEARS


def _boxes(o: SceneObject) -> list[Box]:
    return [o.box, *(c.box for c in o.timeline if c.box is not None)]


def _apart(a: SceneObject, b: SceneObject) -> bool:
    """No frame shows the two overlapping (both can be asked about and stay in plain view)."""
    return all(overlap(x, y) == 0 for x in _boxes(a) for y in _boxes(b))


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


def plan_watch(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """"Tell me when the kettle boils": the assistant acknowledges, then speaks up unprompted in the
    window after the frame that first shows the change (a proactive visual trigger)."""
    watch = visual_bank(p.lang.code).watch
    scene = draw_scene(p.rng, early=EARLY_OBJECTS, need_states=tuple(watch.states))
    early = {f"o{i + 1}" for i in range(EARLY_OBJECTS)}
    watchable = [o for o in scene.objects if o.id in early and set(state_targets(scene, o)) & set(watch.states)]
    obj = watchable[int(p.rng.integers(len(watchable)))]
    targets = [s for s in state_targets(scene, obj) if s in watch.states]
    state = targets[int(p.rng.integers(len(targets)))]
    scene = with_state_change(scene, obj.id, int(p.rng.integers(*WATCH_AFTER)), state)
    slots = {"label": obj.label, "when": watch.states[state].when, "now": watch.states[state].now}
    ack = p.assistant(render_rng(p.rng, watch.ack, slots))
    announce = p.assistant(render_rng(p.rng, watch.announce, slots), trigger=Trigger.VISUAL)
    turns = [p.user(render_rng(p.rng, watch.ask, slots)), ack, announce]
    asks = [VisualAsk(turn=announce.id, object=obj.id, change=VisualChange.CHANGES_STATE)]
    p.scene = with_asks(keep_visible(scene, {obj.id}), asks)
    return f"visual_{scene.kind}", turns
