"""Invariant checks of DESIGN §2 (rules 1-8) and §5 on a stored trajectory row.

validate is a list of small rule checks (`RULES`). Each has a stable id that appears in every
violation it reports, so a report line names the rule it breaks and a mutation test can assert
that breaking exactly one rule fires exactly its id. A check reads a decoded view of the row
(`RowView`) and yields messages; it never raises on bad content.

Rule 4 (an overlay leaves the output unchanged) is checked as DESIGN states it: the row's own
script is re-composed without its overlays and the decision / spoken_text sequences compared.
That needs a TTS and costs one composition per row, so `validate_row` runs it only when asked
(`recompose=True`); `duplexsynth validate` always asks.
"""
from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import Any

import numpy as np
from PIL import Image

from generators.harness.format import has_protocol_leak
from generators.scenes.bank import has_visual, visual_bank
from generators.text_lint import lint_script
from pipeline import acoustics as ac
from pipeline.io import decode_audio
from pipeline.mixer import render_audio
from pipeline.rooms import quantise_like_flac
from pipeline.scene import realised_snrs
from pipeline.tts import CachedTTS, tts_from_identity
from pipeline.units import FLOOR_TAKING, slice_units
from schemas.bounds import BoundsError
from schemas.decode_budget import decode_steps_available, delegate_decode_steps, delegate_fits, row_ms_per_step
from schemas.protocol import DELEGATE_MAX_CHARS, SPEECH_CODEBOOK, SPEECH_TOKENS_PER_SECOND
from schemas.language import Language, language
from schemas.replace import replace
from schemas.scene import BLANK_FRAME_STD, MOTION_STATES, STALE_CHANGES, VisualChange
from schemas.languages.en import english_numbers
from schemas.thresholds import ASSISTANT_SILENCE_DBFS, DETECT_MAX_S, DETECT_MIN_S, MIN_EOT_S, SNR_TOLERANCE_DB
from schemas.timeline import ANSWER_ROOM_S, HEARD_FRACTION, META_KEY, TimelineSpec
from schemas.trajectory import Event, TrajectoryRow, attrs_of
from schemas.vocab import (DROPPED_OUTCOMES, OVERLAY_KINDS, RELAYED_OUTCOMES, Decision, EventKind, InterruptAction,
                           Role, TaskOutcome, TaskStatus, Trigger)
from schemas.windows import last_window_at, next_window, to_samples, unit_samples, window_at, window_of, window_start

CLIP_LEVEL = 32767 / 32768   # a decoded 16-bit sample at full scale
# Every outcome a task may end with, as the plain strings the "not one of" message prints.
TASK_OUTCOMES: tuple[str, ...] = tuple(str(o) for o in RELAYED_OUTCOMES + DROPPED_OUTCOMES)
# Where the user's own speech was placed: floor-taking speech and the hesitation pauses inside it.
USER_PLACED: tuple[EventKind, ...] = FLOOR_TAKING + (EventKind.PAUSE,)
JPEG_FORMAT = "JPEG"         # what Pillow calls a JPEG frame


@dataclass(frozen=True)
class Violation:
    row_id: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.row_id}: [{self.rule}] {self.message}"


@dataclass
class RowView:
    """One row decoded once for every check: audio, attrs, integer-sample window arithmetic."""

    row: TrajectoryRow
    expect_tokens: bool | None
    tts: Any = None                 # for rule 4's re-composition (None: built from meta["tts"])
    user: np.ndarray = field(init=False)
    asst: np.ndarray = field(init=False)
    sr_user: int = field(init=False)
    sr_asst: int = field(init=False)

    def __post_init__(self) -> None:
        dur = float(self.row.duration_s)
        self.user, self.sr_user = decode_audio(self.row.user_audio.bytes, dur, "user_audio")
        self.asst, self.sr_asst = decode_audio(self.row.assistant_audio.bytes, dur, "assistant_audio")

    @property
    def sr(self) -> int:
        return self.row.sample_rate

    @property
    def u(self) -> float:
        return self.row.unit_s

    @property
    def U(self) -> int:
        return unit_samples(self.u, self.sr)

    @property
    def n(self) -> int:
        return len(self.row.units)

    @property
    def events(self) -> list[Event]:
        return self.row.events

    @cached_property
    def attrs(self) -> dict[str, Any]:
        """Typed attrs by event id: the kind's model from schemas/attrs.py (`EventAttrs`)."""
        return {e.id: attrs_of(e) for e in self.row.events}

    @cached_property
    def turns(self) -> list[Event]:
        return sorted((e for e in self.row.events if e.kind == EventKind.ASSISTANT_TURN), key=lambda e: e.start_s)

    @cached_property
    def meta(self) -> dict[str, Any]:
        return json.loads(self.row.meta)

    @cached_property
    def ms_per_step(self) -> float:
        """The decode rate the row was made at (config decode_budget; meta records a non-default one)."""
        return row_ms_per_step(self.row.meta)

    @cached_property
    def lang(self) -> Language:
        """The row's language: how its stored text splits into words and sentences."""
        return language(self.row.language)

    @cached_property
    def timeline(self) -> TimelineSpec | None:
        """The row's timeline description (meta.timeline), or None when it holds none."""
        return TimelineSpec.from_meta(self.meta)

    @cached_property
    def backend(self) -> Any:
        """The TTS to re-render with: the one given, else the one meta.tts names, each line
        synthesised once for every slow rule (None when meta names no backend we have)."""
        tts = self.tts if self.tts is not None else tts_from_identity(self.meta.get("tts"))
        return None if tts is None else CachedTTS(tts)

    @cached_property
    def script(self) -> Any:
        """The row's Script, or None when its `script` column does not hold one."""
        from schemas.script import Script
        try:
            return Script.model_validate_json(self.row.script)
        except ValueError:
            return None

    @cached_property
    def scene(self) -> Any:
        """The row's scene (schemas/scene.py), or None for an audio-only row."""
        return self.script.scene if self.script is not None else None

    @property
    def omni(self) -> bool:
        """An Omni row: it has a scene, visual events or frames."""
        return self.scene is not None or bool(self.row.frames) or bool(self.kind(EventKind.VISUAL))

    def s(self, t: float) -> int:
        return to_samples(t, self.sr)

    def W(self, t: float) -> int:
        """Window holding the sample at time t."""
        return window_at(t, self.u, self.sr)

    def L(self, t_end: float) -> int:
        """Window holding the last sample of a span ending (exclusive) at t_end."""
        return last_window_at(t_end, self.u, self.sr)

    def turn(self, turn_id: str | None) -> Event | None:
        return next((t for t in self.turns if t.id == turn_id), None)

    def kind(self, *kinds: EventKind) -> list[Event]:
        return [e for e in self.row.events if e.kind in kinds]

    def words_of(self, event_id: str) -> list[Any]:
        return sorted((w for w in self.row.words if w.event_id == event_id), key=lambda w: w.start_s)


Check = Callable[[RowView], Iterator[str]]


@dataclass(frozen=True)
class Rule:
    id: str
    check: Check
    what: str          # one line: the DESIGN clause it checks
    slow: bool = False  # needs a TTS (re-composition): run only when asked


# ----------------------------------------------------------------------------- §5 structure and audio

def audio_length(v: RowView) -> Iterator[str]:
    """Lengths to the sample: duration_s, and both channels, hold exactly num_units * U samples."""
    if v.s(v.row.duration_s) != v.n * v.U:   # a tolerance in seconds (1e-4) let one sample (62.5 us) through
        yield f"duration_s {v.row.duration_s} is {v.s(v.row.duration_s)} samples, not {v.n} units * {v.U}"
    for name, x, r in (("user_audio", v.user, v.sr_user), ("assistant_audio", v.asst, v.sr_asst)):
        if r != v.sr:
            yield f"{name} sample rate {r} != {v.sr}"
        if len(x) != v.n * v.U:
            yield f"{name} has {len(x)} samples, expected {v.n * v.U}"


def unit_index(v: RowView) -> Iterator[str]:
    if [x.index for x in v.row.units] != list(range(v.n)):
        yield "unit indices are not 0..n-1"


def _peak(v: RowView, w: int) -> float:
    return ac.window_peak_dbfs(v.asst, window_start(w, v.U), window_start(w + 1, v.U)) if w < v.n else -200.0


def rule1_silent_window0(v: RowView) -> Iterator[str]:
    if ac.window_peak_dbfs(v.asst, window_start(0, v.U), window_start(1, v.U)) >= ASSISTANT_SILENCE_DBFS:
        yield "assistant channel is not silent in window 0"


def _fade_ends(v: RowView) -> dict[int, int]:
    """Window -> the sample where the fade of a cut at its start ends (rule 3: the fade follows the cut)."""
    out: dict[int, int] = {}
    for t in v.turns:
        a = v.attrs[t.id]
        if a.interrupted and a.cut_s is not None:
            cut = v.s(a.cut_s)
            out[window_of(cut, v.U)] = max(out.get(window_of(cut, v.U), 0), cut + v.s(a.fade_s or 0.0))
    return out


def listen_silent(v: RowView) -> Iterator[str]:
    """Silent where the decision is listen, "after the fade" (§5): a listening window that starts at
    a cut carries that cut's fade-out first, and is silent from its end on."""
    fades = _fade_ends(v)
    for x in v.row.units:
        w = x.index + 1
        if x.decision != Decision.LISTEN or w >= v.n:
            continue
        lo = max(window_start(w, v.U), fades.get(w, 0))
        p = ac.window_peak_dbfs(v.asst, lo, window_start(w + 1, v.U)) if lo < window_start(w + 1, v.U) else -200.0
        if p >= ASSISTANT_SILENCE_DBFS:
            yield f"unit {x.index} is listen but window {w} peaks at {p:.1f} dBFS" + (
                " after the fade of its cut" if w in fades else "")


def speak_active(v: RowView) -> Iterator[str]:
    for x in v.row.units:
        if x.decision == Decision.SPEAK and (p := _peak(v, x.index + 1)) < ASSISTANT_SILENCE_DBFS:
            yield f"unit {x.index} is speak but window {x.index + 1} is silent ({p:.1f} dBFS)"


def token_counts(v: RowView) -> Iterator[str]:
    per_unit = int(round(SPEECH_TOKENS_PER_SECOND * v.u))
    for x in v.row.units:
        want = per_unit if (x.decision == Decision.SPEAK and v.expect_tokens) else 0
        if v.expect_tokens is not None and len(x.speech_tokens) != want:
            yield f"unit {x.index} has {len(x.speech_tokens)} speech tokens, expected {want}"
        if any(t < 0 or t >= SPEECH_CODEBOOK for t in x.speech_tokens):
            yield f"unit {x.index} has a token outside [0, {SPEECH_CODEBOOK})"


def labels_derived(v: RowView) -> Iterator[str]:
    """Every unit field is exactly what the events and words derive (no label typed by hand)."""
    per_unit = int(round(SPEECH_TOKENS_PER_SECOND * v.u))
    tokens = None
    if v.expect_tokens:
        tokens = np.zeros(v.n * per_unit, dtype=np.int64)
        for x in v.row.units:
            if x.speech_tokens:
                k = (x.index + 1) * per_unit
                tokens[k:k + len(x.speech_tokens)] = x.speech_tokens
    derived = slice_units(v.events, v.row.words, v.n, v.u, v.sr, tokens, v.lang)
    for got, want in zip(v.row.units, derived):
        g, w = got.model_dump(), want.model_dump()
        if not v.expect_tokens:
            g.pop("speech_tokens"), w.pop("speech_tokens")
        for key in w:
            if g[key] != w[key]:
                yield f"unit {got.index} field {key} = {g[key]!r}, events derive {w[key]!r}"


def spoken_text_concat(v: RowView) -> Iterator[str]:
    """Concatenated spoken_text is the voiced text of the assistant turns, nothing else."""
    spoken = v.lang.words(v.lang.join([t for t in (x.spoken_text for x in v.row.units) if t]))
    voiced = v.lang.words(v.lang.join([t.text for t in v.turns if t.text]))
    if spoken != voiced:
        yield "concatenated spoken_text differs from the voiced assistant turns"


def voiced_plus_unspoken(v: RowView) -> Iterator[str]:
    """A turn's voiced text + its unspoken_text is its planned text (rule 3: the rest is recorded)."""
    for t in v.turns:
        a = v.attrs[t.id]
        if v.lang.words(v.lang.join([t.text, a.unspoken_text])) != v.lang.words(a.planned_text):
            yield f"{t.id}: voiced + unspoken text != planned text"


# ----------------------------------------------------------------------------- §2 timeline rules

def unit_one_turn(v: RowView) -> Iterator[str]:
    """DESIGN §3 unit grammar: an output unit carries at most one assistant turn, so a turn never
    starts in the window where the previous one ended (its `<|turn_eos|>`, or its cut, closes that
    unit's speech). Two turns in one unit would read as one run of text with a turn end inside it."""
    turns = sorted((t for t in v.turns if t.end_s > t.start_s), key=lambda t: t.start_s)
    for prev, nxt in zip(turns, turns[1:]):
        if v.W(nxt.start_s) <= v.L(prev.end_s):
            yield (f"{nxt.id} starts in window {v.W(nxt.start_s)}, where {prev.id} ends "
                   f"(window {v.L(prev.end_s)}): one unit would carry two turns")


def _spoken_span(v: RowView, e: Event) -> tuple[int, int]:
    """(first, end) sample of what the user said in `e`: its recorded span widened to its words, the
    timings of the speech itself, so an end recorded early (or an onset late) cannot move a limit."""
    words = v.words_of(e.id)
    return (min([v.s(e.start_s)] + [v.s(w.start_s) for w in words]),
            max([v.s(e.end_s)] + [v.s(w.end_s) for w in words]))


def rule2_response_after_eot(v: RowView) -> Iterator[str]:
    for e in v.kind(*FLOOR_TAKING):
        eot = float(v.attrs[e.id].eot_s)
        if eot < MIN_EOT_S:
            yield f"{e.id}: eot_s {eot} < {MIN_EOT_S}"
        end = _spoken_span(v, e)[1]
        if end > v.s(e.end_s):
            yield f"{e.id}: its words end at {end / v.sr:.4f} s, after its recorded end {e.end_s} s"
        earliest = next_window(end + v.s(eot), v.U)
        for t in v.turns:
            if e.start_s < t.start_s and v.W(t.start_s) < earliest:
                yield f"{t.id} starts in window {v.W(t.start_s)}, before window {earliest} allowed by {e.id}"


def rule3_interruption_cut(v: RowView) -> Iterator[str]:
    """Acted on at detection: cut at the start of window floor((t_i + detect_s)/u) + 1, no earlier (the
    model has not heard it) and no later (it has, and talks on: the drawn detect_s is when it knew), silent
    after, the unit after the cut listens. The turn records the same cut as its interruption."""
    for e in v.kind(EventKind.INTERRUPTION):
        a = v.attrs[e.id]
        turn = v.turn(a.interrupted_turn)
        if turn is None or not v.attrs[turn.id].interrupted:
            yield f"{e.id}: interrupted turn {a.interrupted_turn} missing or not marked interrupted"
            continue
        cut = v.s(a.cut_s)
        onset = _spoken_span(v, e)[0]
        if onset < v.s(e.start_s):
            yield f"{e.id}: its words start at {onset / v.sr:.4f} s, before its recorded onset {e.start_s} s"
        react = next_window(onset + v.s(a.detect_s), v.U)
        if cut != window_start(window_of(cut, v.U), v.U) or window_of(cut, v.U) != react:
            yield (f"{e.id}: cut at {a.cut_s} s is not the start of window {react}, the first after onset "
                   f"{onset / v.sr:.3f} s + detect_s {a.detect_s}")
        if a.react_unit is not None and a.react_unit != react - 1:
            yield f"{e.id}: react_unit {a.react_unit} is not unit {react - 1}, the one that heard the detection"
        if v.attrs[turn.id].cut_s is None or v.s(v.attrs[turn.id].cut_s) != cut:
            yield f"{turn.id}: cut_s {v.attrs[turn.id].cut_s} is not its interruption's cut {a.cut_s} s"
        if not DETECT_MIN_S <= a.detect_s <= DETECT_MAX_S:
            yield f"{e.id}: detect_s {a.detect_s} outside {[DETECT_MIN_S, DETECT_MAX_S]}"
        yield from _after_cut(v, turn, cut)


def _after_cut(v: RowView, turn: Event, cut: int) -> Iterator[str]:
    """A cut turn is silent from its cut, the unit whose output plays from the cut listens, no turn_eos."""
    if v.s(turn.end_s) > cut:
        yield f"{turn.id} sounds past its cut"
    k = window_of(cut, v.U) - 1
    if 0 <= k < v.n and v.row.units[k].decision != Decision.LISTEN:
        yield f"unit {k} should be listen after the cut of {turn.id}"
    last = v.L(turn.end_s) - 1
    if 0 <= last < v.n and v.row.units[last].turn_eos and not any(
            t.id != turn.id and v.L(t.end_s) == v.L(turn.end_s) and not v.attrs[t.id].interrupted
            for t in v.turns):
        yield f"{turn.id} was interrupted but has turn_eos"


def rule4_only_interruptions_cut(v: RowView) -> Iterator[str]:
    """Nothing but a floor-taking interruption cuts a turn, or in an Omni row a frame showing a change
    that made it stale (`cut_by` names that visual event; omni_change_cut_after_frame checks the cut)."""
    cut_turns = {v.attrs[e.id].interrupted_turn for e in v.kind(EventKind.INTERRUPTION)}
    visual = {e.id for e in v.kind(EventKind.VISUAL)}
    for t in v.turns:
        a = v.attrs[t.id]
        if a.interrupted and t.id not in cut_turns and a.cut_by not in visual:
            yield f"{t.id} is cut with no interruption event" + (
                f" (cut_by {a.cut_by}, which is no visual event)" if a.cut_by is not None else "")


def rule4_overlay_keeps_output(v: RowView) -> Iterator[str]:
    """Re-compose the row's script without its overlays: decisions and spoken_text must not change."""
    if not v.kind(*OVERLAY_KINDS):
        return
    from pipeline.compose import ScheduleError, compose

    script = v.script
    if script is None:
        yield "the row's script column does not hold a Script: cannot re-compose it without the overlay"
        return
    tts = v.backend
    if tts is None:
        yield f"no TTS to re-compose with (meta.tts = {v.meta.get('tts')!r})"
        return
    bare = replace(script, turns=tuple(replace(t, overlays=()) for t in script.turns))
    try:
        tl = compose(bare, tts, v.sr, v.u, v.ms_per_step)
    except ScheduleError as err:
        yield f"the script without its overlays cannot be composed: {err}"
        return
    ref = slice_units(tl.events, tl.words, tl.num_units, v.u, v.sr, None, v.lang)
    # The same session: the user's own turns where they were. Closed-loop timing may place a later
    # user turn elsewhere once an overlay changed the realised figures; from the window where the
    # user's input differs on, the two are no longer the same session, so the comparison stops there.
    placed = {(e.id, v.s(e.start_s), v.s(e.end_s)) for e in tl.events if e.kind in USER_PLACED}
    moved = [v.W(e.start_s) for e in v.kind(*USER_PLACED) if (e.id, v.s(e.start_s), v.s(e.end_s)) not in placed]
    moved += [v.W(e.start_s) for e in tl.events if e.kind in USER_PLACED
              and e.id not in {x.id for x in v.kind(*USER_PLACED)}]
    same_until = min(moved, default=max(v.n, len(ref)))
    for k in range(same_until):
        got = v.row.units[k] if k < v.n else None
        want = ref[k] if k < len(ref) else None
        g = (got.decision, got.spoken_text) if got else (str(Decision.LISTEN), "")
        w = (want.decision, want.spoken_text) if want else (str(Decision.LISTEN), "")
        if g != w:
            yield f"unit {k}: output {g!r} differs from {w!r} of the same session without its overlays"
            return   # the first difference says it; the rest follow from it


def backend_after_delegate(v: RowView) -> Iterator[str]:
    """Every backend result follows a delegate of the same task by at least its latency."""
    delegates = {v.attrs[e.id].task_id: e for e in v.kind(EventKind.DELEGATE)}
    for e in v.kind(EventKind.BACKEND):
        a = v.attrs[e.id]
        d = delegates.get(a.task_id)
        if d is None:
            yield f"{e.id}: backend result with no delegate for task {a.task_id}"
        elif e.start_s + 1e-6 < d.start_s + float(v.attrs[d.id].latency_s or 0.0):
            yield f"{e.id}: result arrives before its latency elapsed"


def _relay_problems(v: RowView, ready_s: float, turn_id: str) -> Iterator[str]:
    t = v.turn(turn_id)
    if t is None:
        yield f"relay turn {turn_id} missing"
        return
    if v.W(t.start_s) < next_window(v.s(ready_s), v.U):
        yield f"{turn_id} speaks before the unit after its input was readable"
    for e in v.kind(*FLOOR_TAKING):
        if e.start_s <= t.start_s < e.end_s:
            yield f"{turn_id} starts while the user is speaking ({e.id})"
    for o in v.turns:
        if o.id != t.id and o.start_s <= t.start_s < o.end_s:
            yield f"{turn_id} starts in the middle of {o.id}"


def rule5_relay_after_ready(v: RowView) -> Iterator[str]:
    """A result (or a timer) is acted on from the window after it is readable, in a pause, between sentences."""
    for e in v.kind(EventKind.BACKEND):
        a = v.attrs[e.id]
        if a.outcome in RELAYED_OUTCOMES:
            yield from _relay_problems(v, e.start_s, a.relay_turn if a.relay_turn is not None else "?")
    for e in v.kind(EventKind.TIMER):
        for t in v.turns:
            a = v.attrs[t.id]
            if a.trigger == Trigger.TIMER and a.ref == v.attrs[e.id].timer_id:
                yield from _relay_problems(v, e.start_s, t.id)


def _matches(said: str, known: set[str]) -> bool:
    """`said` is a known number, or one rounded to the places it is said with ("about 75" for 74.56)."""
    if said in known:
        return True
    n = Decimal(said)
    places = max(0, -int(n.as_tuple().exponent))
    tol = Decimal(1).scaleb(-places) / 2
    return any(abs(n - Decimal(k)) <= tol for k in known)


def rule6_relay_facts_read(v: RowView) -> Iterator[str]:
    """Every number a relay states is in a result it has read or in what was said or requested before it.

    Numbers are read with the row's language (schemas/languages/<code>.py); results are read as English too,
    since the harness answers in English whatever the dialogue's language."""
    known_kinds = FLOOR_TAKING + (EventKind.ASSISTANT_TURN, EventKind.DELEGATE, EventKind.BACKEND, EventKind.TIMER)
    for t in v.turns:
        if v.attrs[t.id].trigger != Trigger.BACKEND:
            continue
        known: set[str] = set()
        for e in v.events:
            if e.id != t.id and e.kind in known_kinds and e.start_s <= t.start_s:
                known |= v.lang.numbers(e.text) | english_numbers(e.text)
        for num in sorted(x for x in v.lang.numbers(t.text) if not _matches(x, known)):
            yield f"{t.id} states {num}, which is in no result it has read and nothing said before it"


def _sentences(lang: Language, tokens: list[str]) -> list[list[int]]:
    """Word indices of each sentence element of a token list (split after the language's . ? !)."""
    out: list[list[int]] = [[]]
    for i, tok in enumerate(tokens):
        out[-1].append(i)
        if lang.ends_sentence(tok):
            out.append([])
    return [s for s in out if s]


def _heard_words(v: RowView, turn: Event) -> int | None:
    """How many leading planned words of an interrupted turn the user heard (rule 8's half-audible rule).

    None when the turn does not record what rule 8 needs (`truncated`).
    """
    a = v.attrs[turn.id]
    if a.truncated is None:
        return None
    words = v.words_of(turn.id)
    heard = len(words)
    for tr in a.truncated:
        i = tr.index
        if i < len(words):
            w = words[i]
            span = tr.planned_end_s - w.start_s
            if span > 0 and (a.cut_s - w.start_s) / span < HEARD_FRACTION:
                heard = min(heard, i)
    return heard


@dataclass(frozen=True)
class _Continued:
    """A continuation turn as rule 7 reads it: where its text starts among its sentence elements."""

    id: str
    of_turn: str
    elements: list[str]        # the continuation's sentence elements
    planned: list[str]         # the interrupted turn's planned sentence elements
    full: int                  # elements of the interrupted turn fully heard before its cut
    start: int                 # the element the continuation's text starts at


def _continuations(v: RowView) -> Iterator[_Continued | str]:
    """Every continuation of the row's script, or a message saying why it cannot be matched."""
    script = v.script
    if script is None:
        return
    for st in script.turns:
        c = st.continuation
        if c is None:
            continue
        turn, ref = v.turn(st.id), v.turn(c.of_turn)
        if turn is None or ref is None:
            yield f"{st.id}: continuation of {c.of_turn}, but one of the two turns is missing"
            continue
        heard = _heard_words(v, ref)
        if heard is None:
            yield f"{ref.id}: interrupted turn does not record `truncated` (rule 8), so what was heard is unknown"
            continue
        planned = v.lang.words(v.attrs[ref.id].planned_text)
        full = sum(1 for s in _sentences(v.lang, planned) if s[-1] < heard)    # sentence elements fully heard
        text = v.attrs[turn.id].planned_text
        elements = v.lang.sentence_elements(c.sentences)
        n_planned = len(_sentences(v.lang, planned))
        if len(elements) != n_planned:
            yield (f"{turn.id}: its sentences hold {len(elements)} sentence elements, the turn it continues "
                   f"{n_planned}: where the cut fell cannot be matched")
            continue
        starts = [j for j in range(len(elements) + 1) if text == v.lang.join([c.prefix, *elements[j:]]).strip()]
        if not starts:
            yield f"{turn.id}: text is not its bridging prefix + a tail of its sentences: {text!r}"
            continue
        yield _Continued(turn.id, ref.id, elements, v.lang.sentence_elements([v.attrs[ref.id].planned_text]),
                         full, starts[0])


def rule7_continuation_from_heard(v: RowView) -> Iterator[str]:
    """A repair / resume starts no later than the first sentence element not fully heard before the cut.

    The continuation's text must be its bridging prefix + a tail of its sentences (what compose
    writes); starting past the first sentence the user did not fully hear (rule 8's half-audible
    test) skips it silently. Scripts record no deliberate drop yet, so none is accepted.
    """
    for c in _continuations(v):
        if isinstance(c, str):
            yield c
        elif c.start > c.full:
            yield (f"{c.id} resumes at sentence {c.start} but sentence {c.full} "
                   f"({c.elements[c.full]!r}) was not fully heard before the cut of {c.of_turn}: skipped silently")


def rule7_changed_fact_resaid(v: RowView) -> Iterator[str]:
    """A continuation says again every sentence element the user heard that it changed.

    A repair's sentences are the answer with the correction applied; an element the user heard in its
    old form (before the cut) and that now reads otherwise states a fact that is no longer true, so
    the continuation starts no later than the first such element (compose: `Language.first_changed`).
    """
    for c in _continuations(v):
        if isinstance(c, str):
            continue   # rule7_continuation_from_heard reports it
        changed = v.lang.first_changed(c.planned, c.elements)
        if changed < c.full and c.start > changed:
            yield (f"{c.id} starts at sentence {c.start}, past sentence {changed} that the user heard as "
                   f"{c.planned[changed]!r} and the correction changed to {c.elements[changed]!r}: never said again")


def park_resumed_or_dropped(v: RowView) -> Iterator[str]:
    """A parked answer (cut by a new request) is picked up again or set aside out loud by a later turn
    (`attrs.resumes` / `attrs.drops` naming it): the user was promised nothing that silently vanishes."""
    for t in v.turns:
        a = v.attrs[t.id]
        if not a.interrupted or a.action != InterruptAction.PARK:
            continue
        later = [x for x in v.turns if x.start_s > t.start_s and t.id in (v.attrs[x.id].resumes, v.attrs[x.id].drops)]
        if not later:
            yield f"{t.id} was parked but no later turn resumes or drops it"


def rule7_question_ends_turn(v: RowView) -> Iterator[str]:
    """A turn that ends on a question ends with turn_eos, and the user speaks before the assistant again,
    or the assistant's next turn (a timer, a result: any trigger) leaves ANSWER_ROOM_S of silence first.

    A '?' inside a turn followed by more sentences is an echo / rhetorical question in the banks
    ("A gift for a gardening lover? Easy...") and is not checked: the text alone cannot tell.
    """
    users = v.kind(*FLOOR_TAKING)
    for i, t in enumerate(v.turns):
        if v.attrs[t.id].interrupted or not v.lang.is_question(t.text):
            continue
        last = v.L(t.end_s) - 1
        if 0 <= last < v.n and not v.row.units[last].turn_eos:
            yield f"{t.id} ends on a question but unit {last} has no turn_eos"
        nxt = v.turns[i + 1] if i + 1 < len(v.turns) else None
        if nxt is None or any(t.end_s <= e.start_s < nxt.start_s or e.start_s < t.end_s < e.end_s for e in users):
            continue
        if v.attrs[nxt.id].trigger == Trigger.USER:
            yield f"{t.id} asks a question but {nxt.id} follows with no user speech in between"
        elif nxt.start_s - t.end_s < ANSWER_ROOM_S:   # a timer or a result speaks over the room to answer
            yield (f"{t.id} asks a question but {nxt.id} ({v.attrs[nxt.id].trigger}) follows "
                   f"{nxt.start_s - t.end_s:.1f} s later with no user speech: under {ANSWER_ROOM_S} s to answer")


def text_lint(v: RowView) -> Iterator[str]:
    """No template artefact in anything the row says or reads (generators/text_lint.py, per language)."""
    if v.script is not None:
        yield from lint_script(v.script)


def rule8_word_timings_true(v: RowView) -> Iterator[str]:
    """A word cut by an interruption ends at the cut and is marked truncated in its turn's attrs;
    every voiced word starts before the cut (one starting in the fade after it is unspoken)."""
    for t in v.turns:
        a = v.attrs[t.id]
        if not a.interrupted:
            continue
        cut = a.cut_s
        if a.truncated is None:
            yield f"{t.id}: interrupted turn does not record `truncated` (the words the cut reaches)"
            continue
        marked = {tr.index for tr in a.truncated}
        for i, w in enumerate(v.words_of(t.id)):
            if v.s(w.start_s) >= v.s(cut):
                yield f"{t.id}: word {i} {w.word!r} starts at {w.start_s} s, not before the cut at {cut} s"
            if w.end_s > cut + 1e-6:
                yield f"{t.id}: word {i} {w.word!r} ends at {w.end_s} s, after the cut at {cut} s"
            if v.s(w.end_s) >= v.s(cut) and i not in marked:
                yield f"{t.id}: word {i} {w.word!r} reaches the cut but is not marked truncated"
            if i in marked:
                tr = next(x for x in a.truncated if x.index == i)
                if abs(w.end_s - min(tr.planned_end_s, cut)) > 1e-6:
                    yield f"{t.id}: truncated word {i} {w.word!r} ends at {w.end_s}, not at the cut {cut}"
        for i in marked - set(range(len(v.words_of(t.id)))):
            yield f"{t.id}: truncated index {i} is not a voiced word"


# ----------------------------------------------------------------------------- delegation protocol

def delegate_request(v: RowView) -> Iterator[str]:
    """One private, plain request of at most 4,000 characters per turn, issued where the turn starts."""
    spoken = v.lang.join([y.spoken_text for y in v.row.units])
    for x in v.row.units:
        if x.delegate and x.delegate in spoken:
            yield f"unit {x.index}: delegate text appears in spoken_text"
        if x.delegate and len(x.delegate) > DELEGATE_MAX_CHARS:
            yield f"unit {x.index}: delegate request longer than {DELEGATE_MAX_CHARS} characters"
    per_turn: dict[str, int] = {}
    for e in v.kind(EventKind.DELEGATE):
        a = v.attrs[e.id]
        per_turn[a.turn] = per_turn.get(a.turn, 0) + 1
        turn = v.turn(a.turn)
        # a request too long to write while speaking is issued in the listening unit before (compose)
        early = turn is not None and not delegate_fits(e.text, float(v.row.unit_s), speaking=True,
                                                       ms_per_step=v.ms_per_step)
        if turn is None or a.unit != v.W(turn.start_s) - (2 if early else 1):
            yield f"{e.id}: not issued at the unit that starts its turn (a long request: the unit before it)"
        if has_protocol_leak(e.text) or not e.text.strip():
            yield f"{e.id}: request is empty or not plain language"
    for turn_id, count in per_turn.items():
        if count > 1:
            yield f"{turn_id} issues {count} delegate requests (max 1)"


def delegate_decode_budget(v: RowView) -> Iterator[str]:
    """A request issued in a unit that speaks can be written in the time the unit's speech leaves.

    At the row's decode rate (config decode_budget.ms_per_step, recorded in meta when not the default
    DECODE_MS_PER_STEP) per step after prefill and TTS (schemas/decode_budget.py), with the
    request's tokens over-counted so that a request within the budget is within the MiniCPM-o SDK's.
    A listening unit leaves more (no TTS); what fits there depends on the target tokenizer, and
    the minicpm-o export checks it with the SDK and its tokenizer.
    """
    unit_s, ms = float(v.row.unit_s), v.ms_per_step
    for x in v.row.units:
        if x.delegate and x.decision == Decision.SPEAK and not delegate_fits(x.delegate, unit_s, True, ms):
            yield (f"unit {x.index}: delegate request needs up to {delegate_decode_steps(x.delegate)} decode steps; a "
                   f"unit that speaks leaves {decode_steps_available(unit_s, True, ms)} at {ms:g} ms")


def backend_plain(v: RowView) -> Iterator[str]:
    for e in v.kind(EventKind.BACKEND):
        if has_protocol_leak(e.text):
            yield f"{e.id}: result text carries markdown or a protocol token"


def task_outcome(v: RowView) -> Iterator[str]:
    """Each task's outcome agrees with what happened (relayed results have a relay, cancels cancel...)."""
    attrs = v.attrs
    delegates = {attrs[e.id].task_id: e for e in v.kind(EventKind.DELEGATE)}
    backends = {attrs[e.id].task_id: e for e in v.kind(EventKind.BACKEND)}
    relays = {attrs[t.id].ref: t for t in v.turns if attrs[t.id].trigger == Trigger.BACKEND}
    for x in delegates.values():   # a retry's turn acts on the failure it retries, even one that says the retry's result
        retry_turn = v.turn(attrs[x.id].turn)
        if attrs[x.id].retry_of and retry_turn is not None:
            relays.setdefault(attrs[x.id].retry_of, retry_turn)
    for task_id, d in delegates.items():
        a = attrs[d.id]
        if a.cancels:
            target = delegates.get(a.cancels)
            if target is None or attrs[target.id].outcome != TaskOutcome.CANCELLED:
                yield f"{d.id}: cancels {a.cancels}, which is not marked cancelled"
            continue
        if a.ready_s is None:   # DelegateAttrs requires the other task keys (task_id, tool, args, issued_s, outcome)
            yield f"{d.id}: attribute ready_s missing"
        outcome, b = a.outcome, backends.get(task_id)
        if outcome not in TASK_OUTCOMES:
            yield f"{d.id}: outcome {outcome!r} is not one of {TASK_OUTCOMES}"
        if outcome in RELAYED_OUTCOMES and (b is None or task_id not in relays):
            yield f"{d.id}: outcome {outcome} but no turn acts on a result"
        if outcome in DROPPED_OUTCOMES and task_id in relays:
            yield f"{d.id}: outcome {outcome} but its stale result is relayed by {relays[task_id].id}"
        if outcome == TaskOutcome.CANCELLED:
            c = next((x for x in delegates.values() if attrs[x.id].cancels == task_id), None)
            if c is None:
                yield f"{d.id}: cancelled with no cancel request"
            elif b is not None and b.start_s >= c.start_s:
                yield f"{d.id}: a result arrived after the task was cancelled"
        if outcome == TaskOutcome.SUPERSEDED and not any(attrs[x.id].supersedes == task_id for x in delegates.values()):
            yield f"{d.id}: superseded but no task revises it"
        if outcome == TaskOutcome.REVISED and a.supersedes not in delegates:
            yield f"{d.id}: revised but supersedes no earlier task"
        if outcome == TaskOutcome.RETRIED and (a.status == TaskStatus.OK or not any(
                attrs[x.id].retry_of == task_id for x in delegates.values())):
            yield f"{d.id}: retried, but it did not fail or nothing retries it"
        if outcome == TaskOutcome.FALLBACK and a.status == TaskStatus.OK:
            yield f"{d.id}: fallback answer for a task that succeeded"


def _read_at(v: RowView, result: Event, unit: int) -> bool:
    """Whether unit `unit` has read a backend result (DESIGN §2: readable from the unit of its window on)."""
    return v.W(result.start_s) <= unit


def ack_before_result(v: RowView) -> Iterator[str]:
    """An acknowledgement is written for what its unit has read: a turn that issues a task and relays no
    result ("crunching it now"; a retry's "asking once more" relays only the failure it retries) never
    starts at a unit that has read that task's result. Its first output unit is W(start) - 1; a long
    request is written a unit earlier, so a fast result can be in first, and the turn must then act on a
    result instead: its own (the relay, the failure, the retry's line), or one that came in before it
    (relayed in order; its own follows)."""
    backends = {v.attrs[e.id].task_id: e for e in v.kind(EventKind.BACKEND)}
    for d in v.kind(EventKind.DELEGATE):
        a = v.attrs[d.id]
        t, b = v.turn(a.turn), backends.get(a.task_id)
        if a.cancels or t is None or b is None:
            continue
        ta = v.attrs[t.id]
        if ta.trigger == Trigger.BACKEND and a.retry_of != ta.ref:
            continue   # the turn relays a result (its own task's, or one that came in before it)
        if _read_at(v, b, v.W(t.start_s) - 1):
            yield (f"{t.id} acknowledges {a.task_id} from unit {v.W(t.start_s) - 1}, which has read its result "
                   f"(window {v.W(b.start_s)}): it should say the result")


def cancel_after_result(v: RowView) -> Iterator[str]:
    """A call-off says what its unit has read. A cancel request, or the undo of a booking (a request that
    supersedes a task without revising it), written after the target's result was readable is the
    after-result variant (`after_result`: "it came in, I'll set it aside"; "it's already in, so I'm
    having it removed"), never "cancel the pending request"; one written before is not."""
    backends = {v.attrs[e.id].task_id: e for e in v.kind(EventKind.BACKEND)}
    for d in v.kind(EventKind.DELEGATE):
        a = v.attrs[d.id]
        target = a.cancels or (a.supersedes if a.outcome != TaskOutcome.REVISED else None)
        if not target:
            continue
        b = backends.get(target)
        read = b is not None and _read_at(v, b, a.unit)
        if read and not a.after_result:
            yield (f"{d.id}: calls off {target} as pending from unit {a.unit}, which has read its result "
                   f"(window {v.W(b.start_s)})")
        elif a.after_result and not read:
            yield f"{d.id}: says the result of {target} is in, which unit {a.unit} has not read"


# ----------------------------------------------------------------------------- acoustics (realism)

def no_clipping(v: RowView) -> Iterator[str]:
    for name, x in (("user_audio", v.user), ("assistant_audio", v.asst)):
        if len(x) and float(np.max(np.abs(x))) >= CLIP_LEVEL:
            yield f"{name} reaches full scale (clipped)"


def snr_realised(v: RowView) -> Iterator[str]:
    """Every noise's realised SNR is within SNR_TOLERANCE_DB of its draw.

    The user channel holds gain * (room(own speech) + other talkers + echo + noises); the one
    renderer (pipeline/mixer) rebuilds each non-speech component from the row's mic scene, they are
    subtracted, and what is left is compared with each noise over the user-speech mask.
    """
    spec = v.timeline
    if spec is None or spec.mic is None or not spec.mic.noises:
        return
    try:
        snrs = realised_snrs(v.user, v.events, spec.mic, v.sr, assistant=v.asst, tts=v.backend)
    except (ValueError, OSError) as err:
        yield f"cannot rebuild the recorded noise: {err}"
        return
    for name, (drawn, est) in snrs.items():
        if not np.isfinite(est) or abs(est - drawn) > SNR_TOLERANCE_DB:
            yield f"{name}: realised SNR {est:.2f} dB vs drawn {drawn:.2f} dB"


def timeline_renders_audio(v: RowView) -> Iterator[str]:
    """The stored audio is what the row's own timeline description renders (schemas/timeline.py).

    Re-rendered through the one renderer with the TTS meta names, then put through the same 16-bit
    quantisation as FLAC: the samples must be equal, not close.
    """
    spec = v.timeline
    if spec is None:
        yield f"meta has no {META_KEY!r} description to re-render the row from"
        return
    if v.backend is None:
        yield f"no TTS to re-render with (meta.tts = {v.meta.get('tts')!r})"
        return
    try:
        user, asst = render_audio(spec, v.backend)
    except (ValueError, OSError) as err:
        yield f"cannot re-render the timeline: {err}"
        return
    for name, got, want in (("assistant_audio", v.asst, asst), ("user_audio", v.user, user)):
        want_q = quantise_like_flac(want)
        if len(got) != len(want_q):
            yield f"{name}: {len(got)} samples stored, the timeline renders {len(want_q)}"
            continue
        bad = np.flatnonzero(got.astype(np.float64) != want_q)
        if len(bad):
            yield (f"{name}: {len(bad)} samples differ from the re-rendered timeline, first at "
                   f"{bad[0] / v.sr:.3f} s")


# ----------------------------------------------------------------------------- Omni (DESIGN §6 "Vision")

def omni_frame_per_unit(v: RowView) -> Iterator[str]:
    """An Omni row has exactly one JPEG per unit, all of one size (frame k is input of unit k)."""
    if not v.omni:
        return
    if len(v.row.frames) != v.n:
        yield f"{len(v.row.frames)} frames for {v.n} units"
    sizes = set()
    for k, blob in enumerate(v.row.frames):
        try:
            with Image.open(io.BytesIO(blob)) as im:
                fmt, size = im.format, im.size
                im.load()
        except (OSError, ValueError) as err:
            yield f"frame {k} does not decode: {err}"
            continue
        if fmt != JPEG_FORMAT:
            yield f"frame {k} is {fmt}, not JPEG"
        sizes.add(size)
    if len(sizes) > 1:
        yield f"frames have several sizes: {sorted(sizes)}"


def omni_fact_after_frame(v: RowView) -> Iterator[str]:
    """A visual fact is spoken no earlier than window k+1 after frame k, the first that shows it, and a
    request the stating turn delegates is issued by unit k or later (unit k is the first to read frame k)."""
    stated: set[str] = set()
    for e in v.kind(EventKind.VISUAL):
        a = v.attrs[e.id]
        if v.W(e.start_s) != a.unit:
            yield f"{e.id}: at {e.start_s:.3f} s, not at the start of its frame's unit {a.unit}"
        for turn_id in a.stated_by or []:
            stated.add(turn_id)
            t = v.turn(turn_id)
            if t is None:
                yield f"{e.id}: stated by {turn_id}, which is no assistant turn"
            elif v.W(t.start_s) < a.unit + 1:
                yield (f"{turn_id} starts in window {v.W(t.start_s)}, before window {a.unit + 1} after frame "
                       f"{a.unit}, the first showing {e.id}")
            for d in v.kind(EventKind.DELEGATE):   # its request (visual_delegation: the code read off a ticket)
                da = v.attrs[d.id]
                if da.turn == turn_id and da.unit < a.unit:
                    yield (f"{d.id}: {turn_id}'s request is issued by unit {da.unit}, before unit {a.unit} reads "
                           f"frame {a.unit}, the first showing {e.id}")
    for ask in v.scene.asks if v.scene is not None else ():
        if ask.turn not in stated:
            yield f"{ask.turn} states a fact about {ask.object} that no visual event records"


def omni_change_cut_after_frame(v: RowView) -> Iterator[str]:
    """A turn a change made stale (`cut_by`) is cut at the start of a window after the frame that first
    shows the change, never before the model has read that frame (as DESIGN §2 rule 3 for a spoken
    cut-in), and is silent from its cut with the unit after it listening. Its repair states the new
    fact, so it is in the change's `stated_by` (omni_fact_after_frame then checks it starts after it)."""
    for t in v.turns:
        a = v.attrs[t.id]
        if a.cut_by is None:
            continue
        e = next((x for x in v.kind(EventKind.VISUAL) if x.id == a.cut_by), None)
        if e is None:
            continue   # rule4_only_interruptions_cut names it
        c = v.attrs[e.id]
        if c.change not in STALE_CHANGES:
            yield f"{t.id}: cut by {e.id}, a {c.change} change, which makes no answer stale"
        if not a.interrupted or a.cut_s is None:
            yield f"{t.id}: cut by {e.id} but not marked interrupted with a cut"
            continue
        cut = v.s(a.cut_s)
        if cut != window_start(window_of(cut, v.U), v.U) or window_of(cut, v.U) < c.unit + 1:
            yield (f"{t.id}: cut at {a.cut_s} s, before window {c.unit + 1} after frame {c.unit}, the first "
                   f"showing {e.id}" if window_of(cut, v.U) < c.unit + 1 else f"{t.id}: cut at {a.cut_s} s "
                   "is not at a window start")
        yield from _after_cut(v, t, cut)
        for st in v.script.turns if v.script is not None else ():
            if st.continuation is not None and st.continuation.of_turn == t.id and st.id not in (c.stated_by or []):
                yield f"{st.id} repairs {t.id} but {e.id} does not record it as stating the new fact"


def _bare(word: str) -> str:
    return word.strip(".,!?;:'\"").lower().removesuffix("'s")


def _object_names(v: RowView, labels: set[str]) -> dict[str, str]:
    """Every name the row's language calls each scene label by (generators/banks/<lang>/visual.yaml
    `words`), lowercased, to its label; a language without `words` names them by the label itself."""
    bank = visual_bank(v.row.language) if has_visual(v.row.language) else None
    return {n.lower(): label for label in labels for n in (bank.names(label) if bank is not None else (label,))}


def _named(v: RowView, names: dict[str, str], role: Role = Role.ASSISTANT) -> Iterator[tuple[Any, str]]:
    """(word, label) for each word of `role` that names a scene object. Space-separated languages match
    whole words (a plural s dropped); unsegmented ones (Mandarin) match a name anywhere in a turn's
    voiced text, credited to the word its first character is in."""
    words = [w for w in v.row.words if w.role == role]
    if v.lang.word_separator:
        for w in words:
            said = _bare(w.word)
            label = names.get(said) or names.get(said.removesuffix("s"))
            if label is not None:
                yield w, label
        return
    by_event: dict[str, list[Any]] = {}
    for w in words:
        by_event.setdefault(w.event_id, []).append(w)
    for ws in by_event.values():
        text, owner = "", []
        for i, w in enumerate(ws):
            text += w.word
            owner += [i] * len(w.word)
        for name, label in names.items():
            at = text.find(name)
            while at >= 0:
                yield ws[owner[at]], label
                at = text.find(name, at + 1)


def _appears_units(v: RowView) -> dict[str, int]:
    """Per object label, the first frame whose `appears` event records it (what the events say is shown)."""
    out: dict[str, int] = {}
    for e in v.kind(EventKind.VISUAL):
        a = v.attrs[e.id]
        if a.change == VisualChange.APPEARS:
            out[a.label] = min(out.get(a.label, a.unit), a.unit)
    return out


def omni_named_objects_shown(v: RowView) -> Iterator[str]:
    """The assistant never names an object no frame so far has shown: a word heard in window w names
    only labels some frame 0..w-1 has shown (words of unit k's output play in window k+1)."""
    if v.scene is None:
        return
    shown = _appears_units(v)
    names = _object_names(v, {o.label for o in v.scene.objects})
    for w, label in _named(v, names):
        out_unit = v.W(w.start_s) - 1
        if shown.get(label, v.n) > out_unit:
            first = f"frame {shown[label]}" if label in shown else "no frame"
            yield f"{w.event_id} names the {label} at {w.start_s:.3f} s (output of unit {out_unit}); {first} shows it"


# ----------------------------------------------------------------------------- Omni facts against the scene
# DESIGN §2 rule 6 for vision: the scene is data, so what the assistant says of it is checked against
# what the frame its unit has read holds. The visual lines (generators/banks/<lang>/visual.yaml) say a
# colour, a text or a state only through their {colour}, {text}, {fact} / {now} slots, so the phrases
# looked for are exactly the ones a line can say (`_SceneWords`), and each is matched whole.

@dataclass(frozen=True)
class _SceneWords:
    """How the row's language says each colour, text and state a scene can hold: said phrase -> value."""

    colours: dict[str, str]
    texts: dict[str, str]
    states: dict[str, str]


def _say(f: Callable[[str], str], value: str) -> str:
    """How a reply says a catalogue word; a value the bank does not list (a flight code, a video's own
    text) is said as it is."""
    try:
        return f(value)
    except KeyError:
        return value


def _scene_words(v: RowView) -> _SceneWords:
    from generators.scenes.catalog import catalog
    cat = catalog()
    bank = visual_bank(v.row.language) if has_visual(v.row.language) else None
    objs = v.scene.objects if v.scene is not None else ()
    colours = set(cat.colours) | {o.colour for o in objs if o.colour is not None}
    texts = ({t for k in cat.kinds.values() for o in k.objects for t in o.texts}
             | {t for o in objs for t in (o.text, *(c.text for c in o.timeline)) if t is not None})
    states: dict[str, str] = {}
    if bank is not None:
        states = {**{ph.now: s for s, ph in bank.watch.states.items()},
                  **{f.fact: s for s, f in bank.change.states.items()}}
    say_colour = bank.colour_name if bank is not None else str
    say_text = bank.text_of if bank is not None else str
    return _SceneWords(colours={_say(say_colour, c).lower(): c for c in colours},
                       texts={_say(say_text, t).lower(): t for t in texts},
                       states={p.lower(): s for p, s in states.items()})


def _phrases(v: RowView, words: list[Any], phrases: dict[str, str]) -> list[tuple[Any, str, str]]:
    """(word it starts in, phrase, value) of each phrase said in `words`, longest first and never two over
    the same words. Space-separated languages match whole words (punctuation and case aside);
    unsegmented ones (Mandarin) match anywhere, credited to the word of the phrase's first character."""
    sep = v.lang.word_separator
    text, owner = "", []
    for i, w in enumerate(words):
        piece = (_bare(w.word) + sep) if sep else w.word
        text += piece
        owner += [i] * len(piece)
    if sep:
        text = sep + text
        owner = [0] + owner
    taken = [False] * len(text)
    out: list[tuple[int, str, str]] = []
    for phrase in sorted(phrases, key=len, reverse=True):
        key = f"{sep}{phrase}{sep}" if sep else phrase
        at = text.find(key)
        while at >= 0:
            lo, hi = (at + 1, at + len(key) - 1) if sep else (at, at + len(key))
            if not any(taken[lo:hi]):
                taken[lo:hi] = [True] * (hi - lo)
                out.append((lo, phrase, phrases[phrase]))
            at = text.find(key, at + 1)
    return [(words[owner[lo]], phrase, value) for lo, phrase, value in sorted(out)]


@dataclass(frozen=True)
class _Said:
    """One fact phrase an assistant turn says about the scene."""

    turn: str
    word: Any
    phrase: str
    value: str
    unit: int                     # the unit whose output plays it: it has read frames 0..unit
    objects: tuple[Any, ...]      # what it can be about: the turn's asked object, else the objects it names


def _fact_turns(v: RowView) -> Iterator[tuple[Event, list[Any], tuple[Any, ...], list[Any]]]:
    """(turn, its voiced words, the objects it speaks about, its asks) of each assistant turn that states
    a visual fact (a `VisualAsk`) or names a scene object; a turn about neither says nothing of the scene."""
    scene = v.scene
    names = _object_names(v, {o.label for o in scene.objects})
    named: dict[str, set[str]] = {}
    for w, label in _named(v, names):
        named.setdefault(w.event_id, set()).add(label)
    for t in v.turns:
        asks = [a for a in scene.asks if a.turn == t.id]
        objs = tuple(o for o in (scene.object(a.object) for a in asks) if o is not None) or tuple(
            o for o in scene.objects if o.label in named.get(t.id, ()))
        if objs:
            yield t, v.words_of(t.id), objs, asks


def _said(v: RowView, kind: str) -> Iterator[_Said]:
    """Every `kind` ("colours", "texts", "states") phrase the fact turns say, with what it can be about."""
    vocab = getattr(_scene_words(v), kind)
    for t, words, objs, _ in _fact_turns(v):
        for w, phrase, value in _phrases(v, words, vocab):
            yield _Said(t.id, w, phrase, value, v.W(w.start_s) - 1, objs)


def _unsaid(v: RowView, kinds: tuple[VisualChange, ...], said_kinds: tuple[str, ...], what: str) -> Iterator[str]:
    """A turn that states a fact of one of `kinds` and was not cut says it (a phrase of `said_kinds`)."""
    words = _scene_words(v)
    for t, ws, objs, asks in _fact_turns(v):
        if v.attrs[t.id].interrupted or not any(a.change in kinds for a in asks):
            continue
        if not any(_phrases(v, ws, getattr(words, k)) for k in said_kinds):
            yield f"{t.id} states a fact about the {objs[0].label} but says no {what} a line can say"


def _restyled(o: Any, k: int) -> int | None:
    """The frame in which a video object last changed state by frame k (None: none): a video shows the new
    look (a lamp that turns on turns green), and an annotation gives the colour it appears with only."""
    units = [c.unit for c in o.timeline if c.change == VisualChange.CHANGES_STATE and c.unit <= k]
    return units[-1] if units else None


def omni_said_colour(v: RowView) -> Iterator[str]:
    """A colour the assistant says is the colour of the object it speaks about (DESIGN §2 rule 6 for vision):
    a procedural object keeps its colour; a video object's annotated colour holds until the video shows it
    change state (STALES in generators/scenes/video.py). An answer about how an object looks says one."""
    if v.scene is None:
        return
    for s in _said(v, "colours"):
        if not any(o.colour == s.value for o in s.objects):
            have = ", ".join(f"the {o.label} is {o.colour or 'no colour the scene holds'}" for o in s.objects)
            yield f"{s.turn} says {s.phrase!r} at {s.word.start_s:.3f} s (output of unit {s.unit}); {have}"
        elif v.scene.video is not None and all(_restyled(o, s.unit) is not None for o in s.objects if o.colour == s.value):
            o = next(o for o in s.objects if o.colour == s.value)
            yield (f"{s.turn} says {s.phrase!r} at {s.word.start_s:.3f} s (output of unit {s.unit}); the video's "
                   f"{o.label} changed state in frame {_restyled(o, s.unit)}, so its annotated colour no longer holds")
    yield from (m for m in _unsaid(v, (VisualChange.APPEARS,), ("colours", "states"), "colour or state"))


def omni_said_text(v: RowView) -> Iterator[str]:
    """A text the assistant reads out is the text the object shows, legibly, in the last frame its unit has
    read (a ticket's flight code, a sign flipped from open to closed), and an answer about a text says it."""
    if v.scene is None:
        return
    for s in _said(v, "texts"):
        shown = [o.at(s.unit).text for o in s.objects]
        if s.value not in shown:
            have = ", ".join(f"the {o.label} shows {t!r}" if t is not None else f"the {o.label}'s text is not readable"
                             for o, t in zip(s.objects, shown))
            yield f"{s.turn} reads {s.phrase!r} at {s.word.start_s:.3f} s (output of unit {s.unit}); in frame {s.unit} {have}"
    yield from _unsaid(v, (VisualChange.TEXT_READABLE, VisualChange.TEXT_CHANGES), ("texts",), "text")


def omni_said_state(v: RowView) -> Iterator[str]:
    """A state the assistant says ("is boiling", "is still moving") is the state the object is in in the last
    frame its unit has read (a moving one is drawn moving: schemas/scene.MOTION_STATES), and an answer
    about a change of state says the new state."""
    if v.scene is None:
        return
    for s in _said(v, "states"):
        # only an object that has states can be said to be in one: "your flight is on time", relayed in the
        # turn that read the ticket's code, says nothing of the ticket's state (it has none)
        objs = [o for o in s.objects if o.state is not None or o.first(VisualChange.CHANGES_STATE) is not None]
        if not objs:
            continue
        shown = [o.at(s.unit).state for o in objs]
        if s.value not in shown:
            have = ", ".join(f"the {o.label} is {st or 'in no state'}" for o, st in zip(objs, shown))
            yield f"{s.turn} says {s.phrase!r} at {s.word.start_s:.3f} s (output of unit {s.unit}); in frame {s.unit} {have}"
        elif s.value in MOTION_STATES and v.scene.render is not None and not any(
                o.at(s.unit).state == s.value and o.at(s.unit).box != o.at(s.unit - 1).box for o in objs):
            yield (f"{s.turn} says {s.phrase!r} at {s.word.start_s:.3f} s (output of unit {s.unit}); frames "
                   f"{s.unit - 1} and {s.unit} draw the {objs[0].label} in the same place")
    yield from _unsaid(v, (VisualChange.CHANGES_STATE,), ("states",), "state")


def _blank(blob: bytes) -> bool:
    with Image.open(io.BytesIO(blob)) as im:
        px = np.asarray(im.convert("RGB"), dtype=np.float32)
    return float(px.std(axis=(0, 1)).max()) < BLANK_FRAME_STD


def omni_fact_in_frame(v: RowView) -> Iterator[str]:
    """A turn that states a visual fact does so over a frame that shows its object: in the last frame its
    unit has read (for each fact it says, and its first word) the object is in view and the frame is not
    blank. A blank frame or an object gone from the scene leaves nothing to describe. An Omni row whose
    script holds no readable scene is refused: nothing it says could be checked."""
    if v.scene is None:
        if v.omni and v.kind(EventKind.VISUAL):
            yield "an Omni row whose script holds no readable scene: what it says of the frames cannot be checked"
        return
    words = _scene_words(v)
    blank: dict[int, bool] = {}
    for t, ws, objs, asks in _fact_turns(v):
        if not asks or not ws:
            continue
        units = {v.W(ws[0].start_s) - 1} | {v.W(w.start_s) - 1 for k in ("colours", "texts", "states")
                                             for w, _, _ in _phrases(v, ws, getattr(words, k))}
        for r in sorted(u for u in units if 0 <= u < v.n):
            gone = [o.label for o in objs if not o.at(r).visible]
            if gone:
                yield f"{t.id} speaks of the {gone[0]} in the output of unit {r}; frame {r} does not show it"
            if r < len(v.row.frames):
                if r not in blank:
                    blank[r] = _blank(v.row.frames[r])
                if blank[r]:
                    yield f"{t.id} speaks of the {objs[0].label} in the output of unit {r}; frame {r} is blank"


def omni_question_names_shown(v: RowView) -> Iterator[str]:
    """Nobody asks about an object before a frame shows it: a word the user says in window w names only
    labels some frame 0..w has shown (the assistant's own words: omni_named_objects_shown). Shown means
    both: the scene the frames are drawn from holds it in view, and its `appears` event says so; an
    event recorded earlier than the scene draws the object cannot move the limit."""
    if v.scene is None:
        return
    events = _appears_units(v)
    drawn: dict[str, int] = {}
    for o in v.scene.objects:
        first = next((k for k in range(v.n) if o.at(k).visible), None)
        if first is not None:
            drawn[o.label] = min(drawn.get(o.label, first), first)
    shown = {label: max(k, events.get(label, k)) for label, k in drawn.items()}
    names = _object_names(v, {o.label for o in v.scene.objects})
    for w, label in _named(v, names, Role.USER):
        if shown.get(label, v.n) > v.W(w.start_s):
            first = f"frame {shown[label]}" if label in shown else "no frame"
            yield f"{w.event_id} names the {label} at {w.start_s:.3f} s (window {v.W(w.start_s)}); {first} shows it first"


def _facts(lang: Language, text: str) -> set[str]:
    """The facts a request states, as words: numbers and names (a capitalised word not opening a sentence)."""
    out: set[str] = set(lang.numbers(text))
    words = lang.words(text)
    for i, w in enumerate(words):
        bare = w.strip(".,!?;:'\"()")
        opens = i == 0 or lang.ends_sentence(words[i - 1])
        if bare and (any(ch.isdigit() for ch in bare) or (bare[0].isupper() and not opens)):
            out.add(bare.lower())
    return out


def omni_request_facts_read(v: RowView) -> Iterator[str]:
    """Rule 6 for a request in an Omni row: every number and name a delegate request states is something the
    model has read by the unit that issues it: what the user said, a text a frame showed legibly (a ticket's
    flight code), or a result it has read. A destination no frame shows and nobody said is invented."""
    if v.scene is None:
        return
    for d in v.kind(EventKind.DELEGATE):
        unit = v.attrs[d.id].unit
        read = [w.word for w in v.row.words if w.role == Role.USER and v.W(w.start_s) <= unit]
        read += [o.at(k).text or "" for o in v.scene.objects for k in range(min(unit, v.n - 1) + 1)
                 if o.at(k).visible]
        read += [e.text for e in v.kind(EventKind.BACKEND) if v.W(v.attrs[e.id].ready_s) <= unit]
        known = _facts(v.lang, v.lang.join(read)) | {x.lower() for x in v.lang.words(" ".join(read))}
        known = {k.strip(".,!?;:'\"()").lower() for k in known}
        for fact in sorted(_facts(v.lang, d.text) - known):
            yield f"{d.id} (unit {unit}) states {fact!r}, which no frame, result or user word it has read holds"


RULES: tuple[Rule, ...] = (
    Rule("audio_length", audio_length, "§5 audio lengths equal num_units * unit_s * sample_rate"),
    Rule("unit_index", unit_index, "§3 units are indexed 0..n-1"),
    Rule("rule1_silent_window0", rule1_silent_window0, "§2 rule 1: the assistant channel is silent in window 0"),
    Rule("listen_silent", listen_silent, "§5 assistant silent where decision is listen"),
    Rule("speak_active", speak_active, "§5 assistant active where decision is speak"),
    Rule("token_counts", token_counts, f"§2/§5 {SPEECH_TOKENS_PER_SECOND}*u tokens per speak unit, none per listen unit"),
    Rule("labels_derived", labels_derived, "§3 every unit field is derived from events"),
    Rule("spoken_text_concat", spoken_text_concat, "§5 concatenated spoken_text = voiced assistant turns"),
    Rule("voiced_plus_unspoken", voiced_plus_unspoken, "§2 rule 3: the unspoken rest is recorded"),
    Rule("rule2_response_after_eot", rule2_response_after_eot, "§2 rule 2"),
    Rule("rule3_interruption_cut", rule3_interruption_cut, "§2 rule 3"),
    Rule("rule4_only_interruptions_cut", rule4_only_interruptions_cut, "§2 rule 4: overlap is not a stop signal"),
    Rule("rule4_overlay_keeps_output", rule4_overlay_keeps_output, "§2 rule 4, by re-composition", slow=True),
    Rule("backend_after_delegate", backend_after_delegate, "§5 backend follows its delegate by the latency"),
    Rule("rule5_relay_after_ready", rule5_relay_after_ready, "§2 rule 5"),
    Rule("rule6_relay_facts_read", rule6_relay_facts_read, "§2 rule 6 (numbers)"),
    Rule("rule7_continuation_from_heard", rule7_continuation_from_heard, "§2 rule 7: continuations"),
    Rule("rule7_changed_fact_resaid", rule7_changed_fact_resaid,
         "§2 rule 7: a continuation re-says what the user heard and the correction changed"),
    Rule("rule7_question_ends_turn", rule7_question_ends_turn, "§2 rule 7: questions"),
    Rule("park_resumed_or_dropped", park_resumed_or_dropped, "§1 a parked answer is resumed or set aside out loud"),
    Rule("rule8_word_timings_true", rule8_word_timings_true, "§2 rule 8"),
    Rule("unit_one_turn", unit_one_turn, "§3 an output unit carries at most one assistant turn"),
    Rule("text_lint", text_lint, "§6 no template artefact in what is said or read"),
    Rule("delegate_request", delegate_request, "§1 one plain private request per turn, <= 4,000 chars"),
    Rule("delegate_decode_budget", delegate_decode_budget, "a delegate request fits the decode time its unit leaves"),
    Rule("backend_plain", backend_plain, "§1 results carry no protocol token or markdown"),
    Rule("task_outcome", task_outcome, "§1 delegation outcomes agree with what happened"),
    Rule("ack_before_result", ack_before_result, "§2 an acknowledgement never starts at a unit that has read its result"),
    Rule("cancel_after_result", cancel_after_result, "§2 a cancel request says whether its unit has read the result"),
    Rule("no_clipping", no_clipping, "no sample at full scale"),
    Rule("snr_realised", snr_realised, f"§5 realised SNRs match the draws within {SNR_TOLERANCE_DB} dB"),
    Rule("timeline_renders_audio", timeline_renders_audio, "the stored audio is what meta.timeline renders",
         slow=True),
    Rule("omni_frame_per_unit", omni_frame_per_unit, "§3/§6 Omni rows: one JPEG frame per unit"),
    Rule("omni_fact_after_frame", omni_fact_after_frame, "§6 a visual fact is spoken from window k+1 after its frame"),
    Rule("omni_named_objects_shown", omni_named_objects_shown, "§6 the assistant names only objects already shown"),
    Rule("omni_change_cut_after_frame", omni_change_cut_after_frame,
         "§6/§2 rule 3: a stale answer is cut after the frame showing the change"),
    Rule("omni_said_colour", omni_said_colour, "§2 rule 6 for vision: a colour said is the object's colour"),
    Rule("omni_said_text", omni_said_text, "§2 rule 6 for vision: a text read out is what the frame read shows"),
    Rule("omni_said_state", omni_said_state, "§2 rule 6 for vision: a state said is the one the frame read shows"),
    Rule("omni_fact_in_frame", omni_fact_in_frame, "§6 a fact is stated over a frame that shows its object"),
    Rule("omni_question_names_shown", omni_question_names_shown,
         "§6 nobody asks about an object before a frame shows it"),
    Rule("omni_request_facts_read", omni_request_facts_read,
         "§2 rule 6: a request in an Omni row states only what was read (frames, user, results)"),
)
RULE_IDS: tuple[str, ...] = tuple(r.id for r in RULES)


def validate_row(row: TrajectoryRow, expect_tokens: bool | None = None, *, recompose: bool = False,
                 tts: Any = None, rules: tuple[str, ...] | None = None) -> list[Violation]:
    """All violations of one row.

    `expect_tokens`: whether the dataset was made with a speech tokenizer (None: do not check counts).
    `recompose`: also run the slow rules (rule 4 by re-composition; `tts` overrides the one
    meta["tts"] names). `rules`: only these ids (default: all).
    """
    try:
        v = RowView(row, expect_tokens, tts)
    except BoundsError as err:   # audio far longer than the row: not decoded, so no other rule can run
        return [Violation(row.id, "audio_length", str(err))]
    out: list[Violation] = []
    for r in RULES:
        if (rules is not None and r.id not in rules) or (r.slow and not recompose and rules is None):
            continue
        try:
            out.extend(Violation(row.id, r.id, msg) for msg in r.check(v))
        except (KeyError, TypeError, ValueError, IndexError) as err:   # a malformed row breaks the rule
            out.append(Violation(row.id, r.id, f"cannot check: {type(err).__name__}: {err}"))
    return out


# ----------------------------------------------------------------------------- contrastive twins

# The ids `validate_twins` reports under (schemas/twins.py): the pair names itself consistently and
# differs in exactly its one overlap; outputs agree before the divergence; and everywhere when the
# only difference is rule-4 speech (backchannel, other-directed, background).
TWIN_RULES: tuple[str, ...] = ("twin_pair", "twin_prefix", "twin_rule4")


def _outputs(u: Any, labels: Callable[[Any], Any]) -> tuple[Any, ...]:
    """What unit `u` outputs (DESIGN §2): compared between the two rows of a pair."""
    return (u.decision, u.spoken_text, list(u.speech_tokens), u.turn_eos, u.delegate, labels(u.labels))


def _twin_problems(base: TrajectoryRow, twin: TrajectoryRow) -> Iterator[tuple[str, str]]:
    """(rule id, message) for one pair, `base` the row whose meta side is base."""
    from schemas.twins import OUTPUT_LABELS, TwinSide, differing_overlaps, twin_meta
    mb, mt = twin_meta(base.meta), twin_meta(twin.meta)
    assert mb is not None and mt is not None
    if mt.partner != base.id or (mb.side, mt.side) != (TwinSide.BASE, TwinSide.TWIN) or \
            (mb.kind, mb.event, mb.twin_event, mb.diverge_s) != (mt.kind, mt.event, mt.twin_event, mt.diverge_s):
        yield "twin_pair", f"meta twin records disagree: {mb.model_dump()} vs {mt.model_dump()}"
        return
    gone, new = differing_overlaps(base.events, twin.events)
    if [e.id for e in gone] != [mb.event] or [e.id for e in new] != ([mb.twin_event] if mb.twin_event else []):
        yield "twin_pair", (f"differs in overlaps {[e.id for e in gone]} / {[e.id for e in new]}, not exactly "
                            f"{mb.event} / {mb.twin_event or 'none'} as meta says")
        return
    diverge = min(e.start_s for e in gone + new)
    if abs(diverge - mb.diverge_s) > 1e-6:
        yield "twin_pair", f"meta diverge_s {mb.diverge_s} but the differing overlap starts at {diverge}"
    sr, U = base.sample_rate, unit_samples(base.unit_s, base.sample_rate)
    K = window_of(to_samples(diverge, sr), U)   # units before K heard the same input on both rows
    same_labels: Callable[[Any], Any] = sorted
    for k in range(min(K, len(base.units), len(twin.units))):
        if _outputs(base.units[k], same_labels) != _outputs(twin.units[k], same_labels):
            yield "twin_prefix", (f"unit {k} output differs from twin {twin.id} before the divergence at "
                                  f"{diverge:.3f} s (unit {K}): {_outputs(base.units[k], same_labels)} vs "
                                  f"{_outputs(twin.units[k], same_labels)}")
            break
    a, b = decode_audio(base.assistant_audio.bytes)[0], decode_audio(twin.assistant_audio.bytes)[0]
    end = min((K + 1) * U, len(a), len(b))   # what units < K played (rule 3's fade lies after any cut)
    if end > 0 and not np.array_equal(a[:end], b[:end]):
        first = int(np.flatnonzero(a[:end] != b[:end])[0])
        yield "twin_prefix", f"assistant audio differs from twin {twin.id} at {first / sr:.3f} s, before {end / sr:.3f} s"
    if not all(e.kind in OVERLAY_KINDS for e in gone + new):
        return
    out_labels: Callable[[Any], Any] = lambda ls: sorted(x for x in ls if x in OUTPUT_LABELS)
    longer = base.units if len(base.units) >= len(twin.units) else twin.units
    n = min(len(base.units), len(twin.units))
    for k in range(n):
        if _outputs(base.units[k], out_labels) != _outputs(twin.units[k], out_labels):
            yield "twin_rule4", (f"unit {k} output differs from twin {twin.id}, which differs only by "
                                 f"{(gone + new)[0].kind} {(gone + new)[0].id} (rule 4)")
            break
    extra = [u.index for u in longer[n:] if u.decision != Decision.LISTEN or u.spoken_text]
    if extra:
        yield "twin_rule4", f"unit {extra[0]} speaks in one row of the pair with {twin.id} and is absent in the other"
    m = min(len(a), len(b))
    if not np.array_equal(a[:m], b[:m]) or np.any(a[m:]) or np.any(b[m:]):
        yield "twin_rule4", f"assistant audio differs from twin {twin.id}, which differs only by a rule-4 overlap"


def validate_twins(rows: list[TrajectoryRow]) -> list[Violation]:
    """The pair checks of every twin pair whose both rows are in `rows` (a row whose partner is not
    there is not checked: a subset of a dataset is still valid). Reported on the base row."""
    from schemas.twins import TwinSide, twin_meta
    by_id = {r.id: r for r in rows}
    out: list[Violation] = []
    for r in rows:
        try:
            m = twin_meta(r.meta)
            if m is None or m.side != TwinSide.BASE or m.partner not in by_id:
                continue
            partner = by_id[m.partner]
            if twin_meta(partner.meta) is None:
                out.append(Violation(r.id, "twin_pair", f"partner {partner.id} names no twin in its meta"))
                continue
            out.extend(Violation(r.id, rule, msg) for rule, msg in _twin_problems(r, partner))
        except (KeyError, TypeError, ValueError, IndexError) as err:   # a malformed record breaks the pair rule
            out.append(Violation(r.id, "twin_pair", f"cannot check: {type(err).__name__}: {err}"))
    return out
