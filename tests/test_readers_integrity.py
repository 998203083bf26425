"""Readers refuse an incomplete or corrupt dataset (issue #10): export, stats, preview, validate, resume.

One real dataset is generated once per module (6 trajectories in 3 shards, one of them a real failed
record through DUPLEXSYNTH_FAULTS row:ID), then copied and broken per case. Every refusal must be
one line on stderr naming the file or manifest field, with the command's exit code, no traceback;
with --allow-incomplete the readers read only what passes and say how much they skipped.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from jobs.cli import main
from jobs.dataset_reader import check_dataset
from jobs.shards import ShardPlan, check_shard
from pipeline.io import sha256_file
from tests.generated import FAST_VOICES_YAML

SEED, NUM, SHARD = 7, 6, 2
FAILED_ID = f"s{SEED}-00001-0000003"      # trajectory 3 (shard 1) raises: a real failed record
SHARD1 = "shards/shard-00001.parquet"
FAILED1 = "failed/shard-00001.parquet"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, ray_head) -> Path:
    out = tmp_path_factory.mktemp("gen") / "ds"
    env = {**os.environ, "DUPLEXSYNTH_FAULTS": f"row:{FAILED_ID}"}
    proc = subprocess.run([sys.executable, "-m", "jobs.cli", "generate", "--config", str(FAST_VOICES_YAML), "--num", str(NUM), "--shard-size",
                           str(SHARD), "--seed", str(SEED), "--out", str(out), "--address", ray_head, "--no-progress"],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    m = json.loads((out / "manifest.json").read_text())
    assert (m["rows"], m["failed"], len(m["shards"])) == (NUM - 1, 1, 3)
    assert m["shards"][1]["failed_path"] == FAILED1 and pq.read_table(out / FAILED1).num_rows == 1
    return out


# ----------------------------------------------------------------------------- helpers
def _copy(dataset: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(dataset, tmp_path / "ds"))


def _manifest(root: Path) -> dict:
    return json.loads((root / "manifest.json").read_text())


def _edit_manifest(root: Path, fn: Callable[[dict], object]) -> None:
    m = _manifest(root)
    fn(m)
    (root / "manifest.json").write_text(json.dumps(m, indent=2))


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    mid = len(data) // 2
    data[mid:mid + 16] = bytes(b ^ 0xFF for b in data[mid:mid + 16])
    path.write_bytes(bytes(data))


def _cli(capfd, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def _one_line(err: str, *needles: str) -> str:
    """The single non-empty stderr line; it must hold every needle."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def _tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _no_export_output(out: Path) -> None:
    assert not out.exists() or not any(out.rglob("*.parquet")), sorted(out.rglob("*"))


# ----------------------------------------------------------------------------- the breakages
def _delete_shard(root: Path) -> None:
    (root / SHARD1).unlink()


def _truncate_shard(root: Path) -> None:
    p = root / "shards/shard-00002.parquet"
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def _flip_shard(root: Path) -> None:
    _flip(root / "shards/shard-00000.parquet")


def _delete_manifest(root: Path) -> None:
    (root / "manifest.json").unlink()


def _dotdot_path(root: Path) -> None:
    _edit_manifest(root, lambda m: m["shards"][0].update(path="../../etc/passwd"))


def _absolute_path(root: Path) -> None:
    _edit_manifest(root, lambda m: m["shards"][0].update(path="/etc/passwd"))


def _symlink_out(root: Path) -> None:
    (root / "shards/shard-00000.parquet").unlink()
    (root / "shards/shard-00000.parquet").symlink_to("/etc/hostname")


def _absolute_failed_path(root: Path) -> None:
    _edit_manifest(root, lambda m: m["shards"][1].update(failed_path="/etc/passwd"))


def _non_utf8(root: Path) -> None:
    (root / "manifest.json").write_bytes(b'{"shards": "\xff\xfe"}')


def _json_list(root: Path) -> None:
    (root / "manifest.json").write_text(json.dumps(_manifest(root)["shards"]))


def _not_json(root: Path) -> None:
    (root / "manifest.json").write_text('{"shards": [')


def _shards_not_list(root: Path) -> None:
    _edit_manifest(root, lambda m: m.update(shards={"0": "shards/shard-00000.parquet"}))


def _entry_missing_key(root: Path) -> None:
    _edit_manifest(root, lambda m: m["shards"][2].pop("sha256"))


def _sha_not_string(root: Path) -> None:
    _edit_manifest(root, lambda m: m["shards"][2].update(sha256=12345))


def _delete_failed_table(root: Path) -> None:
    (root / FAILED1).unlink()


def _flip_failed_table(root: Path) -> None:
    _flip(root / FAILED1)


def _num_short(root: Path) -> None:
    _edit_manifest(root, lambda m: m["config"].update(num=NUM + 2))


def _entry_dropped(root: Path) -> None:
    def drop(m: dict) -> None:
        gone = m["shards"].pop(2)
        m["rows"] -= gone["rows"]
    _edit_manifest(root, drop)


def _rows_do_not_add_up(root: Path) -> None:
    _edit_manifest(root, lambda m: m.update(rows=m["rows"] + 3))


def _other_parquet_as_shard(root: Path) -> None:
    """A real Parquet file of another kind (the failure table) vouched for as shard 2."""
    shutil.copy(root / FAILED1, root / "shards/shard-00002.parquet")
    _edit_manifest(root, lambda m: m["shards"][2].update(sha256=sha256_file(root / "shards/shard-00002.parquet")))


def _shard_as_failed_table(root: Path) -> None:
    shutil.copy(root / SHARD1, root / FAILED1)
    _edit_manifest(root, lambda m: m["shards"][1].update(failed_sha256=sha256_file(root / FAILED1)))


BREAKS = {   # name -> (how to break a copy, what the one stderr line must name)
    "delete_shard": (_delete_shard, [SHARD1, "missing"]),
    "truncate_shard": (_truncate_shard, ["shards/shard-00002.parquet", "sha256 differs"]),
    "flip_bytes": (_flip_shard, ["shards/shard-00000.parquet", "sha256 differs"]),
    "dotdot_path": (_dotdot_path, ["manifest.json: shards[0].path", "'..'"]),
    "absolute_path": (_absolute_path, ["manifest.json: shards[0].path", "absolute path"]),
    "symlink_outside": (_symlink_out, ["shards[0].path", "resolves outside the dataset folder"]),
    "absolute_failed_path": (_absolute_failed_path, ["manifest.json: shards[1].failed_path", "absolute path"]),
    "entry_missing_key": (_entry_missing_key, ["manifest.json: shards[2].sha256 is missing"]),
    "sha_not_string": (_sha_not_string, ["manifest.json: shards[2].sha256 is not a string"]),
    "delete_failed_table": (_delete_failed_table, [FAILED1, "missing"]),
    "flip_failed_table": (_flip_failed_table, [FAILED1, "sha256 differs"]),
    "num_short": (_num_short, ["manifest.json", f"config.num is {NUM + 2}", "short by 2"]),
    "entry_dropped": (_entry_dropped, ["manifest.json", f"config.num is {NUM}", "short by 2"]),
    "rows_do_not_add_up": (_rows_do_not_add_up, ["manifest.json: rows is 8 but shards[*].rows add up to 5"]),
    "other_parquet_as_shard": (_other_parquet_as_shard,
                               ["shards/shard-00002.parquet: not a trajectory shard: missing column(s)"]),
    "shard_as_failed_table": (_shard_as_failed_table, [f"{FAILED1}: not a failure-record table"]),
    "delete_manifest": (_delete_manifest, ["manifest.json: missing"]),
    "non_utf8_manifest": (_non_utf8, ["manifest.json: not UTF-8"]),
    "json_list_manifest": (_json_list, ["manifest.json: expected a JSON object, found a JSON list"]),
    "not_json_manifest": (_not_json, ["manifest.json: not JSON"]),
    "shards_not_a_list": (_shards_not_list, ["manifest.json: shards is not a list"]),
}


# ----------------------------------------------------------------------------- strict readers refuse
@pytest.mark.parametrize("name", sorted(BREAKS))
def test_export_stats_preview_refuse_a_broken_dataset(name, dataset, tmp_path, capfd):
    root = _copy(dataset, tmp_path)
    brk, needles = BREAKS[name]
    brk(root)
    assert not check_dataset(root).complete
    hint = "--allow-incomplete"

    rc, out, err = _cli(capfd, "stats", str(root), "--json")
    assert rc == 2 and out == ""
    _one_line(err, *needles, hint)

    page = tmp_path / "page.html"
    rc, out, err = _cli(capfd, "preview", str(root), "--index", "0", "--out", str(page))
    assert rc == 1 and not page.exists()
    _one_line(err, *needles, hint)

    train = tmp_path / "train"
    rc, out, err = _cli(capfd, "export", str(root), "--out", str(train), "--tokenizer", "/nonexistent-tokenizer")
    assert rc == 2                      # refused on the source, before the tokenizer is even opened
    _one_line(err, *needles, hint)
    _no_export_output(train)


def test_refusal_lists_the_first_few_problems_and_counts_the_rest(dataset, tmp_path, capfd):
    root = _copy(dataset, tmp_path)
    for p in sorted((root / "shards").glob("*.parquet")):
        _flip(p)
    (root / FAILED1).unlink()
    line = _one_line(_cli(capfd, "stats", str(root))[2], "3 shard(s) unusable (5 rows)",
                     "shard-00000.parquet", "shard-00001.parquet", "shard-00002.parquet",
                     "and 1 more problem(s)", "no shard passes")
    assert FAILED1 not in line


def test_the_intact_dataset_passes_every_reader(dataset, capfd, tmp_path):
    chk = check_dataset(dataset)
    assert chk.complete and chk.problems == [] and chk.rows == NUM - 1 and chk.failed_records == 1
    assert [p.name for p in chk.failed_tables] == ["shard-00001.parquet"]
    rc, out, err = _cli(capfd, "validate", str(dataset))
    assert rc == 0 and f"OK: {NUM - 1} rows" in out
    rc, out, err = _cli(capfd, "preview", str(dataset), "--index", str(NUM - 2), "--out", str(tmp_path / "p.html"))
    assert rc == 0 and err == ""


# ----------------------------------------------------------------------------- --allow-incomplete
def test_allow_incomplete_reads_what_passes_and_says_what_was_skipped(dataset, tmp_path, capfd):
    from tests.generated import read_rows, row_texts, train_tokenizer

    root = _copy(dataset, tmp_path)
    _delete_shard(root)                     # shard 1: 1 row (and its failed record)
    rc, out, err = _cli(capfd, "stats", str(root), "--json", "--allow-incomplete", "--workers", "1")
    assert rc == 0 and json.loads(out)["rows"] == NUM - 2
    _one_line(err, "reading 2 shard(s) (4 rows), skipped 1 shard(s) (1 rows)", SHARD1)

    page = tmp_path / "p.html"
    rc, out, err = _cli(capfd, "preview", str(root), "--index", "3", "--out", str(page), "--allow-incomplete")
    assert rc == 0 and page.exists()
    _one_line(err, "skipped 1 shard(s) (1 rows)", SHARD1)
    rc, _, err = _cli(capfd, "preview", str(root), "--index", "4", "--out", str(page), "--allow-incomplete")
    assert rc == 1 and "holds 4 rows (0..3)" in err      # the skipped row is not there to show

    train = tmp_path / "train"
    tok = str(train_tokenizer(tmp_path / "tok.json", row_texts(read_rows(dataset))))
    rc, out, err = _cli(capfd, "export", str(root), "--out", str(train), "--tokenizer", tok, "--val-fraction", "0",
                        "--allow-incomplete")
    assert rc == 0, err
    _one_line(err, "exported 2 shard(s), skipped 1 shard(s) (1 rows)", SHARD1)
    m = json.loads((train / "manifest.json").read_text())
    assert m["split"]["train"]["rows"] == NUM - 2
    assert [s["path"] for s in m["source"]["shards"]] == ["shards/shard-00000.parquet", "shards/shard-00002.parquet"]
    assert m["source"]["skipped"]["shards"] == 1 and m["source"]["skipped"]["rows"] == 1
    assert m["options"]["allow_incomplete"] is True


def test_allow_incomplete_without_manifest_trusts_only_matching_sidecars(dataset, tmp_path, capfd):
    root = _copy(dataset, tmp_path)
    _delete_manifest(root)
    _flip(root / "shards/shard-00002.parquet")          # its sidecar's sha256 no longer matches
    rc, out, err = _cli(capfd, "stats", str(root), "--json", "--allow-incomplete", "--workers", "1")
    assert rc == 0 and json.loads(out)["rows"] == 3
    _one_line(err, "reading 2 shard(s) (3 rows), skipped 1 shard(s) (2 rows)", "manifest.json: missing",
              "shard-00002.parquet: sha256 differs from its sidecar")

    # a shard never written (the run was cut short) is counted from the plan in config.yaml
    (root / SHARD1).unlink()
    (root / "summaries/shard-00001.json").unlink()
    (root / "shards/shard-00002.parquet").unlink()
    chk = check_dataset(root)
    assert [p.name for p in chk.shards] == ["shard-00000.parquet"] and chk.rows == 2
    assert (chk.shards_skipped, chk.rows_skipped) == (2, 4)
    assert any("2 shard(s) of the config.yaml plan were never written" in p for p in chk.problems)

    # a sidecar that names another file than its shard is not trusted
    side = root / "summaries/shard-00000.json"
    s = json.loads(side.read_text())
    s["path"] = "shards/other.parquet"
    side.write_text(json.dumps(s))
    assert check_dataset(root).shards == []


def test_allow_incomplete_does_not_follow_an_escaping_path(dataset, tmp_path, capfd):
    root = _copy(dataset, tmp_path)
    outside = tmp_path / "outside.parquet"
    shutil.copy(root / "shards/shard-00000.parquet", outside)
    _edit_manifest(root, lambda m: m["shards"][0].update(path="../outside.parquet"))
    rc, out, err = _cli(capfd, "stats", str(root), "--json", "--allow-incomplete", "--workers", "1")
    assert rc == 0 and json.loads(out)["rows"] == NUM - 3     # the file outside is never read
    _one_line(err, "skipped 1 shard(s) (2 rows)", "shards[0].path '../outside.parquet' climbs out")


# ----------------------------------------------------------------------------- stats on unreadable shards
def _replace_shard(root: Path, rel: str, data: bytes) -> None:
    """Put `data` in place of a shard and make the manifest vouch for it (the check passes)."""
    (root / rel).write_bytes(data)
    i = int(rel[-13:-8])
    _edit_manifest(root, lambda m: m["shards"][i].update(sha256=sha256_file(root / rel)))


@pytest.mark.parametrize("workers", ["1", "2"])
def test_stats_names_a_shard_missing_a_column_even_in_a_worker(dataset, tmp_path, capfd, workers):
    root = _copy(dataset, tmp_path)
    rel = "shards/shard-00000.parquet"
    pq.write_table(pq.read_table(root / rel).drop(["events"]), root / rel)
    _replace_shard(root, rel, (root / rel).read_bytes())
    rc, out, err = _cli(capfd, "stats", str(root), "--workers", workers)
    assert rc == 2
    _one_line(err, str(root / rel), "missing column(s) events")


def test_stats_names_a_shard_whose_data_is_corrupt(dataset, tmp_path, capfd):
    root = _copy(dataset, tmp_path)
    rel = "shards/shard-00002.parquet"
    data = bytearray((root / rel).read_bytes())
    for i in range(200, len(data) // 2, 7):           # the pages, not the footer
        data[i] ^= 0xFF
    _replace_shard(root, rel, bytes(data))
    rc, out, err = _cli(capfd, "stats", str(root), "--workers", "1")   # a worker hands back the same error
    assert rc == 2
    _one_line(err, str(root / rel), "cannot be read or analysed")


def test_a_non_parquet_shard_with_a_matching_sha_is_named(dataset, tmp_path, capfd):
    root = _copy(dataset, tmp_path)
    _replace_shard(root, "shards/shard-00002.parquet", b"this is not parquet at all")
    rc, out, err = _cli(capfd, "stats", str(root))
    assert rc == 2
    _one_line(err, "shards/shard-00002.parquet: not a readable Parquet file")
    rc, out, err = _cli(capfd, "validate", str(root))
    assert rc == 1 and "shards/shard-00002.parquet: not a readable Parquet file" in out
    _one_line(err, "FAILED", "shard-00002.parquet")


# ----------------------------------------------------------------------------- validate
@pytest.mark.parametrize("name, needle", [
    ("delete_failed_table", f"{FAILED1}: listed in manifest.json shards[1].failed_path but missing"),
    ("flip_failed_table", f"{FAILED1}: sha256 differs from manifest.json shards[1].failed_path"),
    ("absolute_failed_path", "manifest.json: shards[1].failed_path '/etc/passwd' is an absolute path"),
    ("num_short", f"5 rows + 1 failed = 6 trajectories but config.num is {NUM + 2} (short by 2)"),
    ("entry_dropped", f"3 rows + 1 failed = 4 trajectories but config.num is {NUM} (short by 2)"),
    ("json_list_manifest", "manifest.json: expected a JSON object, found a JSON list"),
    ("non_utf8_manifest", "manifest.json: not UTF-8 text"),
    ("shards_not_a_list", "manifest.json: shards is not a list"),
    ("entry_missing_key", "manifest.json: shards[2].sha256 is missing"),
])
def test_validate_fails_on_failed_tables_counts_and_malformed_manifests(name, needle, dataset, tmp_path, capfd):
    root = _copy(dataset, tmp_path)
    BREAKS[name][0](root)
    rc, out, err = _cli(capfd, "validate", str(root))
    assert rc == 1
    assert needle in out, out
    _one_line(err, "FAILED", needle)


def test_validate_checks_the_failure_record_count(dataset, tmp_path, capfd):
    root = _copy(dataset, tmp_path)

    def more_failed(m: dict) -> None:
        m["shards"][1]["failed"] = 2
        m["failed"] = 2
        m["config"]["num"] = NUM + 1
    _edit_manifest(root, more_failed)
    rc, out, err = _cli(capfd, "validate", str(root))
    assert rc == 1 and f"{FAILED1}: holds 1 failure records, manifest.json shards[1].failed_path says 2" in out


def test_validate_fails_on_zero_rows(dataset, tmp_path, capfd):
    root = _copy(dataset, tmp_path)
    _edit_manifest(root, lambda m: m.update(shards=[], rows=0, failed=0, config={**m["config"], "num": 0}))
    assert check_dataset(root).complete          # the folder is consistent, it just holds nothing
    rc, out, err = _cli(capfd, "validate", str(root))
    assert rc == 1 and "0 rows: nothing to validate" in out
    _one_line(err, "FAILED", "0 rows")


def test_validate_reports_the_same_for_any_worker_count(dataset, tmp_path, capfd):
    """A tampered row in shard 0 and shard 0's rows again as shard 2 (duplicate ids across shards):
    every line of the report, its order and the exit code are the same on 1 and 2 workers (2 workers
    for 3 shards: one of them checks two, and the report still comes in shard order)."""
    from pipeline.io import write_parquet
    from schemas.arrow import row_from_dict, rows_to_table

    root = _copy(dataset, tmp_path)
    rows = [row_from_dict(d) for d in pq.read_table(root / "shards/shard-00000.parquet").to_pylist()]
    speak = next(u for u in rows[1].units if u.decision == "speak")
    speak.decision = "listen"                 # a label typed by hand, contradicting events and audio
    write_parquet(rows_to_table(rows), root / "shards/shard-00000.parquet")
    _replace_shard(root, "shards/shard-00000.parquet", (root / "shards/shard-00000.parquet").read_bytes())
    _replace_shard(root, "shards/shard-00002.parquet", (root / "shards/shard-00000.parquet").read_bytes())
    reports = {w: _cli(capfd, "validate", str(root), "--workers", w, "--max-report", "1000") for w in ("1", "2")}
    rc, out, err = reports["1"]
    assert rc == 1 and "labels_derived" in out and "listen_silent" in out
    assert f"{rows[0].id}: duplicate id" in out and f"{rows[1].id}: duplicate id" in out
    assert out.index(f"{rows[0].id}: duplicate id") > out.index(f"{rows[1].id}: [labels_derived]")
    _one_line(err, "FAILED", "duplicate 2")
    assert reports["2"] == reports["1"]


# ----------------------------------------------------------------------------- resume: sidecar paths
@pytest.mark.parametrize("key, value", [
    ("path", "/etc/hostname"), ("path", "../stolen.parquet"), ("path", "shards/shard-00002.parquet"),
    ("failed_path", "/etc/hostname"), ("failed_path", "../stolen.parquet"),
])
def test_resume_redoes_a_shard_whose_sidecar_names_another_file(dataset, tmp_path, key, value):
    root = _copy(dataset, tmp_path)
    shutil.copy(root / SHARD1, tmp_path / "stolen.parquet")
    plan = ShardPlan(1, 2, 4)
    assert check_shard(root, plan)[1] == ""
    side = root / "summaries/shard-00001.json"
    s = json.loads(side.read_text())
    target = Path(value) if value.startswith("/") else root / value
    s[key] = value
    s["sha256" if key == "path" else "failed_sha256"] = sha256_file(target)   # the hash would match
    side.write_text(json.dumps(s))
    stored, why = check_shard(root, plan)
    assert stored is None and why.startswith("sidecar names a path outside the dataset"), why
    assert repr(value) in why


# ----------------------------------------------------------------------------- export never destroys its source
@pytest.mark.parametrize("where", ["same", "parent", "inside", "symlink_to_source", "inside_via_symlink"])
@pytest.mark.parametrize("overwrite", [False, True])
def test_export_refuses_an_output_that_overlaps_the_source(dataset, tmp_path, capfd, where, overwrite):
    root = _copy(dataset, tmp_path)
    before = _tree_digest(root)
    out = {"same": root, "parent": tmp_path, "inside": root / "train",
           "symlink_to_source": tmp_path / "link", "inside_via_symlink": tmp_path / "link" / "train"}[where]
    if "symlink" in where:
        (tmp_path / "link").symlink_to(root, target_is_directory=True)
    argv = ["export", str(root), "--out", str(out), "--tokenizer", "/nonexistent-tokenizer"]
    rc, _, err = _cli(capfd, *argv, *(["--overwrite"] if overwrite else []))
    assert rc == 2
    _one_line(err, "choose an output folder outside it")
    assert _tree_digest(root) == before
    assert not (root / "train").exists()


def test_overwrite_deletes_only_an_earlier_export(dataset, tmp_path, capfd):
    root = _copy(dataset, tmp_path)
    other = tmp_path / "precious"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    (other / "manifest.json").write_text(json.dumps({"format": "something-else"}))
    before = _tree_digest(other)
    rc, _, err = _cli(capfd, "export", str(root), "--out", str(other), "--overwrite",
                      "--tokenizer", "/nonexistent-tokenizer")
    assert rc == 2
    _one_line(err, f"--overwrite refuses to delete {other}", "not an export folder")
    assert _tree_digest(other) == before
    # a generator dataset is not an export folder either
    rc, _, err = _cli(capfd, "export", str(dataset), "--out", str(root), "--overwrite",
                      "--tokenizer", "/nonexistent-tokenizer")
    assert rc == 2 and "not an export folder" in err and (root / "manifest.json").exists()
