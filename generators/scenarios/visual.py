"""Visual question answering (Omni): the user asks about what the camera shows, the assistant answers from it.

The planner draws a scene (generators/scenes) whose first objects appear in the first frames,
and asks one or two questions about them: an object's colour (shown by the frame it appears in)
or what its text says (shown by the frame from which it is readable). Each answer names the
asked object and states only its fact, and records which frame shows it (`VisualAsk`), so
composition starts it no earlier than the window after that frame (DESIGN §6).
`plan_watch` (visual_watch) and `plan_change` (visual_change) add a change to the scene: one the user
asked to be told about, one that makes an answer stale while it is spoken. `plan_correct`
(visual_interruption) is interruption_repair about the scene: the user cuts in to say they meant
another object, and the repair answers about that one. `plan_lookup` (visual_delegation) is
delegation about the scene: the assistant reads a flight code off a ticket and looks it up.
With a video scene source (`p.videos`), each family takes a segment of an annotated video instead
(generators/scenes/video.py): the object asked about, its colour, text or state, and the frame that
first shows it are the annotation's, and the segment start is drawn from the seed (for visual_change,
composition then starts it later, so the video's change falls inside the answer).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from generators.banks.engine import new_seed, render, render_rng
from generators.common import Planner
from generators import text_bank as tb
from generators.scenarios.delegation import act_on, task_for
from generators.scenarios.interruption import cut_in
from generators.scenes.bank import QA, Fact, visual_bank
from generators.scenes.video import STALES, pick_change, pick_fact, pick_watch, segment_scene
from generators.scenes.planner import (draw_scene, drawn_boxes, keep_visible, overlap, shown_from_start, shown_texts,
                                       state_targets, with_asks, with_prop, with_state_change, with_text_change)
from schemas.replace import replace
from schemas.scene import Scene, SceneKind, SceneObject, VisualAsk, VisualChange, VisualCut
from schemas.script import Continuation, ScriptTurn
from schemas.vocab import InterruptAction, Trigger

EARLY_OBJECTS = 3   # objects that appear in the first frames: what questions may be about
TWO_QUESTIONS_PROB = 0.7
WATCH_AFTER = (6, 13)   # the watched change comes this many frames after the first frame
CHANGE_AT = (0.4, 0.8)  # visual_change: where in the answer's audio the frame showing the change falls
TEXT_CHANGE_PROB = 0.5  # a text flipping (a sign, a screen) rather than a state changing (a light)


def _question(p: Planner, scene: Scene, obj: SceneObject) -> tuple[QA, dict[str, str], VisualChange]:
    """What to ask about `obj`: its text when it has some (mostly), else its colour."""
    bank = visual_bank(p.lang.code)
    slots = {"label": bank.label(obj.label), "place": bank.place(scene.place), "colour": bank.colour_name(obj.colour)}
    if obj.text is not None and p.rng.random() < 0.8:
        return bank.text, {**slots, "text": bank.text_of(obj.text)}, VisualChange.TEXT_READABLE
    return bank.colour, slots, VisualChange.APPEARS


def _apart(a: SceneObject, b: SceneObject) -> bool:
    """No frame shows the two overlapping (both can be asked about and stay in plain view)."""
    return all(overlap(x, y) == 0 for x in drawn_boxes(a) for y in drawn_boxes(b))


class NoVideoScene(ValueError):
    """The annotated videos hold nothing this family can use (jobs refuse such a run up front)."""


def _plan_video_qa(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """visual_qa over a video segment: the first question about an object whose fact (its text, from
    the frame it is readable; or its colour, from the frame it appears) is shown by one of the first
    frames, the second (sometimes) about another object of the segment shown as early; never a fact
    a later event of the video makes stale (STALES: the lamp's colour once it has turned on)."""
    assert p.videos is not None
    kind = VisualChange.TEXT_READABLE if p.rng.random() < 0.6 else VisualChange.APPEARS
    pick = pick_fact(p.videos, p.rng, p.unit_s, kind, EARLY_VIDEO)
    if pick is None:
        kind = _OTHER_FACT[kind]
        pick = pick_fact(p.videos, p.rng, p.unit_s, kind, EARLY_VIDEO)
    if pick is None:
        raise NoVideoScene("no annotated object can be asked about (an appears event with a colour, or text_readable)")
    scene = segment_scene(pick.video, pick.start_s, p.unit_s)
    first = scene.object(pick.obj.id)
    assert first is not None
    asked = [(first, kind)]
    others = [o for o in scene.objects if o is not first and o.label != first.label
              and any(_video_fact_ok(o, k) for k in _OTHER_FACT)]
    if others and p.rng.random() < TWO_QUESTIONS_PROB:
        other = others[int(p.rng.integers(len(others)))]
        asked.append((other, next(k for k in (VisualChange.TEXT_READABLE, VisualChange.APPEARS)
                                  if _video_fact_ok(other, k))))
    bank = visual_bank(p.lang.code)
    turns: list[ScriptTurn] = []
    asks: list[VisualAsk] = []
    for obj, change in asked:
        qa = bank.text if change == VisualChange.TEXT_READABLE else bank.colour
        slots = {"label": obj.label, "place": scene.place, "colour": obj.colour or "", "text": obj.text or ""}
        turns.append(p.user(render_rng(p.rng, qa.ask, slots)))
        answer = p.assistant(render_rng(p.rng, qa.answer, slots))
        turns.append(answer)
        asks.append(VisualAsk(turn=answer.id, object=obj.id, change=change))
    return f"visual_{scene.kind}", turns, with_asks(scene, asks)


_OTHER_FACT = {VisualChange.TEXT_READABLE: VisualChange.APPEARS, VisualChange.APPEARS: VisualChange.TEXT_READABLE}
EARLY_VIDEO = (0, 4)   # a video segment starts so the asked fact's frame is one of these


def _video_fact_ok(obj: SceneObject, change: VisualChange) -> bool:
    """The object's `change` can be asked about in a video segment: it has one, early enough, with what it says."""
    c = obj.first(change)
    said = obj.text if change == VisualChange.TEXT_READABLE else obj.colour
    return (c is not None and c.unit < EARLY_VIDEO[1] and said is not None
            and not any(x.change in STALES[change] for x in obj.timeline))


def plan(p: Planner) -> tuple[str, list[ScriptTurn]]:
    if p.videos is not None:
        domain, turns, p.scene = _plan_video_qa(p)
        return domain, turns
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
    named = {o.id for o in asked}
    p.scene = with_asks(keep_visible(shown_from_start(scene, named), named), asks)
    return f"visual_{scene.kind}", turns


def plan_watch(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """"Tell me when the kettle boils": the assistant acknowledges, then speaks up unprompted in the
    window after the frame that first shows the change (a proactive visual trigger)."""
    if p.videos is not None:
        return _plan_video_watch(p)
    bank = visual_bank(p.lang.code)
    watch = bank.watch
    scene = draw_scene(p.rng, early=EARLY_OBJECTS, need_states=tuple(watch.states))
    early = {f"o{i + 1}" for i in range(EARLY_OBJECTS)}
    watchable = [o for o in scene.objects if o.id in early and set(state_targets(scene, o)) & set(watch.states)]
    obj = watchable[int(p.rng.integers(len(watchable)))]
    targets = [s for s in state_targets(scene, obj) if s in watch.states]
    state = targets[int(p.rng.integers(len(targets)))]
    scene = with_state_change(scene, obj.id, int(p.rng.integers(*WATCH_AFTER)), state)
    turns = _watch_turns(p, keep_visible(shown_from_start(scene, {obj.id}), {obj.id}), obj.id, bank.label(obj.label),
                         state)
    return f"visual_{scene.kind}", turns


def _watch_turns(p: Planner, scene: Scene, obj_id: str, label: str, state: str) -> list[ScriptTurn]:
    """visual_watch's turns (the ask, the acknowledgement, the unprompted announcement), procedural
    or video alike; sets `p.scene` to `scene` with the announcement gated on the change's frame."""
    watch = visual_bank(p.lang.code).watch
    slots = {"label": label, "when": watch.states[state].when, "now": watch.states[state].now}
    ack = p.assistant(render_rng(p.rng, watch.ack, slots))
    announce = p.assistant(render_rng(p.rng, watch.announce, slots), trigger=Trigger.VISUAL)
    p.scene = with_asks(scene, [VisualAsk(turn=announce.id, object=obj_id, change=VisualChange.CHANGES_STATE)])
    return [p.user(render_rng(p.rng, watch.ask, slots)), ack, announce]


def _plan_video_watch(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """visual_watch over a video segment: the watched change is the annotation's first change of an
    object to a state the lines can say, WATCH_AFTER frames into the segment."""
    assert p.videos is not None
    watch = visual_bank(p.lang.code).watch
    found = pick_watch(p.videos, p.rng, p.unit_s, tuple(watch.states), WATCH_AFTER)
    if found is None:
        raise NoVideoScene(f"no annotated object changes to a state visual_watch can say ({', '.join(watch.states)})")
    pick, event = found
    assert event.state is not None
    scene = segment_scene(pick.video, pick.start_s, p.unit_s)
    return f"visual_{scene.kind}", _watch_turns(p, scene, pick.obj.id, pick.obj.label, event.state)


def _stale_states(p: Planner, scene: Scene, obj: SceneObject) -> list[str]:
    """The states `obj` can change to that the change lines can say, when they can say its first one too."""
    states = visual_bank(p.lang.code).change.states
    return [t for t in state_targets(scene, obj) if t in states] if obj.state in states else []


def _stale_texts(p: Planner, scene: Scene, obj: SceneObject) -> list[tuple[str, str]]:
    """(text, text it flips to) pairs `obj` can show that the change lines can say."""
    texts = visual_bank(p.lang.code).change.texts
    shows = shown_texts(scene, obj)
    return [(t, to) for t in shows if t in texts for to in texts[t].to if to in shows]


def _answer(p: Planner, label: str, old: Fact, new: Fact) -> tuple[list[str], list[str]]:
    """The answer's sentences with the old fact and, with the same wording choices, the new one."""
    out: tuple[list[str], list[str]] = ([], [])
    for templates in visual_bank(p.lang.code).change.answer:
        seed = new_seed(p.rng)
        for fact, sentences in ((old, out[0]), (new, out[1])):
            slots = {"label": label, "fact": fact.fact, "so": fact.so, "then": fact.then}
            sentences.append(render_rng(np.random.default_rng(seed), templates, slots))
    return out


def plan_change(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """A change mid-answer makes the answer stale: the user asks what something shows or is doing,
    and while the assistant answers a frame shows it change (a sign flips from open to closed, a
    kettle starts boiling). The assistant stops in the reaction window after that frame (the scene's
    `VisualCut`, placed by composition), says what changed, and says the rest of its answer again
    with the new fact, from the first sentence the user did not fully hear (DESIGN §2 rule 7)."""
    if p.videos is not None:
        return _plan_video_change(p)
    bank = visual_bank(p.lang.code)
    lines = bank.change
    early = {f"o{i + 1}" for i in range(EARLY_OBJECTS)}
    if p.rng.random() < TEXT_CHANGE_PROB:
        scene = draw_scene(p.rng, early=EARLY_OBJECTS, need_texts=tuple(t for t, f in lines.texts.items() if f.to))
        objs = [o for o in scene.objects if o.id in early and _stale_texts(p, scene, o)]
        obj = objs[int(p.rng.integers(len(objs)))]
        pairs = _stale_texts(p, scene, obj)
        text, to = pairs[int(p.rng.integers(len(pairs)))]
        scene = with_text_change(scene, obj.id, 0, text, to)
        old, new, asked, change = lines.texts[text], lines.texts[to], VisualChange.TEXT_READABLE, VisualChange.TEXT_CHANGES
        ask = lines.ask.text
    else:
        scene = draw_scene(p.rng, early=EARLY_OBJECTS, need_states=tuple(lines.states))
        objs = [o for o in scene.objects if o.id in early and _stale_states(p, scene, o)]
        obj = objs[int(p.rng.integers(len(objs)))]
        targets = _stale_states(p, scene, obj)
        state = targets[int(p.rng.integers(len(targets)))]
        scene = with_state_change(scene, obj.id, 0, state)
        old, new, asked, change = lines.states[obj.state or ""], lines.states[state], VisualChange.APPEARS, \
            VisualChange.CHANGES_STATE
        ask = lines.ask.state
    shown = keep_visible(shown_from_start(scene, {obj.id}), {obj.id})
    turns = _change_turns(p, shown, obj.id, bank.label(obj.label), bank.place(scene.place), ask, (old, new),
                          (asked, change))
    return f"visual_{scene.kind}", turns


def _change_turns(p: Planner, scene: Scene, obj_id: str, label: str, place: str, ask: tuple[str, ...],
                  facts: tuple[Fact, Fact], changes: tuple[VisualChange, VisualChange]) -> list[ScriptTurn]:
    """visual_change's turns, procedural or video alike: the question, the answer with the old fact
    that the scene's `VisualCut` cuts, and the repair with the new one from the first sentence not
    fully heard. `facts`: (old, new); `changes`: (the one showing the old fact, the one making it
    stale). Sets `p.scene` to `scene` with the asks and the cut."""
    lines = visual_bank(p.lang.code).change
    (old, new), (asked, change) = facts, changes
    stale, repaired = _answer(p, label, old, new)
    question = p.user(render_rng(p.rng, ask, {"label": label, "place": place}))
    answer = p.assistant(p.lang.join(stale))
    prefix = render_rng(p.rng, lines.repair, {"label": label, "fact": new.fact})
    repair = p.assistant("", continuation=Continuation(of_turn=answer.id, prefix=prefix, sentences=tuple(repaired)),
                         trigger=Trigger.VISUAL_CHANGE)
    cut = VisualCut(turn=answer.id, object=obj_id, change=change,
                    at_fraction=float(round(p.rng.uniform(*CHANGE_AT), 4)), fade_s=p.draw(p.timing.fade_s))
    asks = [VisualAsk(turn=answer.id, object=obj_id, change=asked),
            VisualAsk(turn=repair.id, object=obj_id, change=change)]
    p.scene = replace(with_asks(scene, asks), cuts=(cut,))
    return [question, answer, repair]


def _plan_video_change(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """visual_change over a video segment: the object's first change of state (or of text) that the
    lines can say before and after; the segment starts so the old fact is shown by one of the first
    frames, and composition starts it later still so the video's change falls inside the answer."""
    assert p.videos is not None
    lines = visual_bank(p.lang.code).change
    found = pick_change(p.videos, p.rng, p.unit_s, tuple(lines.states), tuple(lines.texts), EARLY_VIDEO)
    if found is None:
        raise NoVideoScene("no annotated object changes in a way visual_change can say")
    label = found.pick.obj.label
    facts = lines.texts if found.change == VisualChange.TEXT_CHANGES else lines.states
    old, new = facts[found.old], facts[found.new]
    ask = lines.ask.text if found.change == VisualChange.TEXT_CHANGES else lines.ask.state
    scene = segment_scene(found.pick.video, found.pick.start_s, p.unit_s)
    turns = _change_turns(p, scene, found.pick.obj.id, label, scene.place, ask, (old, new), (found.asked, found.change))
    return f"visual_{scene.kind}", turns


def plan_correct(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """"What colour is the bowl?" ... "no, not the bowl, the jar": the user interrupts a visual answer to
    say which object they meant; the assistant stops at the reaction window (interruption_repair),
    says which one it now means and answers about it. Both objects are early ones in plain view, and
    each answer records the frame that shows its fact, so the repair about the second object starts
    no earlier than the window after that frame."""
    bank = visual_bank(p.lang.code)
    scene = draw_scene(p.rng, early=EARLY_OBJECTS, need_text=p.rng.random() < 0.5)
    early = [o for o in scene.objects if o.id in {f"o{i + 1}" for i in range(EARLY_OBJECTS)}]
    pairs = [(a, b) for a in early for b in early if a is not b and _apart(a, b) and a.label != b.label]
    if not pairs:   # the early objects overlap somewhere: ask about one of them, the other stays a distractor
        pairs = [(a, b) for a in early for b in early if a is not b and a.label != b.label]
    first, other = pairs[int(p.rng.integers(len(pairs)))]
    by_text = first.text is not None and other.text is not None and p.rng.random() < 0.8
    ask = bank.text.ask if by_text else bank.colour.ask
    templates = bank.correct.answer.text if by_text else bank.correct.answer.colour
    change = VisualChange.TEXT_READABLE if by_text else VisualChange.APPEARS

    def slots(o: SceneObject) -> dict[str, str]:
        return {"label": bank.label(o.label), "place": bank.place(scene.place), "colour": bank.colour_name(o.colour),
                **({"text": bank.text_of(o.text)} if o.text is not None else {})}

    seed = new_seed(p.rng)   # the same wording for both answers: only the object differs
    wrong, right = (render_rng(np.random.default_rng(seed), templates, slots(o)) for o in (first, other))
    said = p.lang.join([wrong])
    correction = render_rng(p.rng, bank.correct.cut_in, {"label": bank.label(other.label), "old": bank.label(first.label)})
    question = p.user(render_rng(p.rng, ask, slots(first)))
    answer = p.assistant(said, interruption=cut_in(p, InterruptAction.REPAIR, correction))
    prefix = render_rng(p.rng, bank.correct.repair, {"label": bank.label(other.label)})
    repair = p.assistant("", continuation=Continuation(of_turn=answer.id, prefix=prefix, sentences=(right,)))
    asks = [VisualAsk(turn=answer.id, object=first.id, change=change),
            VisualAsk(turn=repair.id, object=other.id, change=change)]
    named = {first.id, other.id}   # the question names one, the cut-in both
    p.scene = with_asks(keep_visible(shown_from_start(scene, named), named), asks)
    return f"visual_{scene.kind}", [question, answer, repair]


def plan_lookup(p: Planner) -> tuple[str, list[ScriptTurn]]:
    """"Can you check the flight on this ticket?": the camera shows a ticket (a prop placed among a
    desk's objects) whose code becomes readable in an early frame; the assistant reads the code in its
    acknowledgement (so no earlier than the window after that frame), delegates the lookup to the
    harness with it, and relays the result when it is in (the delegation family's relay)."""
    bank = visual_bank(p.lang.code)
    lookup = bank.lookup
    assert lookup is not None   # missing_content refuses the family for a language without it
    content = tb.draw_delegation_of(p.rng, lookup.spec, lang=p.lang.code)
    code = str(content.slots[lookup.slot])
    scene, ticket = with_prop(p.rng, draw_scene(p.rng, early=EARLY_OBJECTS, kind=SceneKind.DESK), lookup.prop, code)
    # the request says what the ticket shows, not the destination the spec's request derives from it (rule 6)
    content = dataclasses.replace(content, request=render(lookup.request, {lookup.slot: code}, 0))
    d, ex = task_for(p, "t1", content)
    ack = p.assistant(render_rng(p.rng, lookup.ack, {lookup.slot: code}), delegate=d)
    turns = [p.user(render_rng(p.rng, lookup.ask, {})), ack, act_on(p, content, d, ex)]
    p.scene = with_asks(keep_visible(shown_from_start(scene, {ticket}), {ticket}),   # the user holds it up
                        [VisualAsk(turn=ack.id, object=ticket, change=VisualChange.TEXT_READABLE)])
    return content.domain, turns
