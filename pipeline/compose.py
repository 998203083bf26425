"""Timeline composition: TTS first, then schedule every utterance so DESIGN §2 holds by construction.

Composition writes the timeline as data (schemas/timeline.TimelineSpec, Lhotse MixedCut style):
each utterance a track with a source, a sample offset and its operations (a cut with its fade,
an FD-Bench recipe), rendered through the one renderer (pipeline/mixer.track_audio) as it is
placed, because where the next utterance goes depends on the audio already there. Turns, cuts,
overlays and timers become events when they are placed and are never edited afterwards; the
delegation ledger (a task can be relayed, cancelled or superseded later) becomes its delegate
and backend events only at the end. All times are integer samples internally; stored seconds
are samples / sample_rate.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from generators.scenes.video import shift_scene
from generators.timing import control as timing_control
from pipeline import acoustics as ac
from pipeline import mixer
from schemas.attrs import (AssistantTurnAttrs, BackendAttrs, DelegateAttrs, InterruptionAttrs, OverlayAttrs,
                           PauseAttrs, TimerAttrs, TruncatedWord, UserTurnAttrs, VisualAttrs)
from schemas.decode_budget import DECODE_MS_PER_STEP, delegate_fits
from schemas.language import Language, language
from schemas.replace import replace
from schemas.scene import Change, Scene, VisualChange, VisualCut, visual_event_id
from schemas.script import Delegation, Interruption, Overlay, Script, ScriptTurn, VoiceSpec
from schemas.timeline import FD_BENCH_RECIPES, HEARD_FRACTION, Cut, Op, SpeechSource, Stem, TimelineSpec, Track
from schemas.trajectory import Event, EventAttrs, Word, make_event
from schemas.vocab import (COMPOSER_ONLY_TURN_ATTRS, DROPPED_OUTCOMES, OVERLAY_KINDS,
                           RELAYED_OUTCOMES, EventKind, InterruptAction, Role, TaskOutcome, Trigger, TurnAttr)
from schemas.windows import last_window_of, next_window, unit_samples, units_covering, window_of, window_start

ASSISTANT_MIN_GAP_S = 0.35   # between two assistant turns: never start mid-sentence
MIN_SELF_GAP_S = 0.2         # a user turn starts at least this long after the user's own last speech


class Synthesizer(Protocol):
    """What composition needs from a TTS backend (pipeline.tts.base.TTSBackend satisfies it)."""

    def synthesize(self, text: str, voice: Any, sample_rate: int) -> Any: ...


class ScheduleError(ValueError):
    """A script that cannot be placed without breaking the timeline rules."""


@dataclass
class Timeline:
    """What composition returns: the description, the audio of each track as rendered from it,
    and the events and word timings of the placement."""

    spec: TimelineSpec          # tracks only; render_trajectory adds the microphone scene
    audio: list[np.ndarray]     # mixer.track_audio of each of spec.tracks, in order
    events: list[Event]
    words: list[Word]
    stats: dict[str, Any] = field(default_factory=dict)
    scene: Scene | None = None  # the scene as placed: a visual_change's change moved to its frame (VisualCut)
    speak: mixer.Speak | None = None   # the cached speaker the tracks were rendered with (native tokens)

    @property
    def sample_rate(self) -> int:
        return self.spec.sample_rate

    @property
    def unit_samples(self) -> int:
        return self.spec.unit_samples

    @property
    def num_units(self) -> int:
        return self.spec.num_units

    @property
    def n_samples(self) -> int:
        return self.spec.n_samples

    def render_stem(self, stem: Stem) -> np.ndarray:
        return mixer.mix_stem(self.spec.tracks, self.audio, stem, self.n_samples)


# ----------------------------------------------------------------------------- composition state

@dataclass(frozen=True)
class _Clock:
    sr: int
    U: int   # samples per unit

    def s(self, t: float) -> int:
        return int(round(t * self.sr))

    def sec(self, n: int) -> float:
        return n / self.sr


@dataclass
class _Floor:
    """Who spoke last, and the earliest window the assistant may act in (rules 1-3)."""

    last_user_end: int | None = None
    last_user_eot: int = 0
    last_asst_end: int | None = None
    min_window: int = 1   # rule 1, and "the unit after a cut is listen" (rule 3)


@dataclass(frozen=True)
class _Heard:
    """An assistant turn's planned tokens and how many were voiced / heard (for continuations)."""

    tokens: list[str]
    first_unspoken: int | None   # None: not interrupted
    first_unheard: int


@dataclass
class _Placed:
    """Everything on the timeline so far: tracks with their audio, final events, word timings."""

    tracks: list[Track] = field(default_factory=list)
    audio: list[np.ndarray] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    turns: dict[str, _Heard] = field(default_factory=dict)


@dataclass
class _Task:
    """One delegated task in the ledger: what was issued, and what later turns did to it."""

    plan: Delegation
    turn: str                         # the assistant turn that issued it
    issued: int
    unit: int
    ready: int
    outcome: TaskOutcome | None       # planned; a later cancel or revision overrides it
    dropped: bool = False             # cancelled before its result came: no backend event
    relay_turn: str | None = None     # the assistant turn that acts on its result
    relay_s: float | None = None
    cancelled_by: str | None = None
    cancelled_s: float | None = None
    superseded_by: str | None = None
    after_result: bool = False        # a call-off written after its target's result was readable

    def later(self) -> dict[str, Any]:
        """The attrs later turns gave it (only those set: absent keys stay absent in the row)."""
        set_later = dict(relay_turn=self.relay_turn, relay_s=self.relay_s, cancelled_by=self.cancelled_by,
                         cancelled_s=self.cancelled_s, superseded_by=self.superseded_by)
        return {k: v for k, v in set_later.items() if v is not None}


@dataclass
class _Log:
    """Timing records for meta and stats, and the VAD of placed tracks (for the closed loop)."""

    gaps: list[float] = field(default_factory=list)           # user end -> assistant start, seconds
    user_timing: dict[str, Any] = field(default_factory=dict)   # realised offsets, controller records
    activity: dict[tuple[str, int, int], list[tuple[float, float]]] = field(default_factory=dict)


@dataclass
class _State:
    clock: _Clock
    lang: Language
    speak: mixer.Speak
    ms_per_step: float = DECODE_MS_PER_STEP   # the decode rate a delegate request is budgeted at
    floor: _Floor = field(default_factory=_Floor)
    placed: _Placed = field(default_factory=_Placed)
    tasks: dict[str, _Task] = field(default_factory=dict)
    ready: dict[str, int] = field(default_factory=dict)   # task / timer id -> sample it is readable
    log: _Log = field(default_factory=_Log)
    visual_gate: dict[str, int] = field(default_factory=dict)   # turn id -> first window it may start in
    scene: Scene | None = None   # the script's scene, with each VisualCut's change at the frame placed for it

    def place(self, event_id: str, stem: Stem, offset: int, text: str, voice: VoiceSpec,
              ops: tuple[Op, ...] = ()) -> np.ndarray:
        """Add a speech track and return its audio, rendered by the one renderer."""
        track = Track(event_id=event_id, stem=stem, offset=offset, source=SpeechSource(text=text, voice=voice), ops=ops)
        audio = mixer.track_audio(track, self.speak, self.clock.sr)
        self.placed.tracks.append(track)
        self.placed.audio.append(audio)
        return audio

    def event(self, id: str, kind: EventKind, role: Role, start: int, end: int, text: str, attrs: EventAttrs) -> None:
        c = self.clock
        self.placed.events.append(make_event(id, kind, role, c.sec(start), c.sec(end), text, attrs))

    def add_words(self, timings: Any, offset: int, role: str, event_id: str, limit: int | None = None,
                  clip: int | None = None) -> None:
        """Word timings placed at `offset`; with `clip` (a cut), no word ends after it (DESIGN §2 rule 8)."""
        c = self.clock
        for w in list(timings)[:limit]:
            end = offset + c.s(w.end_s)
            self.placed.words.append(Word(role=role, word=w.word, start_s=c.sec(offset + c.s(w.start_s)),
                                          end_s=c.sec(end if clip is None else min(end, clip)), event_id=event_id))


def compose(script: Script, tts: Synthesizer, sample_rate: int, unit_s: float,
            ms_per_step: float = DECODE_MS_PER_STEP) -> Timeline:
    """Render every utterance and place it; raise ScheduleError if the script cannot be placed.
    `ms_per_step`: the decode rate (config decode_budget) deciding where a long request is issued."""
    st = _State(clock=_Clock(sample_rate, unit_samples(unit_s, sample_rate)), lang=language(script.language),
                speak=mixer.cached_speaker(tts, sample_rate), ms_per_step=ms_per_step)
    st.scene = script.scene
    if script.scene is not None:   # a visual fact is spoken no earlier than the window after its frame
        st.visual_gate = {a.turn: script.scene.fact_unit(a) + 1 for a in script.scene.asks}
    user_voice = next((t.voice for t in script.turns if t.role == Role.USER), None)
    turns = list(script.turns)
    placed: set[int] = set()
    i = 0
    while i < len(turns):
        if i in placed:
            i += 1
            continue
        if turns[i].role == Role.USER:
            while due := _relays_due_before_user(st, turns, i, placed):   # results go out at the first pause
                _place_turn(st, turns, due[0], placed, user_voice)
            _place_user(st, turns[i], script.lead_in_s)
            placed.add(i)
            continue
        _place_turn(st, turns, _next_relay(st, turns, i, placed) if turns[i].trigger == Trigger.BACKEND else i,
                    placed, user_voice)
    _check_outcomes(st)
    for cut in script.scene.cuts if script.scene is not None else ():
        heard = st.placed.turns.get(cut.turn)
        if heard is None or heard.first_unspoken is None:
            raise ScheduleError(f"the scene's change of {cut.object} cuts turn {cut.turn}, which is no assistant turn")

    c, p = st.clock, st.placed
    events = p.events + [e for task_id, task in st.tasks.items() for e in _task_events(c, task_id, task)]
    ends = [c.s(e.end_s) for e in events] + [t.offset + len(x) for t, x in zip(p.tracks, p.audio)]
    num_units = units_covering(max(ends) + c.s(script.tail_s), c.U)
    if st.scene is not None:
        events += _visual_events(c, st.scene, num_units)
    events.sort(key=lambda e: (e.start_s, e.id))
    words = sorted(p.words, key=lambda w: (w.start_s, w.event_id))
    stats = {"response_gaps_s": [round(g, 4) for g in st.log.gaps], **st.log.user_timing, **_control_summary(st)}
    spec = TimelineSpec(sample_rate=sample_rate, unit_samples=c.U, num_units=num_units, tracks=tuple(p.tracks))
    return Timeline(spec, p.audio, events, words, stats, st.scene, st.speak)


def known_lines(script: Script) -> list[tuple[str, VoiceSpec]]:
    """The (text, voice) lines `compose` will speak whose text the script fixes, in script order:
    user turns (split at their pause), assistant turns, cut-ins and overlays. A continuation's
    text depends on where its turn was cut, so it is left out: composition speaks it when it gets
    there. A batching engine renders these ahead, several trajectories in one call."""
    lang = language(script.language)
    user_voice = next((t.voice for t in script.turns if t.role == Role.USER), None)
    out: list[tuple[str, VoiceSpec]] = []
    for turn in script.turns:
        if turn.role == Role.USER:
            out += [(part, turn.voice) for part in _user_parts(lang, turn)]
            continue
        if turn.continuation is None:
            out.append((turn.text, turn.voice))
        if turn.interruption is not None and user_voice is not None:
            out.append((turn.interruption.text, user_voice))
        if lang.phrase_boundaries(turn.text):
            out += [(ov.text, ov.voice) for ov in turn.overlays]
    return out


# ----------------------------------------------------------------------------- ordering

def _relays_due_before_user(st: _State, turns: list[ScriptTurn], i: int, placed: set[int]) -> list[int]:
    """Later relay turns whose result is already readable and could start before user turn i would.

    Planners cannot know when results land; composition can. A result that is ready while the floor
    is free is relayed then, not after whatever the script put next.
    """
    f, c = st.floor, st.clock
    prev = max([x for x in (f.last_asst_end, f.last_user_end) if x is not None], default=None)
    if prev is None:
        return []
    user_start = prev + c.s(turns[i].gap_s)
    due = []
    for j in range(i + 1, len(turns)):
        t = turns[j]
        if j in placed or t.role != Role.ASSISTANT or t.trigger != Trigger.BACKEND or t.ref not in st.ready:
            continue
        if _assistant_start(st, t) <= user_start:
            due.append(j)
    # one relay at a time, earliest result first; the next user turn is re-examined after it
    return sorted(due, key=lambda j: (st.ready[turns[j].ref or ""], j))[:1]


def _next_relay(st: _State, turns: list[ScriptTurn], i: int, placed: set[int]) -> int:
    """Among consecutive relay turns from i, the one whose result is readable first (out-of-order results)."""
    group = []
    for j in range(i, len(turns)):
        if j in placed:
            continue
        if turns[j].role != Role.ASSISTANT or turns[j].trigger != Trigger.BACKEND:
            break
        group.append(j)
    return min(group, key=lambda j: (st.ready.get(turns[j].ref or "", 1 << 62), j))


def _check_outcomes(st: _State) -> None:
    """Every task's planned outcome agrees with what was placed (relayed results have a relay turn...)."""
    for task_id, task in st.tasks.items():
        relayed = task.relay_turn is not None
        if task.outcome in RELAYED_OUTCOMES and not relayed:
            raise ScheduleError(f"task {task_id}: outcome {task.outcome} but no turn acts on its result")
        if task.outcome in DROPPED_OUTCOMES and relayed:
            raise ScheduleError(f"task {task_id}: outcome {task.outcome} but its result is relayed")


# ----------------------------------------------------------------------------- closed-loop timing

def _activity(tracks: list[Track], audio: list[np.ndarray], events: list[Event], sr: int,
              cache: dict[tuple[str, int, int], list[tuple[float, float]]]) -> dict[str, list[tuple[float, float]]]:
    """Speech intervals (s) of the placed audio by speaker: the VAD `duplexsynth stats` runs, per track.

    Cached per track, so the closed loop sees what the measurement will see.
    """
    from pipeline.vad import speech_intervals

    roles = {e.id: e.role for e in events}
    out: dict[str, list[tuple[float, float]]] = {Role.USER: [], Role.ASSISTANT: []}
    for t, x in zip(tracks, audio):
        role = Role.ASSISTANT if t.stem == Stem.ASSISTANT else Role.USER if t.stem == Stem.USER else roles.get(t.event_id)
        if role not in out:
            continue
        key = (t.event_id, t.offset, len(x))
        if key not in cache:
            cache[key] = [(t.offset / sr + a, t.offset / sr + b) for a, b in speech_intervals(x, sr)]
        out[role].extend(cache[key])
    return out


def _figures(activity: dict[str, list[tuple[float, float]]]) -> dict[str, float]:
    from generators.intervals import dialogue_figures, ipus_from_segments

    f = dialogue_figures(ipus_from_segments(activity))
    return {k: round(float(f[k]), 4) for k in ("minutes", "ipu_s", "gap_s", "overlap_s", "pause_s")}


def _realised(st: _State) -> dict[str, float]:
    """gap / overlap / pause seconds and minutes of the dialogue placed so far (dGSLM, generators/intervals)."""
    p = st.placed
    return _figures(_activity(p.tracks, p.audio, p.events, st.clock.sr, st.log.activity))


def realised_figures(tl: Timeline) -> dict[str, float]:
    """The same figures for a finished timeline (what the closed loop steers towards its targets)."""
    return _figures(_activity(list(tl.spec.tracks), tl.audio, tl.events, tl.sample_rate, {}))


def _control_summary(st: _State) -> dict[str, Any]:
    """Targets and final realised figures of a session under closed-loop timing (for meta and stats)."""
    if "controller" not in st.log.user_timing:
        return {}
    f = _realised(st)
    m = f["minutes"] or 1e-9
    return {"control_realised_per_min": {k: round(f[k] / m, 4) for k in ("gap_s", "overlap_s", "pause_s")}}


# ----------------------------------------------------------------------------- user turns

def _user_start(st: _State, turn: ScriptTurn, lead_in_s: float, spec: Any, realised: dict[str, float] | None) -> int:
    """Where a user turn starts: `gap_s` after whoever spoke last, under closed-loop control if asked.

    After an assistant turn the gap may be negative (the user starts before the assistant has
    finished), but only so early that the first window the assistant could act in (rule 3, with
    the shortest detect_s) starts after its turn's natural end: its output is unchanged
    (generators/timing/control.max_start_overlap). The user never talks over their own earlier speech.
    """
    f, c = st.floor, st.clock
    prev = max([x for x in (f.last_asst_end, f.last_user_end) if x is not None], default=None)
    if prev is None:
        return c.s(lead_in_s)
    rec = st.log.user_timing
    gap = turn.gap_s
    after_assistant = f.last_asst_end is not None and f.last_asst_end == prev
    max_ov = timing_control.max_start_overlap(prev, c.U, c.sr) if after_assistant else 0.0
    if after_assistant and spec is not None and realised is not None:
        gap = timing_control.controlled_offset(turn.gap_s, realised, spec, max_ov)
    start = prev + c.s(gap)
    if gap < 0:
        start = max(start, prev - c.s(max_ov))
    own_end = max([c.s(e.end_s) for e in st.placed.events if e.role == Role.USER and e.kind != EventKind.PAUSE],
                  default=0)
    if own_end > start or (gap < 0 and own_end + c.s(MIN_SELF_GAP_S) > start):
        start = own_end + c.s(MIN_SELF_GAP_S)
    if turn.attrs.get(TurnAttr.SILENT_STRETCH) == "1":
        rec.setdefault("silent_stretches_s", []).append(round(c.sec(start - prev), 4))
    elif after_assistant:
        rec.setdefault("user_gaps_s", []).append(round(c.sec(start - prev), 4))
    if spec is not None:
        rec.setdefault("controller", []).append({"turn": turn.id, "offset_drawn_s": turn.gap_s,
                                                 "offset_used_s": round(c.sec(start - prev), 4)})
    return start


def _user_parts(lang: Language, turn: ScriptTurn) -> list[str]:
    """The turn's text, split in two at its hesitation pause (the filler ends the first part)."""
    if turn.pause is None:
        return [turn.text]
    tokens = lang.words(turn.text)
    if not 1 <= turn.pause.after_word < len(tokens):
        raise ScheduleError(f"turn {turn.id}: pause.after_word={turn.pause.after_word} outside 1..{len(tokens) - 1}")
    first = lang.join(tokens[: turn.pause.after_word])
    return [lang.join([first, turn.pause.filler]) if turn.pause.filler else first,
            lang.join(tokens[turn.pause.after_word:])]


def _place_user(st: _State, turn: ScriptTurn, lead_in_s: float) -> None:
    c, log = st.clock, st.log
    spec = timing_control.ControlSpec.from_attrs(turn.attrs)
    realised = _realised(st) if spec is not None and st.placed.tracks else None
    if spec is not None and "control_targets" not in log.user_timing:
        log.user_timing["control_targets"] = {"gap_per_min": spec.gap_pm, "overlap_per_min": spec.overlap_pm,
                                              "pause_per_min": spec.pause_pm, "gain": spec.gain}
    start = _user_start(st, turn, lead_in_s, spec, realised)
    parts = _user_parts(st.lang, turn)
    syns = [st.speak(part, turn.voice) for part in parts]
    pause_s = turn.pause.dur_s if turn.pause is not None else 0.0
    if turn.pause is not None and spec is not None and realised is not None:
        voiced_min = sum(len(x.audio) for x in syns) / c.sr / 60.0
        pause_s = timing_control.controlled_pause(turn.pause.dur_s, realised, voiced_min, spec)
        log.user_timing["controller"][-1].update(pause_drawn_s=turn.pause.dur_s, pause_used_s=pause_s)
    t = start
    for i, (part, syn) in enumerate(zip(parts, syns)):
        st.place(turn.id, Stem.USER, t, part, turn.voice)
        st.add_words(syn.words, t, Role.USER, turn.id)
        t += len(syn.audio)
        if i == 0 and turn.pause is not None:
            pause_end = t + c.s(pause_s)
            st.event(f"{turn.id}.pause", EventKind.PAUSE, Role.USER, t, pause_end, "",
                     PauseAttrs(turn=turn.id, filler=turn.pause.filler or ""))
            t = pause_end
    st.event(turn.id, EventKind.USER_TURN, Role.USER, start, t, st.lang.join(parts),
             UserTurnAttrs(eot_s=turn.eot_s, voice=turn.voice))
    st.floor.last_user_end, st.floor.last_user_eot = t, c.s(turn.eot_s)


# ----------------------------------------------------------------------------- assistant turns

def _resolve_text(st: _State, turn: ScriptTurn) -> str:
    c = turn.continuation
    if c is None:
        return turn.text
    ref = st.placed.turns.get(c.of_turn)
    if ref is None or ref.first_unspoken is None:
        raise ScheduleError(f"turn {turn.id}: continuation of {c.of_turn}, which was not interrupted before it")
    # rule 7: from the first sentence element the user did not fully hear (rule 8), or from the first
    # one the correction changed, if the user heard that one: the heard version is no longer true, so
    # it is said again as it now stands. The planned turn and the continuation have the same elements;
    # a bank "sentence" may hold several.
    voiced = ref.tokens[: ref.first_unheard]
    elements = st.lang.sentence_elements(c.sentences)
    j = min(sum(1 for w in voiced if st.lang.ends_sentence(w)), len(elements))
    j = min(j, st.lang.first_changed(st.lang.sentence_elements([st.lang.join(ref.tokens)]), elements))
    return st.lang.join([c.prefix, *elements[j:]]).strip()


def _earliest_window(st: _State, turn: ScriptTurn) -> int:
    f, U = st.floor, st.clock.U
    w = f.min_window   # rule 1 (window 0 silent) and rule 3 (the window after a cut is silent)
    if f.last_user_end is not None:   # rule 2
        w = max(w, next_window(f.last_user_end + f.last_user_eot, U))
    if turn.trigger in (Trigger.BACKEND, Trigger.TIMER):   # rule 5 / proactive
        if turn.ref not in st.ready:
            raise ScheduleError(f"turn {turn.id}: trigger {turn.trigger} refers to unknown {turn.ref!r}")
        w = max(w, next_window(st.ready[turn.ref], U))
    return max(w, st.visual_gate.get(turn.id, 0))


def _assistant_start(st: _State, turn: ScriptTurn) -> int:
    """The first sample an assistant turn may start at: its earliest window plus its lead, at least
    ASSISTANT_MIN_GAP_S after the previous assistant turn, and in a later window than the one where
    that turn ended. One output unit carries at most one turn's end or start (DESIGN §3 unit grammar:
    `<|turn_eos|>` closes the unit's speech, so a second turn in the same window would have no
    place in the unit's text)."""
    c, f = st.clock, st.floor
    w = _earliest_window(st, turn)
    if f.last_asst_end is not None:
        w = max(w, last_window_of(f.last_asst_end, c.U) + 1)
    start = window_start(w, c.U) + c.s(turn.lead_s)
    if f.last_asst_end is not None:
        start = max(start, f.last_asst_end + c.s(ASSISTANT_MIN_GAP_S))
    return start


@dataclass(frozen=True)
class _Cut:
    """Where an interruption cuts a turn, and what of it was voiced and heard (rules 3, 7, 8)."""

    onset: int           # the user's cut-in starts (a visual cut: the window of the frame showing the change)
    at: int              # the cut, a window start: the audio before it is the uncut audio
    fade: int            # samples of fade-out from the cut on (in the reaction window, rule 3)
    n_voiced: int
    n_heard: int
    truncated: list[TruncatedWord]


def _timing(st: _State, turn: ScriptTurn) -> tuple[int, int]:
    """(turn start, the unit that issues its request): a long request is written in a listening unit
    before the turn (`_listen_to_delegate`). Neither depends on the turn's text."""
    c = st.clock
    start = _assistant_start(st, turn)
    delegate_unit = window_of(start, c.U) - 1      # the unit that issues the turn's request (if any)
    if turn.delegate is not None and not delegate_fits(turn.delegate.request, c.sec(c.U), speaking=True,
                                                      ms_per_step=st.ms_per_step):
        delegate_unit, start = _listen_to_delegate(st, delegate_unit, start)
    return start, delegate_unit


def _reads_own_result(st: _State, turn: ScriptTurn) -> bool:
    """Whether the first output unit of a turn that issues a task has read that task's result.

    A long request is written in the listening unit before the turn, so a fast tool's result can be
    in before the turn's first words: an acknowledgement ("crunching it now") would then be false.
    """
    d = turn.delegate
    if d is None or d.cancels is not None:
        return False
    c = st.clock
    start, delegate_unit = _timing(st, turn)
    ready = window_start(delegate_unit + 1, c.U) + c.s(d.latency_s)
    return window_of(ready, c.U) <= window_of(start, c.U) - 1


def _place_turn(st: _State, turns: list[ScriptTurn], j: int, placed: set[int], user_voice: VoiceSpec | None) -> None:
    """Place assistant turn j, speaking what acts on its own result if its first unit has read it
    (`_relay_instead`); `turns` and `placed` record what that used up. Results are relayed in the order
    they became readable: if one came in before the turn's own, the turn (still issuing its request
    where it was due) relays that one, and its own relay follows in turn."""
    says = _relay_instead(st, turns, j, placed)
    while says is not None and turns[says].delegate is None and (k := _relay_ready_before(st, turns, j, placed)):
        if turns[k].delegate is None:
            says = k
            break
        _place_turn(st, turns, k, placed, user_voice)   # a retry waiting first: it goes out first
        says = _relay_instead(st, turns, j, placed)
    _place_assistant(st, turns[j], user_voice, turns[says] if says is not None else None)
    placed.add(j)
    if says is not None and turns[says].delegate is not None:   # a retry: it says the acknowledgement,
        turns[says] = replace(turns[says], text=turns[j].text)
        _place_turn(st, turns, says, placed, user_voice)          # and goes out now, as just announced
    elif says is not None:
        placed.add(says)


def _relay_ready_before(st: _State, turns: list[ScriptTurn], j: int, placed: set[int]) -> int | None:
    """The unplaced relay whose result is readable first, if it came in before turn j's own task's result."""
    d, c = turns[j].delegate, st.clock
    assert d is not None
    _, delegate_unit = _timing(st, turns[j])
    own = window_start(delegate_unit + 1, c.U) + c.s(d.latency_s)
    waiting = [k for k in range(len(turns)) if k not in placed and k != j and turns[k].role == Role.ASSISTANT
               and turns[k].trigger == Trigger.BACKEND and turns[k].ref in st.ready and st.ready[turns[k].ref or ""] < own]
    return min(waiting, key=lambda k: (st.ready[turns[k].ref or ""], k), default=None)


def _relay_instead(st: _State, turns: list[ScriptTurn], i: int, placed: set[int]) -> int | None:
    """The turn an acknowledgement speaks instead, when the ack's first unit has already read its result.

    Planners cannot know when a result lands; composition can. An acknowledgement that would start
    after its own task's result is readable says what acts on that result instead: the turn keeps its
    place, its timing and its request, and speaks the (not yet placed) turn that acts on the result.
    That is the relay (or fallback) of the task, which is then placed; or, for a failure a retry acts
    on, the retry's line ("the search stumbled, so I'm asking once more"), and the retry's own turn,
    still to come and still issuing the retry, says the acknowledgement in its place (the caller swaps
    the texts). A retry's turn that has read the retry's result speaks that result (it still acts on
    the failure it retried, which the user then never hears about).
    """
    ack = turns[i]
    if ack.interruption is not None or not _reads_own_result(st, ack):
        return None
    assert ack.delegate is not None
    if ack.trigger == Trigger.TIMER or (ack.trigger == Trigger.BACKEND and ack.delegate.retry_of != ack.ref):
        return None
    task = ack.delegate.task_id
    acting = [j for j in range(i + 1, len(turns)) if j not in placed and turns[j].role == Role.ASSISTANT
              and turns[j].trigger == Trigger.BACKEND and turns[j].ref == task and turns[j].interruption is None]
    relay = next((j for j in acting if turns[j].delegate is None), None)
    retry = next((j for j in acting if turns[j].delegate is not None and turns[j].delegate.retry_of == task), None)
    return relay if relay is not None else retry


def _calls_off_read_result(st: _State, turn: ScriptTurn, delegate_unit: int) -> bool:
    """Whether a call-off turn (one planned with an after-result variant: a cancel, or the undo of a
    booking) writes its request at a unit that has read the result of the task it calls off."""
    d = turn.delegate
    if d is None or TurnAttr.AFTER_RESULT_TEXT not in turn.attrs:
        return False
    target = st.tasks.get(d.cancels or d.supersedes or "")
    return target is not None and not target.dropped and window_of(target.ready, st.clock.U) <= delegate_unit


def _after_result(turn: ScriptTurn) -> ScriptTurn:
    """The call-off turn as planned for a result already in: it says the result is in
    (TurnAttr.AFTER_RESULT_TEXT) and its request says so (TurnAttr.AFTER_RESULT_REQUEST)."""
    d = turn.delegate
    assert d is not None
    delegate = replace(d, request=turn.attrs[TurnAttr.AFTER_RESULT_REQUEST])
    return replace(turn, text=turn.attrs[TurnAttr.AFTER_RESULT_TEXT], delegate=delegate)


def _place_assistant(st: _State, turn: ScriptTurn, user_voice: VoiceSpec | None,
                     says: ScriptTurn | None = None) -> None:
    """Place `turn`; with `says` (a relay, see `_relay_instead`), the turn at `turn`'s place and timing,
    issuing `turn`'s request, speaks `says` and acts on its result."""
    c, f = st.clock, st.floor
    start, delegate_unit = _timing(st, turn)
    after_result = _calls_off_read_result(st, turn, delegate_unit)
    if after_result:
        turn = _after_result(turn)
        start, delegate_unit = _timing(st, turn)
        if not _calls_off_read_result(st, turn, delegate_unit):
            raise ScheduleError(f"turn {turn.id}: its after-result request is issued before the result is readable")
    responds = turn.trigger == Trigger.USER   # an acknowledgement that speaks a relay still answers the user
    acts_on = [turn.ref] if turn.trigger == Trigger.BACKEND else []
    if says is not None:
        # an acknowledgement that states what a frame shows ("That's flight AZ 1702") keeps saying it,
        # then the relay: the fact is still true and the row's scene records this turn as stating it
        states = st.scene is not None and any(a.turn == turn.id for a in st.scene.asks)
        text_before = turn.text if states else ""
        turn = replace(says, id=turn.id, delegate=turn.delegate, lead_s=turn.lead_s, voice=turn.voice,
                       overlays=turn.overlays)
        if text_before:
            turn = replace(turn, text=st.lang.join([text_before, turn.text]))
    text = _resolve_text(st, turn)
    syn = st.speak(text, turn.voice)
    if responds and f.last_user_end is not None:
        st.log.gaps.append(c.sec(start - f.last_user_end))
    out_unit = window_of(start, c.U) - 1            # the unit whose output starts this turn
    issued = window_start(out_unit + 1, c.U)
    tokens = st.lang.words(text)
    fields: dict[str, Any] = dict(trigger=turn.trigger, voice=turn.voice, planned_text=text, interrupted=False,
                                  unspoken_text="",
                                  **{k: v for k, v in turn.attrs.items() if k not in COMPOSER_ONLY_TURN_ATTRS})
    if turn.trigger in (Trigger.BACKEND, Trigger.TIMER):
        fields["ref"] = turn.ref
    n_voiced = n_heard = len(tokens)
    clip = None
    ops: tuple[Op, ...] = ()
    vcut = next((x for x in st.scene.cuts if x.turn == turn.id), None) if st.scene is not None else None
    if turn.interruption is not None and vcut is not None:
        raise ScheduleError(f"turn {turn.id}: cut by both an interruption and a visual change")
    cut: _Cut | None = None
    if turn.interruption is not None:   # the cause of a cut: a user's cut-in, or a change a frame shows
        if user_voice is None:
            raise ScheduleError(f"turn {turn.id}: an interruption needs a user voice")
        cut = _find_cut(st, turn, turn.interruption, syn, start)
        _place_interruption(st, turn, turn.interruption, cut, user_voice)
        cause = dict(fade_s=turn.interruption.fade_s, action=turn.interruption.action,
                     interruption=f"{turn.id}.interruption")
    elif vcut is not None:
        cut = _find_visual_cut(st, turn, vcut, syn, start)
        cause = dict(fade_s=vcut.fade_s, action=InterruptAction.REPAIR, cut_by=_place_visual_cut(st, vcut, cut))
    if cut is not None:
        n_voiced, n_heard, clip = cut.n_voiced, cut.n_heard, cut.at
        ops = (Cut(at=cut.at - start, fade=cut.fade),)
        fields.update(interrupted=True, unspoken_text=st.lang.join(tokens[n_voiced:]), cut_s=c.sec(cut.at),
                      **cause, truncated=cut.truncated)
    audio = st.place(turn.id, Stem.ASSISTANT, start, text, turn.voice, ops)
    end = start + ac.last_active_sample(audio)
    if clip is not None:   # the turn ends at its cut; the fade after it plays in a listening window
        end = min(end, clip)
    st.add_words(syn.words, start, Role.ASSISTANT, turn.id, limit=n_voiced, clip=clip)
    st.event(turn.id, EventKind.ASSISTANT_TURN, Role.ASSISTANT, start, end, st.lang.join(tokens[:n_voiced]),
             AssistantTurnAttrs(**fields))
    st.placed.turns[turn.id] = _Heard(tokens, n_voiced if clip is not None else None, n_heard)
    f.last_asst_end = end

    if turn.delegate is not None:
        _place_delegate(st, turn, turn.delegate, window_start(delegate_unit + 1, c.U), delegate_unit)
        st.tasks[turn.delegate.task_id].after_result = after_result
    if turn.timer is not None:
        fire = issued + c.s(turn.timer.seconds)
        st.event(turn.timer.timer_id, EventKind.TIMER, Role.HARNESS, fire, fire, turn.timer.label,
                 TimerAttrs(timer_id=turn.timer.timer_id, seconds=turn.timer.seconds, label=turn.timer.label,
                            set_s=c.sec(issued), turn=turn.id))
        st.ready[turn.timer.timer_id] = fire
    for ref in acts_on + ([turn.ref] if turn.trigger == Trigger.BACKEND else []):
        if ref in st.tasks:
            task = st.tasks[ref]
            task.relay_turn, task.relay_s = turn.id, c.sec(start)
    for ov in turn.overlays:
        _place_overlay(st, turn, ov, syn, start, end)


def _listen_to_delegate(st: _State, unit: int, start: int) -> tuple[int, int]:
    """(delegate unit, turn start) for a request too long to write in a unit that also speaks.

    Writing a unit's speech leaves too little of it to decode a long request
    (schemas/decode_budget.py), so the request is issued in a unit that listens, the first one
    from `unit` on whose output window is silent, and the turn starts in the unit after it, at the
    same offset into its window.
    """
    c = st.clock
    if st.floor.last_asst_end is not None:
        unit = max(unit, -(-st.floor.last_asst_end // c.U) - 1)
    return unit, window_start(unit + 2, c.U) + (start - window_start(window_of(start, c.U), c.U))


def _find_cut(st: _State, turn: ScriptTurn, it: Interruption, syn: Any, start: int) -> _Cut:
    """The cut at the reaction window after the user's onset (rule 3), and what it leaves heard.

    The words starting before the cut are voiced (the audio before it is the uncut audio; the fade
    follows it), the rest unspoken. A voiced word still sounding at the cut is truncated, with its
    planned end (rule 8); one less than half audible before the cut is voiced but not heard, so a
    continuation re-says its sentence (rule 7).
    """
    c = st.clock
    word_starts = [start + c.s(w.start_s) for w in syn.words]
    fade, detect = c.s(it.fade_s), c.s(it.detect_s)

    def cut_for(onset: int) -> int:
        return window_start(next_window(onset + detect, c.U), c.U)

    onset = start + int(it.at_fraction * len(syn.audio))
    while cut_for(onset) > word_starts[-1] and onset > start + c.s(0.3):
        onset -= c.U // 4
    cut = cut_for(onset)
    if cut > word_starts[-1] or onset <= start:
        raise ScheduleError(f"turn {turn.id}: too short to be interrupted (onset {c.sec(onset):.2f}s)")
    return _Cut(onset, cut, fade, *_heard_at(st, syn, start, cut))


def _heard_at(st: _State, syn: Any, start: int, cut: int) -> tuple[int, int, list[TruncatedWord]]:
    """(words voiced, words heard, truncated words) of a turn starting at `start` and cut at `cut`.

    The words starting before the cut are voiced; one still sounding at it is truncated, with its
    planned end (rule 8); one less than half audible before the cut is voiced but not heard (rule 7).
    """
    c = st.clock
    word_starts = [start + c.s(w.start_s) for w in syn.words]
    n_voiced = sum(1 for w in word_starts if w < cut)
    truncated: list[TruncatedWord] = []
    n_heard = n_voiced
    for i, w in enumerate(syn.words[:n_voiced]):
        end = start + c.s(w.end_s)
        if end >= cut:   # still sounding at the cut (one ending on it reaches it too: it ends at the cut)
            truncated.append(TruncatedWord(index=i, planned_end_s=c.sec(end)))
            if (cut - word_starts[i]) < HEARD_FRACTION * (end - word_starts[i]):
                n_heard = min(n_heard, i)
    return n_voiced, n_heard, truncated


MIN_VOICED_BEFORE_CHANGE_S = 0.3   # a visual cut leaves at least this much of the turn voiced


def _find_visual_cut(st: _State, turn: ScriptTurn, vc: VisualCut, syn: Any, start: int) -> _Cut:
    """The cut a change shown mid-turn makes: the change is first shown by frame a, the frame of the
    window `at_fraction` into the turn's audio (moved earlier while the turn would have ended by
    then), and the turn is cut at the start of window a + 1, the reaction window after it (as rule 3
    for a spoken cut-in). `onset` is frame a's window start: where the change is first visible.
    """
    c = st.clock
    last_word = start + c.s(syn.words[-1].start_s)
    first = window_of(start, c.U)
    frame = window_of(start + int(vc.at_fraction * len(syn.audio)), c.U)
    while window_start(frame + 1, c.U) > last_word and frame > first:
        frame -= 1
    cut = window_start(frame + 1, c.U)
    if cut > last_word or cut < start + c.s(MIN_VOICED_BEFORE_CHANGE_S):
        raise ScheduleError(f"turn {turn.id}: too short for a change to cut it (starts {c.sec(start):.2f}s)")
    return _Cut(window_start(frame, c.U), cut, c.s(vc.fade_s), *_heard_at(st, syn, start, cut))


def _place_visual_cut(st: _State, vc: VisualCut, cut: _Cut) -> str:
    """Move the cut's change to the frame that shows it (the scene as placed), gate every turn that
    states it to the window after that frame, and keep the window after the cut silent (rule 3).
    Returns the id of the visual event the frame makes."""
    c, scene = st.clock, st.scene
    assert scene is not None
    frame = window_of(cut.onset, c.U)
    obj = scene.object(vc.object)
    change = obj.first(vc.change) if obj is not None else None
    if obj is None or change is None:
        raise ScheduleError(f"turn {vc.turn}: object {vc.object} has no {vc.change} change to cut it")
    if scene.video is not None:   # the video's change is where the video has it: start the segment later
        return _shift_video_cut(st, vc, cut, frame, change.unit)
    i = obj.timeline.index(change)
    before = obj.timeline[i - 1].unit if i > 0 else 0
    after = obj.timeline[i + 1].unit if i + 1 < len(obj.timeline) else None
    if frame < before or (after is not None and frame > after):
        raise ScheduleError(f"turn {vc.turn}: the change of {vc.object} cannot move to frame {frame}")
    moved: Change = replace(change, unit=frame)
    new = replace(obj, timeline=(*obj.timeline[:i], moved, *obj.timeline[i + 1:]))
    st.scene = replace(scene, objects=tuple(new if o.id == obj.id else o for o in scene.objects))
    for a in st.scene.asks:
        if a.object == obj.id and a.change == vc.change:
            st.visual_gate[a.turn] = frame + 1
    st.floor.min_window = next_window(cut.at, c.U)
    return visual_event_id(obj.id, i)


def _shift_video_cut(st: _State, vc: VisualCut, cut: _Cut, frame: int, unit: int) -> str:
    """A video scene's cut: the segment starts `unit - frame` units later, so the frame that first shows
    the change is `frame` (every other change moves with it, generators/scenes/video.shift_scene); a
    change the video shows before the answer could reach it cannot be moved later and is refused."""
    c, scene = st.clock, st.scene
    assert scene is not None and scene.video is not None
    if frame > unit:
        raise ScheduleError(f"turn {vc.turn}: {scene.video.file} shows the change of {vc.object} in frame {unit}, "
                            f"before the answer reaches frame {frame}")
    st.scene = shift_scene(scene, frame - unit, c.sec(c.U))
    obj = st.scene.object(vc.object)
    assert obj is not None
    change = obj.first(vc.change)
    assert change is not None and change.unit == frame
    for a in st.scene.asks:
        if a.object == obj.id and a.change == vc.change:
            st.visual_gate[a.turn] = frame + 1
    st.floor.min_window = next_window(cut.at, c.U)
    return visual_event_id(obj.id, obj.timeline.index(change))


def _place_interruption(st: _State, turn: ScriptTurn, it: Interruption, cut: _Cut, user_voice: VoiceSpec) -> None:
    """The user's cut-in: its track, words and event; the floor moves past the cut (rule 3)."""
    c = st.clock
    cid = f"{turn.id}.interruption"
    u = st.speak(it.text, user_voice)
    st.place(cid, Stem.USER, cut.onset, it.text, user_voice)
    st.add_words(u.words, cut.onset, Role.USER, cid)
    st.event(cid, EventKind.INTERRUPTION, Role.USER, cut.onset, cut.onset + len(u.audio), it.text,
             InterruptionAttrs(action=it.action, detect_s=it.detect_s, eot_s=it.eot_s, interrupted_turn=turn.id,
                               react_unit=window_of(cut.at, c.U) - 1, cut_s=c.sec(cut.at)))
    st.floor.last_user_end, st.floor.last_user_eot = cut.onset + len(u.audio), c.s(it.eot_s)
    st.floor.min_window = next_window(cut.at, c.U)


# ----------------------------------------------------------------------------- delegation ledger

def _place_delegate(st: _State, turn: ScriptTurn, d: Delegation, issued: int, out_unit: int) -> None:
    """Open a task at the unit that starts the turn; its result (if any) is readable after the latency."""
    if d.task_id in st.tasks:
        raise ScheduleError(f"turn {turn.id}: task id {d.task_id} used twice")
    for ref, what in ((d.cancels, "cancels"), (d.supersedes, "supersedes"), (d.retry_of, "retry_of")):
        if ref is not None and ref not in st.tasks:
            raise ScheduleError(f"turn {turn.id}: {what} unknown task {ref}")
    if d.cancels is not None:
        target = st.tasks[d.cancels]
        target.outcome = TaskOutcome.CANCELLED
        target.cancelled_by, target.cancelled_s = d.task_id, st.clock.sec(issued)
        if target.ready >= issued:   # cancelled in time: the harness drops it, no result ever arrives
            target.dropped = True
            st.ready.pop(d.cancels, None)
        st.tasks[d.task_id] = _Task(d, turn.id, issued, out_unit, ready=issued, outcome=None)
        return
    ready = issued + st.clock.s(d.latency_s)
    st.tasks[d.task_id] = _Task(d, turn.id, issued, out_unit, ready=ready, outcome=d.outcome)
    st.ready[d.task_id] = ready
    if d.supersedes is not None:
        old = st.tasks[d.supersedes]
        old.outcome = TaskOutcome.SUPERSEDED
        old.superseded_by = d.task_id


def _delegate_attrs(task: _Task, **fields: Any) -> DelegateAttrs:
    """A delegate's attrs; `after_result` is set only where it holds (absent keys stay absent, so other
    rows keep their bytes)."""
    attrs = DelegateAttrs(**fields)
    if task.after_result:
        attrs.after_result = True
    return attrs


def _task_events(c: _Clock, task_id: str, task: _Task) -> list[Event]:
    """A task's delegate event and (unless it was dropped) its backend event, from the final ledger."""
    d = task.plan
    shared: dict[str, Any] = dict(task_id=task_id, tool=d.tool, args=dict(d.args), issued_s=c.sec(task.issued),
                                  turn=task.turn, outcome=task.outcome)
    if d.cancels is not None:
        shared.update(task.later())
        return [make_event(f"{task_id}.delegate", EventKind.DELEGATE, Role.ASSISTANT, c.sec(task.issued),
                           c.sec(task.issued), d.request, _delegate_attrs(task, unit=task.unit, cancels=d.cancels, **shared))]
    shared.update(ready_s=c.sec(task.ready), latency_s=c.sec(task.ready - task.issued), status=d.status)
    for key in ("supersedes", "retry_of"):
        if getattr(d, key) is not None:
            shared[key] = getattr(d, key)
    shared.update(task.later())
    out = [make_event(f"{task_id}.delegate", EventKind.DELEGATE, Role.ASSISTANT, c.sec(task.issued),
                      c.sec(task.issued), d.request, _delegate_attrs(task, unit=task.unit, **shared))]
    if not task.dropped:
        out.append(make_event(f"{task_id}.backend", EventKind.BACKEND, Role.HARNESS, c.sec(task.ready),
                              c.sec(task.ready), d.result, BackendAttrs(**shared)))
    return out


# ----------------------------------------------------------------------------- visual events

def _visual_events(c: _Clock, scene: Scene, num_units: int) -> list[Event]:
    """One `visual` event per change a frame of the session shows, at the start of that frame's unit."""
    out: list[Event] = []
    for obj in scene.objects:
        for i, ch in enumerate(obj.timeline):
            if ch.unit >= num_units:
                break
            value = ch.state if ch.change == VisualChange.CHANGES_STATE else (
                obj.text if ch.change == VisualChange.TEXT_READABLE else
                ch.text if ch.change == VisualChange.TEXT_CHANGES else None)
            attrs = VisualAttrs(object=obj.id, label=obj.label, change=ch.change, unit=ch.unit)
            if value is not None:   # optional keys are set only when they apply (absent stays absent)
                attrs.value = value
            stated = [a.turn for a in scene.asks if a.object == obj.id and obj.first(a.change) is ch]
            if stated:
                attrs.stated_by = stated
            t = c.sec(window_start(ch.unit, c.U))
            text = (ch.description if ch.description is not None   # a video scene's annotation
                    else f"{obj.colour} {obj.label}" if ch.change == VisualChange.APPEARS else value or obj.label)
            out.append(make_event(visual_event_id(obj.id, i), EventKind.VISUAL, Role.HARNESS, t, t, text, attrs))
    return out


# ----------------------------------------------------------------------------- overlays

def _place_overlay(st: _State, turn: ScriptTurn, ov: Overlay, syn: Any, start: int, end: int) -> None:
    """Backchannel / other-directed / background speech against a phrase boundary of the turn (rule 4)."""
    c = st.clock
    bounds = st.lang.phrase_boundaries(turn.text)
    if not bounds:
        return
    word = syn.words[bounds[min(ov.boundary, len(bounds) - 1)]]
    u = st.speak(ov.text, ov.voice)
    onset = start + c.s(word.end_s) + c.s(ov.offset_s)
    onset = int(np.clip(onset, start + c.s(0.1), max(start + c.s(0.1), end - len(u.audio) // 2)))
    n = sum(1 for e in st.placed.events if e.kind in OVERLAY_KINDS and e.id.startswith(f"{turn.id}.")) + 1
    oid = f"{turn.id}.{ov.kind}{n}"
    recipe = FD_BENCH_RECIPES.get(ov.kind, ())
    st.place(oid, Stem.OVERLAY if recipe else Stem.USER, onset, ov.text, ov.voice, recipe)
    st.add_words(u.words, onset, ov.role, oid)
    st.event(oid, ov.kind, ov.role, onset, onset + len(u.audio), ov.text,
             OverlayAttrs(over_turn=turn.id, boundary_s=c.sec(start + c.s(word.end_s)), voice=ov.voice,
                          recipe=ov.kind if recipe else ""))
