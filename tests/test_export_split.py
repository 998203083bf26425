"""The export's val split: the share asked for up to rounding, the realised share in the manifest,
a warning for a family too small to be validated, and no loader speed the export never measured."""
from __future__ import annotations

import json

from jobs.export import plan_rows, split_warnings, val_share
from tests.generated import export_dataset


def _light(sizes: dict[str, int]) -> list[dict]:
    return [{"id": f"{f}-{i}", "scenario": f} for f, n in sizes.items() for i in range(n)]


def test_small_families_do_not_inflate_the_val_share():
    # 4 families of 2 at 20%: forcing one val row per family gave 4 of 8 (50%); round(8 * 0.2) = 2
    plan, stats = plan_rows(_light({"a": 2, "b": 2, "c": 2, "d": 2}), {}, 0.2, seed=0)
    val = [k for k, p in plan.items() if p.split == "val"]
    assert len(val) == 2 and val_share(stats) == 0.25
    assert sorted(f for f, st in stats.items() if st["val_rows"]) == ["a", "b"]      # equal remainders: by name
    warn = split_warnings(stats, 0.2)
    assert len(warn) == 2 and "'c'" in warn[0] and "'d'" in warn[1] and "not validated" in warn[0]


def test_val_share_is_the_requested_one_up_to_rounding():
    for sizes, frac in (({"a": 3, "b": 5, "c": 1, "d": 7}, 0.25), ({"a": 9, "b": 9}, 0.05), ({"a": 40}, 0.3),
                        ({"a": 2, "b": 3, "c": 4, "d": 5, "e": 6}, 0.375)):
        n = sum(sizes.values())
        plan, stats = plan_rows(_light(sizes), {}, frac, seed=1)
        n_val = sum(p.split == "val" for p in plan.values())
        assert n_val == round(n * frac), (sizes, frac, n_val)
        assert abs(val_share(stats) - frac) <= 0.5 / n + 1e-12
        assert all(st["val_rows"] < st["source_rows"] for st in stats.values() if st["source_rows"] >= 1)
    # a dropped family (mix weight 0) neither gets val rows nor counts towards the share
    _, stats = plan_rows(_light({"a": 4, "b": 4}), {"b": 0.0}, 0.5, seed=0)
    assert stats["a"]["val_rows"] == 2 and stats["b"]["val_rows"] == 0 and val_share(stats) == 0.5
    assert split_warnings(stats, 0.5) == []


def test_manifest_states_the_realised_share_and_no_unmeasured_loader_speed(tmp_path, generated, capsys):
    out = export_dataset(tmp_path, generated, rows=8, val_fraction=0.2)
    m = json.loads((out / "manifest.json").read_text())
    sp = m["split"]
    assert sp["val_fraction"] == 0.2 and sp["val"]["rows"] == 2 and sp["train"]["rows"] == 6
    assert sp["val_share"] == 0.25 and len(sp["warnings"]) == 2
    assert capsys.readouterr().err.count("warning: family") == 2
    assert "units/s" not in m["audio"]["why"] and "not measured" in m["audio"]["why"]
