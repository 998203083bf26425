"""Timeline composition: TTS first, then schedule every event so DESIGN §2 holds by construction.

The timeline is data (Lhotse MixedCut style): tracks with sample offsets, plus the events and
word timings derived from the same placement. Audio, stems and labels are all rendered from it.
All times are integer samples internally; stored seconds are samples / sample_rate.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from generators.timing import control as timing_control
from pipeline import acoustics as ac
from schemas.script import Script, ScriptTurn, VoiceSpec, phrase_boundaries
from schemas.attrs import (AssistantTurnAttrs, BackendAttrs, DelegateAttrs, InterruptionAttrs, OverlayAttrs,
                           PauseAttrs, TimerAttrs, TruncatedWord, UserTurnAttrs)
from schemas.trajectory import Event, EventAttrs, Word, make_event
from schemas.vocab import DROPPED_OUTCOMES, RELAYED_OUTCOMES, EventKind, Role, TaskOutcome, Trigger, TurnAttr
from schemas.windows import next_window, unit_samples, units_covering, window_of, window_start

ASSISTANT_MIN_GAP_S = 0.35   # between two assistant turns: never start mid-sentence
MIN_SELF_GAP_S = 0.2         # a user turn starts at least this long after the user's own last speech
HEARD_FRACTION = 0.5         # rule 8: a word less than half audible before the fade is not heard
OVERLAY_EFFECTS = {EventKind.OTHER_DIRECTED: ac.other_directed, EventKind.BACKGROUND_SPEECH: ac.background_speech}


class Synthesizer(Protocol):
    """What composition needs from a TTS backend (pipeline.tts.base.TTSBackend satisfies it)."""

    def synthesize(self, text: str, voice: Any, sample_rate: int) -> Any: ...


@dataclass
class Track:
    """One rendered utterance placed on a channel: the MixTrack of the timeline."""

    event_id: str
    stem: str          # "assistant" | "user" (floor-taking speech + backchannels) | "overlay"
    offset: int        # samples
    audio: np.ndarray  # already cut / filtered; placed as is


@dataclass
class Timeline:
    sample_rate: int
    unit_samples: int
    num_units: int
    events: list[Event]
    words: list[Word]
    tracks: list[Track]
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def n_samples(self) -> int:
        return self.num_units * self.unit_samples

    def render_stem(self, stem: str) -> np.ndarray:
        out = np.zeros(self.n_samples, dtype=np.float32)
        for t in self.tracks:
            if t.stem == stem:
                seg = t.audio[: max(0, self.n_samples - t.offset)]
                out[t.offset: t.offset + len(seg)] += seg
        return out


class ScheduleError(ValueError):
    """A script that cannot be placed without breaking the timeline rules."""


@dataclass
class _Task:
    """One delegated task while composing: its events (entries of `_State.events`) and when it is readable."""

    delegate: dict[str, Any]
    backend: dict[str, Any] | None
    ready: int
    control: bool = False              # a control request (cancel): yields no result
    relay_turn: str | None = None      # the assistant turn that acts on its result


def _update(attrs: EventAttrs, **values: Any) -> None:
    """Set attrs after placement (each value is validated against the kind's model)."""
    for name, value in values.items():
        setattr(attrs, name, value)


@dataclass
class _State:
    sr: int
    U: int
    events: list[dict[str, Any]] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    tracks: list[Track] = field(default_factory=list)
    last_user_end: int | None = None
    last_user_eot: int = 0
    last_asst_end: int | None = None
    min_window: int = 1                 # rule 1, and "the unit after a cut is listen" (rule 3)
    turns: dict[str, dict[str, Any]] = field(default_factory=dict)
    ready: dict[str, int] = field(default_factory=dict)      # task / timer id -> sample it is readable
    tasks: dict[str, _Task] = field(default_factory=dict)     # task id -> its delegate/backend events
    gaps: list[float] = field(default_factory=list)           # user end -> assistant start, seconds
    user_timing: dict[str, Any] = field(default_factory=dict)   # _place_user: realised offsets, control
    activity: dict[tuple[str, int, int], list[tuple[float, float]]] = field(default_factory=dict)  # per track

    def s(self, t: float) -> int:
        return int(round(t * self.sr))

    def next_overlay_id(self, turn_id: str, kind: str) -> str:
        n = sum(1 for e in self.events if isinstance(e["attrs"], OverlayAttrs) and e["attrs"].over_turn == turn_id) + 1
        return f"{turn_id}.{kind}{n}"

    def sec(self, n: int) -> float:
        return n / self.sr

    def add_event(self, id: str, kind: EventKind, role: Role, start: int, end: int, text: str,
                  attrs: EventAttrs) -> dict[str, Any]:
        ev = {"id": id, "kind": kind, "role": role, "start": start, "end": end, "text": text, "attrs": attrs}
        self.events.append(ev)
        return ev

    def add_words(self, timings: Any, offset: int, role: str, event_id: str, limit: int | None = None,
                  clip: int | None = None) -> None:
        """Word timings placed at `offset`; with `clip` (a cut), no word ends after it (DESIGN §2 rule 8)."""
        for w in list(timings)[:limit]:
            end = offset + self.s(w.end_s)
            self.words.append(Word(role=role, word=w.word, start_s=self.sec(offset + self.s(w.start_s)),
                                   end_s=self.sec(end if clip is None else min(end, clip)), event_id=event_id))


def compose(script: Script, tts: Synthesizer, sample_rate: int, unit_s: float) -> Timeline:
    """Render every utterance and place it; raise ScheduleError if the script cannot be placed."""
    st = _State(sr=sample_rate, U=unit_samples(unit_s, sample_rate))
    cache: dict[tuple[str, VoiceSpec], Any] = {}

    def synth(text: str, voice: VoiceSpec) -> Any:
        key = (text, voice)
        if key not in cache:
            cache[key] = tts.synthesize(text, voice, sample_rate)
        return cache[key]

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
                _place_assistant(st, turns[due[0]], synth, user_voice)
                placed.add(due[0])
            _place_user(st, turns[i], synth, script.lead_in_s)
            placed.add(i)
            continue
        j = _next_relay(st, turns, i, placed) if turns[i].trigger == Trigger.BACKEND else i
        _place_assistant(st, turns[j], synth, user_voice)
        placed.add(j)
    _check_outcomes(st)

    ends = [e["end"] for e in st.events] + [t.offset + len(t.audio) for t in st.tracks]
    num_units = units_covering(max(ends) + st.s(script.tail_s), st.U)
    events = [make_event(e["id"], e["kind"], e["role"], st.sec(e["start"]), st.sec(e["end"]), e["text"], e["attrs"])
              for e in st.events]
    events.sort(key=lambda e: (e.start_s, e.id))
    words = sorted(st.words, key=lambda w: (w.start_s, w.event_id))
    stats = {"response_gaps_s": [round(g, 4) for g in st.gaps], **st.user_timing, **_control_summary(st)}
    return Timeline(sample_rate, st.U, num_units, events, words, st.tracks, stats)


def _relays_due_before_user(st: _State, turns: list[ScriptTurn], i: int, placed: set[int]) -> list[int]:
    """Later relay turns whose result is already readable and could start before user turn i would.

    Planners cannot know when results land; composition can. A result that is ready while the floor
    is free is relayed then, not after whatever the script put next.
    """
    prev = max([x for x in (st.last_asst_end, st.last_user_end) if x is not None], default=None)
    if prev is None:
        return []
    user_start = prev + st.s(turns[i].gap_s)
    due = []
    for j in range(i + 1, len(turns)):
        t = turns[j]
        if j in placed or t.role != Role.ASSISTANT or t.trigger != Trigger.BACKEND or t.ref not in st.ready:
            continue
        start = window_start(_earliest_window(st, t), st.U) + st.s(t.lead_s)
        if st.last_asst_end is not None:
            start = max(start, st.last_asst_end + st.s(ASSISTANT_MIN_GAP_S))
        if start <= user_start:
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
        outcome, relayed = task.delegate["attrs"].outcome, task.relay_turn is not None
        if outcome in RELAYED_OUTCOMES and not relayed:
            raise ScheduleError(f"task {task_id}: outcome {outcome} but no turn acts on its result")
        if outcome in DROPPED_OUTCOMES and relayed:
            raise ScheduleError(f"task {task_id}: outcome {outcome} but its result is relayed")


def _activity(st: _State) -> dict[str, list[tuple[float, float]]]:
    """Speech intervals (s) of the placed audio by speaker: the VAD `duplexsynth stats` runs, per track.

    Cached per track, so the closed loop sees what the measurement will see.
    """
    from pipeline.vad import speech_intervals

    roles = {e["id"]: e["role"] for e in st.events}
    out: dict[str, list[tuple[float, float]]] = {Role.USER: [], Role.ASSISTANT: []}
    for t in st.tracks:
        role = Role.ASSISTANT if t.stem == "assistant" else Role.USER if t.stem == "user" else roles.get(t.event_id)
        if role not in out:
            continue
        key = (t.event_id, t.offset, len(t.audio))
        if key not in st.activity:
            st.activity[key] = [(t.offset / st.sr + a, t.offset / st.sr + b) for a, b in speech_intervals(t.audio, st.sr)]
        out[role].extend(st.activity[key])
    return out


def _realised(st: _State) -> dict[str, float]:
    """gap / overlap / pause seconds and minutes of the dialogue placed so far (dGSLM, generators/intervals)."""
    from generators.intervals import dialogue_figures, ipus_from_segments

    f = dialogue_figures(ipus_from_segments(_activity(st)))
    return {k: round(float(f[k]), 4) for k in ("minutes", "ipu_s", "gap_s", "overlap_s", "pause_s")}


def _control_summary(st: _State) -> dict[str, Any]:
    """Targets and final realised figures of a session under closed-loop timing (for meta and stats)."""
    if "controller" not in st.user_timing:
        return {}
    f = _realised(st)
    m = f["minutes"] or 1e-9
    return {"control_realised_per_min": {k: round(f[k] / m, 4) for k in ("gap_s", "overlap_s", "pause_s")}}


def _user_start(st: _State, turn: ScriptTurn, lead_in_s: float, spec: Any, realised: dict[str, float] | None) -> int:
    """Where a user turn starts: `gap_s` after whoever spoke last, under closed-loop control if asked.

    After an assistant turn the gap may be negative (the user starts before the assistant has
    finished), but only so early that the first window the assistant could act in (rule 3, with
    the shortest detect_s) starts after its turn's natural end: its output is unchanged
    (generators/timing/control.max_start_overlap). The user never talks over their own earlier speech.
    """
    prev = max([x for x in (st.last_asst_end, st.last_user_end) if x is not None], default=None)
    if prev is None:
        return st.s(lead_in_s)
    rec = st.user_timing
    gap = turn.gap_s
    after_assistant = st.last_asst_end is not None and st.last_asst_end == prev
    max_ov = timing_control.max_start_overlap(prev, st.U, st.sr) if after_assistant else 0.0
    if after_assistant and spec is not None and realised is not None:
        gap = timing_control.controlled_offset(turn.gap_s, realised, spec, max_ov)
    start = prev + st.s(gap)
    if gap < 0:
        start = max(start, prev - st.s(max_ov))
    own_end = max([e["end"] for e in st.events if e["role"] == Role.USER and e["kind"] != EventKind.PAUSE], default=0)
    if own_end > start or (gap < 0 and own_end + st.s(MIN_SELF_GAP_S) > start):
        start = own_end + st.s(MIN_SELF_GAP_S)
    if turn.attrs.get(TurnAttr.SILENT_STRETCH) == "1":
        rec.setdefault("silent_stretches_s", []).append(round(st.sec(start - prev), 4))
    elif after_assistant:
        rec.setdefault("user_gaps_s", []).append(round(st.sec(start - prev), 4))
    if spec is not None:
        rec.setdefault("controller", []).append({"turn": turn.id, "offset_drawn_s": turn.gap_s,
                                                 "offset_used_s": round(st.sec(start - prev), 4)})
    return start


def _place_user(st: _State, turn: ScriptTurn, synth: Any, lead_in_s: float) -> None:
    spec = timing_control.ControlSpec.from_attrs(turn.attrs)
    realised = _realised(st) if spec is not None and st.tracks else None
    if spec is not None and "control_targets" not in st.user_timing:
        st.user_timing["control_targets"] = {"gap_per_min": spec.gap_pm, "overlap_per_min": spec.overlap_pm,
                                             "pause_per_min": spec.pause_pm, "gain": spec.gain}
    start = _user_start(st, turn, lead_in_s, spec, realised)
    tokens = turn.text.split()
    if turn.pause is None:
        parts = [turn.text]
    else:
        if not 1 <= turn.pause.after_word < len(tokens):
            raise ScheduleError(f"turn {turn.id}: pause.after_word={turn.pause.after_word} outside 1..{len(tokens) - 1}")
        first = " ".join(tokens[: turn.pause.after_word])
        parts = [f"{first} {turn.pause.filler}" if turn.pause.filler else first,
                 " ".join(tokens[turn.pause.after_word:])]
    syns = [synth(part, turn.voice) for part in parts]
    pause_s = turn.pause.dur_s if turn.pause is not None else 0.0
    if turn.pause is not None and spec is not None and realised is not None:
        voiced_min = sum(len(x.audio) for x in syns) / st.sr / 60.0
        pause_s = timing_control.controlled_pause(turn.pause.dur_s, realised, voiced_min, spec)
        st.user_timing["controller"][-1].update(pause_drawn_s=turn.pause.dur_s, pause_used_s=pause_s)
    t = start
    for i, syn in enumerate(syns):
        st.tracks.append(Track(turn.id, "user", t, syn.audio))
        st.add_words(syn.words, t, Role.USER, turn.id)
        t += len(syn.audio)
        if i == 0 and len(parts) == 2:
            assert turn.pause is not None
            pause_end = t + st.s(pause_s)
            st.add_event(f"{turn.id}.pause", EventKind.PAUSE, Role.USER, t, pause_end, "",
                         PauseAttrs(turn=turn.id, filler=turn.pause.filler or ""))
            t = pause_end
    st.add_event(turn.id, EventKind.USER_TURN, Role.USER, start, t, " ".join(parts),
                 UserTurnAttrs(eot_s=turn.eot_s, voice=turn.voice))
    st.last_user_end, st.last_user_eot = t, st.s(turn.eot_s)


def _resolve_text(st: _State, turn: ScriptTurn) -> str:
    c = turn.continuation
    if c is None:
        return turn.text
    ref = st.turns.get(c.of_turn)
    if ref is None or ref.get("first_unspoken") is None:
        raise ScheduleError(f"turn {turn.id}: continuation of {c.of_turn}, which was not interrupted before it")
    voiced = ref["tokens"][: ref["first_unheard"]]   # rule 7: from what the user heard (rule 8)
    j = min(sum(1 for w in voiced if w.endswith((".", "?", "!"))), len(c.sentences))
    return " ".join([c.prefix, *c.sentences[j:]]).strip()


def _earliest_window(st: _State, turn: ScriptTurn) -> int:
    w = st.min_window   # rule 1 (window 0 silent) and rule 3 (the window after a cut is silent)
    if st.last_user_end is not None:   # rule 2
        w = max(w, next_window(st.last_user_end + st.last_user_eot, st.U))
    if turn.trigger in (Trigger.BACKEND, Trigger.TIMER):   # rule 5 / proactive
        if turn.ref not in st.ready:
            raise ScheduleError(f"turn {turn.id}: trigger {turn.trigger} refers to unknown {turn.ref!r}")
        w = max(w, next_window(st.ready[turn.ref], st.U))
    return w


def _place_assistant(st: _State, turn: ScriptTurn, synth: Any, user_voice: VoiceSpec) -> None:
    text = _resolve_text(st, turn)
    syn = synth(text, turn.voice)
    audio = syn.audio
    start = window_start(_earliest_window(st, turn), st.U) + st.s(turn.lead_s)
    if st.last_asst_end is not None:
        start = max(start, st.last_asst_end + st.s(ASSISTANT_MIN_GAP_S))
    if turn.trigger == Trigger.USER and st.last_user_end is not None:
        st.gaps.append(st.sec(start - st.last_user_end))
    out_unit = window_of(start, st.U) - 1            # the unit whose output starts this turn
    issued = window_start(out_unit + 1, st.U)
    attrs = AssistantTurnAttrs(trigger=turn.trigger, voice=turn.voice, planned_text=text, interrupted=False,
                               unspoken_text="", **turn.attrs)
    if turn.trigger in (Trigger.BACKEND, Trigger.TIMER):
        attrs.ref = turn.ref
    tokens = text.split()
    n_voiced = n_heard = len(tokens)
    clip = None
    if turn.interruption is not None:
        audio, n_voiced, n_heard = _interrupt(st, turn, syn, start, attrs, synth, user_voice)
        clip = st.s(attrs.cut_s)
    end = start + ac.last_active_sample(audio)
    st.tracks.append(Track(turn.id, "assistant", start, audio))
    st.add_words(syn.words, start, Role.ASSISTANT, turn.id, limit=n_voiced, clip=clip)
    st.add_event(turn.id, EventKind.ASSISTANT_TURN, Role.ASSISTANT, start, end, " ".join(tokens[:n_voiced]), attrs)
    st.turns[turn.id] = {"tokens": tokens, "first_unspoken": n_voiced if turn.interruption else None,
                         "first_unheard": n_heard}
    st.last_asst_end = end

    if turn.delegate is not None:
        _place_delegate(st, turn, turn.delegate, issued, out_unit)
    if turn.timer is not None:
        fire = issued + st.s(turn.timer.seconds)
        st.add_event(turn.timer.timer_id, EventKind.TIMER, Role.HARNESS, fire, fire, turn.timer.label,
                     TimerAttrs(timer_id=turn.timer.timer_id, seconds=turn.timer.seconds, label=turn.timer.label,
                                set_s=st.sec(issued), turn=turn.id))
        st.ready[turn.timer.timer_id] = fire
    if turn.trigger == Trigger.BACKEND and turn.ref in st.tasks:
        task = st.tasks[turn.ref]
        task.relay_turn = turn.id
        for ev in (task.delegate, task.backend):
            if ev is not None:
                _update(ev["attrs"], relay_turn=turn.id, relay_s=st.sec(start))
    for ov in turn.overlays:
        _place_overlay(st, turn, ov, syn, start, end, synth)


def _place_delegate(st: _State, turn: ScriptTurn, d: Any, issued: int, out_unit: int) -> None:
    """Delegate event at the unit that starts the turn; its backend result (if any) after the latency."""
    if d.task_id in st.tasks:
        raise ScheduleError(f"turn {turn.id}: task id {d.task_id} used twice")
    shared: dict[str, Any] = dict(task_id=d.task_id, tool=d.tool, args=dict(d.args), issued_s=st.sec(issued),
                                  turn=turn.id)
    if d.cancels is not None:
        target = st.tasks.get(d.cancels)
        if target is None:
            raise ScheduleError(f"turn {turn.id}: cancels unknown task {d.cancels}")
        control = st.add_event(f"{d.task_id}.delegate", EventKind.DELEGATE, Role.ASSISTANT, issued, issued, d.request,
                               DelegateAttrs(unit=out_unit, cancels=d.cancels, outcome=None, **shared))
        cancelled = dict(outcome=TaskOutcome.CANCELLED, cancelled_by=d.task_id, cancelled_s=st.sec(issued))
        _update(target.delegate["attrs"], **cancelled)
        if target.ready >= issued:   # cancelled in time: the harness drops it, no result ever arrives
            st.events.remove(target.backend)
            target.backend = None
            st.ready.pop(d.cancels, None)
        elif target.backend is not None:   # the result raced the cancel: it arrived, and is never relayed
            _update(target.backend["attrs"], **cancelled)
        st.tasks[d.task_id] = _Task(delegate=control, backend=None, ready=issued, control=True)
        return
    ready = issued + st.s(d.latency_s)
    shared.update(ready_s=st.sec(ready), latency_s=st.sec(ready - issued), status=d.status, outcome=d.outcome)
    if d.supersedes is not None:
        if d.supersedes not in st.tasks:
            raise ScheduleError(f"turn {turn.id}: supersedes unknown task {d.supersedes}")
        shared.update(supersedes=d.supersedes)
    if d.retry_of is not None:
        if d.retry_of not in st.tasks:
            raise ScheduleError(f"turn {turn.id}: retry_of unknown task {d.retry_of}")
        shared.update(retry_of=d.retry_of)
    dev = st.add_event(f"{d.task_id}.delegate", EventKind.DELEGATE, Role.ASSISTANT, issued, issued, d.request,
                       DelegateAttrs(unit=out_unit, **shared))
    bev = st.add_event(f"{d.task_id}.backend", EventKind.BACKEND, Role.HARNESS, ready, ready, d.result,
                       BackendAttrs(**shared))
    st.tasks[d.task_id] = _Task(delegate=dev, backend=bev, ready=ready)
    st.ready[d.task_id] = ready
    if d.supersedes is not None:
        old = st.tasks[d.supersedes]
        for ev in (old.delegate, old.backend):
            if ev is not None:
                _update(ev["attrs"], outcome=TaskOutcome.SUPERSEDED, superseded_by=d.task_id)


def _interrupt(st: _State, turn: ScriptTurn, syn: Any, start: int, attrs: AssistantTurnAttrs,
               synth: Any, user_voice: VoiceSpec) -> tuple[np.ndarray, int, int]:
    """Place the user's cut-in, cut the assistant at the reaction window (rule 3).

    Returns (audio, words voiced, words heard). A voiced word the fade reaches is recorded in
    attrs["truncated"] with its planned end (rule 8); one less than half audible before the fade
    is voiced but not heard, so a continuation re-says its sentence (rule 7).
    """
    it = turn.interruption
    assert it is not None
    word_starts = [start + st.s(w.start_s) for w in syn.words]
    fade, detect = st.s(it.fade_s), st.s(it.detect_s)

    def cut_for(onset: int) -> int:
        return window_start(next_window(onset + detect, st.U), st.U)

    onset = start + int(it.at_fraction * len(syn.audio))
    while cut_for(onset) - fade > word_starts[-1] and onset > start + st.s(0.3):
        onset -= st.U // 4
    cut = cut_for(onset)
    if cut - fade > word_starts[-1] or onset <= start:
        raise ScheduleError(f"turn {turn.id}: too short to be interrupted (onset {st.sec(onset):.2f}s)")
    n_voiced = sum(1 for w in word_starts if w < cut - fade)
    truncated: list[TruncatedWord] = []
    n_heard = n_voiced
    for i, w in enumerate(syn.words[:n_voiced]):
        end = start + st.s(w.end_s)
        if end > cut - fade:
            truncated.append(TruncatedWord(index=i, planned_end_s=st.sec(end)))
            if (cut - fade - word_starts[i]) < HEARD_FRACTION * (end - word_starts[i]):
                n_heard = min(n_heard, i)
    tokens = attrs.planned_text.split()
    cid = f"{turn.id}.interruption"
    u = synth(it.text, user_voice)
    st.tracks.append(Track(cid, "user", onset, u.audio))
    st.add_words(u.words, onset, Role.USER, cid)
    st.add_event(cid, EventKind.INTERRUPTION, Role.USER, onset, onset + len(u.audio), it.text,
                 InterruptionAttrs(action=it.action, detect_s=it.detect_s, eot_s=it.eot_s, interrupted_turn=turn.id,
                                   react_unit=window_of(cut, st.U) - 1, cut_s=st.sec(cut)))
    st.last_user_end, st.last_user_eot = onset + len(u.audio), st.s(it.eot_s)
    st.min_window = next_window(cut, st.U)
    _update(attrs, interrupted=True, unspoken_text=" ".join(tokens[n_voiced:]), cut_s=st.sec(cut),
            fade_s=it.fade_s, action=it.action, interruption=cid, truncated=truncated)
    return ac.fade_out_and_cut(syn.audio, cut - start, fade), n_voiced, n_heard


def _place_overlay(st: _State, turn: ScriptTurn, ov: Any, syn: Any, start: int, end: int, synth: Any) -> None:
    """Backchannel / other-directed / background speech against a phrase boundary of the turn (rule 4)."""
    bounds = phrase_boundaries(turn.text)
    if not bounds:
        return
    word = syn.words[bounds[min(ov.boundary, len(bounds) - 1)]]
    u = synth(ov.text, ov.voice)
    onset = start + st.s(word.end_s) + st.s(ov.offset_s)
    onset = int(np.clip(onset, start + st.s(0.1), max(start + st.s(0.1), end - len(u.audio) // 2)))
    oid = st.next_overlay_id(turn.id, ov.kind)
    effect = OVERLAY_EFFECTS.get(ov.kind)
    audio = effect(u.audio, st.sr) if effect else u.audio
    st.tracks.append(Track(oid, "overlay" if effect else "user", onset, audio))
    st.add_words(u.words, onset, ov.role, oid)
    st.add_event(oid, ov.kind, ov.role, onset, onset + len(u.audio), ov.text,
                 OverlayAttrs(over_turn=turn.id, boundary_s=st.sec(start + st.s(word.end_s)), voice=ov.voice,
                              recipe=ov.kind if effect else ""))
