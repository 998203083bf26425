"""The procedural scene planner: a `Scene` (schemas/scene.py) drawn from the trajectory's RNG.

Objects, labels, colours, texts and states come from the catalogue (scenes.yaml); where each
object sits, when it appears, moves, changes state, becomes readable or leaves, and how the
frames look (background, texture, occluder, jitter, lighting, blur, noise, JPEG quality) are
drawn here. Positions and timings are random per scene so that no layout or time gives a fact away.
"""
from __future__ import annotations

import numpy as np

from generators.scenes.catalog import Catalog, KindSpec, ObjectSpec, catalog
from schemas.replace import replace
from schemas.scene import (MOTION_STATES, MOTION_STEP, RGB, Box, Change, Occluder, RenderDraws, Scene, SceneKind,
                           SceneObject, VisualAsk, VisualChange)

# Where the surface starts (fraction of height), per kind: a screen is nearly all "wall".
_HORIZON: dict[SceneKind, tuple[float, float]] = {
    SceneKind.KITCHEN: (0.4, 0.6), SceneKind.DESK: (0.4, 0.6), SceneKind.STREET: (0.45, 0.65),
    SceneKind.SCREEN: (0.85, 0.9)}
OBJECTS_PER_SCENE = (3, 6)        # inclusive range, capped by the kind's catalogue
EARLY_UNITS = (0, 4)              # an object a question will be about appears in one of these frames
LATE_UNITS = (0, 8)               # any other object
READABLE_AFTER = (0, 3)           # text becomes readable this many frames after the object appears
MOVE_PROB, LEAVE_PROB, STATE_PROB = 0.3, 0.25, 0.7


def _uniform(rng: np.random.Generator, r: tuple[float, float]) -> float:
    return float(round(rng.uniform(r[0], r[1]), 4))


def _pick(rng: np.random.Generator, items: tuple) -> object:
    return items[int(rng.integers(len(items)))]


def _shade(rgb: RGB, f: float) -> RGB:
    return tuple(int(np.clip(round(c * f), 0, 255)) for c in rgb)  # type: ignore[return-value]


def _box(rng: np.random.Generator, spec: ObjectSpec, horizon: float, kind: SceneKind) -> Box:
    """A box of the object's size (jittered) standing on the surface, or anywhere on a screen."""
    w, h = (s * _uniform(rng, (0.8, 1.25)) for s in spec.size)
    x = _uniform(rng, (0.02, 0.98 - w))
    if kind == SceneKind.SCREEN:
        y = _uniform(rng, (0.04, max(0.05, horizon - h - 0.02)))
    else:   # its base lies between the horizon and the bottom edge
        base = _uniform(rng, (min(horizon + 0.08, 0.97), 0.97))
        y = max(0.02, base - h)
    return Box(x=round(x, 4), y=round(y, 4), w=round(w, 4), h=round(h, 4))


def _timeline(rng: np.random.Generator, cat: Catalog, spec: ObjectSpec, box: Box, early: bool, horizon: float,
              kind: SceneKind) -> tuple[Change, ...]:
    first = int(rng.integers(*(EARLY_UNITS if early else LATE_UNITS)))
    out = [Change(unit=first, change=VisualChange.APPEARS)]
    last = first
    if spec.texts:
        last = first + int(rng.integers(*READABLE_AFTER))
        out.append(Change(unit=last, change=VisualChange.TEXT_READABLE))
    if spec.states and rng.random() < STATE_PROB:
        state = str(_pick(rng, spec.states[1:]))
        last = last + int(rng.integers(1, 6))
        out.append(Change(unit=last, change=VisualChange.CHANGES_STATE, state=state, rgb=cat.states[state]))
    if rng.random() < MOVE_PROB:
        last = last + int(rng.integers(1, 5))
        out.append(Change(unit=last, change=VisualChange.MOVES, box=_box(rng, spec, horizon, kind)))
    if not early and rng.random() < LEAVE_PROB:
        out.append(Change(unit=last + int(rng.integers(1, 6)), change=VisualChange.LEAVES))
    return tuple(out)


def _render(rng: np.random.Generator, cat: Catalog, spec: KindSpec, kind: SceneKind) -> RenderDraws:
    r = cat.render
    wall = _pick(rng, spec.walls)
    occluder = None
    if rng.random() < r.occluder_prob:   # a hand, a cup, a post in front of the scene, at an edge
        w, h = _uniform(rng, (0.08, 0.22)), _uniform(rng, (0.15, 0.5))
        x = _uniform(rng, (0.0, 0.12)) if rng.random() < 0.5 else _uniform(rng, (0.88 - w, 1.0 - w))
        occluder = Occluder(box=Box(x=x, y=round(1.0 - h, 4), w=w, h=h),
                            rgb=_shade(_pick(rng, tuple(cat.colours.values())), _uniform(rng, (0.5, 1.0))))
    return RenderDraws(
        background=wall, background2=_shade(wall, _uniform(rng, (0.6, 1.1))), surface=_pick(rng, spec.surfaces),
        horizon=_uniform(rng, _HORIZON[kind]), texture=int(rng.integers(0, 4)),
        texture_rgb=_shade(wall, _uniform(rng, (0.75, 0.95))), occluder=occluder,
        jitter_px=_uniform(rng, r.jitter_px), light=(_uniform(rng, r.light_start), _uniform(rng, r.light_drift)),
        flicker=_uniform(rng, r.flicker), blur=_uniform(rng, r.blur), noise=_uniform(rng, r.noise),
        jpeg_quality=int(rng.integers(r.jpeg_quality[0], r.jpeg_quality[1] + 1)))


def _can_become(spec: ObjectSpec, states: tuple[str, ...]) -> bool:
    return bool(set(spec.states[1:]) & set(states))


def _can_show(spec: ObjectSpec, texts: tuple[str, ...]) -> bool:
    return bool(set(spec.texts) & set(texts))


def draw_scene(rng: np.random.Generator, early: int = 1, kind: SceneKind | None = None,
               need_text: bool = False, need_states: tuple[str, ...] = (), need_texts: tuple[str, ...] = ()) -> Scene:
    """A scene whose first `early` objects appear in the first frames (what questions will be about).

    `need_text`: one of those early objects carries text (a sign, a note, a window).
    `need_states`: one of them can change to one of these states (the kind is drawn among those that have one).
    `need_texts`: one of them can show one of these texts (likewise)."""
    cat = catalog()
    if kind is None:
        kinds = tuple(k for k in SceneKind
                      if (not need_states or any(_can_become(o, need_states) for o in cat.kinds[k].objects))
                      and (not need_texts or any(_can_show(o, need_texts) for o in cat.kinds[k].objects)))
        kind = SceneKind(_pick(rng, kinds))
    spec = cat.kinds[kind]
    n = min(int(rng.integers(OBJECTS_PER_SCENE[0], OBJECTS_PER_SCENE[1] + 1)), len(spec.objects))
    order = [int(i) for i in rng.permutation(len(spec.objects))]
    wanted = [(need_text, lambda o: bool(o.texts)), (bool(need_states), lambda o: _can_become(o, need_states)),
              (bool(need_texts), lambda o: _can_show(o, need_texts))]
    for need, fits in wanted:   # such an object among the early ones, at a drawn place among them
        found = [i for i in order if fits(spec.objects[i])] if need else []
        if found and found[0] not in order[:early]:
            order.remove(found[0])
            order.insert(int(rng.integers(0, max(1, early))), found[0])
    render = _render(rng, cat, spec, kind)
    objects = []
    for i, idx in enumerate(order[:max(n, early)]):
        o = spec.objects[idx]
        colour = str(_pick(rng, o.colours))
        box = _box(rng, o, render.horizon, kind)
        objects.append(SceneObject(
            id=f"o{i + 1}", label=o.label, colour=colour, rgb=cat.colours[colour], shape=o.shape, box=box,
            text=str(_pick(rng, o.texts)) if o.texts else None, state=o.states[0] if o.states else None,
            timeline=_timeline(rng, cat, o, box, i < early, render.horizon, kind)))
    # draw order is random too: the first-listed (asked) objects are not always in front
    depth = [int(i) for i in rng.permutation(len(objects))]
    return Scene(kind=kind, place=spec.place, objects=tuple(objects[i] for i in depth), render=render)


# frames over which a moving object's drawn boxes are gathered: one whole trip there and back across the
# widest room an object leaves (2 * 0.98 / MOTION_STEP frames), so every place it is ever drawn is among them
TRAVEL_FRAMES = int(2 * 0.98 / MOTION_STEP) + 2


def drawn_boxes(o: SceneObject) -> list[Box]:
    """Every box a frame may draw the object at: where it appears, each move, and for an object in a motion
    state each place its travel takes it (what overlap and occlusion checks must consider)."""
    out = [o.box, *(c.box for c in o.timeline if c.box is not None)]
    if o.state in MOTION_STATES or any(c.state in MOTION_STATES for c in o.timeline):
        out += [b for k in range(o.timeline[0].unit, o.timeline[0].unit + TRAVEL_FRAMES) if (b := o.at(k).box)]
    return [b for b in out if b is not None]


PROP_TRIES = 24   # draws of a prop's place before it settles for the least covered one


def with_prop(rng: np.random.Generator, scene: Scene, name: str, text: str) -> tuple[Scene, str]:
    """The scene plus the catalogue prop `name` showing `text` (a ticket with a flight code), appearing
    in an early frame, readable a few frames later, standing clear of the other objects where it can;
    (scene, the prop's object id)."""
    cat = catalog()
    spec = cat.props[name]
    best: tuple[float, Box] | None = None
    for _ in range(PROP_TRIES):
        box = _box(rng, spec, scene.render.horizon, scene.kind)
        covered = max((overlap(box, b) for o in scene.objects for b in drawn_boxes(o)),
                      default=0.0)
        if best is None or covered < best[0]:
            best = (covered, box)
        if covered == 0.0:
            break
    assert best is not None
    first = int(rng.integers(*EARLY_UNITS))
    colour = str(_pick(rng, spec.colours))
    oid = f"o{len(scene.objects) + 1}"
    obj = SceneObject(id=oid, label=spec.label, colour=colour, rgb=cat.colours[colour], shape=spec.shape, box=best[1],
                      text=text, timeline=(Change(unit=first, change=VisualChange.APPEARS),
                                           Change(unit=first + int(rng.integers(*READABLE_AFTER)),
                                                  change=VisualChange.TEXT_READABLE)))
    return replace(scene, objects=(*scene.objects, obj)), oid


def shown_from_start(scene: Scene, ids: set[str]) -> Scene:
    """The scene with the objects `ids` in view from frame 0: the ones the user names. Nobody asks
    about an object before a frame shows it, and the user's first words can fall in window 0; the
    rest of their timeline (text readable, state changes) keeps its drawn frames."""
    objs = []
    for o in scene.objects:
        if o.id in ids and o.timeline[0].unit > 0:
            o = replace(o, timeline=(replace(o.timeline[0], unit=0), *o.timeline[1:]))
        objs.append(o)
    return replace(scene, objects=tuple(objs))


def with_asks(scene: Scene, asks: list[VisualAsk]) -> Scene:
    """The scene with the facts its assistant turns state."""
    return replace(scene, asks=tuple(asks))





def overlap(a: Box, b: Box) -> float:
    """The fraction of box a that box b covers."""
    w = min(a.x + a.w, b.x + b.w) - max(a.x, b.x)
    h = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
    return max(0.0, w) * max(0.0, h) / (a.w * a.h)


MAX_HIDDEN = 0.25   # the most of an asked object the occluder may hide


def keep_visible(scene: Scene, asked: set[str]) -> Scene:
    """The scene with every asked object in plain view: drawn after any object overlapping it, and
    without an occluder that would hide more than MAX_HIDDEN of it (an answer must be in the frame)."""
    objs = list(scene.objects)
    boxes = {o.id: drawn_boxes(o) for o in objs}
    for oid in [o.id for o in objs if o.id in asked]:
        i = next(j for j, o in enumerate(objs) if o.id == oid)
        later = [o for o in objs[i + 1:] if o.id not in asked
                 and any(overlap(a, b) > 0 for a in boxes[oid] for b in boxes[o.id])]
        objs = [o for o in objs if o not in later]
        at = next(j for j, o in enumerate(objs) if o.id == oid)
        objs[at:at] = later   # drawn before it (behind it), in their own order
    render = scene.render
    if render.occluder is not None and any(overlap(b, render.occluder.box) > MAX_HIDDEN
                                           for oid in asked for b in boxes[oid]):
        render = replace(render, occluder=None)
    return replace(scene, objects=tuple(objs), render=render)


def _spec(scene: Scene, obj: SceneObject) -> ObjectSpec:
    return next(o for o in catalog().kinds[scene.kind].objects if o.label == obj.label)


def state_targets(scene: Scene, obj: SceneObject) -> tuple[str, ...]:
    """The states the object can change to (its catalogue entry's, after the initial one)."""
    return _spec(scene, obj).states[1:]


def shown_texts(scene: Scene, obj: SceneObject) -> tuple[str, ...]:
    """The texts the object can show (its catalogue entry's)."""
    return _spec(scene, obj).texts


def with_state_change(scene: Scene, object_id: str, unit: int, state: str) -> Scene:
    """The scene with the object changing to `state` at `unit` as its one change after it appears
    (and its text becoming readable): the change a user watches for."""
    objs = []
    for o in scene.objects:
        if o.id == object_id:
            keep = tuple(c for c in o.timeline if c.change in (VisualChange.APPEARS, VisualChange.TEXT_READABLE))
            change = Change(unit=max(unit, keep[-1].unit + 1), change=VisualChange.CHANGES_STATE, state=state,
                            rgb=catalog().states[state])
            o = replace(o, timeline=(*keep, change))
        objs.append(o)
    return replace(scene, objects=tuple(objs))


def with_text_change(scene: Scene, object_id: str, unit: int, text: str, new_text: str) -> Scene:
    """The scene with the object showing `text` from when it is readable, and `new_text` from `unit`
    (at least a frame later) as its one change after that: a sign flipping from open to closed."""
    objs = []
    for o in scene.objects:
        if o.id == object_id:
            keep = tuple(c for c in o.timeline if c.change in (VisualChange.APPEARS, VisualChange.TEXT_READABLE))
            change = Change(unit=max(unit, keep[-1].unit + 1), change=VisualChange.TEXT_CHANGES, text=new_text)
            o = replace(o, text=text, timeline=(*keep, change))
        objs.append(o)
    return replace(scene, objects=tuple(objs))
