"""How strong is `validate`? Every row mutation at its limit (pipeline/mutants.py) over rows of every family.

    python benchmarks/validator_mutants.py [--num 10] [--dir OUT] [--only RULE ...]

Rows are made as `duplexsynth generate` makes them (generators.registry planners, pipeline.render,
the fast espeak-ng cast of tests/fast_voices.yaml), `--num` per family: en (the default mix), zh (the
default mix in Mandarin), Omni (every visual family) and twins (contrastive pairs of the families
that draw one); or read from a generated output folder (`--dir`, families told by each row). Each
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


def read_dir(root: str) -> dict[str, list[list[TrajectoryRow]]]:
    """The rows of a generated output folder by family, a twin pair as one [base, twin] entry."""
    import pyarrow.parquet as pq

    from schemas.arrow import row_from_dict
    rows = [row_from_dict(d) for p in sorted(Path(root, "shards").glob("shard-*.parquet"))
            for d in pq.read_table(p).to_pylist()]
    by_id = {r.id: r for r in rows}
    out: dict[str, list[list[TrajectoryRow]]] = defaultdict(list)
    for r in rows:
        m = twin_meta(r.meta)
        if m is None:
            out[family_of(r)].append([r])
        elif m.side == TwinSide.BASE and m.partner in by_id:
            out["twins"].append([r, by_id[m.partner]])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num", type=int, default=10, help="trajectories per family")
    ap.add_argument("--dir", help="read rows from this generated output folder instead")
    ap.add_argument("--only", nargs="*", help="only the mutants of these rule ids")
    args = ap.parse_args()
    tts = CachedTTS(EspeakBackend())
    t0 = time.perf_counter()
    if args.dir:
        groups = read_dir(args.dir)
    else:
        groups = {f: list(generate(f, args.num, tts)) for f in FAMILIES}
    t_gen = time.perf_counter() - t0
    mutants = [m for m in MUTANTS if not args.only or m.rule in args.only]
    pair_mutants = [m for m in PAIR_MUTANTS if not args.only or m.rule in args.only]

    clean: dict[str, list[int]] = {}
    tried: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))   # mutant, family
    also: dict[str, set[str]] = defaultdict(set)
    missed: list[str] = []
    t1 = time.perf_counter()
    for family, entries in groups.items():
        ok = total = 0
        for rows in entries:
            good = []
            for r in rows:
                total += 1
                bad = fired(r, tts)
                if bad:
                    print(f"clean row {r.id} ({family}) fails: {sorted(bad)}")
                else:
                    ok += 1
                    good.append(r)
            pair_ok = len(rows) == 2 and not validate_twins(rows)
            if len(rows) == 2:
                total += 1
                ok += pair_ok
                if not pair_ok:
                    print(f"clean pair {rows[0].id} fails: {[str(v) for v in validate_twins(rows)]}")
            for r in good:
                for m in mutants:
                    bad_row = m.apply(r, tts)
                    if bad_row is None:
                        continue
                    got = fired(bad_row, tts)
                    cell = tried[m.name][family]
                    cell[0] += m.rule in got
                    cell[1] += 1
                    also[m.name] |= got - {m.rule}
                    if m.rule not in got:
                        missed.append(f"{m.name} on {r.id} ({family}): fired {sorted(got)}")
            if pair_ok:
                for pm in pair_mutants:
                    pair = pm.apply(rows[0], rows[1])
                    if pair is None:
                        continue
                    got = {v.rule for v in validate_twins(list(pair))}
                    cell = tried[pm.name][family]
                    cell[0] += pm.rule in got
                    cell[1] += 1
                    also[pm.name] |= got - {pm.rule}
                    if pm.rule not in got:
                        missed.append(f"{pm.name} on {rows[0].id}: fired {sorted(got)}")
        clean[family] = [ok, total]
    t_val = time.perf_counter() - t1

    print(f"\nrows: {sum(len(e) for e in groups.values())} trajectories in {t_gen:.0f} s; "
          f"validated and mutated in {t_val:.0f} s")
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
