"""Unit slicing (DESIGN §2): input of unit k is window k; output of unit k plays in window k+1.

Everything here is derived from events and words, so a validator can recompute it from a stored
row and compare: no label is ever typed by hand.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from schemas.trajectory import Event, InputEvent, Unit, Word

FLOOR_TAKING = ("user_turn", "interruption")
OVERLAP_LABELS = {"backchannel": "backchannel", "other_directed": "other_directed",
                  "background_speech": "background_speech", "pause": "hesitation_pause"}


def attrs_of(ev: Event) -> dict[str, Any]:
    return json.loads(ev.attrs or "{}")


def _window(t: float, unit_s: float, sample_rate: int) -> int:
    """Window holding the sample at time t (integer-sample arithmetic, so boundaries are exact)."""
    return int(round(t * sample_rate)) // int(round(unit_s * sample_rate))


def _last_window(t_end: float, unit_s: float, sample_rate: int) -> int:
    """Window holding the last sample of a span that ends (exclusive) at t_end."""
    return (int(round(t_end * sample_rate)) - 1) // int(round(unit_s * sample_rate))


def slice_units(events: list[Event], words: list[Word], num_units: int, unit_s: float, sample_rate: int,
                speech_tokens: np.ndarray | None) -> list[Unit]:
    """Per-unit decision, text, tokens, turn_eos, delegate, input events and labels."""
    n = num_units
    per_unit_tokens = int(round(25 * unit_s))
    speak = [False] * (n + 1)               # by window
    eos = [False] * n                       # by unit
    labels: list[set[str]] = [set() for _ in range(n)]
    spoken: list[list[str]] = [[] for _ in range(n)]
    user_text: list[list[str]] = [[] for _ in range(n)]
    inputs: list[list[InputEvent]] = [[] for _ in range(n)]
    delegate: list[tuple[str, str] | None] = [None] * n
    W = lambda t: _window(t, unit_s, sample_rate)          # noqa: E731
    L = lambda t: _last_window(t, unit_s, sample_rate)     # noqa: E731

    def mark(k: int, label: str) -> None:
        if 0 <= k < n:
            labels[k].add(label)

    for ev in events:
        a = attrs_of(ev)
        if ev.kind == "assistant_turn" and ev.end_s > ev.start_s:
            for w in range(W(ev.start_s), min(L(ev.end_s), n) + 1):
                speak[w] = True
            first_unit = W(ev.start_s) - 1
            mark(first_unit, {"backend": "relay", "timer": "proactive"}.get(a.get("trigger"), "respond"))
            if a.get("interrupted"):
                mark(int(round(a["cut_s"] / unit_s)) - 1, f"stop_{a['action']}")
            elif 0 <= L(ev.end_s) - 1 < n:
                eos[L(ev.end_s) - 1] = True
        elif ev.kind in FLOOR_TAKING:
            for w in range(W(ev.start_s), min(L(ev.end_s), n - 1) + 1):
                mark(w, "user_speech")
            if ev.kind == "interruption":
                mark(W(ev.start_s), "interruption_onset")
        elif ev.kind in OVERLAP_LABELS and ev.end_s > ev.start_s:
            for w in range(W(ev.start_s), min(L(ev.end_s), n - 1) + 1):
                mark(w, OVERLAP_LABELS[ev.kind])
        elif ev.kind == "delegate":
            k = int(a["unit"])
            delegate[k] = (ev.text, a["task_id"])
            mark(k, "delegate")
        elif ev.kind == "backend":
            k = W(ev.start_s)
            if k < n:
                inputs[k].append(InputEvent(kind="backend", task_id=a["task_id"], text=ev.text))
                mark(k, "backend_result")
        elif ev.kind == "timer":
            k = W(ev.start_s)
            if k < n:
                inputs[k].append(InputEvent(kind="timer", task_id=a["timer_id"], text=ev.text))
                mark(k, "timer_fired")

    for w in words:
        k = W(w.start_s)
        if w.role == "assistant":
            if 1 <= k <= n:
                spoken[k - 1].append(w.word)
        elif 0 <= k < n:
            user_text[k].append(w.word)

    units: list[Unit] = []
    for k in range(n):
        decision = "speak" if speak[k + 1] else "listen"
        toks: list[int] = []
        if decision == "speak" and speech_tokens is not None:
            toks = speech_tokens[(k + 1) * per_unit_tokens:(k + 2) * per_unit_tokens].astype(int).tolist()
        if eos[k]:
            labels[k].add("turn_eos")
        d = delegate[k]
        units.append(Unit(index=k, user_text=" ".join(user_text[k]), input_events=inputs[k], decision=decision,
                          spoken_text=" ".join(spoken[k]), speech_tokens=toks, turn_eos=eos[k],
                          delegate=d[0] if d else None, task_id=d[1] if d else None, labels=sorted(labels[k])))
    return units
