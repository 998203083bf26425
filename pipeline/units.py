"""Unit slicing (DESIGN §2): input of unit k is window k; output of unit k plays in window k+1.

Everything here is derived from events and words, so a validator can recompute it from a stored
row and compare: no label is ever typed by hand.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from schemas.language import Language
from schemas.protocol import SPEECH_TOKENS_PER_SECOND
from schemas.trajectory import Event, InputEvent, Unit, Word, attrs_of
from schemas.vocab import Decision, EventKind, InterruptAction, Label, Role, Trigger
from schemas.windows import last_window_at, window_at

FLOOR_TAKING = (EventKind.USER_TURN, EventKind.INTERRUPTION)
# How each event becomes labels: the label derivation as data (the rules are in slice_units).
OVERLAP_LABELS = {EventKind.BACKCHANNEL: Label.BACKCHANNEL, EventKind.OTHER_DIRECTED: Label.OTHER_DIRECTED,
                  EventKind.BACKGROUND_SPEECH: Label.BACKGROUND_SPEECH, EventKind.PAUSE: Label.HESITATION_PAUSE}
START_LABELS = {Trigger.USER: Label.RESPOND, Trigger.FOLLOW: Label.RESPOND, Trigger.BACKEND: Label.RELAY,
                Trigger.TIMER: Label.PROACTIVE, Trigger.VISUAL: Label.PROACTIVE,
                Trigger.VISUAL_CHANGE: Label.PROACTIVE}
STOP_LABELS = {InterruptAction.DISCARD: Label.STOP_DISCARD, InterruptAction.REPAIR: Label.STOP_REPAIR,
               InterruptAction.PARK: Label.STOP_PARK}
INPUT_LABELS = {EventKind.BACKEND: Label.BACKEND_RESULT, EventKind.TIMER: Label.TIMER_FIRED}


def slice_units(events: list[Event], words: list[Word], num_units: int, unit_s: float, sample_rate: int,
                speech_tokens: np.ndarray | None, lang: Language) -> list[Unit]:
    """Per-unit decision, text, tokens, turn_eos, delegate, input events and labels; unit texts
    are joined from their words the way `lang` joins words."""
    n = num_units
    per_unit_tokens = int(round(SPEECH_TOKENS_PER_SECOND * unit_s))
    speak = [False] * (n + 1)               # by window
    eos = [False] * n                       # by unit
    labels: list[set[str]] = [set() for _ in range(n)]
    spoken: list[list[str]] = [[] for _ in range(n)]
    user_text: list[list[str]] = [[] for _ in range(n)]
    inputs: list[list[InputEvent]] = [[] for _ in range(n)]
    delegate: list[tuple[str, str] | None] = [None] * n
    W = lambda t: window_at(t, unit_s, sample_rate)          # noqa: E731  (schemas/windows.py)
    L = lambda t: last_window_at(t, unit_s, sample_rate)     # noqa: E731

    def mark(k: int, label: str) -> None:
        if 0 <= k < n:
            labels[k].add(label)

    for ev in events:
        a: Any = attrs_of(ev)
        if ev.kind == EventKind.ASSISTANT_TURN and ev.end_s > ev.start_s:
            for w in range(W(ev.start_s), min(L(ev.end_s), n) + 1):
                speak[w] = True
            first_unit = W(ev.start_s) - 1
            mark(first_unit, START_LABELS[a.trigger])
            if a.interrupted:
                mark(W(a.cut_s) - 1, STOP_LABELS[a.action])   # the cut is at a window start
            elif 0 <= L(ev.end_s) - 1 < n:
                eos[L(ev.end_s) - 1] = True
        elif ev.kind in FLOOR_TAKING:
            for w in range(W(ev.start_s), min(L(ev.end_s), n - 1) + 1):
                mark(w, Label.USER_SPEECH)
            if ev.kind == EventKind.INTERRUPTION:
                mark(W(ev.start_s), Label.INTERRUPTION_ONSET)
        elif ev.kind in OVERLAP_LABELS and ev.end_s > ev.start_s:
            for w in range(W(ev.start_s), min(L(ev.end_s), n - 1) + 1):
                mark(w, OVERLAP_LABELS[ev.kind])
        elif ev.kind == EventKind.DELEGATE:
            k = int(a.unit)
            delegate[k] = (ev.text, a.task_id)
            mark(k, Label.DELEGATE)
        elif ev.kind == EventKind.VISUAL:   # frame k (input of unit k) first shows it
            mark(W(ev.start_s), Label.VISUAL_EVENT)
        elif ev.kind in INPUT_LABELS:   # readable from the unit of the window it lands in
            k = W(ev.start_s)
            if k < n:
                ref = a.task_id if ev.kind == EventKind.BACKEND else a.timer_id
                inputs[k].append(InputEvent(kind=ev.kind, task_id=ref, text=ev.text))
                mark(k, INPUT_LABELS[ev.kind])

    for w in words:
        k = W(w.start_s)
        if w.role == Role.ASSISTANT:
            if 1 <= k <= n:
                spoken[k - 1].append(w.word)
        elif 0 <= k < n:
            user_text[k].append(w.word)

    units: list[Unit] = []
    for k in range(n):
        decision = Decision.SPEAK if speak[k + 1] else Decision.LISTEN
        toks: list[int] = []
        if decision == Decision.SPEAK and speech_tokens is not None:
            toks = speech_tokens[(k + 1) * per_unit_tokens:(k + 2) * per_unit_tokens].astype(int).tolist()
        if eos[k]:
            labels[k].add(Label.TURN_EOS)
        d = delegate[k]
        units.append(Unit(index=k, user_text=lang.join(user_text[k]), input_events=inputs[k], decision=decision,
                          spoken_text=lang.join(spoken[k]), speech_tokens=toks, turn_eos=eos[k],
                          delegate=d[0] if d else None, task_id=d[1] if d else None, labels=sorted(labels[k])))
    return units
