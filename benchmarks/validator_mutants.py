"""How strong is `validate`? Every row mutation at its limit (pipeline/mutants.py) over rows of every family.

    python benchmarks/validator_mutants.py [--num 10] [--dir OUT ...] [--cap K] [--only RULE ...]

Rows are made as `duplexsynth generate` makes them (generators.registry planners, pipeline.render,
the fast espeak-ng cast of tests/fast_voices.yaml), `--num` per family: en (the default mix), zh (the
default mix in Mandarin), Omni (every visual family) and twins (contrastive pairs of the families
that draw one); or read from generated output folders (`--dir`, families told by each row, one shard
in memory at a time). `--cap K` validates at most K mutated rows per mutant and family, so a large
folder finds the rows that rare mutants apply to without validating every common one a thousand
times; a row no uncapped mutant applies to is not validated at all. Each
clean row is validated first (every rule, rule 4 by re-composition and the re-render included):
only rows that pass are mutated, so a refusal is the mutant's. Every mutant that applies to a row
is validated; it is caught when validate names the mutant's own rule (validate_twins for pairs).

Printed: the clean pass count per family; one line per mutant (its rule, the step, the families
it applied to, caught / total, and the other rules the mutated rows fired); one line per rule
(families, caught / total). Exits 1 if a clean row fails, a mutant is missed, or a mutant applied
to no row at all.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generators.registry import (VISUAL_FAMILIES, language_for, plan_trajectory, scenario_for,  # noqa: E402
                                 trajectory_seed, trajectory_weights)
from pipeline.mutants import MUTANTS, PAIR_MUTANTS, fired  # noqa: E402
from pipeline.render import render_trajectory  # noqa: E402
from pipeline.tts.base import CachedTTS  # noqa: E402
from pipeline.tts.espeak import EspeakBackend  # noqa: E402
from pipeline.validate import validate_twins  # noqa: E402
from schemas.config import ESPEAK_CAST, RunConfig, Scenario, TwinsConfig, VoicesConfig  # noqa: E402
from schemas.replace import replace  # noqa: E402
from schemas.trajectory import TrajectoryRow  # noqa: E402
from schemas.twins import TwinSide, twin_meta  # noqa: E402

FAMILIES = ("en", "zh", "omni", "twins")
# The families that draw a twin (generators/twins.kinds_for): interruptions and rule-4 overlays.
TWIN_SCENARIOS = (Scenario.BACKCHANNEL, Scenario.INTERRUPTION_DISCARD, Scenario.INTERRUPTION_PARK,
                  Scenario.OTHER_DIRECTED, Scenario.INTERRUPTION_REPAIR, Scenario.BACKGROUND_SPEECH)


def _config(family: str, num: int) -> RunConfig:
    base = RunConfig(seed=0, num=num, voices=VoicesConfig(cast=ESPEAK_CAST))
    if family == "zh":
        return RunConfig.model_validate({**base.model_dump(mode="json"), "language": "zh"})
    if family == "omni":
        return replace(base, scenarios={s: 1.0 for s in sorted(VISUAL_FAMILIES)})
    if family == "twins":
        return replace(base, scenarios={s: 1.0 for s in TWIN_SCENARIOS}, twins=TwinsConfig(share=1.0))
    return base


def generate(family: str, num: int, tts: object) -> Iterator[list[TrajectoryRow]]:
    """`num` trajectories of `family` as the generator makes them: one row each ([base, twin] for twins)."""
    from jobs.twins import rows_with_twin

    cfg = _config(family, num)
    for j in range(num):
        seed = trajectory_seed(cfg.seed, j)
        lang = language_for(cfg, seed)
        scenario = scenario_for(j, cfg.seed, trajectory_weights(cfg, lang, seed))
        script = plan_trajectory(cfg, scenario, seed, lang)
        row = render_trajectory(cfg=cfg, traj_id=f"{family}-{j:04d}", script=script, tts=tts)
        if family == "twins":
            rows, failed, _ = rows_with_twin(cfg, row, script, tts, None, None, 0, j)
            yield rows if failed is None else [row]
        else:
            yield [row]


def family_of(row: TrajectoryRow) -> str:
    if twin_meta(row.meta) is not None:
        return "twins"
    if row.scenario in VISUAL_FAMILIES:
        return "omni"
    return "zh" if row.language == "zh" else "en"


def read_dirs(roots: list[str]) -> Iterator[tuple[str, list[TrajectoryRow]]]:
    """The rows of generated output folders, one shard in memory at a time: (family, [row]) or
    ("twins", [base, twin]) for a pair (a pair is written in one shard)."""
    import pyarrow.parquet as pq

    from schemas.arrow import row_from_dict
    for root in roots:
        for p in sorted(Path(root, "shards").glob("shard-*.parquet")):
            rows = [row_from_dict(d) for d in pq.read_table(p).to_pylist()]
            by_id = {r.id: r for r in rows}
            for r in rows:
                m = twin_meta(r.meta)
                if m is None:
                    yield family_of(r), [r]
                elif m.side == TwinSide.BASE and m.partner in by_id:
                    yield "twins", [r, by_id[m.partner]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num", type=int, default=10, help="trajectories per family")
    ap.add_argument("--dir", nargs="*", help="read rows from these generated output folders instead")
    ap.add_argument("--cap", type=int, default=0, help="at most K mutated rows per mutant and family (0: all)")
    ap.add_argument("--only", nargs="*", help="only the mutants of these rule ids")
    args = ap.parse_args()
    tts = CachedTTS(EspeakBackend())
    t0 = time.perf_counter()
    if args.dir:
        entries: Iterator[tuple[str, list[TrajectoryRow]]] = read_dirs(args.dir)
    else:
        entries = ((f, rows) for f in FAMILIES for rows in generate(f, args.num, tts))
    mutants = [m for m in MUTANTS if not args.only or m.rule in args.only]
    pair_mutants = [m for m in PAIR_MUTANTS if not args.only or m.rule in args.only]

    clean: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    tried: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))   # mutant, family
    also: dict[str, set[str]] = defaultdict(set)
    missed: list[str] = []
    seen = 0

    def open_(name: str, family: str) -> bool:
        return not args.cap or tried[name][family][1] < args.cap

    def record(name: str, rule: str, family: str, got: set[str], where: str) -> None:
        cell = tried[name][family]
        cell[0] += rule in got
        cell[1] += 1
        also[name] |= got - {rule}
        if rule not in got:
            missed.append(f"{name} on {where}: fired {sorted(got)}")

    for family, rows in entries:
        seen += len(rows)
        if seen // 200 != (seen - len(rows)) // 200:
            print(f"... {seen} rows, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        pairs = [(m, r.id, m.apply(r, tts)) for r in rows for m in mutants if open_(m.name, family)]
        pairs = [(m, rid, b) for m, rid, b in pairs if b is not None]
        pair_wanted = len(rows) == 2 and any(open_(pm.name, family) for pm in pair_mutants)
        if args.cap and not pairs and not pair_wanted:
            continue
        good = set()
        for r in rows:
            clean[family][1] += 1
            bad = fired(r, tts)
            if bad:
                print(f"clean row {r.id} ({family}) fails: {sorted(bad)}")
            else:
                clean[family][0] += 1
                good.add(r.id)
        for m, rid, bad_row in pairs:
            if rid in good and open_(m.name, family):
                record(m.name, m.rule, family, fired(bad_row, tts), f"{rid} ({family})")
        if len(rows) == 2:
            pair_ok = not validate_twins(rows)
            clean[family][1] += 1
            clean[family][0] += pair_ok
            if not pair_ok:
                print(f"clean pair {rows[0].id} fails: {[str(v) for v in validate_twins(rows)]}")
            for pm in pair_mutants if pair_ok and len(good) == 2 else []:
                pair = pm.apply(rows[0], rows[1]) if open_(pm.name, family) else None
                if pair is not None:
                    record(pm.name, pm.rule, family, {v.rule for v in validate_twins(list(pair))}, rows[0].id)
    t_val = time.perf_counter() - t0

    print(f"\n{seen} rows read or made, validated and mutated in {t_val:.0f} s")
    print("unmutated rows (and twin pairs) that pass: " + ", ".join(f"{f} {c[0]}/{c[1]}" for f, c in clean.items()))
    print(f"\n{'rule':32s} {'mutant':36s} {'step':22s} {'families':22s} {'caught':>9s}  also fired")
    by_rule: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    rule_families: dict[str, set[str]] = defaultdict(set)
    unused = []
    for m in [*mutants, *pair_mutants]:
        cells = tried.get(m.name, {})
        c = sum(x[0] for x in cells.values())
        n = sum(x[1] for x in cells.values())
        if n == 0:
            unused.append(m.name)
        by_rule[m.rule][0] += c
        by_rule[m.rule][1] += n
        rule_families[m.rule] |= {f for f, x in cells.items() if x[1]}
        fams = ",".join(f for f in FAMILIES if cells.get(f, [0, 0])[1])
        print(f"{m.rule:32s} {m.name:36s} {m.step:22s} {fams or '-':22s} {c:>4d}/{n:<4d}  "
              f"{','.join(sorted(also[m.name])) or '-'}")
    print(f"\n{'rule':32s} {'families':>8s} {'caught':>11s}")
    for rule, (c, n) in by_rule.items():
        print(f"{rule:32s} {len(rule_families[rule]):>8d} {c:>5d}/{n:<5d} {100 * c / max(n, 1):5.1f}%")
    for line in missed:
        print("MISSED", line)
    for name in unused:
        print("NOT APPLIED to any row:", name)
    failed_clean = any(c[0] != c[1] for c in clean.values())
    return 1 if missed or unused or failed_clean else 0


if __name__ == "__main__":
    sys.exit(main())
