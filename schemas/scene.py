"""A visual scene as data (DESIGN §6 "Vision"): what a camera sees at 1 fps, one frame per unit.

The planner draws a `Scene` (generators/scenes) and puts it in the `Script`; the renderer
(pipeline/frames.py) turns it into one JPEG per unit and composition turns its changes into
`visual` events. Frame k shows the state of every object at unit k, so a change at unit a is
first visible in frame a, the input of unit k = a (DESIGN §2): a fact it shows may be spoken no
earlier than window a + 1.

A `VisualCut` is a change that makes an answer stale while it is spoken (visual_change): its frame
depends on the rendered audio, so composition places it and the row stores the scene as placed.

Positions and sizes are fractions of the frame (0..1), so a scene renders at any frame size.
"""
from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from schemas.replace import replace
from schemas.thresholds import FADE_MAX_S, FADE_MIN_S

# The renderer's per-frame draws (camera jitter, lighting flicker, sensor noise) come from the
# stream [trajectory seed, FRAME_STREAM, frame index]; acoustics use [seed, 1].
FRAME_STREAM = 2
DEFAULT_FRAME_SIZE = 448   # Realtime-Venus evaluates SigLIP2 at 448 x 448
VIDEO_JPEG_QUALITY = 90    # frames decoded from a video (pipeline/video.py) are stored at this JPEG quality


class SceneKind(StrEnum):
    """Where the camera looks."""

    KITCHEN = "kitchen"
    STREET = "street"
    DESK = "desk"
    SCREEN = "screen"


class VisualChange(StrEnum):
    """`attrs.change` of a `visual` event: what the frame at `attrs.unit` first shows."""

    APPEARS = "appears"
    MOVES = "moves"
    CHANGES_STATE = "changes_state"
    LEAVES = "leaves"
    TEXT_READABLE = "text_readable"
    TEXT_CHANGES = "text_changes"   # the text it shows becomes another (a sign flips from open to closed)


# The changes that can make a spoken answer stale mid-answer (visual_change: `VisualCut`).
STALE_CHANGES: tuple[VisualChange, ...] = (VisualChange.CHANGES_STATE, VisualChange.TEXT_CHANGES)

# States a frame can only show by motion: an object in one is drawn a step further along each frame
# (`motion_offset`), so "the bus is still moving" is said only of a bus the frames show moving.
MOTION_STATES: tuple[str, ...] = ("moving",)
MOTION_STEP = 0.035   # frame fractions an object in a motion state travels per frame
BLANK_FRAME_STD = 2.0  # a frame whose pixel levels (8-bit) vary less than this shows nothing: no fact is read off it


def visual_event_id(object_id: str, index: int) -> str:
    """The id of the `visual` event of change `index` of an object's timeline."""
    return f"{object_id}.v{index}"


class Shape(StrEnum):
    """The drawing primitive of an object (pipeline/frames.py draws each)."""

    BOX = "box"
    ROUND = "round"
    MUG = "mug"
    BOTTLE = "bottle"
    SIGN = "sign"
    WINDOW = "window"


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


RGB = tuple[int, int, int]


class Box(_M):
    """An axis-aligned box in frame fractions: left, top, width, height."""

    x: float = Field(ge=-0.5, le=1.0)
    y: float = Field(ge=-0.5, le=1.0)
    w: float = Field(gt=0.0, le=1.0)
    h: float = Field(gt=0.0, le=1.0)


class Change(_M):
    """One step of an object's state timeline, first shown by the frame of `unit`."""

    unit: int = Field(ge=0)
    change: VisualChange
    box: Box | None = None        # moves: where it goes
    state: str | None = None      # changes_state: the new state name
    rgb: RGB | None = None        # changes_state: the state's indicator colour
    text: str | None = None       # text_changes: the text shown from this frame on
    # a video scene's annotation of what the frame shows (generators/scenes/video.py); left out of the
    # dump when None, so procedural scenes dump as before video import existed
    description: str | None = Field(None, exclude_if=lambda v: v is None)


class SceneObject(_M):
    """A thing in view: what it is, how it looks, and its timeline (appears first, leaves last).

    Objects no `VisualAsk` names are the distractors: seen, never asked about. An object of a video
    scene has no drawing (rgb, shape, box: None; the video shows it) and a colour only where its
    annotation gives one.
    """

    id: str
    label: str                    # what people call it ("mug"): the word a reply names it by
    colour: str | None            # the colour name a reply says
    rgb: RGB | None
    shape: Shape | None
    box: Box | None               # where it appears
    text: str | None = None       # printed on it (a sign, a screen), readable from its text_readable change,
                                  # until a text_changes change shows another
    state: str | None = None      # initial state name, for objects whose state changes
    timeline: tuple[Change, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _timeline_order(self) -> "SceneObject":
        first = self.timeline[0]
        if first.change != VisualChange.APPEARS:
            raise ValueError(f"object {self.id}: its timeline starts with {VisualChange.APPEARS}")
        units = [c.unit for c in self.timeline]
        if units != sorted(units):
            raise ValueError(f"object {self.id}: timeline units go back in time")
        if any(c.change == VisualChange.LEAVES for c in self.timeline[:-1]):
            raise ValueError(f"object {self.id}: nothing follows {VisualChange.LEAVES}")
        return self

    def first(self, change: VisualChange) -> Change | None:
        """The first change of this kind (None: it never happens)."""
        return next((c for c in self.timeline if c.change == change), None)

    def at(self, k: int) -> "ObjectView":
        """What frame k shows of the object: the one reading of its timeline that the renderer
        (pipeline/frames.py) draws and validate checks what the assistant says against. An object in
        a motion state is drawn further along each frame (`travel`) and stays where it stopped."""
        leaves = self.first(VisualChange.LEAVES)
        visible = self.timeline[0].unit <= k and (leaves is None or k < leaves.unit)
        box, state, readable, text = self.box, self.state, False, self.text
        moving_from = self.timeline[0].unit if state in MOTION_STATES else None
        for c in self.timeline:
            if c.unit > k:
                break
            if c.change == VisualChange.MOVES and c.box is not None:
                box = c.box
                moving_from = c.unit if moving_from is not None else None
            elif c.change == VisualChange.CHANGES_STATE:
                if moving_from is not None and c.state not in MOTION_STATES:   # it stops where the last frame drew it
                    box, moving_from = travel(box, c.unit - 1 - moving_from), None
                elif moving_from is None and c.state in MOTION_STATES:
                    moving_from = c.unit
                state = c.state
            elif c.change == VisualChange.TEXT_READABLE:
                readable = True
            elif c.change == VisualChange.TEXT_CHANGES and c.text is not None:
                text = c.text
        if moving_from is not None:
            box = travel(box, k - moving_from)
        return ObjectView(visible=visible, box=box, state=state, moving=moving_from is not None, readable=readable,
                          text=text if readable else None)


class ObjectView(_M):
    """One object as one frame shows it (`SceneObject.at`)."""

    visible: bool
    box: Box | None               # where the frame draws it (None: a video scene's object)
    state: str | None
    moving: bool                  # in a motion state: each frame draws it MOTION_STEP further along
    readable: bool
    text: str | None              # the text it shows legibly (None: none, or not readable yet)


def travel(box: Box | None, steps: int) -> Box | None:
    """`box` after `steps` frames of travel along x at MOTION_STEP a frame, turning back at the frame's
    edges so it stays in view (a procedural frame can show motion only by moving what it draws)."""
    if box is None or steps <= 0:
        return box
    room = max(0.0, 1.0 - box.w)
    x = min(max(box.x, 0.0), room)
    if room == 0.0:
        return box
    at = (x + steps * MOTION_STEP) % (2 * room)
    return replace(box, x=round(at if at <= room else 2 * room - at, 4))


class Occluder(_M):
    """Something in front of the scene hiding part of it (a hand, a cup, a lamp post)."""

    box: Box
    rgb: RGB


class RenderDraws(_M):
    """Everything the look of the frames depends on besides the objects, drawn from the seed."""

    background: RGB
    background2: RGB              # the far end of a vertical gradient
    surface: RGB                  # the table, road or desk the objects sit on
    horizon: float = Field(ge=0.2, le=0.9)   # where the surface starts, as a fraction of height
    texture: int = Field(ge=0, le=3)          # 0 plain, 1 stripes, 2 dots, 3 checks
    texture_rgb: RGB
    occluder: Occluder | None = None
    jitter_px: float = Field(ge=0.0, le=20.0)     # camera shake per frame, at 448 px
    light: tuple[float, float] = (1.0, 1.0)       # brightness at the first unit and per-frame drift
    flicker: float = Field(0.0, ge=0.0, le=0.3)   # random per-frame brightness change
    blur: float = Field(ge=0.0, le=3.0)           # gaussian blur radius, at 448 px
    noise: float = Field(ge=0.0, le=20.0)         # sensor noise sigma, 8-bit levels
    jpeg_quality: int = Field(ge=30, le=95)


class VisualAsk(_M):
    """An assistant turn that states a fact about an object: the fact the frame of `change` first shows."""

    turn: str                     # ScriptTurn id
    object: str                   # SceneObject id
    change: VisualChange


class VisualCut(_M):
    """A change that makes an assistant turn stale while it speaks (visual_change): the frame that
    first shows it falls `at_fraction` into the turn's audio, and the turn is cut at the start of
    the window after that frame (the reaction window, as DESIGN §2 rule 3 for a spoken cut-in).

    Where that frame falls depends on the rendered audio, so the planner's unit for the change is
    provisional: composition moves the change there (in a video scene, it starts the segment later
    so the video's change falls there), and the row stores the scene it realised.
    """

    turn: str                     # the assistant turn the change cuts (ScriptTurn id)
    object: str                   # SceneObject id
    change: VisualChange          # one of STALE_CHANGES; the object's first change of this kind
    at_fraction: float = Field(gt=0, lt=1)
    fade_s: float = Field(ge=FADE_MIN_S, le=FADE_MAX_S)


class VideoClip(_M):
    """Where a video scene's frames come from (scene_source kind video): frame k is the picture the
    file shows at `start_s + k * unit_s` (its last frame at or before that time), scaled and centre-
    cropped to the frame size. `sha256` is the file's content fingerprint, so a row names the exact
    video it was decoded from; `duration_s` is the file's length, for the error of a trajectory that
    outlasts it."""

    file: str                     # relative to scene_source.path
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    start_s: float = Field(ge=0.0)
    duration_s: float = Field(gt=0.0)


class Scene(_M):
    """A procedural scene (`render`: pipeline/frames.py draws its objects) or a video scene (`video`:
    pipeline/video.py decodes its frames, and its objects and changes are the annotation's)."""

    kind: SceneKind
    place: str                    # how speech names the place ("desk"): "the mug on the desk"
    objects: tuple[SceneObject, ...] = Field(min_length=1)
    render: RenderDraws | None = Field(None, exclude_if=lambda v: v is None)
    asks: tuple[VisualAsk, ...] = ()
    cuts: tuple[VisualCut, ...] = ()
    video: VideoClip | None = Field(None, exclude_if=lambda v: v is None)

    @model_validator(mode="after")
    def _asks_known(self) -> "Scene":
        ids = [o.id for o in self.objects]
        if len(set(ids)) != len(ids):
            raise ValueError("scene object ids must be unique")
        if (self.render is None) == (self.video is None):
            raise ValueError("a scene has either render draws (procedural) or a video clip, not both or neither")
        if self.video is None:
            for o in self.objects:
                if None in (o.colour, o.rgb, o.shape, o.box):
                    raise ValueError(f"object {o.id}: a procedural scene draws it, so it needs colour, rgb, shape and box")
        for a in self.asks:
            obj = self.object(a.object)
            if obj is None or obj.first(a.change) is None:
                raise ValueError(f"ask of turn {a.turn}: object {a.object} has no {a.change} change")
        for c in self.cuts:
            obj = self.object(c.object)
            if c.change not in STALE_CHANGES or obj is None or obj.first(c.change) is None:
                raise ValueError(f"cut of turn {c.turn}: object {c.object} has no {c.change} change to cut it")
        return self

    def object(self, object_id: str) -> SceneObject | None:
        return next((o for o in self.objects if o.id == object_id), None)

    def fact_unit(self, ask: VisualAsk) -> int:
        """The first frame showing what `ask` states."""
        obj = self.object(ask.object)
        change = obj.first(ask.change) if obj is not None else None
        if change is None:
            raise ValueError(f"ask of turn {ask.turn}: no {ask.change} of {ask.object}")
        return change.unit
