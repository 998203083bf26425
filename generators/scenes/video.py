"""Real video scenes (issue #15 item 2): a folder of video files plus a JSONL file of their visual
events becomes the scenes of visual_qa, visual_watch and visual_change (scene_source kind video, README
"Real video").

One annotation a line: `video` (a file in the folder), `t_s` (when the video first shows the event),
`kind` (a VisualChange: appears, changes_state, text_readable, text_changes, moves, leaves), `object`
(its label, one lowercase word; `id` tells two objects of one label apart), and what the event says:
`colour` (appears: the colour a reply may say), `state` (changes_state: the new state; appears: the
initial one), `text` (text_readable / text_changes), `description` (what the frame shows: the visual
event's text), `place` / `scene` (how speech names where the camera looks, and its SceneKind).

A trajectory takes a segment of one video, drawn from its seed: frame k is the picture at
`start_s + k * unit_s` (pipeline/video.py decodes it), so an event at t_s is first shown by frame
ceil((t_s - start_s) / unit_s) and becomes a change at that unit; an event before the segment is
folded into what frame 0 shows. Reading refuses (ConfigError, one line naming the file, line and
field) a broken line, a video the folder lacks or ffmpeg cannot read, and a time past a video's end.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generators.scenes.bank import visual_bank
from generators.scenes.catalog import catalog
from schemas.config import VIDEO_KIND, ConfigError, RunConfig, Scenario, SceneSourceConfig
from schemas.language import ENGLISH
from schemas.replace import replace
from schemas.scene import Change, Scene, SceneKind, SceneObject, VideoClip, VisualAsk, VisualChange

_LABEL = re.compile(r"^[a-z]+$")
_DURATION = re.compile(r"Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)")
_EPS = 1e-6          # a time on a frame's own instant is shown by that frame
FINGERPRINT_CHUNK = 1 << 20


def ffmpeg_exe() -> str:
    """The ffmpeg binary imageio-ffmpeg ships (or the one IMAGEIO_FFMPEG_EXE names)."""
    import imageio_ffmpeg
    return str(imageio_ffmpeg.get_ffmpeg_exe())


class Annotation(BaseModel):
    """One line of the annotation file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    video: str = Field(min_length=1)
    t_s: float = Field(ge=0.0)
    kind: VisualChange
    object: str
    id: str | None = None
    colour: str | None = None
    state: str | None = None
    text: str | None = None
    description: str | None = None
    place: str | None = None
    scene: SceneKind | None = None


# which fields a kind of event needs, and which it may carry beyond the common ones
_NEEDS: dict[VisualChange, tuple[str, ...]] = {
    VisualChange.CHANGES_STATE: ("state",), VisualChange.TEXT_READABLE: ("text",),
    VisualChange.TEXT_CHANGES: ("text",)}
_TAKES: dict[VisualChange, tuple[str, ...]] = {
    VisualChange.APPEARS: ("colour", "state"), VisualChange.CHANGES_STATE: ("state",),
    VisualChange.TEXT_READABLE: ("text",), VisualChange.TEXT_CHANGES: ("text",)}


@dataclass(frozen=True)
class AnnotatedObject:
    """An object of one video: its label, colour, initial state and events (video time, in order)."""

    id: str
    label: str
    colour: str | None
    state: str | None
    events: tuple[Annotation, ...]

    def first(self, kind: VisualChange) -> Annotation | None:
        return next((e for e in self.events if e.kind == kind), None)


@dataclass(frozen=True)
class VideoInfo:
    file: str
    sha256: str
    duration_s: float
    place: str
    kind: SceneKind
    objects: tuple[AnnotatedObject, ...]


@dataclass(frozen=True)
class VideoLibrary:
    """The run's annotated videos, read once per process (`video_library`)."""

    root: Path
    videos: tuple[VideoInfo, ...]


def frame_of(t_s: float, start_s: float, unit_s: float) -> int:
    """The first frame of a segment starting at `start_s` that shows what the video shows from `t_s`."""
    return max(0, math.ceil((t_s - start_s) / unit_s - _EPS))


def probe_duration(path: Path) -> float:
    """The video's duration from ffmpeg's reading of its header; ConfigError when it is no readable video."""
    try:
        res = subprocess.run([ffmpeg_exe(), "-hide_banner", "-nostdin", "-i", str(path)], capture_output=True,
                             text=True, errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ConfigError(f"scene_source.path: cannot run ffmpeg on {path.name} ({err})") from None
    info = res.stderr
    m = _DURATION.search(info)
    if "Video:" not in info or m is None:
        lines = [ln.strip() for ln in info.splitlines() if ln.strip()]
        why = lines[-1] if lines else "no output"
        raise ConfigError(f"scene_source.path: {path.name} is not a readable video with a duration (ffmpeg: {why})")
    h, mnt, sec = m.groups()
    return int(h) * 3600 + int(mnt) * 60 + float(sec)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(FINGERPRINT_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _read_lines(path: Path) -> list[tuple[int, Annotation]]:
    where = f"scene_source.annotations: {path.name}"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"scene_source.annotations: cannot read {path} ({err})") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = Annotation.model_validate(json.loads(line))
        except json.JSONDecodeError as err:
            raise ConfigError(f"{where}:{n}: not a JSON object ({err.msg})") from None
        except ValidationError as err:
            e = err.errors()[0]
            field = ".".join(str(p) for p in e["loc"]) or "line"
            raise ConfigError(f"{where}:{n}: {field}: {str(e['msg']).removeprefix('Value error, ')}") from None
        if not _LABEL.match(rec.object):
            raise ConfigError(f"{where}:{n}: object: {rec.object!r} must be one lowercase word (the word a reply says)")
        for f in _NEEDS.get(rec.kind, ()):
            if getattr(rec, f) is None:
                raise ConfigError(f"{where}:{n}: {f}: a {rec.kind} event needs one")
        for f in ("colour", "state", "text"):
            if getattr(rec, f) is not None and f not in _TAKES.get(rec.kind, ()):
                raise ConfigError(f"{where}:{n}: {f}: a {rec.kind} event takes none")
        for f, said in sayable().items():
            value = getattr(rec, f)
            if value is not None and value not in said:
                raise ConfigError(f"{where}:{n}: {f}: {value!r} is not one the lines can say (one of "
                                  f"{', '.join(sorted(said))})")
        out.append((n, rec))
    if not out:
        raise ConfigError(f"scene_source.annotations: {path} holds no annotation")
    return out


def sayable() -> dict[str, frozenset[str]]:
    """What an annotation may name, per field: the objects, colours and states the lines can say. A reply
    says an annotation's label, colour and state as written, so a word outside the catalogue (scenes.yaml:
    labels and colours) or the English lines' states (visual.yaml watch and change) is refused at its line
    rather than spoken ("The giraffe is purple." over a video with no giraffe)."""
    cat, bank = catalog(), visual_bank(ENGLISH.code)
    return {"object": frozenset({o.label for k in cat.kinds.values() for o in k.objects} | set(cat.props)),
            "colour": frozenset(cat.colours),
            "state": frozenset(bank.watch.states) | frozenset(bank.change.states)}


def _objects(where: str, lines: list[tuple[int, Annotation]]) -> tuple[AnnotatedObject, ...]:
    by_id: dict[str, list[tuple[int, Annotation]]] = {}
    for n, rec in lines:
        by_id.setdefault(rec.id or rec.object, []).append((n, rec))
    out = []
    for oid, recs in by_id.items():
        recs.sort(key=lambda x: (x[1].t_s, x[0]))
        n0, first = recs[0]
        if first.kind != VisualChange.APPEARS:
            raise ConfigError(f"{where}:{n0}: kind: object {oid}'s first event is {first.kind}; it must be appears")
        labels = {r.object for _, r in recs}
        if len(labels) > 1:
            raise ConfigError(f"{where}:{recs[1][0]}: object: id {oid} is named {sorted(labels)}; give one label an id")
        for n, r in recs[1:]:
            if r.kind == VisualChange.APPEARS:
                raise ConfigError(f"{where}:{n}: kind: object {oid} appears twice")
        for n, r in recs[:-1]:
            if r.kind == VisualChange.LEAVES:
                raise ConfigError(f"{where}:{n}: kind: object {oid} leaves before its later events")
        out.append(AnnotatedObject(id=oid, label=first.object, colour=first.colour, state=first.state,
                                   events=tuple(r for _, r in recs)))
    return tuple(out)


def read_library(src: SceneSourceConfig) -> VideoLibrary:
    """The annotated videos of a `video` scene source, every check applied (ConfigError, one line)."""
    assert src.path is not None and src.annotations is not None
    root, ann = Path(src.path), Path(src.annotations)
    where = f"scene_source.annotations: {ann.name}"
    lines = _read_lines(ann)
    per_video: dict[str, list[tuple[int, Annotation]]] = {}
    for n, rec in lines:
        per_video.setdefault(rec.video, []).append((n, rec))
    videos = []
    for name in sorted(per_video):
        recs = per_video[name]
        n0 = recs[0][0]
        file = root / name
        if Path(name).is_absolute() or ".." in Path(name).parts or not file.is_file():
            raise ConfigError(f"{where}:{n0}: video: no file {name} in {root}")
        duration = probe_duration(file)
        for n, r in recs:
            if r.t_s > duration + _EPS:
                raise ConfigError(f"{where}:{n}: t_s: {r.t_s} s is past the end of {name} ({duration:.3f} s)")
        places = {r.place for _, r in recs if r.place is not None}
        kinds = {r.scene for _, r in recs if r.scene is not None}
        if len(places) != 1 or len(kinds) != 1:
            which, got = ("place", places) if len(places) != 1 else ("scene", kinds)
            raise ConfigError(f"{where}:{n0}: {which}: the lines of {name} give {len(got)} values "
                              f"({', '.join(sorted(map(str, got))) or 'none'}); give exactly one")
        videos.append(VideoInfo(file=name, sha256=file_sha256(file), duration_s=duration, place=places.pop(),
                                kind=SceneKind(kinds.pop()), objects=_objects(where, recs)))
    return VideoLibrary(root=root, videos=tuple(videos))


def _stamp(src: SceneSourceConfig) -> tuple[tuple[str, int, int], ...]:
    """(file, size, mtime) of the annotation file and every file of the video folder: what a cached read depends on."""
    assert src.path is not None and src.annotations is not None
    try:
        files = [Path(src.annotations), *sorted(p for p in Path(src.path).iterdir() if p.is_file())]
        return tuple((str(f), (st := f.stat()).st_size, st.st_mtime_ns) for f in files)
    except OSError as err:
        raise ConfigError(f"scene_source: cannot read {err.filename} ({err.strerror})") from None


@functools.lru_cache(maxsize=4)
def _library_cached(path: str, annotations: str, stamp: tuple[tuple[str, int, int], ...]) -> VideoLibrary:
    return read_library(SceneSourceConfig(kind=VIDEO_KIND, path=Path(path), annotations=Path(annotations)))


def video_library(src: SceneSourceConfig) -> VideoLibrary:
    """The library of a `video` scene source, read once per process per content (an edit re-reads)."""
    return _library_cached(str(src.path), str(src.annotations), _stamp(src))


def videos_fingerprint(lib: VideoLibrary, annotations: Path) -> str:
    """sha256 over the annotation file's bytes and each named video's name and content sha256."""
    h = hashlib.sha256(file_sha256(annotations).encode())
    for v in lib.videos:
        h.update(b"\0" + json.dumps(v.file).encode() + b"\0" + v.sha256.encode())
    return h.hexdigest()


def pinned_library(src: SceneSourceConfig) -> VideoLibrary:
    """The library of a `video` scene source, refused (ConfigError) when the config pins other files
    than these: a worker reads the videos the run was pinned to, or none."""
    lib = video_library(src)
    if src.videos_sha256 is not None:
        assert src.annotations is not None
        actual = videos_fingerprint(lib, Path(src.annotations))
        if actual != src.videos_sha256:
            raise ConfigError(f"scene_source.videos_sha256: the videos or annotations have changed since this run's "
                              f"config was written (now {actual[:16]}…, the config pins {src.videos_sha256[:16]}…); "
                              "restore them, or start a new run (another --out, or --force-new-run)")
    return lib


def pin_videos(cfg: RunConfig) -> RunConfig:
    """`cfg` with its video source's fingerprint (`videos_sha256`) filled in, so the config hash (the
    resume check, every shard's sidecar) changes when a video or the annotations do; a fingerprint the
    config already gives must match (ConfigError otherwise). Other configs are returned as they are."""
    src = cfg.scene_source
    if src.kind != VIDEO_KIND:
        return cfg
    assert src.annotations is not None
    actual = videos_fingerprint(pinned_library(src), Path(src.annotations))
    return replace(cfg, scene_source=replace(src, videos_sha256=actual))


# ----------------------------------------------------------------------------- segments -> scenes

def segment_scene(video: VideoInfo, start_s: float, unit_s: float,
                  asks: tuple[VisualAsk, ...] = ()) -> Scene:
    """The scene of `video` from `start_s`: each event at the unit of the first frame showing it; what
    happened before the segment is what frame 0 shows (an object that left before it is not in it)."""
    objects = []
    for o in video.objects:
        leaves = o.first(VisualChange.LEAVES)
        if leaves is not None and leaves.t_s <= start_s + _EPS:
            continue
        state, text, changes = o.state, None, []
        for e in o.events:
            unit = frame_of(e.t_s, start_s, unit_s)
            if e.kind == VisualChange.TEXT_READABLE:
                text = e.text
            elif unit == 0 and e.kind != VisualChange.APPEARS:   # so already in frame 0
                state = e.state if e.kind == VisualChange.CHANGES_STATE else state
                text = e.text if e.kind == VisualChange.TEXT_CHANGES else text
                continue
            changes.append(Change(unit=unit, change=e.kind,
                                  state=e.state if e.kind == VisualChange.CHANGES_STATE else None,
                                  text=e.text if e.kind == VisualChange.TEXT_CHANGES else None,
                                  description=e.description))
        objects.append(SceneObject(id=o.id, label=o.label, colour=o.colour, rgb=None, shape=None, box=None,
                                   text=text, state=state, timeline=tuple(changes)))
    clip = VideoClip(file=video.file, sha256=video.sha256, start_s=start_s, duration_s=video.duration_s)
    return Scene(kind=video.kind, place=video.place, objects=tuple(objects), asks=asks, video=clip)


# The later events that would make a stated fact stale: a colour after a change of state (a video
# shows the new look) or once the object has left; a text once it changes or the object has left.
STALES: dict[VisualChange, tuple[VisualChange, ...]] = {
    VisualChange.APPEARS: (VisualChange.CHANGES_STATE, VisualChange.LEAVES),
    VisualChange.TEXT_READABLE: (VisualChange.TEXT_CHANGES, VisualChange.LEAVES)}


@dataclass(frozen=True)
class Pick:
    """A segment of a video and the object a family asks about in it."""

    video: VideoInfo
    obj: AnnotatedObject
    start_s: float


def _draw(rng: np.random.Generator, options: list[Pick]) -> Pick | None:
    return options[int(rng.integers(len(options)))] if options else None


def pick_fact(lib: VideoLibrary, rng: np.random.Generator, unit_s: float, kind: VisualChange,
              early: tuple[int, int]) -> Pick | None:
    """An object with a `kind` event and a segment start (a whole number of units) putting the frame that
    first shows it at unit early[0]..early[1]-1 with the object itself in view from frame 0 (the user's
    question names it), and nothing after it that would make the fact stale (STALES); None when no video
    has one."""
    options = []
    for v in lib.videos:
        for o in v.objects:
            e = o.first(kind)
            if e is None or (kind == VisualChange.APPEARS and o.colour is None):
                continue
            if any(x.kind in STALES[kind] for x in o.events if x.t_s >= e.t_s):
                continue   # what the answer says could be stale by the time it is said
            at, shown = math.ceil(e.t_s / unit_s - _EPS), math.ceil(o.events[0].t_s / unit_s - _EPS)
            # the user names it in their first words: frame 0 shows it already
            starts = sorted({max(0, at - k) for k in range(*early)} & set(range(shown, at + 1)))
            options += [Pick(v, o, s * unit_s) for s in starts]
    return _draw(rng, options)


def pick_watch(lib: VideoLibrary, rng: np.random.Generator, unit_s: float, states: tuple[str, ...],
               after: tuple[int, int]) -> tuple[Pick, Annotation] | None:
    """An object whose state changes to one of `states` and a segment start putting that change
    after[0]..after[1]-1 frames in, with the object shown from frame 0 (the user's first words name it,
    and the assistant's acknowledgement does too); None when no video has one."""
    options = []
    for v in lib.videos:
        for o in v.objects:
            appears = o.events[0]
            for e in o.events:
                if e.kind != VisualChange.CHANGES_STATE or e.state not in states:
                    continue
                at = math.ceil(e.t_s / unit_s - _EPS)
                lo = math.ceil(appears.t_s / unit_s - _EPS)
                # an earlier change of state must be over by frame 0, so this is the segment's first
                before = max((x.t_s for x in o.events if x.kind == VisualChange.CHANGES_STATE and x.t_s < e.t_s),
                             default=0.0)
                starts = [s for s in range(max(0, at - after[1] + 1), at - after[0] + 1)
                          if s >= lo and s * unit_s >= before - _EPS]
                options += [(Pick(v, o, s * unit_s), e) for s in starts]
                break   # the first change to a watched state: what the user waits for
    return options[int(rng.integers(len(options)))] if options else None


@dataclass(frozen=True)
class StaleChange:
    """visual_change over a video: the object, the change that makes the answer stale, what the answer
    says before it (`old`: a state or a text) and after (`new`), and the fact's and the change's kinds."""

    pick: Pick
    asked: VisualChange           # appears (a state is seen from it) or text_readable
    change: VisualChange          # changes_state or text_changes
    old: str
    new: str


def pick_change(lib: VideoLibrary, rng: np.random.Generator, unit_s: float, states: tuple[str, ...],
                texts: tuple[str, ...], early: tuple[int, int]) -> StaleChange | None:
    """An object whose state (or text) the change lines can say before and after its first change, and
    a segment start putting the frame that first shows the old fact at unit early[0]..early[1]-1 and the
    object in view from frame 0.
    Composition then starts the segment later so the change falls inside the answer (`shift_scene`)."""
    options: list[StaleChange] = []
    for v in lib.videos:
        for o in v.objects:
            found: list[tuple[VisualChange, Annotation, Annotation, str | None, str | None]] = []
            st = o.first(VisualChange.CHANGES_STATE)
            if st is not None and o.state in states and st.state in states and st.state != o.state:
                found.append((VisualChange.APPEARS, o.events[0], st, o.state, st.state))
            readable, flips = o.first(VisualChange.TEXT_READABLE), o.first(VisualChange.TEXT_CHANGES)
            if (readable is not None and flips is not None and readable.t_s < flips.t_s
                    and readable.text in texts and flips.text in texts and flips.text != readable.text):
                found.append((VisualChange.TEXT_READABLE, readable, flips, readable.text, flips.text))
            shown = math.ceil(o.events[0].t_s / unit_s - _EPS)   # the question names it: in view from frame 0
            for asked, fact, change, old, new in found:
                at, to = math.ceil(fact.t_s / unit_s - _EPS), math.ceil(change.t_s / unit_s - _EPS)
                for start in sorted({max(0, at - k) for k in range(*early)} & set(range(shown, at + 1))):
                    if to > at and old is not None and new is not None:   # the change after the old fact's frame
                        options.append(StaleChange(Pick(v, o, start * unit_s), asked, change.kind, old, new))
    return options[int(rng.integers(len(options)))] if options else None


def shift_scene(scene: Scene, delta: int, unit_s: float) -> Scene:
    """The video scene with its segment starting `-delta` units later (delta <= 0): every change `delta`
    units earlier, what falls at or before frame 0 folded into what frame 0 shows (as segment_scene
    folds what happened before the segment), an object that has left by then gone."""
    assert scene.video is not None and delta <= 0
    if delta == 0:
        return scene
    objects = []
    for o in scene.objects:
        leaves = o.first(VisualChange.LEAVES)
        if leaves is not None and leaves.unit + delta <= 0:
            continue
        state, text, changes = o.state, o.text, []
        for c in o.timeline:
            unit = c.unit + delta
            if unit <= 0 and c.change not in (VisualChange.APPEARS, VisualChange.TEXT_READABLE):
                state = c.state if c.change == VisualChange.CHANGES_STATE else state
                text = c.text if c.change == VisualChange.TEXT_CHANGES else text
                continue
            changes.append(replace(c, unit=max(0, unit)))
        objects.append(replace(o, state=state, text=text, timeline=tuple(changes)))
    clip = replace(scene.video, start_s=round(scene.video.start_s - delta * unit_s, 6))
    return replace(scene, objects=tuple(objects), video=clip)


def check_videos(cfg: RunConfig, states: dict[str, tuple[str, ...]],
                 stale: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> None:
    """Refuse (ConfigError) a video source that does not read, or that holds nothing a family the run
    asks for can use. `states`: per language of the run, the states visual_watch can say; `stale`: the
    states and texts visual_change can say."""
    if cfg.scene_source.kind != VIDEO_KIND:
        return
    asked = {s for s, w in cfg.scenarios.items() if w > 0}
    procedural_only = sorted(asked & {Scenario.VISUAL_INTERRUPTION, Scenario.VISUAL_DELEGATION})
    if procedural_only:
        raise ConfigError(f"scenarios: {', '.join(procedural_only)} draw procedural scenes only; a video scene_source "
                          "serves visual_qa, visual_watch and visual_change")
    other = sorted(code for code in cfg.language_weights() if code != ENGLISH.code)
    if other:   # the annotations' labels, colours and texts are said as written: English words
        raise ConfigError(f"scene_source: video annotations are said as written (English labels and texts); "
                          f"a video run is English only, not {', '.join(other)}")
    lib = video_library(cfg.scene_source)
    name = Path(cfg.scene_source.annotations or "").name
    rng = np.random.default_rng(0)
    if Scenario.VISUAL_QA in asked and all(pick_fact(lib, rng, cfg.unit_s, k, (0, 1)) is None
                                    for k in (VisualChange.APPEARS, VisualChange.TEXT_READABLE)):
        raise ConfigError(f"scene_source.annotations: no object in {name} can be asked about in visual_qa "
                          "(an appears event with a colour, or a text_readable event)")
    if Scenario.VISUAL_WATCH in asked:
        for lang, said in states.items():
            if pick_watch(lib, rng, cfg.unit_s, said, (1, 10**6)) is None:
                raise ConfigError(f"scene_source.annotations: no object in {name} can be watched in visual_watch "
                                  f"({lang}: a changes_state event to one of {', '.join(said)}, at least a frame "
                                  "after the object appears)")
    if Scenario.VISUAL_CHANGE in asked:
        for lang, (said, texts) in stale.items():
            if pick_change(lib, rng, cfg.unit_s, said, texts, (0, 10**6)) is None:
                raise ConfigError(f"scene_source.annotations: no object in {name} changes in a way visual_change can "
                                  f"say ({lang}: from one to another of the states {', '.join(said)}, or of the "
                                  f"texts {', '.join(texts)})")
