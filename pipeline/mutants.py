"""Row mutations at every limit: the validator's own strength test (issue #28 item 3).

Each `Mutant` takes a real generated row and returns it broken by the smallest step past one
rule that `pipeline/validate.py` checks (one window, one sample, one unit, 0.1 dB past a
tolerance, one character or token), or None where the row has no place for that break. The
break is made the way a broken generator would write it: what derives from the edited thing is
derived again (units by pipeline.units.slice_units, audio by re-rendering the row's own timeline
description through pipeline.mixer.render_audio), so a check that trusts one record to catch an
edit of another proves nothing here. Every mutant names the rule id that must refuse it.

Shared by tests/test_validator_mutants.py (a fast subset) and benchmarks/validator_mutants.py
(every family, caught / total per rule). Pure functions of (row, tts): `tts` is the synthesizer the
row's meta.tts names, used to re-render audio and re-say a line; nothing here imports Ray.
"""
from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from pipeline import acoustics as ac
from pipeline.io import encode_flac
from pipeline.frames import render_frames
from pipeline.mixer import cached_speaker, render_audio
from pipeline.units import FLOOR_TAKING, slice_units
from schemas.decode_budget import delegate_fits, row_ms_per_step
from schemas.language import language
from schemas.protocol import DELEGATE_MAX_CHARS, LEAK_TOKENS, SPEECH_TOKENS_PER_SECOND
from schemas.script import Script, VoiceSpec
from schemas.timeline import META_KEY, TimelineSpec
from schemas.attrs import dump_attrs, parse_attrs
from schemas.trajectory import Event, TrajectoryRow, Word, attrs_of
from schemas.twins import TWIN_META_KEY, TwinSide, twin_meta
from schemas.scene import Change, Scene, SceneObject, VisualChange
from schemas.replace import replace
from schemas.vocab import (OVERLAY_KINDS, RELAYED_OUTCOMES, Decision, EventKind, InterruptAction, Label, Role,
                           TaskOutcome, Trigger)
from schemas.windows import next_window, to_samples, unit_samples, window_of, window_start

# The limits a mutant steps just past are the ones validate checks (schemas/thresholds.py).
from pipeline.validate import validate_row
from schemas.thresholds import ASSISTANT_SILENCE_DBFS, DETECT_MAX_S, DETECT_MIN_S, MIN_EOT_S, SNR_TOLERANCE_DB

STEP_DB = 0.1   # how far past a level limit a mutant goes


Apply = Callable[[TrajectoryRow, Any], "TrajectoryRow | None"]
ApplyPair = Callable[[TrajectoryRow, TrajectoryRow], "tuple[TrajectoryRow, TrajectoryRow] | None"]


@dataclass(frozen=True)
class Mutant:
    """One smallest-step break of one rule: `apply(row, tts)` returns the broken copy, or None where
    the row has nothing to break that way (no interruption, no relay...)."""

    name: str
    rule: str     # the rule id validate must name
    step: str     # the step, in words
    apply: Apply


@dataclass(frozen=True)
class PairMutant:
    """A break of a twin pair rule (validate_twins): `apply(base, twin)` returns the broken pair or None."""

    name: str
    rule: str
    step: str
    apply: ApplyPair


# ----------------------------------------------------------------------------- row plumbing

def _attrs(e: Event) -> Any:
    """The event's typed attrs (schemas/attrs.py): read by attribute, so a misspelt key fails."""
    return attrs_of(e)


def _set(e: Event, **changes: Any) -> None:
    """Attrs changed and validated by the kind's model (an unknown key or a wrong type is refused)."""
    e.attrs = dump_attrs(parse_attrs(e.kind, {**json.loads(e.attrs), **changes}))


def _meta(row: TrajectoryRow) -> dict[str, Any]:
    return json.loads(row.meta)


def _put_meta(row: TrajectoryRow, meta: dict[str, Any]) -> None:
    row.meta = json.dumps(meta, sort_keys=True)


def _U(row: TrajectoryRow) -> int:
    return unit_samples(row.unit_s, row.sample_rate)


def _s(row: TrajectoryRow, t: float) -> int:
    return to_samples(t, row.sample_rate)


def _sec(row: TrajectoryRow, n: int) -> float:
    return n / row.sample_rate


def _W(row: TrajectoryRow, t: float) -> int:
    return window_of(_s(row, t), _U(row))


def _kind(row: TrajectoryRow, *kinds: str) -> list[Event]:
    return [e for e in row.events if e.kind in kinds]


def _turns(row: TrajectoryRow) -> list[Event]:
    return sorted(_kind(row, EventKind.ASSISTANT_TURN), key=lambda e: e.start_s)


def _event(row: TrajectoryRow, event_id: str) -> Event:
    return next(e for e in row.events if e.id == event_id)


def _track(meta: dict[str, Any], event_id: str) -> dict[str, Any] | None:
    return next((t for t in meta[META_KEY]["tracks"] if t["event_id"] == event_id), None)


def _rederive(row: TrajectoryRow) -> TrajectoryRow:
    """Units derived again from the (edited) events and words, the row's speech tokens kept."""
    per_unit = int(round(SPEECH_TOKENS_PER_SECOND * row.unit_s))
    tokens = None
    if any(x.speech_tokens for x in row.units):
        tokens = np.zeros((len(row.units) + 1) * per_unit, dtype=np.int64)
        for x in row.units:
            k = (x.index + 1) * per_unit
            tokens[k:k + len(x.speech_tokens)] = x.speech_tokens
    row.events.sort(key=lambda e: (e.start_s, e.id))
    row.words.sort(key=lambda w: (w.start_s, w.event_id))
    row.units = slice_units(row.events, row.words, len(row.units), row.unit_s, row.sample_rate, tokens,
                            language(row.language))
    return row


def _render(row: TrajectoryRow, tts: Any) -> tuple[np.ndarray, np.ndarray]:
    """(user, assistant) float audio the row's timeline description renders (before FLAC)."""
    spec = TimelineSpec.from_meta(_meta(row))
    if spec is None:
        raise ValueError(f"{row.id}: meta holds no timeline")
    user, asst = render_audio(spec, tts)
    return np.asarray(user, dtype=np.float32).copy(), np.asarray(asst, dtype=np.float32).copy()


def _store(row: TrajectoryRow, user: np.ndarray, asst: np.ndarray) -> TrajectoryRow:
    row.user_audio.bytes = encode_flac(user, row.sample_rate)
    row.assistant_audio.bytes = encode_flac(asst, row.sample_rate)
    return row


def _rerender(row: TrajectoryRow, tts: Any, edit: Callable[[np.ndarray, np.ndarray], None] | None = None
              ) -> TrajectoryRow:
    """The row's audio rendered again from its (edited) timeline, `edit(user, asst)` applied before FLAC."""
    user, asst = _render(row, tts)
    if edit is not None:
        edit(user, asst)
    return _store(row, user, asst)


def _shift(row: TrajectoryRow, event_id: str, d: int) -> None:
    """Move an event, its words and its audio track by `d` samples (the timeline says it, audio follows)."""
    e = _event(row, event_id)
    e.start_s, e.end_s = _sec(row, _s(row, e.start_s) + d), _sec(row, _s(row, e.end_s) + d)
    for w in row.words:
        if w.event_id == event_id:
            w.start_s, w.end_s = _sec(row, _s(row, w.start_s) + d), _sec(row, _s(row, w.end_s) + d)
    meta = _meta(row)
    t = _track(meta, event_id)
    if t is not None:
        t["offset"] += d
    _put_meta(row, meta)


def _resay(row: TrajectoryRow, turn_id: str, text: str, tts: Any) -> bool:
    """An uncut assistant turn made to say `text` from the same start: its track, words, event end,
    text and planned_text, as composition writes them. False when the new line would not fit the row."""
    e = _event(row, turn_id)
    meta = _meta(row)
    t = _track(meta, turn_id)
    if t is None or t["ops"] or _attrs(e).interrupted:
        return False
    syn = cached_speaker(tts, row.sample_rate)(text, _voice(t))
    start = t["offset"]
    end = start + ac.last_active_sample(syn.audio)
    limit = min((_s(row, x.start_s) for x in _turns(row) if x.start_s > e.start_s), default=None)
    if start + len(syn.audio) > len(row.units) * _U(row) or (limit is not None and end > limit):
        return False
    t["source"]["text"] = text
    _put_meta(row, meta)
    lang = language(row.language)
    row.words = [w for w in row.words if w.event_id != turn_id] + [
        Word(role=Role.ASSISTANT, word=w.word, start_s=_sec(row, start + _s(row, w.start_s)),
             end_s=_sec(row, start + _s(row, w.end_s)), event_id=turn_id) for w in syn.words]
    e.end_s = _sec(row, end)
    e.text = lang.join(lang.words(text))
    _set(e, planned_text=text)
    return True


def _voice(track: dict[str, Any]) -> VoiceSpec:
    return VoiceSpec.model_validate(track["source"]["voice"])


def _script(row: TrajectoryRow) -> Script | None:
    try:
        return Script.model_validate_json(row.script)
    except ValueError:
        return None


def _fresh(fn: Apply) -> Apply:
    """The mutant applied to a deep copy: the caller's row is never edited."""
    def apply(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
        return fn(row.model_copy(deep=True), tts)
    apply.__doc__ = fn.__doc__
    return apply


def _amp(dbfs: float) -> float:
    """The amplitude of a level in dBFS. At the 0.1 dB steps used here the 16-bit rounding FLAC applies
    (about 0.04 dB near -50 dBFS) keeps the stored sample on the same side of the limit."""
    return 10 ** (dbfs / 20)


def _listen_windows(row: TrajectoryRow) -> Iterator[int]:
    """Windows a listening unit plays (w = k+1) that no cut's fade reaches: silent by §5."""
    fades = set()
    for t in _turns(row):
        a = _attrs(t)
        if a.interrupted and a.cut_s is not None:
            fades.add(_W(row, a.cut_s))
    for x in row.units:
        w = x.index + 1
        if x.decision == Decision.LISTEN and w < len(row.units) and w not in fades:
            yield w


# ----------------------------------------------------------------------------- §5 structure and audio

@_fresh
def audio_one_sample_short(row: TrajectoryRow, tts: Any) -> TrajectoryRow:
    """The assistant channel one sample shorter than num_units * U."""
    user, asst = _render(row, tts)
    return _store(row, user, asst[:-1])


@_fresh
def duration_one_sample_long(row: TrajectoryRow, tts: Any) -> TrajectoryRow:
    """duration_s one sample longer than its units hold."""
    row.duration_s = _sec(row, len(row.units) * _U(row) + 1)
    return row


@_fresh
def unit_index_skips(row: TrajectoryRow, tts: Any) -> TrajectoryRow:
    """The last unit's index one past its place."""
    row.units[-1].index += 1
    return row


@_fresh
def window0_one_loud_sample(row: TrajectoryRow, tts: Any) -> TrajectoryRow:
    """One assistant sample in window 0 at 0.1 dB above the silence level."""
    U = _U(row)
    return _rerender(row, tts, lambda user, asst: asst.__setitem__(U // 2, _amp(ASSISTANT_SILENCE_DBFS + STEP_DB)))


@_fresh
def listen_one_loud_sample(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """One assistant sample 0.1 dB above silence in a window a listening unit plays."""
    w = next(iter(_listen_windows(row)), None)
    if w is None:
        return None
    U = _U(row)
    loud = _amp(ASSISTANT_SILENCE_DBFS + STEP_DB)
    return _rerender(row, tts, lambda user, asst: asst.__setitem__(w * U + U // 2, loud))


@_fresh
def speak_window_just_silent(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A window a speaking unit plays, scaled to peak 0.1 dB below the silence level."""
    k = next((x.index for x in row.units if x.decision == Decision.SPEAK and x.index + 1 < len(row.units)), None)
    if k is None:
        return None
    U = _U(row)

    def edit(user: np.ndarray, asst: np.ndarray) -> None:
        seg = asst[(k + 1) * U:(k + 2) * U]
        seg *= _amp(ASSISTANT_SILENCE_DBFS - STEP_DB) / float(np.max(np.abs(seg)))
    return _rerender(row, tts, edit)


@_fresh
def listen_unit_one_token(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """One speech token on a listening unit (a row made without a speech tokenizer, as the benchmark's)."""
    x = next((x for x in row.units if x.decision == Decision.LISTEN), None)
    if x is None or any(y.speech_tokens for y in row.units):
        return None
    x.speech_tokens = [0]
    return row


@_fresh
def label_added(row: TrajectoryRow, tts: Any) -> TrajectoryRow:
    """One unit carries one label the events do not derive (a `respond` where nothing starts)."""
    x = next(x for x in row.units if Label.RESPOND not in x.labels)
    x.labels = sorted([*x.labels, Label.RESPOND])
    return row


@_fresh
def label_removed(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """One derived label missing from one unit."""
    x = next((x for x in row.units if x.labels), None)
    if x is None:
        return None
    x.labels = x.labels[1:]
    return row


@_fresh
def turn_eos_one_unit_late(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A turn_eos on the unit after the one whose window the turn ends in."""
    k = next((x.index for x in row.units if x.turn_eos and x.index + 1 < len(row.units)
              and not row.units[x.index + 1].turn_eos), None)
    if k is None:
        return None
    row.units[k].turn_eos, row.units[k + 1].turn_eos = False, True
    return row


@_fresh
def word_one_unit_late(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A unit's last spoken word moved into the next unit's spoken_text (concatenation unchanged)."""
    lang = language(row.language)
    for x, y in zip(row.units, row.units[1:]):
        words = lang.words(x.spoken_text)
        if len(words) > 1 and y.spoken_text:
            x.spoken_text = lang.join(words[:-1])
            y.spoken_text = lang.join([words[-1], y.spoken_text])
            return row
    return None


@_fresh
def unit_word_dropped(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """One word missing from one unit's spoken_text."""
    lang = language(row.language)
    x = next((x for x in row.units if len(lang.words(x.spoken_text)) > 1), None)
    if x is None:
        return None
    x.spoken_text = lang.join(lang.words(x.spoken_text)[:-1])
    return row


@_fresh
def unspoken_one_word_short(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A cut turn's recorded unspoken rest one word short of its planned text."""
    lang = language(row.language)
    for t in _turns(row):
        a = _attrs(t)
        rest = lang.words(a.unspoken_text or "")
        if a.interrupted and rest:
            _set(t, unspoken_text=lang.join(rest[:-1]))
            return row
    return None


# ----------------------------------------------------------------------------- §2 rules 2-8

def _floor_before(row: TrajectoryRow, turn: Event) -> Event | None:
    """The floor-taking user event that ends last before `turn` starts (the one it answers)."""
    users = [e for e in _kind(row, *FLOOR_TAKING) if e.end_s <= turn.start_s]
    return max(users, key=lambda e: e.end_s, default=None)


def _earliest(row: TrajectoryRow, e: Event) -> int:
    return next_window(_s(row, e.end_s) + _s(row, float(_attrs(e).eot_s)), _U(row))


def _movable(row: TrajectoryRow, t: Event) -> bool:
    """A turn that can move whole windows with nothing tied to it: uncut, no request, no timer, no overlay."""
    a = _attrs(t)
    tied = [e for e in row.events if e.kind in (EventKind.DELEGATE, EventKind.TIMER, *OVERLAY_KINDS, EventKind.VISUAL)
            and (getattr(_attrs(e), "turn", None) == t.id or t.start_s <= e.start_s < t.end_s)]
    return not a.interrupted and not a.cut_by and not tied and _track(_meta(row), t.id) is not None


@_fresh
def reply_one_window_early(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A reply moved whole windows earlier (words, audio, units with it) to start one window before
    floor((t_end + eot_s)/u) + 1: the window in which the model can only just know the user finished."""
    for t in _turns(row):
        e = _floor_before(row, t)
        if e is None or not _movable(row, t) or _attrs(t).trigger != Trigger.USER:
            continue
        d = (_W(row, t.start_s) - _earliest(row, e) + 1) * _U(row)
        prev = [o for o in _turns(row) if o.end_s <= t.start_s and o.id != t.id]
        if prev and _s(row, max(o.end_s for o in prev)) > _s(row, t.start_s) - d:
            continue
        _shift(row, t.id, -d)
        return _rederive(_rerender(row, tts))
    return None


@_fresh
def reply_early_user_end_recorded_early(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A reply one window early (as reply_one_window_early) whose user turn records its end one window
    earlier than its words and audio end, so the records alone still satisfy rule 2."""
    for t in _turns(row):
        e = _floor_before(row, t)
        if e is None or not _movable(row, t) or _attrs(t).trigger != Trigger.USER:
            continue
        d = (_W(row, t.start_s) - _earliest(row, e) + 1) * _U(row)
        prev = [o for o in _turns(row) if o.end_s <= t.start_s and o.id != t.id]
        if (prev and _s(row, max(o.end_s for o in prev)) > _s(row, t.start_s) - d) or \
                _s(row, e.end_s) - _U(row) <= _s(row, e.start_s):
            continue
        _shift(row, t.id, -d)
        e.end_s = _sec(row, _s(row, e.end_s) - _U(row))
        return _rederive(_rerender(row, tts))
    return None


@_fresh
def cut_late_onset_recorded_late(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A cut one window late (as cut_one_window_late) whose cut-in records its onset where the cut
    would be right: the words and audio start a window before the recorded onset."""
    e = _cut_in(row)
    if e is None or _s(row, e.start_s) < _U(row):
        return None
    start, end = e.start_s, e.end_s
    _shift(row, e.id, -_U(row))
    e.start_s, e.end_s = start, end
    return _rederive(_rerender(row, tts))


@_fresh
def eot_under_floor(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A user turn's recorded end-of-turn silence 0.01 s under the 0.2 s floor."""
    e = next(iter(_kind(row, *FLOOR_TAKING)), None)
    if e is None:
        return None
    _set(e, eot_s=round(MIN_EOT_S - 0.01, 4))
    return row


def _cut_in(row: TrajectoryRow) -> Event | None:
    return next(iter(_kind(row, EventKind.INTERRUPTION)), None)


@_fresh
def cut_one_window_late(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """The user's cut-in (its words and audio) one window earlier than the one its cut reacts to:
    the turn is kept playing one window after floor((t_i + detect_s)/u) + 1."""
    e = _cut_in(row)
    if e is None or _s(row, e.start_s) < _U(row):
        return None
    _shift(row, e.id, -_U(row))
    return _rederive(_rerender(row, tts))


@_fresh
def cut_one_window_early(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """The user's cut-in one window later: the turn is cut a window before the model heard it."""
    e = _cut_in(row)
    if e is None:
        return None
    _shift(row, e.id, _U(row))
    return _rederive(_rerender(row, tts))


@_fresh
def detect_over_range(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A cut-in's recorded detection delay 0.01 s over 0.8 s."""
    e = _cut_in(row)
    if e is None:
        return None
    _set(e, detect_s=round(DETECT_MAX_S + 0.01, 4))
    return row


@_fresh
def detect_under_range(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A cut-in's recorded detection delay 0.01 s under 0.3 s."""
    e = _cut_in(row)
    if e is None:
        return None
    _set(e, detect_s=round(DETECT_MIN_S - 0.01, 4))
    return row


@_fresh
def react_unit_one_late(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A cut-in's recorded reacting unit one after the unit that heard the detection."""
    e = _cut_in(row)
    if e is None:
        return None
    _set(e, react_unit=_attrs(e).react_unit + 1)
    return row


@_fresh
def turn_cut_one_window_late(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A cut turn records its cut one window after the cut its interruption records."""
    t = _cut_turn(row)
    if t is None:
        return None
    _set(t, cut_s=_sec(row, _s(row, _attrs(t).cut_s) + _U(row)))
    return row


def _cut_turn(row: TrajectoryRow) -> Event | None:
    return next((t for t in _turns(row) if _attrs(t).interrupted and _attrs(t).cut_s is not None
                 and _attrs(t).interruption), None)


@_fresh
def turn_ends_one_sample_past_cut(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A cut turn's event claims one sample of sound past its cut."""
    t = _cut_turn(row)
    if t is None:
        return None
    t.end_s = _sec(row, _s(row, _attrs(t).cut_s) + 1)
    return row


@_fresh
def natural_turn_marked_cut(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A turn nothing interrupted recorded as cut at the start of its last window."""
    for t in _turns(row):
        a = _attrs(t)
        if a.interrupted:
            continue
        cut = _W(row, t.end_s) * row.unit_s
        if cut <= t.start_s:
            continue
        _set(t, interrupted=True, cut_s=cut, action=InterruptAction.DISCARD, truncated=[], fade_s=0.03)
        return _rederive(row)
    return None


@_fresh
def turn_ends_at_overlay(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """The turn a backchannel / other-directed / background event overlaps ends (naturally, turn_eos)
    in the window after the one that event ends in, as if it were a stop: its later words never said."""
    lang = language(row.language)
    for ov in sorted(_kind(row, *OVERLAY_KINDS), key=lambda e: e.start_s):
        t = next((t for t in _turns(row) if t.start_s <= ov.start_s < t.end_s and _movable_text(row, t)), None)
        if t is None:
            continue
        stop = window_start(next_window(_s(row, ov.end_s), _U(row)), _U(row))
        words = sorted((w for w in row.words if w.event_id == t.id), key=lambda w: w.start_s)
        n = sum(1 for w in words if _s(row, w.start_s) < stop)
        if 0 < n < len(words) and _resay(row, t.id, lang.join([w.word for w in words[:n]]), tts):
            return _rederive(_rerender(row, tts))
    return None


def _relayed(row: TrajectoryRow) -> Iterator[tuple[Event, Event, Event]]:
    """(backend result, its delegate, its relay turn) of each relayed result."""
    delegates = {_attrs(d).task_id: d for d in _kind(row, EventKind.DELEGATE)}
    for b in _kind(row, EventKind.BACKEND):
        a = _attrs(b)
        if a.outcome in RELAYED_OUTCOMES and a.relay_turn and a.task_id in delegates:
            yield b, delegates[a.task_id], _event(row, a.relay_turn)


def _delay_result(row: TrajectoryRow, b: Event, d: Event, dn: int) -> None:
    """A result `dn` samples later, its delegate's latency and ready time recording it."""
    _shift(row, b.id, dn)
    da = _attrs(d)
    _set(d, latency_s=round(float(da.latency_s or 0.0) + _sec(row, dn), 6),
         ready_s=_sec(row, _s(row, b.start_s)))


@_fresh
def result_one_sample_early(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A backend result readable one sample before its delegate's latency has elapsed."""
    for b, d, _ in _relayed(row):
        _shift(row, b.id, -1)
        _set(d, ready_s=_sec(row, _s(row, b.start_s)))
        return _rederive(row)
    return None


@_fresh
def relay_one_window_early(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A result made readable whole windows later (latency and ready time with it) so that its relay
    starts one window before floor(t_r/u) + 1."""
    for b, d, relay in _relayed(row):
        n = _W(row, relay.start_s) - next_window(_s(row, b.start_s), _U(row)) + 1
        _delay_result(row, b, d, n * _U(row))
        return _rederive(row)
    return None


@_fresh
def timer_announced_one_window_early(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A timer made to fire whole windows later (its recorded seconds with it) so that its announcement
    starts one window before floor(t_fire/u) + 1."""
    for e in _kind(row, EventKind.TIMER):
        a = _attrs(e)
        t = next((t for t in _turns(row) if _attrs(t).trigger == Trigger.TIMER
                  and _attrs(t).ref == a.timer_id), None)
        if t is None:
            continue
        n = _W(row, t.start_s) - next_window(_s(row, e.start_s), _U(row)) + 1
        _shift(row, e.id, n * _U(row))
        _set(e, seconds=round(float(a.seconds) + n * row.unit_s, 6))
        return _rederive(row)
    return None


# The digits a relay's number is written with, one string per script: one is swapped for another.
DIGITS: tuple[str, ...] = ("123456789", "一二三四五六七八九")


@_fresh
def relay_states_unread_number(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A relay says one number that is in no result it read and nothing said before it: one digit
    of a number it states changed, the line re-said (words, audio, units)."""
    from pipeline.validate import RowView, _matches
    v = RowView(row, None)
    lang = language(row.language)
    for t in _turns(row):
        if _attrs(t).trigger != Trigger.BACKEND or not _movable_text(row, t):
            continue
        known: set[str] = set()
        for e in row.events:
            if e.id != t.id and e.start_s <= t.start_s and e.kind in (*FLOOR_TAKING, EventKind.ASSISTANT_TURN,
                                                                    EventKind.DELEGATE, EventKind.BACKEND,
                                                                    EventKind.TIMER):
                known |= v.lang.numbers(e.text) | _en_numbers(e.text)
        text = _attrs(t).planned_text
        for i, ch in enumerate(text):
            digits = next((d for d in DIGITS if ch in d), None)
            if digits is None:
                continue
            for dig in digits:
                new = text[:i] + dig + text[i + 1:]
                fresh = lang.numbers(new) - lang.numbers(text)
                if fresh and not any(_matches(x, known) for x in fresh) and _resay(row, t.id, new, tts):
                    return _rederive(_rerender(row, tts))
    return None


def _en_numbers(text: str) -> set[str]:
    from schemas.languages.en import english_numbers
    return english_numbers(text)


def _movable_text(row: TrajectoryRow, t: Event) -> bool:
    a = _attrs(t)
    return not a.interrupted and _track(_meta(row), t.id) is not None


@_fresh
def repair_skips_unheard_sentence(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A continuation (repair / resume) that starts one sentence element after the first one the
    user did not fully hear, re-said from its prefix (words, audio, units)."""
    from pipeline.validate import RowView, _heard_words, _sentences
    script = _script(row)
    if script is None:
        return None
    v = RowView(row, None)
    lang = language(row.language)
    for st in script.turns:
        c = st.continuation
        if c is None:
            continue
        turn, ref = v.turn(st.id), v.turn(c.of_turn)
        if turn is None or ref is None or not _movable_text(row, turn):
            continue
        heard = _heard_words(v, ref)
        if heard is None:
            continue
        planned = lang.words(v.attrs[ref.id].planned_text)
        full = sum(1 for s in _sentences(lang, planned) if s[-1] < heard)
        elements = lang.sentence_elements(c.sentences)
        if full + 1 > len(elements):
            continue
        text = lang.join([c.prefix, *elements[full + 1:]]).strip()
        if text and _resay(row, turn.id, text, tts):
            return _rederive(_rerender(row, tts))
    return None


@_fresh
def question_without_turn_eos(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """An assistant question whose last unit has no turn_eos."""
    lang = language(row.language)
    for t in _turns(row):
        if _attrs(t).interrupted or not lang.is_question(t.text):
            continue
        k = (_s(row, t.end_s) - 1) // _U(row) - 1
        if 0 <= k < len(row.units) and row.units[k].turn_eos:
            row.units[k].turn_eos = False
            return row
    return None


def _truncated(row: TrajectoryRow) -> tuple[Event, list[Word], dict[str, Any]] | None:
    for t in _turns(row):
        a = _attrs(t)
        if a.interrupted and a.truncated:
            return t, sorted((w for w in row.words if w.event_id == t.id), key=lambda w: w.start_s), a
    return None


@_fresh
def cut_word_one_sample_past_cut(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A word the cut reaches ends one sample after the cut."""
    found = _truncated(row)
    if found is None:
        return None
    _, words, a = found
    words[a.truncated[0].index].end_s = _sec(row, _s(row, a.cut_s) + 1)
    return row


@_fresh
def cut_word_not_marked(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A word the cut reaches, not recorded as truncated."""
    found = _truncated(row)
    if found is None:
        return None
    t, _, a = found
    _set(t, truncated=[x.model_dump() for x in a.truncated[1:]])
    return row


@_fresh
def word_starts_at_cut(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A cut turn's last voiced word recorded as starting on the cut's sample (it is in the fade: unspoken)."""
    for t in _turns(row):
        a = _attrs(t)
        words = sorted((w for w in row.words if w.event_id == t.id), key=lambda w: w.start_s)
        if a.interrupted and a.cut_s is not None and words:
            words[-1].start_s = words[-1].end_s = a.cut_s
            return _rederive(row)
    return None


@_fresh
def doubled_word_in_script(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A template artefact in what the user says: a name's own article after another ('the The ...')."""
    script = _script(row)
    if script is None or row.language != "en":
        return None
    data = json.loads(row.script)
    user = next((t for t in data["turns"] if t["role"] == "user"), None)
    if user is None:
        return None
    user["text"] += " Is the The Corner Shop open?"
    row.script = json.dumps(data)
    return row


# ----------------------------------------------------------------------------- delegation protocol

def _request(row: TrajectoryRow, text: str, d: Event) -> None:
    """A delegate's request text, in its event and in the unit that issues it."""
    old = d.text
    d.text = text
    for x in row.units:
        if x.delegate == old and x.task_id == _attrs(d).task_id:
            x.delegate = text


@_fresh
def request_one_char_over(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A delegate request one character over the 4,000-character limit."""
    d = next(iter(_kind(row, EventKind.DELEGATE)), None)
    if d is None or not d.text:
        return None
    text = d.text
    while len(text) <= DELEGATE_MAX_CHARS:   # the request said again until it runs past the limit
        text = f"{text} {d.text}"
    _request(row, text[:DELEGATE_MAX_CHARS] + "x", d)
    return row


@_fresh
def request_leaks_token(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """One protocol token inside a delegate request."""
    d = next(iter(_kind(row, EventKind.DELEGATE)), None)
    if d is None or not d.text:
        return None
    _request(row, f"{d.text} {LEAK_TOKENS[0]}", d)
    return row


@_fresh
def request_one_unit_late(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A request issued (its event and unit) one unit after the unit that starts its turn."""
    for d in _kind(row, EventKind.DELEGATE):
        k = _attrs(d).unit
        if k is None or k + 1 >= len(row.units):
            continue
        if row.units[k + 1].delegate is None:
            return _move_request(row, d, k)
    return None


@_fresh
def request_over_budget(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A request in a unit that speaks that the decode time it leaves cannot write: one character too
    long where it is issued in a speaking unit; a long one (issued in the listening unit before its turn,
    as compose does) issued one unit later, in the unit that speaks."""
    ms = row_ms_per_step(row.meta)
    for d in _kind(row, EventKind.DELEGATE):
        k = _attrs(d).unit
        if k is None or not d.text or _attrs(d).turn is None:
            continue
        if row.units[k].decision == Decision.SPEAK:
            text = d.text
            while delegate_fits(text, float(row.unit_s), True, ms):
                text += "x"
            _request(row, text, d)
            return row
        if k + 1 < len(row.units) and row.units[k + 1].decision == Decision.SPEAK and \
                row.units[k + 1].delegate is None and not delegate_fits(d.text, float(row.unit_s), True, ms):
            return _move_request(row, d, k)
    return None


def _move_request(row: TrajectoryRow, d: Event, k: int) -> TrajectoryRow:
    """A request issued by unit k + 1 instead of k (its event, attrs and units)."""
    _set(d, unit=k + 1)
    d.start_s = d.end_s = _sec(row, window_start(k + 2, _U(row)))
    x, y = row.units[k], row.units[k + 1]
    y.delegate, y.task_id, x.delegate, x.task_id = x.delegate, x.task_id, None, None
    return _rederive(row)


@_fresh
def result_leaks_token(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """One protocol token inside a backend result."""
    b = next(iter(_kind(row, EventKind.BACKEND)), None)
    if b is None:
        return None
    b.text = f"{b.text} {LEAK_TOKENS[0]}"
    return _rederive(row)


@_fresh
def relayed_task_marked_cancelled(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A task whose result is relayed recorded as cancelled (nothing cancels it)."""
    for _, d, _ in _relayed(row):
        _set(d, outcome=TaskOutcome.CANCELLED)
        return row
    return None


@_fresh
def result_read_by_its_ack(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A task's result one window earlier, into the window of its acknowledgement's first unit (a long
    request written in the listening unit before the turn): the acknowledgement then says "working on
    it" over a result its unit has read. Latency, ready time and units move with the result."""
    for d in _kind(row, EventKind.DELEGATE):
        a = _attrs(d)
        ack = next((t for t in _turns(row) if t.id == a.turn), None)
        b = next((e for e in _kind(row, EventKind.BACKEND) if _attrs(e).task_id == a.task_id), None)
        if ack is None or b is None or _attrs(ack).trigger == Trigger.BACKEND:
            continue
        if a.unit == _W(row, ack.start_s) - 2 and _W(row, b.start_s) == _W(row, ack.start_s):
            dt = -row.unit_s
            b.start_s, b.end_s = b.start_s + dt, b.end_s + dt
            for e in (b, d):
                _set(e, ready_s=_attrs(e).ready_s + dt, latency_s=_attrs(e).latency_s + dt)
            return _rederive(row)
    return None


@_fresh
def late_call_off_unmarked(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A cancel (or undo) written after its task's result was readable, recorded as if the task were
    still pending (the old generator's "Cancel the pending request"): one attr."""
    for d in _kind(row, EventKind.DELEGATE):
        if _attrs(d).after_result:
            _set(d, after_result=None)
            return row
    return None


# ----------------------------------------------------------------------------- acoustics

@_fresh
def one_sample_at_full_scale(row: TrajectoryRow, tts: Any) -> TrajectoryRow:
    """One assistant sample at full scale."""
    k = next((x.index for x in row.units if x.decision == Decision.SPEAK), 0)
    U = _U(row)
    return _rerender(row, tts, lambda user, asst: asst.__setitem__((k + 1) * U + U // 2, 1.0))


def _noise_event(row: TrajectoryRow) -> Event | None:
    return next(iter(_kind(row, EventKind.NOISE)), None)


def _snr_draw_off(sign: float) -> Apply:
    @_fresh
    def apply(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
        meta = _meta(row)
        noises = (meta[META_KEY].get("mic") or {}).get("noises") or []
        if not noises:
            return None
        n = noises[0]
        n["snr_db"] = round(n["snr_db"] + sign * (SNR_TOLERANCE_DB + STEP_DB), 4)
        _put_meta(row, meta)
        e = _noise_event(row)
        if e is not None:
            _set(e, snr_db=n["snr_db"])
        return row
    side = "above" if sign > 0 else "below"
    apply.__doc__ = f"A noise's recorded SNR draw {SNR_TOLERANCE_DB + STEP_DB} dB {side} what was mixed."
    return apply


@_fresh
def noise_mixed_louder(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A noise mixed 0.1 dB past the tolerance louder than its draw (the draw recorded as drawn)."""
    meta = _meta(row)
    noises = (meta[META_KEY].get("mic") or {}).get("noises") or []
    if not noises or "gain" not in noises[0]:
        return None
    noises[0]["gain"] *= 10 ** ((SNR_TOLERANCE_DB + STEP_DB) / 20)
    _put_meta(row, meta)
    return _rerender(row, tts)


@_fresh
def audio_one_lsb_off(row: TrajectoryRow, tts: Any) -> TrajectoryRow:
    """One user-channel sample one 16-bit step off what the timeline renders."""
    U = _U(row)
    return _rerender(row, tts, lambda user, asst: user.__setitem__(U // 3, user[U // 3] + 1.0 / 32767))


@_fresh
def track_one_sample_late(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """The description places the first assistant track one sample later than the audio holds it."""
    meta = _meta(row)
    t = next((t for t in meta[META_KEY]["tracks"] if t["stem"] == "assistant"), None)
    if t is None:
        return None
    t["offset"] += 1
    _put_meta(row, meta)
    return row


# ----------------------------------------------------------------------------- Omni

def _jpeg_to_png(blob: bytes) -> bytes:
    out = io.BytesIO()
    Image.open(io.BytesIO(blob)).save(out, format="PNG")
    return out.getvalue()


@_fresh
def frame_missing(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """An Omni row one frame short of one per unit."""
    if not row.frames:
        return None
    row.frames = row.frames[:-1]
    return row


@_fresh
def frame_not_jpeg(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """One frame of an Omni row stored as PNG."""
    if not row.frames:
        return None
    row.frames[len(row.frames) // 2] = _jpeg_to_png(row.frames[len(row.frames) // 2])
    return row


def _move_visual(row: TrajectoryRow, e: Event, unit: int) -> None:
    """A visual event at another frame's unit (its visual_event label derived again)."""
    e.start_s = e.end_s = _sec(row, window_start(unit, _U(row)))
    _set(e, unit=unit)


@_fresh
def fact_one_frame_late(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """The first frame showing a fact a turn states is the turn's own window's: one frame too late."""
    for e in _kind(row, EventKind.VISUAL):
        for turn_id in _attrs(e).stated_by or []:
            t = next((x for x in _turns(row) if x.id == turn_id), None)
            if t is not None and _W(row, t.start_s) < len(row.units):
                _move_visual(row, e, _W(row, t.start_s))
                return _rederive(row)
    return None


@_fresh
def object_shown_one_frame_late(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """An object a word names first appears at the frame of that word's own output unit + 1."""
    from pipeline.validate import RowView, _named, _object_names
    v = RowView(row, None)
    if v.scene is None:
        return None
    names = _object_names(v, {o.label for o in v.scene.objects})
    named = list(_named(v, names))
    appears = {_attrs(e).label: e for e in _kind(row, EventKind.VISUAL)
               if _attrs(e).change == VisualChange.APPEARS}
    for w, label in sorted(named, key=lambda x: x[0].start_s):
        e = appears.get(label)
        if e is not None and _W(row, w.start_s) < len(row.units):
            _move_visual(row, e, _W(row, w.start_s))   # first shown to unit W, the word is the output of W-1
            return _rederive(row)
    return None


@_fresh
def change_cut_one_window_early(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A change that cut a stale answer first shows in the cut's own window: cut before it was read."""
    for t in _turns(row):
        a = _attrs(t)
        if a.cut_by and a.cut_s is not None:
            e = _event(row, a.cut_by)
            _move_visual(row, e, _W(row, a.cut_s))
            return _rederive(row)
    return None


# ----------------------------------------------------------------------------- unit grammar, content that stays true

@_fresh
def turn_starts_in_previous_turns_window(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """An assistant turn (words, audio, units with it) moved earlier to start on the last sample of the
    window where the previous assistant turn ends: one output unit would carry both. Where the turn
    started on the next window's first sample (the earliest §3 allows) the step is one sample."""
    turns = [t for t in _turns(row) if t.end_s > t.start_s]
    moves: list[tuple[bool, int, str]] = []   # (a user turn in between, samples moved, turn id)
    for prev, nxt in zip(turns, turns[1:]):
        if not _movable(row, nxt):
            continue
        end = _s(row, prev.end_s)
        last = window_of(end - 1, _U(row))            # the window holding prev's last sample
        start = window_start(last + 1, _U(row)) - 1   # the last sample of that window
        if start < end:
            continue   # prev sounds to its window's end: nothing can start in it without overlapping
        between = any(prev.end_s <= e.start_s < nxt.start_s for e in _kind(row, *FLOOR_TAKING))
        moves.append((between, _s(row, nxt.start_s) - start, nxt.id))
    if not moves:
        return None
    _, d, turn_id = min(moves)   # back-to-back turns first (an acknowledgement then a relay), the nearest
    _shift(row, turn_id, -d)
    return _rederive(_rerender(row, tts))


@_fresh
def repair_starts_past_changed_sentence(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A repair that starts one sentence past the first sentence the user heard and the correction changed
    (compose without `Language.first_changed`: the old fact is never said again), re-said from its prefix
    (words, audio, units)."""
    from pipeline.validate import RowView, _Continued, _continuations
    v = RowView(row, None)
    lang = language(row.language)
    for c in _continuations(v):
        if not isinstance(c, _Continued):
            continue
        changed = lang.first_changed(c.planned, c.elements)
        if not (c.start <= changed < c.full) or not _movable_text(row, _event(row, c.id)):
            continue
        prefix = next(t.continuation.prefix for t in v.script.turns if t.id == c.id and t.continuation is not None)
        text = lang.join([prefix, *c.elements[changed + 1:]]).strip()
        if text and _resay(row, c.id, text, tts):
            return _rederive(_rerender(row, tts))
    return None


@_fresh
def repair_keeps_changed_heard_sentence(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """A repair that starts after a sentence the user heard, whose sentences (the answer with the
    correction applied) now read that heard sentence otherwise: one sentence changed by the correction
    and never said again (the repair keeps starting where it did)."""
    from pipeline.validate import RowView, _Continued, _continuations
    v = RowView(row, None)
    lang = language(row.language)
    for c in _continuations(v):
        if not isinstance(c, _Continued) or c.start < 1:
            continue
        data = json.loads(row.script)
        st = next(t for t in data["turns"] if t["id"] == c.id)
        j = c.start - 1   # the last sentence before the repair's start: the user heard it (start <= full)
        old = c.elements[j]
        new = old[:-1] + ", or so it seemed" + old[-1] if lang.ends_sentence(old) else old + " or so it seemed"
        st["continuation"]["sentences"] = [*c.elements[:j], new, *c.elements[j + 1:]]
        if lang.sentence_elements(st["continuation"]["sentences"])[j] == old:
            continue
        row.script = json.dumps(data)
        return row
    return None


@_fresh
def parked_answer_left_unnamed(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """The turn that picks up (or sets aside) a parked answer no longer names it: one attr cleared."""
    for t in _turns(row):
        a = _attrs(t)
        if a.resumes is not None:
            _set(t, resumes=None)
            return row
        if a.drops is not None:
            _set(t, drops=None)
            return row
    return None


# ----------------------------------------------------------------------------- Omni facts against the frames

def _scene_script(row: TrajectoryRow) -> tuple[Script, Scene] | None:
    script = _script(row)
    if script is None or script.scene is None or not row.frames:
        return None
    return script, script.scene


def _put_scene(row: TrajectoryRow, script: Script, scene: Scene) -> TrajectoryRow:
    """The row as a generator that drew `scene` writes it: the script holds it, a procedural scene's
    frames are drawn from it again (a video's frames are the video's)."""
    row.script = replace(script, scene=scene).model_dump_json()
    if scene.video is None:
        with Image.open(io.BytesIO(row.frames[0])) as im:
            size = im.size[0]
        row.frames = render_frames(scene, len(row.units), size, script.seed)
    return row


def _with_object(scene: Scene, obj: SceneObject) -> Scene:
    return replace(scene, objects=tuple(obj if o.id == obj.id else o for o in scene.objects))


def _move_change(row: TrajectoryRow, scene: Scene, obj: SceneObject, change: Change, unit: int,
                 event: bool = True) -> Scene | None:
    """`change` of `obj` at frame `unit` instead, in the scene and (`event`) in its visual event (None:
    the object's timeline would not hold it there)."""
    try:
        timeline = tuple(sorted((replace(c, unit=unit) if c is change else c for c in obj.timeline),
                                key=lambda c: c.unit))
        scene = _with_object(scene, replace(obj, timeline=timeline))
    except ValueError:
        return None
    for e in _kind(row, EventKind.VISUAL) if event else ():
        a = _attrs(e)
        if a.object == obj.id and a.change == change.change and a.unit == change.unit:
            _move_visual(row, e, unit)
    return scene


@_fresh
def said_colour_one_colour_off(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """The object a turn says the colour of drawn in the catalogue's next colour (scene and frames)."""
    from generators.scenes.catalog import catalog
    from pipeline.validate import RowView, _said
    found = _scene_script(row)
    if found is None or found[1].video is not None:
        return None
    script, scene = found
    colours = list(catalog().colours)
    for s in _said(RowView(row, None), "colours"):
        objs = [o for o in s.objects if o.colour == s.value]
        if not objs or any(o.colour not in colours for o in objs):
            continue
        for o in objs:   # every object it can be about: none keeps the colour said
            other = colours[(colours.index(s.value) + 1) % len(colours)]
            scene = _with_object(scene, replace(scene.object(o.id), colour=other, rgb=catalog().colours[other]))
        return _put_scene(row, script, scene)
    return None


def _last_change(obj: SceneObject, kinds: tuple[VisualChange, ...], unit: int) -> Change | None:
    return next((c for c in reversed(obj.timeline) if c.change in kinds and c.unit <= unit), None)


def _said_one_frame_late(kind: str, changes: tuple[VisualChange, ...]) -> Apply:
    """The change that makes a said text / state true shown from one frame after the unit that says it."""
    @_fresh
    def apply(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
        from pipeline.validate import RowView, _said
        found = _scene_script(row)
        if found is None:
            return None
        script, scene = found
        for s in _said(RowView(row, None), kind):
            for o in (scene.object(x.id) for x in s.objects):
                c = _last_change(o, changes, s.unit)
                if c is None or s.unit + 1 >= len(row.units):
                    continue
                moved = _move_change(row, scene, o, c, s.unit + 1)
                if moved is not None:
                    return _rederive(_put_scene(row, script, moved))
        return None
    apply.__doc__ = f"The change that makes a {kind[:-1]} the assistant says true first shown one frame after " \
                    "the last frame its unit has read (scene, frames and visual event)."
    return apply


def _blank_jpeg(blob: bytes) -> bytes:
    with Image.open(io.BytesIO(blob)) as im:
        size = im.size
    out = io.BytesIO()
    Image.new("RGB", size, (128, 128, 128)).save(out, format="JPEG")
    return out.getvalue()


@_fresh
def fact_over_blank_frame(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """The last frame an answer stating a visual fact has read, blank: one frame."""
    from pipeline.validate import RowView, _fact_turns
    v = RowView(row, None)
    if v.scene is None:
        return None
    for t, ws, objs, asks in _fact_turns(v):
        if asks and ws and 0 <= _W(row, ws[0].start_s) - 1 < len(row.frames):
            r = _W(row, ws[0].start_s) - 1
            row.frames[r] = _blank_jpeg(row.frames[r])
            return row
    return None


def _question_before_shown(event: bool) -> Apply:
    @_fresh
    def apply(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
        from pipeline.validate import RowView, _named, _object_names
        found = _scene_script(row)
        if found is None:
            return None
        script, scene = found
        v = RowView(row, None)
        for w, label in _named(v, _object_names(v, {o.label for o in scene.objects}), Role.USER):
            k = _W(row, w.start_s)
            if k + 1 >= len(row.units):
                continue
            moved: Scene | None = scene
            for o in scene.objects:
                c = o.first(VisualChange.APPEARS)
                if o.label == label and c is not None and c.unit <= k and moved is not None:
                    now = moved.object(o.id)
                    moved = _move_change(row, moved, now, now.first(VisualChange.APPEARS), k + 1, event)
            if moved is not None and moved != scene:
                return _rederive(_put_scene(row, script, moved))
        return None
    apply.__doc__ = ("An object a user word names first appears one window after that word's window (scene and "
                     "frames" + (", visual event)." if event else "; its visual event still records the frame "
                                 "it appeared in before, so the record alone still satisfies the rule)."))
    return apply


@_fresh
def request_names_unread_result(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """An Omni delegate request that names one word of its result (a destination) before that result is
    in, that no frame shows and nobody said: one name."""
    found = _scene_script(row)
    if found is None:
        return None
    _, scene = found
    lang = language(row.language)
    user = {_bare_word(w.word) for w in row.words if w.role == Role.USER}
    shown = {_bare_word(x) for o in scene.objects for t in (o.text, *(c.text for c in o.timeline)) if t
             for x in lang.words(t)}
    for d in _kind(row, EventKind.DELEGATE):
        b = next((b for b in _kind(row, EventKind.BACKEND) if _attrs(b).task_id == _attrs(d).task_id), None)
        if b is None or not d.text:
            continue
        words = lang.words(b.text)
        known = user | shown | {_bare_word(x) for x in lang.words(d.text)}
        name = next((w.strip(".,!?;:'\"()") for i, w in enumerate(words) if i > 0 and w[:1].isupper()
                     and not lang.ends_sentence(words[i - 1]) and _bare_word(w) not in known), None)
        if name is None:
            continue
        body, end = (d.text[:-1], d.text[-1]) if d.text[-1] in ".?!" else (d.text, "")
        _request(row, f"{body} to {name}{end}", d)
        return row
    return None



@_fresh
def request_code_one_digit_off(row: TrajectoryRow, tts: Any) -> TrajectoryRow | None:
    """An Omni delegate request whose number (a flight code read off a ticket) has one digit changed: a
    number no frame shows and nobody said."""
    if _scene_script(row) is None:
        return None
    lang = language(row.language)
    said = {n for w in row.words for n in lang.numbers(w.word)}
    for d in _kind(row, EventKind.DELEGATE):
        for i, ch in enumerate(d.text or ""):
            if not ch.isdigit():
                continue
            new = d.text[:i] + str((int(ch) + 1) % 10) + d.text[i + 1:]
            fresh = lang.numbers(new) - lang.numbers(d.text)
            if fresh and not fresh & said:
                _request(row, new, d)
                return row
    return None

def _bare_word(word: str) -> str:
    return word.strip(".,!?;:'\"()").lower()


# ----------------------------------------------------------------------------- contrastive twins

def _twin_parts(base: TrajectoryRow) -> tuple[Any, int] | None:
    """(base's pair record, K: the first unit whose input differs between the two rows)."""
    m = twin_meta(base.meta)
    if m is None or m.side != TwinSide.BASE:
        return None
    return m, window_of(to_samples(m.diverge_s, base.sample_rate), _U(base))


def _pcm_edit(blob: bytes, fn: Callable[[np.ndarray], None]) -> bytes:
    """FLAC bytes with `fn` applied to their 16-bit samples (exact: no float round trip)."""
    import soundfile as sf
    x, sr = sf.read(io.BytesIO(blob), dtype="int16")
    x = x.copy()
    fn(x)
    out = io.BytesIO()
    sf.write(out, x, sr, format="FLAC", subtype="PCM_16")
    return out.getvalue()


def twin_diverge_one_sample(base: TrajectoryRow, twin: TrajectoryRow) -> tuple[TrajectoryRow, TrajectoryRow] | None:
    """Both pair records put the divergence one sample after the differing overlap starts."""
    if _twin_parts(base) is None:
        return None
    out = []
    for r in (base, twin):
        r = r.model_copy(deep=True)
        meta = _meta(r)
        meta[TWIN_META_KEY]["diverge_s"] = _sec(r, _s(r, meta[TWIN_META_KEY]["diverge_s"]) + 1)
        _put_meta(r, meta)
        out.append(r)
    return out[0], out[1]


def twin_prefix_one_label(base: TrajectoryRow, twin: TrajectoryRow) -> tuple[TrajectoryRow, TrajectoryRow] | None:
    """The twin's last unit before the divergence carries one label the base's does not."""
    parts = _twin_parts(base)
    if parts is None or parts[1] < 1:
        return None
    twin = twin.model_copy(deep=True)
    x = twin.units[parts[1] - 1]
    extra = next(lab for lab in Label if lab not in x.labels)
    x.labels = sorted([*x.labels, extra])
    return base, twin


def twin_prefix_one_lsb(base: TrajectoryRow, twin: TrajectoryRow) -> tuple[TrajectoryRow, TrajectoryRow] | None:
    """One twin assistant sample one 16-bit step off, in the last sample the units before the divergence play."""
    parts = _twin_parts(base)
    if parts is None:
        return None
    twin = twin.model_copy(deep=True)
    end = (parts[1] + 1) * _U(twin) - 1

    def bump(x: np.ndarray) -> None:
        x[end] = x[end] + 1 if x[end] < 32767 else x[end] - 1
    twin.assistant_audio.bytes = _pcm_edit(twin.assistant_audio.bytes, bump)
    return base, twin


def twin_rule4_word_one_unit_late(base: TrajectoryRow, twin: TrajectoryRow
                                  ) -> tuple[TrajectoryRow, TrajectoryRow] | None:
    """A pair that differs only by a rule-4 overlap: after the divergence, one word of the twin's
    output one unit later than in the base."""
    parts = _twin_parts(base)
    if parts is None:
        return None
    m, K = parts
    if not all(e.kind in OVERLAY_KINDS for e in base.events + twin.events if e.id in (m.event, m.twin_event)):
        return None
    twin = twin.model_copy(deep=True)
    lang = language(twin.language)
    for x, y in zip(twin.units[K:], twin.units[K + 1:]):
        words = lang.words(x.spoken_text)
        if len(words) > 1 and y.spoken_text:
            x.spoken_text, y.spoken_text = lang.join(words[:-1]), lang.join([words[-1], y.spoken_text])
            return base, twin
    return None


# ----------------------------------------------------------------------------- the registry

MUTANTS: tuple[Mutant, ...] = (
    Mutant("audio_one_sample_short", "audio_length", "one sample", audio_one_sample_short),
    Mutant("duration_one_sample_long", "audio_length", "one sample", duration_one_sample_long),
    Mutant("unit_index_skips", "unit_index", "one index", unit_index_skips),
    Mutant("window0_one_loud_sample", "rule1_silent_window0", "one sample, +0.1 dB", window0_one_loud_sample),
    Mutant("listen_one_loud_sample", "listen_silent", "one sample, +0.1 dB", listen_one_loud_sample),
    Mutant("speak_window_just_silent", "speak_active", "one window, -0.1 dB", speak_window_just_silent),
    Mutant("listen_unit_one_token", "token_counts", "one token", listen_unit_one_token),
    Mutant("label_added", "labels_derived", "one label", label_added),
    Mutant("label_removed", "labels_derived", "one label", label_removed),
    Mutant("turn_eos_one_unit_late", "labels_derived", "one unit", turn_eos_one_unit_late),
    Mutant("word_one_unit_late", "labels_derived", "one unit", word_one_unit_late),
    Mutant("unit_word_dropped", "spoken_text_concat", "one word", unit_word_dropped),
    Mutant("unspoken_one_word_short", "voiced_plus_unspoken", "one word", unspoken_one_word_short),
    Mutant("reply_one_window_early", "rule2_response_after_eot", "one window", reply_one_window_early),
    Mutant("reply_early_user_end_recorded_early", "rule2_response_after_eot", "one window",
           reply_early_user_end_recorded_early),
    Mutant("eot_under_floor", "rule2_response_after_eot", "0.01 s", eot_under_floor),
    Mutant("cut_one_window_late", "rule3_interruption_cut", "one window", cut_one_window_late),
    Mutant("cut_late_onset_recorded_late", "rule3_interruption_cut", "one window", cut_late_onset_recorded_late),
    Mutant("cut_one_window_early", "rule3_interruption_cut", "one window", cut_one_window_early),
    Mutant("detect_over_range", "rule3_interruption_cut", "0.01 s", detect_over_range),
    Mutant("detect_under_range", "rule3_interruption_cut", "0.01 s", detect_under_range),
    Mutant("react_unit_one_late", "rule3_interruption_cut", "one unit", react_unit_one_late),
    Mutant("turn_cut_one_window_late", "rule3_interruption_cut", "one window", turn_cut_one_window_late),
    Mutant("turn_ends_one_sample_past_cut", "rule3_interruption_cut", "one sample", turn_ends_one_sample_past_cut),
    Mutant("natural_turn_marked_cut", "rule4_only_interruptions_cut", "one attr", natural_turn_marked_cut),
    Mutant("turn_ends_at_overlay", "rule4_overlay_keeps_output", "one window", turn_ends_at_overlay),
    Mutant("result_one_sample_early", "backend_after_delegate", "one sample", result_one_sample_early),
    Mutant("relay_one_window_early", "rule5_relay_after_ready", "one window", relay_one_window_early),
    Mutant("timer_announced_one_window_early", "rule5_relay_after_ready", "one window",
           timer_announced_one_window_early),
    Mutant("relay_states_unread_number", "rule6_relay_facts_read", "one digit", relay_states_unread_number),
    Mutant("repair_skips_unheard_sentence", "rule7_continuation_from_heard", "one sentence",
           repair_skips_unheard_sentence),
    Mutant("question_without_turn_eos", "rule7_question_ends_turn", "one unit", question_without_turn_eos),
    Mutant("cut_word_one_sample_past_cut", "rule8_word_timings_true", "one sample", cut_word_one_sample_past_cut),
    Mutant("cut_word_not_marked", "rule8_word_timings_true", "one record", cut_word_not_marked),
    Mutant("word_starts_at_cut", "rule8_word_timings_true", "one word", word_starts_at_cut),
    Mutant("doubled_article", "text_lint", "one word", doubled_word_in_script),
    Mutant("request_one_char_over", "delegate_request", "one character", request_one_char_over),
    Mutant("request_leaks_token", "delegate_request", "one token", request_leaks_token),
    Mutant("request_one_unit_late", "delegate_request", "one unit", request_one_unit_late),
    Mutant("request_over_budget", "delegate_decode_budget", "one character / one unit", request_over_budget),
    Mutant("result_leaks_token", "backend_plain", "one token", result_leaks_token),
    Mutant("relayed_task_marked_cancelled", "task_outcome", "one outcome", relayed_task_marked_cancelled),
    Mutant("result_read_by_its_ack", "ack_before_result", "one window", result_read_by_its_ack),
    Mutant("late_call_off_unmarked", "cancel_after_result", "one attr", late_call_off_unmarked),
    Mutant("one_sample_at_full_scale", "no_clipping", "one sample", one_sample_at_full_scale),
    Mutant("snr_draw_over", "snr_realised", f"+{SNR_TOLERANCE_DB + STEP_DB} dB", _snr_draw_off(+1.0)),
    Mutant("snr_draw_under", "snr_realised", f"-{SNR_TOLERANCE_DB + STEP_DB} dB", _snr_draw_off(-1.0)),
    Mutant("noise_mixed_louder", "snr_realised", f"+{SNR_TOLERANCE_DB + STEP_DB} dB", noise_mixed_louder),
    Mutant("audio_one_lsb_off", "timeline_renders_audio", "one sample, one step", audio_one_lsb_off),
    Mutant("track_one_sample_late", "timeline_renders_audio", "one sample", track_one_sample_late),
    Mutant("frame_missing", "omni_frame_per_unit", "one frame", frame_missing),
    Mutant("frame_not_jpeg", "omni_frame_per_unit", "one frame", frame_not_jpeg),
    Mutant("fact_one_frame_late", "omni_fact_after_frame", "one frame", fact_one_frame_late),
    Mutant("object_shown_one_frame_late", "omni_named_objects_shown", "one frame", object_shown_one_frame_late),
    Mutant("change_cut_one_window_early", "omni_change_cut_after_frame", "one window", change_cut_one_window_early),
    Mutant("turn_starts_in_previous_turns_window", "unit_one_turn", "one window (one sample past the earliest)",
           turn_starts_in_previous_turns_window),
    Mutant("repair_starts_past_changed_sentence", "rule7_changed_fact_resaid", "one sentence",
           repair_starts_past_changed_sentence),
    Mutant("repair_keeps_changed_heard_sentence", "rule7_changed_fact_resaid", "one sentence",
           repair_keeps_changed_heard_sentence),
    Mutant("parked_answer_left_unnamed", "park_resumed_or_dropped", "one attr", parked_answer_left_unnamed),
    Mutant("said_colour_one_colour_off", "omni_said_colour", "one colour", said_colour_one_colour_off),
    Mutant("said_text_one_frame_early", "omni_said_text", "one frame",
           _said_one_frame_late("texts", (VisualChange.TEXT_READABLE, VisualChange.TEXT_CHANGES))),
    Mutant("said_state_one_frame_early", "omni_said_state", "one frame",
           _said_one_frame_late("states", (VisualChange.CHANGES_STATE,))),
    Mutant("fact_over_blank_frame", "omni_fact_in_frame", "one frame", fact_over_blank_frame),
    Mutant("question_one_window_before_shown", "omni_question_names_shown", "one window",
           _question_before_shown(event=True)),
    Mutant("question_before_drawn_event_kept", "omni_question_names_shown", "one window",
           _question_before_shown(event=False)),
    Mutant("request_code_one_digit_off", "omni_request_facts_read", "one digit", request_code_one_digit_off),
    Mutant("request_names_unread_result", "omni_request_facts_read", "one name", request_names_unread_result),
)

PAIR_MUTANTS: tuple[PairMutant, ...] = (
    PairMutant("twin_diverge_one_sample", "twin_pair", "one sample", twin_diverge_one_sample),
    PairMutant("twin_prefix_one_label", "twin_prefix", "one label", twin_prefix_one_label),
    PairMutant("twin_prefix_one_lsb", "twin_prefix", "one sample, one step", twin_prefix_one_lsb),
    PairMutant("twin_rule4_word_one_unit_late", "twin_rule4", "one unit", twin_rule4_word_one_unit_late),
)


def expects_tokens(row: TrajectoryRow) -> bool:
    """Whether the row was made with a speech tokenizer (meta names one): validate checks counts so."""
    return _meta(row).get("speech_tokenizer") is not None


def fired(row: TrajectoryRow, tts: Any, rules: tuple[str, ...] | None = None) -> set[str]:
    """The rule ids validate names for `row` (every rule, the slow ones included, unless `rules`)."""
    return {v.rule for v in validate_row(row, expect_tokens=expects_tokens(row), recompose=True, tts=tts,
                                         rules=rules)}
