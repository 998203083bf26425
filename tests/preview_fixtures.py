"""Small, realistic trajectory rows for the preview and dataset-reader tests.

The real generator is not needed: three sessions are laid out by hand on the DESIGN §2 clock
(u = 1 s, 16 kHz) and their units are derived from the events and words with the same rules the
generator follows (output of unit k plays in window k+1, relays one window after `ready_s`,
interruptions cut at a window start, ...). Speech is synthetic: one harmonic tone burst per word
(a different pitch per speaker), noise bursts for `noise` events, all FLAC-encoded.

- ``interruption_discard``: question, answer with a backchannel under it, a floor-taking cut-in
  ("wait, stop") that cuts the answer (``unspoken_text``), a short reply, a knock on the door, a
  user turn with a hesitation pause, an answer.
- ``delegation``: a booking request, a delegate/backend pair (task ``t1``, tool ``restaurant``),
  the user talking to someone else meanwhile, the result relayed, background speech at the end.
- ``proactive_timer``: a timer set, a visual event, the timer firing and a proactive turn.

Use :func:`build_rows` for pydantic rows and :func:`write_dataset` for an output folder with
``shards/*.parquet`` and ``manifest.json``.
"""
from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import soundfile as sf

from schemas.arrow import FAILED_SCHEMA, rows_to_table
from schemas.trajectory import AudioBlob, Event, InputEvent, TrajectoryRow, Unit, Word

SR = 16_000
UNIT_S = 1.0
SPEECH_KINDS = ("user_turn", "interruption", "backchannel", "other_directed", "background_speech")
_PITCH = {"user": 140.0, "assistant": 215.0, "other": 190.0, "background": 170.0, "harness": 0.0}
_GAIN = {"user_turn": 0.30, "interruption": 0.32, "backchannel": 0.18, "other_directed": 0.16,
         "background_speech": 0.05, "assistant_turn": 0.30}


class _Session:
    """Accumulates events and words of one session; ``row()`` renders audio and units."""

    def __init__(self, scenario: str, seed: int, num_units: int):
        self.scenario, self.seed, self.n = scenario, seed, num_units
        self.events: list[Event] = []
        self.words: list[Word] = []
        self.delegate_units: dict[str, int] = {}

    def _id(self) -> str:
        return f"e{len(self.events)}"

    def speech(self, kind: str, role: str, text: str, start: float, end: float,
               cut_s: float | None = None, times: list[tuple[float, float]] | None = None,
               **attrs) -> Event:
        """A speech event whose words are spread over [start, end] in proportion to their length.

        With ``cut_s``, words starting at or after the cut are not voiced: they become
        ``attrs.unspoken_text`` and the event ends at the cut (DESIGN §2 rule 3). ``times`` gives
        explicit (start, end) per word instead.
        """
        eid = self._id()
        toks = text.split()
        weights = np.array([len(t) + 2 for t in toks], float)
        gap = 0.06
        span = end - start - gap * (len(toks) - 1)
        durs = weights / weights.sum() * span
        starts = start + np.concatenate([[0], np.cumsum(durs + gap)[:-1]])
        if times is not None:
            starts, durs = [a for a, _ in times], [b - a for a, b in times]
        voiced, unspoken = [], []
        for tok, t, d in zip(toks, starts, durs):
            if cut_s is not None and t >= cut_s:
                unspoken.append(tok)
            else:
                voiced.append(Word(role=role, word=tok, start_s=round(t, 3),
                                   end_s=round(min(t + d, cut_s or 1e9), 3), event_id=eid))
        if cut_s is not None:
            attrs.update(interrupted=True, cut_s=cut_s, unspoken_text=" ".join(unspoken),
                         planned_end_s=end)
            end = cut_s
        elif kind == "assistant_turn":
            attrs.setdefault("interrupted", False)
        ev = Event(id=eid, kind=kind, role=role, start_s=start, end_s=end,
                   text=" ".join(w.word for w in voiced), attrs=json.dumps(attrs))
        self.events.append(ev)
        self.words.extend(voiced)
        return ev

    def event(self, kind: str, role: str, start: float, end: float, text: str = "", **attrs) -> Event:
        ev = Event(id=self._id(), kind=kind, role=role, start_s=start, end_s=end, text=text,
                   attrs=json.dumps(attrs))
        self.events.append(ev)
        return ev

    def delegation(self, task_id: str, tool: str, unit: int, request: str, result: str,
                   latency_s: float) -> None:
        issued = (unit + 1) * UNIT_S          # the request is written at the end of unit `unit`
        ready = round(issued + latency_s, 3)
        common = dict(task_id=task_id, tool=tool, issued_s=issued, ready_s=ready, latency_s=latency_s)
        self.event("delegate", "assistant", issued, issued, request, **common, unit=unit)
        self.event("backend", "harness", ready, ready, result, **common, status="ok")
        self.delegate_units[task_id] = unit

    # -- rendering --------------------------------------------------------------------------------

    def _audio(self, channel: str) -> bytes:
        rng = np.random.default_rng(self.seed * 2 + (channel == "assistant"))
        n = int(round(self.n * UNIT_S * SR))
        x = np.zeros(n, np.float32)
        if channel == "user":
            x += rng.normal(0, 0.0004, n).astype(np.float32)       # room floor
        kinds = {e.id: e.kind for e in self.events}
        for w in self.words:
            if (w.role == "assistant") != (channel == "assistant"):
                continue
            a, b = int(w.start_s * SR), int(w.end_s * SR)
            t = np.arange(b - a) / SR
            f0 = _PITCH[w.role] * (1 + 0.05 * np.sin(2 * np.pi * 3 * t))
            phase = 2 * np.pi * np.cumsum(f0) / SR
            tone = sum(np.sin(h * phase) / h for h in (1, 2, 3, 4))
            env = np.minimum(1, np.minimum(t, t[::-1]) / 0.02)
            if w.role == "background":       # muffled: a crude low-pass
                tone = np.convolve(tone, np.ones(8) / 8, mode="same")
            x[a:b] += (_GAIN.get(kinds[w.event_id], 0.2) * 0.5 * env * tone).astype(np.float32)
        if channel == "user":
            for e in self.events:
                if e.kind == "noise":
                    a, b = int(e.start_s * SR), int(e.end_s * SR)
                    env = np.exp(-np.arange(b - a) / SR / 0.15)
                    x[a:b] += (0.25 * env * rng.normal(0, 1, b - a)).astype(np.float32)
        buf = io.BytesIO()
        sf.write(buf, np.clip(x, -1, 1), SR, format="FLAC", subtype="PCM_16")
        return buf.getvalue()

    def _units(self) -> list[Unit]:
        u = UNIT_S
        ev = self.events
        attrs = {e.id: json.loads(e.attrs) for e in ev}

        def inside(t: float, k: int) -> bool:
            return k * u <= t < (k + 1) * u

        def overlaps(e: Event, k: int) -> bool:
            return e.start_s < (k + 1) * u and e.end_s > k * u

        units = []
        for k in range(self.n):
            asst = [e for e in ev if e.kind == "assistant_turn"]
            labels: list[str] = []
            for kind, label in (("user_turn", "user_speech"), ("interruption", "user_speech"),
                                ("pause", "hesitation_pause"), ("backchannel", "backchannel"),
                                ("other_directed", "other_directed"),
                                ("background_speech", "background_speech")):
                if any(e.kind == kind and overlaps(e, k) for e in ev) and label not in labels:
                    labels.append(label)
            if any(e.kind == "interruption" and inside(e.start_s, k) for e in ev):
                labels.append("interruption_onset")
            for e in asst:
                a = attrs[e.id]
                if a.get("interrupted") and abs(a["cut_s"] - (k + 1) * u) < 1e-9:
                    action = next(attrs[i.id]["action"] for i in ev if i.kind == "interruption"
                                  and attrs[i.id].get("turn_id") == e.id)
                    labels.append(f"stop_{action}")
                if inside(e.start_s, k + 1):
                    labels.append(a.get("trigger", "respond"))
            if any(k == self.delegate_units.get(attrs[e.id]["task_id"]) for e in ev if e.kind == "delegate"):
                labels.append("delegate")
            inputs = []
            for e in ev:
                if e.kind == "backend" and inside(attrs[e.id]["ready_s"], k):
                    inputs.append(InputEvent(kind="backend", task_id=attrs[e.id]["task_id"], text=e.text))
                    labels.append("backend_result")
                if e.kind == "timer" and inside(e.end_s, k):
                    inputs.append(InputEvent(kind="timer", task_id=attrs[e.id]["timer_id"],
                                             text=attrs[e.id]["label"]))
                    labels.append("timer_fired")
            speak = any(overlaps(e, k + 1) for e in asst)
            spoken = " ".join(w.word for w in self.words if w.role == "assistant" and inside(w.start_s, k + 1))
            eos = any(inside(e.end_s, k + 1) and not attrs[e.id].get("interrupted") for e in asst)
            if eos:
                labels.append("turn_eos")
            delegate = next((e for e in ev if e.kind == "delegate" and attrs[e.id]["unit"] == k), None)
            user_text = " ".join(w.word for w in self.words if w.role != "assistant" and inside(w.start_s, k))
            rng = np.random.default_rng(self.seed * 1000 + k)
            units.append(Unit(
                index=k, user_text=user_text, input_events=inputs,
                decision="speak" if speak else "listen", spoken_text=spoken,
                speech_tokens=rng.integers(0, 6561, int(25 * u)).tolist() if speak else [],
                turn_eos=eos, delegate=delegate.text if delegate else None,
                task_id=attrs[delegate.id]["task_id"] if delegate else None, labels=labels))
        return units

    def row(self, shard: int = 0, index: int = 0) -> TrajectoryRow:
        self.events.sort(key=lambda e: (e.start_s, e.id))
        return TrajectoryRow(
            id=f"fx-s{shard:05d}-i{index:05d}-{self.scenario}", seed=self.seed,
            scenario=self.scenario, language="en", unit_s=UNIT_S, duration_s=self.n * UNIT_S,
            sample_rate=SR,
            user_audio=AudioBlob(bytes=self._audio("user")),
            assistant_audio=AudioBlob(bytes=self._audio("assistant")),
            events=self.events, words=sorted(self.words, key=lambda w: w.start_s),
            units=self._units(), frames=[],
            script=json.dumps({"scenario": self.scenario, "fixture": True}),
            meta=json.dumps({"generator_version": "preview-fixture", "voices": {"user": "tone140",
                             "assistant": "tone215"}, "eot_s": 0.3}),
        )


def _interruption_discard() -> _Session:
    s = _Session("interruption_discard", seed=11, num_units=14)
    s.speech("user_turn", "user", "what's the weather in Paris", 0.30, 1.90)
    a1 = s.speech("assistant_turn", "assistant",
                  "It's sunny and twenty degrees with a light breeze from the west this afternoon",
                  3.10, 8.60, cut_s=6.0, trigger="respond")
    s.speech("backchannel", "user", "mm-hmm", 4.20, 4.60)
    s.speech("interruption", "user", "wait, stop", 5.40, 6.10, action="discard", detect_s=0.5,
             turn_id=a1.id, acted_unit=5)
    s.speech("assistant_turn", "assistant", "Okay, stopping.", 7.20, 8.10, trigger="respond")
    s.event("noise", "background", 8.30, 8.90, "door knock", snr_db=6.0)
    u2 = s.speech("user_turn", "user", "and um tomorrow?", 9.20, 10.90,
                  times=[(9.20, 9.42), (9.50, 9.75), (10.30, 10.90)])
    s.event("pause", "user", 9.75, 10.30, "", turn_id=u2.id, filler="um")
    s.speech("assistant_turn", "assistant", "Rain tomorrow, sadly.", 12.10, 13.40, trigger="respond")
    return s


def _delegation() -> _Session:
    s = _Session("delegation", seed=22, num_units=14)
    s.speech("user_turn", "user", "Book a table for two at Luigi's tonight", 0.40, 2.60)
    s.speech("assistant_turn", "assistant", "Sure, let me check availability.", 3.15, 4.90,
             trigger="respond")
    s.delegation("t1", "restaurant", unit=2,
                 request="Find a table for two at Luigi's tonight around 8 pm; report times.",
                 result="Luigi's has a table for two at 8 pm tonight.", latency_s=3.4)
    s.speech("other_directed", "user", "honey, Italian okay?", 4.60, 5.70, target="other")
    s.speech("assistant_turn", "assistant", "Good news: Luigi's has a table for two at eight.",
             7.10, 9.60, trigger="relay", task_id="t1")
    s.speech("background_speech", "background", "and then we drove all the way to the coast",
             10.20, 12.40)
    return s


def _proactive_timer() -> _Session:
    s = _Session("proactive_timer", seed=33, num_units=12)
    s.speech("user_turn", "user", "Set a timer for five seconds", 0.30, 1.80)
    s.speech("assistant_turn", "assistant", "Timer set for five seconds.", 3.05, 4.40, trigger="respond")
    s.event("timer", "harness", 3.0, 8.0, "five seconds", timer_id="tm1", seconds=5, label="five seconds")
    s.event("visual", "harness", 5.0, 6.5, "the cat jumps on the table", camera="kitchen")
    s.speech("assistant_turn", "assistant", "Your five second timer is done.", 9.10, 10.60,
             trigger="proactive")
    return s


def build_rows() -> list[TrajectoryRow]:
    """Three validated rows: interruption_discard, delegation, proactive_timer (in that order)."""
    sessions = [_interruption_discard(), _delegation(), _proactive_timer()]
    return [s.row(shard=i // 2, index=i % 2) for i, s in enumerate(sessions)]


def write_dataset(root: str | Path, rows: list[TrajectoryRow] | None = None, *,
                  rows_per_shard: int = 2, manifest: bool = True,
                  failed_shard: bool = True) -> Path:
    """Write ``rows`` (default :func:`build_rows`) as an output folder; return ``root``.

    Shards go to ``root/shards/shard-NNNNN.parquet``; with ``manifest`` a ``manifest.json`` lists
    them; with ``failed_shard`` an (empty) ``failed-00000.parquet`` sits beside them, which
    readers must skip.
    """
    root = Path(root)
    rows = build_rows() if rows is None else rows
    (root / "shards").mkdir(parents=True, exist_ok=True)
    entries = []
    for i in range(0, len(rows), rows_per_shard):
        rel = f"shards/shard-{i // rows_per_shard:05d}.parquet"
        pq.write_table(rows_to_table(rows[i:i + rows_per_shard]), root / rel)
        digest = hashlib.sha256((root / rel).read_bytes()).hexdigest()
        entries.append({"path": rel, "rows": len(rows[i:i + rows_per_shard]), "sha256": digest})
    if failed_shard:
        pq.write_table(FAILED_SCHEMA.empty_table(), root / "shards" / "failed-00000.parquet")
    if manifest:
        (root / "manifest.json").write_text(json.dumps({
            "shards": entries, "rows": len(rows), "generator_version": "preview-fixture",
            "speech_tokenizer": None, "config": {"unit_s": UNIT_S, "sample_rate": SR},
        }, indent=2))
    return root
