"""Count acknowledgements and cancels written for less than their unit has read (issue #28 item 5).

DESIGN §2: a backend result whose `ready_s` lies in window w is readable from unit w on, and a turn
whose first output unit is k = W(start) - 1 has read it iff w <= k. Over planned and composed
delegation scripts (the real planners and composer, espeak-ng voices; no acoustics, which do not
move a turn), this prints per family:
- `ack_read`: acknowledgement turns (a turn that issues a task and does not relay it) whose first
  unit has read that task's own result ("crunching it now" over a result already in): what validate
  `ack_before_result` refuses;
- `ack_read_retried`: the same for a failed task that a retry acts on (counted apart from `ack_read`;
  validate refuses both);
- `ack_read_other`: acknowledgements whose first unit has read another task's result that no turn
  has relayed yet (for the record: the ack is still true of its own task);
- `calloff_read`: call-offs (a cancel request, or the undo of a booking) written at a unit that has
  read the target's result;
- `calloff_pending`: of those, ones written as if the target were pending (no `after_result`
  variant: "Cancel the pending request ...", "in case it already went in"): what validate
  `cancel_after_result` refuses.

Usage: python3 -m benchmarks.delegation_knowledge --num 200 --language en [--scenario ...] [--show 3]
       python3 -m benchmarks.delegation_knowledge --rows OUT_DIR [--show 3]   (a generated dataset's rows)
"""
from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from generators.registry import plan_trajectory
from pipeline.compose import compose
from pipeline.tts import EspeakBackend
from schemas.config import ESPEAK_CAST, RunConfig, VoicesConfig
from schemas.attrs import DelegateAttrs
from schemas.trajectory import attrs_of
from schemas.vocab import RELAYED_OUTCOMES, EventKind, TaskOutcome, Trigger
from schemas.windows import window_at

COUNTS = ("ack_read", "ack_read_retried", "ack_read_other", "calloff_read", "calloff_pending")
FAMILIES = ("delegation", "delegation_multi", "delegation_cancel", "delegation_revise", "delegation_failure")


def knowledge_counts(events: list[Any], unit_s: float, sr: int) -> dict[str, list[str]]:
    """The offending event ids, by count name, of one composed session's events."""
    def W(t: float) -> int:
        return window_at(t, unit_s, sr)

    attrs: dict[str, Any] = {e.id: attrs_of(e) for e in events}
    turns = {e.id: e for e in events if e.kind == EventKind.ASSISTANT_TURN}
    backends = {attrs[e.id].task_id: e for e in events if e.kind == EventKind.BACKEND}
    out: dict[str, list[str]] = {k: [] for k in COUNTS}
    for d in (e for e in events if e.kind == EventKind.DELEGATE):
        a = attrs[d.id]
        t = turns.get(a.turn)
        if t is None:
            continue
        k = W(t.start_s) - 1
        target = a.cancels or (a.supersedes if a.outcome != TaskOutcome.REVISED else None)
        if target:
            b = backends.get(target)
            if b is not None and W(b.start_s) <= a.unit:
                out["calloff_read"].append(d.id)
                if not a.after_result:
                    out["calloff_pending"].append(d.id)
            if a.cancels:
                continue
        ta = attrs[t.id]
        if ta.trigger == Trigger.BACKEND and a.retry_of != ta.ref:
            continue   # the turn relays a result (validate ack_before_result)
        b = backends.get(a.task_id)
        if b is not None and W(b.start_s) <= k:
            out["ack_read_retried" if a.outcome == TaskOutcome.RETRIED else "ack_read"].append(t.id)
        for tid, ob in backends.items():
            oa = attrs[ob.id]
            relay = turns.get(oa.relay_turn or "")
            if tid != a.task_id and W(ob.start_s) <= k and (relay is None or relay.start_s > t.start_s) \
                    and oa.outcome in RELAYED_OUTCOMES:
                out["ack_read_other"].append(t.id)
                break
    return out


SHOWN = (EventKind.USER_TURN, EventKind.ASSISTANT_TURN, EventKind.DELEGATE, EventKind.BACKEND, EventKind.INTERRUPTION)


def show(title: str, events: list[Any]) -> str:
    lines = [f"    --- {title}"]
    for e in sorted(events, key=lambda e: (e.start_s, e.id)):
        if e.kind in SHOWN:
            extra = ""
            if e.kind in (EventKind.DELEGATE, EventKind.BACKEND):
                a = attrs_of(e)
                late = isinstance(a, DelegateAttrs) and a.after_result
                extra = f" tool={a.tool!r} task={a.task_id}" + (" (after the result)" if late else "")
            lines.append(f"    {e.start_s:6.2f}-{e.end_s:6.2f} {e.kind}: {e.text}{extra}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num", type=int, default=100, help="scripts per family")
    ap.add_argument("--language", default="en")
    ap.add_argument("--scenario", nargs="+", default=list(FAMILIES))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=0, help="print this many offending sessions per count")
    ap.add_argument("--rows", help="count over the rows of this generated dataset instead of composing")
    args = ap.parse_args()
    if args.rows:
        count_rows(args.rows, args.show)
        return
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
                    print(f"[{name}] {ids}\n{show(f'{fam} seed {script.seed} ({script.language})', tl.events)}")
        print(f"{args.language} {fam}: {args.num} sessions; sessions with " +
              ", ".join(f"{k} {counts[k]}" for k in COUNTS), flush=True)


def count_rows(root: str, show_n: int) -> None:
    """The same counts over a generated dataset's rows (events as stored), per (language, scenario)."""
    from jobs.dataset_reader import DatasetReader
    from schemas.trajectory import Event

    counts: dict[tuple[str, str], Counter[str]] = {}
    shown: Counter[str] = Counter()
    cols = ["id", "scenario", "language", "unit_s", "sample_rate", "events"]
    for r in DatasetReader(root).iter_rows(columns=cols):
        events = [Event.model_validate(e) for e in r["events"]]
        found = knowledge_counts(events, r["unit_s"], r["sample_rate"])
        c = counts.setdefault((r["language"], r["scenario"]), Counter())
        c["rows"] += 1
        for name, ids in found.items():
            c[name] += bool(ids)
            if ids and shown[name] < show_n:
                shown[name] += 1
                title = f"{r['id']} {r['scenario']}"
                print(f"[{name}] {ids}\n{show(title, events)}")
    for (lang, fam), c in sorted(counts.items()):
        print(f"{lang} {fam}: {c['rows']} rows; rows with " + ", ".join(f"{k} {c[k]}" for k in COUNTS), flush=True)


if __name__ == "__main__":
    main()
