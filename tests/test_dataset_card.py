"""A generated folder and a training export load as Hub datasets: `datasets.load_dataset(DIR)` with no
arguments, through the card each writes (jobs/card.py), judged by the installed `datasets` itself.

datasets >= 4 decodes `Audio` with torchcodec, which this machine may lack: the tests read the audio
as FLAC bytes (`Audio(decode=False)`) always, and decode through datasets only where its decoder is
installed (skipped, with the reason, elsewhere).
"""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import soundfile as sf

from jobs.shards import trajectory_id
from schemas.arrow import TRAJECTORY_SCHEMA, hf_features, hf_yaml_features
from tests.generated import FAST_VOICES_YAML, export_dataset

datasets = pytest.importorskip("datasets")

ROOT = Path(__file__).resolve().parents[1]
SEED, NUM, SHARD = 0, 6, 3
PLANTED = trajectory_id(SEED, 0, 1)   # made to raise: the run has a failure table, so a `failed` config
# The feature types datasets 3.x knows (its features/__init__ `_FEATURE_TYPES` that can appear in our
# metadata); 4.x's `List` is not one of them ("Feature type 'List' not found" in 3.x).
DATASETS3_TYPES = {"Value", "Audio", "Sequence"}


def _generate(out: Path, address: str, faults: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DUPLEXSYNTH_FAULTS": faults}
    return subprocess.run([sys.executable, "-m", "jobs.cli", "generate", "--config", str(FAST_VOICES_YAML), "--seed",
                           str(SEED), "--num", str(NUM), "--shard-size", str(SHARD), "--out", str(out), "--address",
                           address, "--no-progress"], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env, check=False)


@pytest.fixture(scope="module")
def card_run(tmp_path_factory, ray_head):
    """A run with one planted trajectory failure, then a resume of it (shard 1's sidecar gone: shard 1
    is rendered again, shard 0 verified and kept), both attached to the session's Ray."""
    out = tmp_path_factory.mktemp("card") / "out"
    first = _generate(out, ray_head, f"row:{PLANTED}")
    assert first.returncode == 0, first.stderr[-3000:]
    card = (out / "README.md").read_bytes()
    (out / "summaries" / "shard-00001.json").unlink()
    second = _generate(out, ray_head, "")
    assert second.returncode == 0, second.stderr[-3000:]
    return out, card, second


def _load(path: Path, *args: str, cache: Path) -> object:
    return datasets.load_dataset(str(path), *args, cache_dir=str(cache))


def _front(text: str) -> dict:
    import yaml
    m = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL)
    assert m, "the card has no YAML front matter"
    return yaml.safe_load(m.group(1))


def test_load_dataset_with_no_arguments_returns_every_row(card_run, tmp_path):
    out, _, _ = card_run
    manifest = json.loads((out / "manifest.json").read_text())
    dd = _load(out, cache=tmp_path / "c1")
    assert list(dd) == ["train"]
    ds = dd["train"]
    ids = [i for p in sorted((out / "shards").glob("shard-*.parquet")) for i in pq.read_table(p).column("id").to_pylist()]
    assert ds.num_rows == manifest["rows"] == NUM - 1 and ds["id"] == ids and PLANTED not in ids
    assert isinstance(ds.features["user_audio"], datasets.Audio) and isinstance(ds.features["assistant_audio"], datasets.Audio)
    assert ds.data.schema.equals(TRAJECTORY_SCHEMA, check_metadata=False)
    # the card is what makes it load: without it, datasets reads manifest.json and the sidecars as data
    bare = tmp_path / "bare"
    shutil.copytree(out, bare, ignore=shutil.ignore_patterns("README.md", ".duplexsynth.lock"))
    with pytest.raises(datasets.exceptions.DatasetGenerationError):
        _load(bare, cache=tmp_path / "c2")


def test_the_failed_config_loads_the_failure_records(card_run, tmp_path):
    out, _, _ = card_run
    failed = _load(out, "failed", cache=tmp_path / "c")["train"]
    assert failed["id"] == [PLANTED] and "planted failure" in failed[0]["error"]
    assert set(failed.column_names) == {"id", "seed", "scenario", "shard", "index", "error", "traceback"}
    configs = [c["config_name"] for c in _front((out / "README.md").read_text())["configs"]]
    assert configs == ["default", "failed"]   # the rows are the default, the failures only by name


def test_the_card_counts_equal_the_manifest_and_the_shards(card_run):
    out, _, _ = card_run
    manifest = json.loads((out / "manifest.json").read_text())
    text = (out / "README.md").read_text()
    assert (f"{manifest['rows']} rows, {manifest['failed']} failed trajectories, "
            f"{manifest['audio_hours']:.3f} h of audio") in text
    # per scenario and language, against the shards read by pyarrow (not by the card's code)
    rows = [r for p in sorted((out / "shards").glob("shard-*.parquet"))
            for r in pq.read_table(p, columns=["scenario", "language", "duration_s"]).to_pylist()]
    want = Counter((r["scenario"], r["language"]) for r in rows)
    got = {(s, lang): int(n) for s, lang, n, _ in re.findall(r"^\| (\w+) \| (\w+) \| (\d+) \| ([\d.]+) \|$", text, re.MULTILINE)}
    assert got == dict(want) and sum(got.values()) == manifest["rows"]
    failed = pq.read_table(out / "failed" / "shard-00000.parquet").to_pylist()
    assert f"| {failed[0]['scenario']} | 1 |" in text
    voices = {json.loads(v)["name"] for p in sorted((out / "shards").glob("shard-*.parquet"))
              for m in pq.read_table(p, columns=["meta"]).column("meta").to_pylist() for v in json.loads(m)["voices"]}
    assert voices and all(f"| `{v}` | espeak-ng |" in text for v in voices)
    assert "GPL-3.0-or-later" in text and "espeak-ng:" in text


def test_the_card_is_byte_identical_on_a_resume_and_names_no_time_host_or_path(card_run):
    out, first, second = card_run
    assert "1 shard rendered, 1 already complete" in second.stdout, second.stdout
    assert (out / "README.md").read_bytes() == first
    text = first.decode()
    assert str(out) not in text and str(out.parent) not in text
    host = socket.gethostname()
    assert len(host) < 4 or host not in text
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b|\b\d\d:\d\d:\d\d\b", text)


def test_someone_elses_readme_is_refused_before_anything_is_written(tmp_path):
    from jobs.runner import RunRefused, generate
    from schemas.config import RunConfig
    from tests.generated import FAST_VOICES

    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("# my notes\n")
    with pytest.raises(RunRefused, match="README.md exists and is not a duplexsynth dataset card"):
        generate(RunConfig(num=1, voices=FAST_VOICES), out, progress=False)
    assert (out / "README.md").read_text() == "# my notes\n"
    assert sorted(p.name for p in out.iterdir() if p.name != ".duplexsynth.lock") == ["README.md"]


def _types(feature: object) -> set[str]:
    if isinstance(feature, list):
        return set().union(*map(_types, feature))
    assert isinstance(feature, dict)
    if "_type" in feature:
        return {feature["_type"]} | (_types(feature["feature"]) if "feature" in feature else set())
    return set().union(*map(_types, feature.values()))


def test_feature_metadata_is_in_the_vocabulary_datasets_3_reads_and_the_card_yaml_agrees():
    from jobs.export import TRAIN_SCHEMA
    for schema in (TRAJECTORY_SCHEMA, TRAIN_SCHEMA):
        meta = json.loads(schema.metadata[b"huggingface"])["info"]["features"]
        assert _types(meta) <= DATASETS3_TYPES, _types(meta)
        # the installed datasets reads the metadata, and the card's YAML, as the same features of the same Arrow types
        feats = datasets.Features.from_dict(meta)
        assert datasets.Features._from_yaml_list(hf_yaml_features(schema)) == feats
        assert feats.arrow_schema.equals(schema, check_metadata=False)
    assert hf_features(TRAIN_SCHEMA)["audio"] == {"_type": "Audio"}


# ----------------------------------------------------------------------------- training export

@pytest.fixture(scope="module")
def train_dirs(tmp_path_factory, generated):
    """The same rows exported twice (one worker, two workers): the trainer's input, and its card's determinism."""
    root = tmp_path_factory.mktemp("card_export")
    a = export_dataset(root / "a", generated, rows=8, val_fraction=0.25)
    b = export_dataset(root / "b", generated, rows=8, val_fraction=0.25, workers=2)
    return a, b


def test_train_dir_loads_with_audio_that_is_the_exported_flac(train_dirs, tmp_path):
    out, _ = train_dirs
    manifest = json.loads((out / "manifest.json").read_text())
    dd = _load(out, cache=tmp_path / "c")
    assert sorted(dd) == ["train", "validation"]
    assert dd["train"].num_rows == manifest["split"]["train"]["rows"] and dd["validation"].num_rows == manifest["split"]["val"]["rows"]
    assert isinstance(dd["train"].features["audio"], datasets.Audio)
    # the shards type it themselves too, for a reader that passes them to the parquet builder without the card
    bare = datasets.load_dataset("parquet", data_files=str(out / "train" / "shard-*.parquet"), cache_dir=str(tmp_path / "p"))
    assert isinstance(bare["train"].features["audio"], datasets.Audio)
    table = pq.read_table(out / "train" / "shard-00000.parquet")
    plain = dd["train"].cast_column("audio", datasets.Audio(decode=False))
    assert [a["bytes"] for a in plain["audio"]] == [a["bytes"] for a in table.column("audio").to_pylist()]
    assert plain["input_ids"] == table.column("input_ids").to_pylist()
    # the trainer's own reader (model/dataset.py) still reads every row and its audio from the same shards
    from model.dataset import TrainSplit
    split = TrainSplit(out, max_seq_len=100_000)
    assert len({(i.shard, i.row) for i in split.items}) == dd["train"].num_rows
    for item in split.items:
        sample = split.load(item)
        assert sample["audio_features"].shape[0] == sample["num_units"]


def test_train_dir_audio_decodes_through_datasets_bit_exact(train_dirs, tmp_path):
    out, _ = train_dirs
    major = int(datasets.__version__.split(".")[0])
    if major >= 4:
        pytest.importorskip("torchcodec", reason=f"datasets {datasets.__version__} decodes Audio with torchcodec")
    else:
        pytest.importorskip("librosa", reason=f"datasets {datasets.__version__} decodes Audio with librosa and soundfile")
    ds = _load(out, cache=tmp_path / "c")["train"]
    raw = pq.read_table(out / "train" / "shard-00000.parquet").column("audio")[0].as_py()["bytes"]
    want, sr = sf.read(io.BytesIO(raw), dtype="int16")
    got = ds[0]["audio"]
    if major >= 4:   # a torchcodec AudioDecoder
        samples = got.get_all_samples()
        x, rate = samples.data.numpy()[0], samples.sample_rate
    else:
        x, rate = got["array"], got["sampling_rate"]
    assert rate == sr == 16000
    assert np.array_equal(np.round(np.asarray(x, np.float64) * 32768).astype(np.int16), want)


def test_train_dir_card_is_the_same_bytes_for_the_same_export(train_dirs):
    a, b = train_dirs
    assert (a / "README.md").read_bytes() == (b / "README.md").read_bytes()
    front = _front((a / "README.md").read_text())
    assert front["configs"] == [{"config_name": "default", "data_files": [
        {"split": "train", "path": "train/shard-*.parquet"}, {"split": "validation", "path": "val/shard-*.parquet"}]}]
    assert str(a) not in (a / "README.md").read_text()
