"""Invariant checks of DESIGN §5 on a stored trajectory row. Pure: row in, violations out."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from pipeline import acoustics as ac
from pipeline.io import decode_audio
from pipeline.render import realised_snrs
from pipeline.units import FLOOR_TAKING, attrs_of, slice_units
from schemas.trajectory import TrajectoryRow

SNR_TOLERANCE_DB = 0.5


@dataclass(frozen=True)
class Violation:
    row_id: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.row_id}: [{self.rule}] {self.message}"


def validate_row(row: TrajectoryRow, expect_tokens: bool | None = None) -> list[Violation]:
    """All violations of one row. `expect_tokens`: whether the dataset was made with a tokenizer."""
    v: list[Violation] = []

    def bad(rule: str, msg: str) -> None:
        v.append(Violation(row.id, rule, msg))

    sr, u = row.sample_rate, row.unit_s
    U = int(round(u * sr))
    n = len(row.units)
    W = lambda t: int(round(t * sr)) // U             # noqa: E731
    L = lambda t: (int(round(t * sr)) - 1) // U       # noqa: E731
    if abs(row.duration_s - n * u) > 1e-4:
        bad("length", f"duration_s {row.duration_s} != {n} units * {u}")
    user, sr_u = decode_audio(row.user_audio.bytes)
    asst, sr_a = decode_audio(row.assistant_audio.bytes)
    for name, x, r in (("user_audio", user, sr_u), ("assistant_audio", asst, sr_a)):
        if r != sr:
            bad("length", f"{name} sample rate {r} != {sr}")
        if len(x) != n * U:
            bad("length", f"{name} has {len(x)} samples, expected {n * U}")
    if [x.index for x in row.units] != list(range(n)):
        bad("units", "unit indices are not 0..n-1")
    events = row.events
    turns = [e for e in events if e.kind == "assistant_turn"]
    attrs = {e.id: attrs_of(e) for e in events}

    # Audio agrees with decisions; rule 1.
    if ac.window_peak_dbfs(asst, 0, U) >= ac.SILENCE_DBFS:
        bad("rule1", "assistant channel is not silent in window 0")
    for x in row.units:
        w = x.index + 1
        peak = ac.window_peak_dbfs(asst, w * U, (w + 1) * U) if w < n else -200.0
        if x.decision == "listen" and peak >= ac.SILENCE_DBFS:
            bad("audio", f"unit {x.index} is listen but window {w} peaks at {peak:.1f} dBFS")
        if x.decision == "speak" and peak < ac.SILENCE_DBFS:
            bad("audio", f"unit {x.index} is speak but window {w} is silent ({peak:.1f} dBFS)")
        want = int(round(25 * u)) if (x.decision == "speak" and expect_tokens) else 0
        if expect_tokens is not None and len(x.speech_tokens) != want:
            bad("tokens", f"unit {x.index} has {len(x.speech_tokens)} speech tokens, expected {want}")
        if any(t < 0 or t >= 6561 for t in x.speech_tokens):
            bad("tokens", f"unit {x.index} has a token outside [0, 6561)")
        if x.delegate and x.delegate in " ".join(y.spoken_text for y in row.units):
            bad("delegate", f"unit {x.index}: delegate text appears in spoken_text")
        if x.delegate and len(x.delegate) > 4000:
            bad("delegate", f"unit {x.index}: delegate request longer than 4000 characters")

    # Labels are exactly what the events derive.
    tokens = None
    if expect_tokens:
        tokens = np.zeros(n * int(round(25 * u)), dtype=np.int64)
        for x in row.units:
            if x.speech_tokens:
                k = (x.index + 1) * int(round(25 * u))
                tokens[k:k + len(x.speech_tokens)] = x.speech_tokens
    derived = slice_units(events, row.words, n, u, sr, tokens)
    for got, want in zip(row.units, derived):
        g, w_ = got.model_dump(), want.model_dump()
        if not expect_tokens:
            g.pop("speech_tokens"), w_.pop("speech_tokens")
        for key in w_:
            if g[key] != w_[key]:
                bad("labels", f"unit {got.index} field {key} = {g[key]!r}, events derive {w_[key]!r}")

    # Spoken text: the voiced words of assistant turns, nothing else.
    spoken = " ".join(t for t in (x.spoken_text for x in row.units) if t).split()
    voiced = " ".join(t.text for t in sorted(turns, key=lambda e: e.start_s) if t.text).split()
    if spoken != voiced:
        bad("spoken_text", "concatenated spoken_text differs from the voiced assistant turns")
    for t in turns:
        a = attrs[t.id]
        if (t.text + " " + a.get("unspoken_text", "")).split() != a.get("planned_text", t.text).split():
            bad("spoken_text", f"{t.id}: voiced + unspoken text != planned text")

    # Rule 2: no reply before the user has been heard to finish.
    for t in turns:
        for e in events:
            if e.kind in FLOOR_TAKING and e.start_s < t.start_s:
                eot = float(attrs[e.id].get("eot_s", 0.2))
                if eot < 0.2:
                    bad("rule2", f"{e.id}: eot_s {eot} < 0.2")
                earliest = (int(round(e.end_s * sr)) + int(round(eot * sr))) // U + 1
                if W(t.start_s) < earliest:
                    bad("rule2", f"{t.id} starts in window {W(t.start_s)}, before window {earliest} allowed by {e.id}")

    # Rule 3: interruptions are acted on after detection, cut at a window start, no turn_eos.
    cut_turns = {a["interrupted_turn"] for e in events if e.kind == "interruption" for a in [attrs[e.id]]}
    for e in events:
        if e.kind != "interruption":
            continue
        a = attrs[e.id]
        turn = next((t for t in turns if t.id == a["interrupted_turn"]), None)
        if turn is None or not attrs[turn.id].get("interrupted"):
            bad("rule3", f"{e.id}: interrupted turn {a['interrupted_turn']} missing or not marked interrupted")
            continue
        cut = int(round(a["cut_s"] * sr))
        if cut % U or cut // U < (int(round(e.start_s * sr)) + int(round(a["detect_s"] * sr))) // U + 1:
            bad("rule3", f"{e.id}: cut at {a['cut_s']} s is not at/after the reaction window start")
        if not 0.3 <= a["detect_s"] <= 0.8:
            bad("rule3", f"{e.id}: detect_s {a['detect_s']} outside [0.3, 0.8]")
        if int(round(turn.end_s * sr)) > cut:
            bad("rule3", f"{turn.id} sounds past its cut")
        k = cut // U - 1
        if 0 <= k < n and (row.units[k].decision != "listen"):
            bad("rule3", f"unit {k} should be listen after the cut of {turn.id}")
        if 0 <= L(turn.end_s) - 1 < n and row.units[L(turn.end_s) - 1].turn_eos and not any(
                t.id != turn.id and L(t.end_s) == L(turn.end_s) and not attrs[t.id].get("interrupted") for t in turns):
            bad("rule3", f"{turn.id} was interrupted but has turn_eos")
    # Rule 4: nothing but a floor-taking interruption cuts a turn.
    for t in turns:
        if attrs[t.id].get("interrupted") and t.id not in cut_turns:
            bad("rule4", f"{t.id} is cut with no interruption event")

    # Rule 5 / delegation: results follow their request by the latency; relays wait for a pause.
    delegates = {attrs[e.id]["task_id"]: e for e in events if e.kind == "delegate"}
    per_turn: dict[str, int] = {}
    for e in delegates.values():
        a = attrs[e.id]
        per_turn[a["turn"]] = per_turn.get(a["turn"], 0) + 1
        turn = next((t for t in turns if t.id == a["turn"]), None)
        if turn is None or a["unit"] != W(turn.start_s) - 1:
            bad("delegate", f"{e.id}: not issued at the unit that starts its turn")
    for turn_id, count in per_turn.items():
        if count > 1:
            bad("delegate", f"{turn_id} issues {count} delegate requests (max 1)")
    for e in events:
        if e.kind == "backend":
            a = attrs[e.id]
            d = delegates.get(a["task_id"])
            if d is None:
                bad("rule5", f"{e.id}: backend result with no delegate for task {a['task_id']}")
                continue
            if e.start_s + 1e-6 < d.start_s + float(attrs[d.id]["latency_s"]):
                bad("rule5", f"{e.id}: result arrives before its latency elapsed")
            if a.get("outcome") in ACTED_ON:
                _check_relay(row, e.start_s, a.get("relay_turn", "?"), turns, events, sr, U, bad, "rule5")
        if e.kind == "timer":
            for t in turns:
                if attrs[t.id].get("trigger") == "timer" and attrs[t.id].get("ref") == attrs[e.id]["timer_id"]:
                    _check_relay(row, e.start_s, t.id, turns, events, sr, U, bad, "rule6")

    _check_tasks(row.id, events, attrs, turns, bad)

    # Realised SNR of every noise component matches its draw; no clipping (check_acoustics below).
    v.extend(check_acoustics(row, user, asst))
    return v


ACTED_ON = ("relayed", "revised", "fallback", "retried")     # some later turn acts on the result
NOT_RELAYED = ("cancelled", "superseded")
TASK_ATTRS = ("task_id", "tool", "args", "issued_s", "ready_s", "outcome")


def _check_tasks(row_id: str, events: list[Any], attrs: dict[str, dict[str, Any]], turns: list[Any], bad: Any) -> None:
    """Delegation protocol: plain requests and results, outcomes consistent with what happened."""
    from generators.harness.format import has_protocol_leak

    delegates = {attrs[e.id]["task_id"]: e for e in events if e.kind == "delegate"}
    backends = {attrs[e.id]["task_id"]: e for e in events if e.kind == "backend"}
    relays = {attrs[t.id].get("ref"): t for t in turns if attrs[t.id].get("trigger") == "backend"}
    for task_id, d in delegates.items():
        a = attrs[d.id]
        if has_protocol_leak(d.text) or not d.text.strip():
            bad("delegate", f"{d.id}: request is empty or not plain language")
        if a.get("cancels"):
            target = delegates.get(a["cancels"])
            if target is None or attrs[target.id].get("outcome") != "cancelled":
                bad("delegate", f"{d.id}: cancels {a['cancels']}, which is not marked cancelled")
            continue
        for key in TASK_ATTRS:
            if key not in a:
                bad("delegate", f"{d.id}: attribute {key} missing")
        outcome, b = a.get("outcome"), backends.get(task_id)
        if outcome not in ACTED_ON + NOT_RELAYED:
            bad("delegate", f"{d.id}: outcome {outcome!r} is not one of {ACTED_ON + NOT_RELAYED}")
        if b is not None and has_protocol_leak(b.text):
            bad("backend", f"{b.id}: result text carries markdown or a protocol token")
        if outcome in ACTED_ON and (b is None or task_id not in relays):
            bad("delegate", f"{d.id}: outcome {outcome} but no turn acts on a result")
        if outcome in NOT_RELAYED and task_id in relays:
            bad("delegate", f"{d.id}: outcome {outcome} but its stale result is relayed by {relays[task_id].id}")
        if outcome == "cancelled":
            c = next((x for x in delegates.values() if attrs[x.id].get("cancels") == task_id), None)
            if c is None:
                bad("delegate", f"{d.id}: cancelled with no cancel request")
            elif b is not None and b.start_s >= c.start_s:
                bad("delegate", f"{d.id}: a result arrived after the task was cancelled")
        if outcome == "superseded" and not any(attrs[x.id].get("supersedes") == task_id for x in delegates.values()):
            bad("delegate", f"{d.id}: superseded but no task revises it")
        if outcome == "revised" and a.get("supersedes") not in delegates:
            bad("delegate", f"{d.id}: revised but supersedes no earlier task")
        if outcome == "retried":
            if a.get("status") == "ok" or not any(attrs[x.id].get("retry_of") == task_id for x in delegates.values()):
                bad("delegate", f"{d.id}: retried, but it did not fail or nothing retries it")
        if outcome == "fallback" and a.get("status") == "ok":
            bad("delegate", f"{d.id}: fallback answer for a task that succeeded")


def _check_relay(row: TrajectoryRow, ready_s: float, turn_id: str, turns: list[Any], events: list[Any], sr: int,
                 U: int, bad: Any, rule: str) -> None:
    t = next((x for x in turns if x.id == turn_id), None)
    if t is None:
        bad(rule, f"relay turn {turn_id} missing")
        return
    start = int(round(t.start_s * sr))
    if start // U < int(round(ready_s * sr)) // U + 1:
        bad(rule, f"{turn_id} speaks before the unit after its input was readable")
    for e in events:
        if e.kind in FLOOR_TAKING and e.start_s <= t.start_s < e.end_s:
            bad(rule, f"{turn_id} starts while the user is speaking ({e.id})")
    for o in turns:
        if o.id != t.id and o.start_s <= t.start_s < o.end_s:
            bad(rule, f"{turn_id} starts in the middle of {o.id}")


# ----------------------------------------------------------------------------- acoustics (realism)

CLIP_LEVEL = 32767 / 32768   # a decoded 16-bit sample at full scale


def check_acoustics(row: TrajectoryRow, user: np.ndarray, asst: np.ndarray) -> list[Violation]:
    """Every noise component's realised SNR within SNR_TOLERANCE_DB of its draw, and no clipped sample.

    The user channel holds gain * (room(own speech) + other talkers + echo + noises) (pipeline/render);
    each non-speech component is rebuilt from meta["acoustics"] (seeds, bank talkers and offsets,
    file path + sha256 + offset, echo delay and gain from the stored assistant channel, RIR seeds)
    and subtracted, and what is left is compared with each noise over the user-speech mask.
    """
    out: list[Violation] = []
    meta = json.loads(row.meta)
    acoustics = meta.get("acoustics") or {}
    for name, x in (("user_audio", user), ("assistant_audio", asst)):
        if len(x) and float(np.max(np.abs(x))) >= CLIP_LEVEL:
            out.append(Violation(row.id, "clip", f"{name} reaches full scale (clipped)"))
    if not (acoustics.get("noise") or acoustics.get("noises")):
        return out
    try:
        snrs = realised_snrs(user, row.events, acoustics, row.sample_rate, assistant=asst,
                             tts_identity=meta.get("tts"))
    except (ValueError, OSError) as err:
        return out + [Violation(row.id, "snr", f"cannot rebuild the recorded noise: {err}")]
    for name, (drawn, est) in snrs.items():
        if not np.isfinite(est) or abs(est - drawn) > SNR_TOLERANCE_DB:
            out.append(Violation(row.id, "snr", f"{name}: realised SNR {est:.2f} dB vs drawn {drawn:.2f} dB"))
    return out
