"""Count acknowledgements and cancels written for less than their unit has read (issue #28 item 5).

DESIGN §2: a backend result whose `ready_s` lies in window w is readable from unit w on, and a turn
whose first output unit is k = W(start) - 1 has read it iff w <= k. Over planned and composed
delegation scripts (the real planners and composer, espeak-ng voices; no acoustics, which do not
move a turn), this prints per family:
- `ack_read`: acknowledgement turns (a turn that issues a task and does not relay it) whose first
  unit has read that task's own result ("crunching it now" over a result already in);
- `ack_read_other`: acknowledgements whose first unit has read another task's result that no turn
  has relayed yet (for the record: the ack is still true of its own task);
- `cancel_read`: cancel requests issued at a unit that has read the cancelled task's result;
- `cancel_pending_text`: of those, ones whose request still says the task is pending.

Usage: python3 -m benchmarks.delegation_knowledge --num 200 --language en [--scenario ...] [--show 3]
"""
from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from generators.registry import plan_trajectory
from pipeline.compose import compose
from pipeline.tts import EspeakBackend
from schemas.config import ESPEAK_CAST, RunConfig, VoicesConfig
from schemas.windows import window_at

FAMILIES = ("delegation", "delegation_multi", "delegation_cancel", "delegation_revise", "delegation_failure")


def knowledge_counts(events: list[Any], unit_s: float, sr: int) -> dict[str, list[str]]:
    """The offending event ids, by count name, of one composed session's events."""
    def W(t: float) -> int:
        return window_at(t, unit_s, sr)

    attrs = {e.id: json.loads(e.attrs) if isinstance(e.attrs, str) else e.attrs.model_dump() for e in events}
    turns = {e.id: e for e in events if e.kind == "assistant_turn"}
    backends = {attrs[e.id]["task_id"]: e for e in events if e.kind == "backend"}
    out: dict[str, list[str]] = {"ack_read": [], "ack_read_other": [], "cancel_read": [], "cancel_pending_text": []}
    for d in (e for e in events if e.kind == "delegate"):
        a = attrs[d.id]
        t = turns.get(a["turn"])
        if t is None:
            continue
        k = W(t.start_s) - 1
        if a.get("cancels"):
            b = backends.get(a["cancels"])
            if b is not None and W(b.start_s) <= a["unit"]:
                out["cancel_read"].append(d.id)
                if "pending" in d.text.lower() or "还没" in d.text or "正在" in d.text:
                    out["cancel_pending_text"].append(d.id)
            continue
        ta = attrs[t.id]
        if ta.get("trigger") == "backend" and ta.get("ref") == a["task_id"]:
            continue   # the turn relays its own task
        b = backends.get(a["task_id"])
        if b is not None and W(b.start_s) <= k:
            out["ack_read"].append(t.id)
        for tid, ob in backends.items():
            oa = attrs[ob.id]
            relay = turns.get(oa.get("relay_turn") or "")
            if tid != a["task_id"] and W(ob.start_s) <= k and (relay is None or relay.start_s > t.start_s) \
                    and oa.get("outcome") in ("relayed", "revised", "fallback", "retried"):
                out["ack_read_other"].append(t.id)
                break
    return out


def show(script: Any, events: list[Any]) -> str:
    lines = [f"    --- {script.scenario} seed {script.seed} ({script.language})"]
    for e in sorted(events, key=lambda e: (e.start_s, e.id)):
        if e.kind in ("user_turn", "assistant_turn", "delegate", "backend", "interruption"):
            extra = ""
            if e.kind in ("delegate", "backend"):
                a = json.loads(e.attrs) if isinstance(e.attrs, str) else e.attrs.model_dump()
                extra = f" tool={a.get('tool')!r} task={a.get('task_id')}"
            lines.append(f"    {e.start_s:6.2f}-{e.end_s:6.2f} {e.kind}: {e.text}{extra}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num", type=int, default=100, help="scripts per family")
    ap.add_argument("--language", default="en")
    ap.add_argument("--scenario", nargs="+", default=list(FAMILIES))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=0, help="print this many offending sessions per count")
    args = ap.parse_args()
    cfg = RunConfig.model_validate({**RunConfig(seed=args.seed, voices=VoicesConfig(cast=ESPEAK_CAST))
                                    .model_dump(mode="json"), "language": args.language})
    tts = EspeakBackend()
    for fam in args.scenario:
        counts: Counter[str] = Counter()
        shown: Counter[str] = Counter()
        for i in range(args.num):
            script = plan_trajectory(cfg, fam, args.seed + i)
            tl = compose(script, tts, cfg.sample_rate, cfg.unit_s, cfg.decode_budget.ms_per_step)
            found = knowledge_counts(tl.events, cfg.unit_s, cfg.sample_rate)
            for name, ids in found.items():
                counts[name] += bool(ids)
                if ids and shown[name] < args.show:
                    shown[name] += 1
                    print(f"[{name}] {ids}\n{show(script, tl.events)}")
        print(f"{args.language} {fam}: {args.num} sessions; sessions with " +
              ", ".join(f"{k} {counts[k]}" for k in ("ack_read", "ack_read_other", "cancel_read",
                                                     "cancel_pending_text")), flush=True)


if __name__ == "__main__":
    main()
