"""Config validation refuses, up front and in one line, every config the workers cannot use (issue #10).

Each refusal is checked at the schema (`load_config` / `parse_config` raise ConfigError naming the
field or file) and, for a sample, through the real CLI: exit 2, one `error:` line on stderr naming
the field, no traceback, and no output folder created.
"""
from __future__ import annotations

import math
import os
import wave
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import yaml

from jobs.cli import main
from jobs.runner import read_faults
from jobs.shards import ShardPlan, preflight, run_shard
from schemas import config as C
from schemas.config import ConfigError, RunConfig, dump_config, list_presets, load_config, parse_config
from schemas.errors import UsageError
from tests.onnx_fixtures import build_tiny_s3_onnx, build_wrong_signature_onnx


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], out: Path, *needles: str) -> str:
    """Run the CLI; it must exit 2 with one `error:` line holding every needle, and write nothing."""
    code = main(argv)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert not out.exists() or not any(out.iterdir()), f"{out} was written to"
    return lines[0]


def _generate(cfg: Path, out: Path) -> list[str]:
    return ["generate", "--config", str(cfg), "--out", str(out)]


def _config_error(data: dict, *needles: str) -> str:
    with pytest.raises(ConfigError) as info:
        parse_config(data, "t.yaml")
    msg = str(info.value)
    assert "\n" not in msg, msg
    for needle in needles:
        assert needle in msg, msg
    return msg


def _wav(path: Path, seconds: float = 0.5, sr: int = 16_000) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    x = (0.1 * np.random.default_rng(0).standard_normal(int(seconds * sr)) * 32767).astype(np.int16)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sr)
        w.writeframes(x.tobytes())
    return path


# ------------------------------------------------------------------------- 1. reading the YAML file

def test_binary_file_is_refused_naming_the_file(tmp_path, capsys):
    f = tmp_path / "c.yaml"
    f.write_bytes(b"num: 4\n\xff\xfe\x00\x81binary")
    with pytest.raises(ConfigError, match=r"c\.yaml is not UTF-8 text \(byte 7"):
        load_config(f)
    _refused(capsys, _generate(f, tmp_path / "d"), tmp_path / "d", str(f), "UTF-8")


def test_deeply_nested_yaml_is_refused_not_a_recursion_error(tmp_path, capsys):
    f = _write(tmp_path / "deep.yaml", "num: " + "[" * 10_000 + "]" * 10_000 + "\n")
    with pytest.raises(ConfigError, match=r"deep\.yaml: line 1, column \d+: nested deeper than 64 levels"):
        load_config(f)
    _refused(capsys, _generate(f, tmp_path / "d"), tmp_path / "d", str(f), "nested deeper")


def test_folder_given_as_config_is_refused(tmp_path, capsys):
    folder = tmp_path / "conf"
    folder.mkdir()
    with pytest.raises(ConfigError, match="is a folder, not a YAML file"):
        load_config(folder)
    _refused(capsys, _generate(folder, tmp_path / "d"), tmp_path / "d", str(folder), "folder")


def test_unreadable_file_is_refused_naming_it(tmp_path, capsys):
    # /proc/self/mem exists and is a file, but reading it from offset 0 fails (EIO) even for root
    with pytest.raises(ConfigError, match=r"config file /proc/self/mem cannot be read"):
        load_config("/proc/self/mem")
    _refused(capsys, _generate(Path("/proc/self/mem"), tmp_path / "d"), tmp_path / "d", "/proc/self/mem",
             "cannot be read")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file")
def test_file_without_read_permission_is_refused(tmp_path):
    f = _write(tmp_path / "c.yaml", "num: 4\n")
    f.chmod(0)
    with pytest.raises(ConfigError, match="permission denied"):
        load_config(f)


def test_missing_file_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")


@pytest.mark.parametrize("text, key, line", [
    ("num: 4\nseed: 1\nnum: 5\n", "'num'", 3),
    ("timing:\n  eot_s: [0.2, 0.3]\n  tail_s: [0.5, 1.0]\n  eot_s: [0.3, 0.4]\n", "'eot_s'", 4),
    ("scenarios: {pause: 1, pause: 2}\n", "'pause'", 1),
])
def test_duplicate_keys_are_refused_naming_key_and_line(tmp_path, capsys, text, key, line):
    f = _write(tmp_path / "dup.yaml", text)
    with pytest.raises(ConfigError) as info:
        load_config(f)
    msg = str(info.value)
    assert f"dup.yaml: line {line}," in msg and f"duplicate key {key}" in msg, msg
    _refused(capsys, _generate(f, tmp_path / "d"), tmp_path / "d", "duplicate key", f"line {line}")


def test_yaml_merge_keys_still_work(tmp_path):
    f = _write(tmp_path / "m.yaml", "acoustics:\n  snr_db: &r {lo: 6, hi: 20}\n  hum_snr_db: {<<: *r, hi: 30}\n")
    cfg = load_config(f)
    assert (cfg.acoustics.hum_snr_db.lo, cfg.acoustics.hum_snr_db.hi) == (6.0, 30.0)


def test_yaml_syntax_error_is_one_line_with_the_line_number(tmp_path):
    f = _write(tmp_path / "bad.yaml", "num: 4\ntiming: [unclosed\n")
    with pytest.raises(ConfigError) as info:
        load_config(f)
    assert "\n" not in str(info.value) and "bad.yaml: line" in str(info.value)


# ------------------------------------------------------------------------------ 2. NaN and infinity

@pytest.mark.parametrize("text, field", [
    ("timing:\n  eot_s: [0.2, .nan]\n", "timing.eot_s.hi"),
    ("acoustics:\n  snr_db: [-.inf, 10]\n", "acoustics.snr_db.lo"),
    ("acoustics:\n  noise_prob: .nan\n", "acoustics.noise_prob"),
    ("scenarios: {pause: .inf}\n", "scenarios.pause"),
    ("timing:\n  pause_s: {kind: normal, mu: .nan, sigma: 0.1, lo: 0.1, hi: 1}\n", "timing.pause_s.mu"),
    ("timing:\n  user_gap_s: {kind: empirical, q: [0.1, .inf]}\n", "timing.user_gap_s.q.1"),
    ("harness:\n  timeout_s: .inf\n", "harness.timeout_s"),
    ("unit_s: .nan\n", "unit_s"),
    ("timing:\n  backchannel_onset: [.nan, 0.1, 0.1]\n", "timing.backchannel_onset.0"),
])
def test_nan_and_inf_are_refused(tmp_path, text, field):
    f = _write(tmp_path / "c.yaml", text)
    with pytest.raises(ConfigError) as info:
        load_config(f)
    assert f"{field}: " in str(info.value) and "finite" in str(info.value), str(info.value)


def test_nan_through_the_cli(tmp_path, capsys):
    f = _write(tmp_path / "c.yaml", "acoustics:\n  snr_db: [5, .nan]\n")
    _refused(capsys, _generate(f, tmp_path / "d"), tmp_path / "d", "acoustics.snr_db.hi", "finite")


# ------------------------------------------------------------------------- 3. booleans are not numbers

@pytest.mark.parametrize("data, field", [
    ({"num": True}, "num"),
    ({"seed": False}, "seed"),
    ({"acoustics": {"snr_db": [True, 3]}}, "acoustics.snr_db.lo"),
    ({"timing": {"exchanges": [True, 3]}}, "timing.exchanges.0"),
    ({"timing": {"pause_s": [0.5, True]}}, "timing.pause_s.hi"),
    ({"unit_s": True}, "unit_s"),
    ({"acoustics": {"noise_prob": True}}, "acoustics.noise_prob"),
    ({"scenarios": {"pause": True}}, "scenarios.pause"),
])
def test_booleans_are_refused_where_numbers_are_expected(data, field):
    _config_error(data, f"{field}: ")


def test_an_int_still_fills_a_float_field():
    cfg = parse_config({"unit_s": 2, "acoustics": {"snr_db": [5, 20]}})
    assert cfg.unit_s == 2.0 and isinstance(cfg.unit_s, float) and cfg.acoustics.snr_db.lo == 5.0


def test_bool_through_the_cli(tmp_path, capsys):
    f = _write(tmp_path / "c.yaml", "num: true\n")
    _refused(capsys, _generate(f, tmp_path / "d"), tmp_path / "d", "num: ")


# -------------------------------------------------------------------- 4. bounds on what sizes work

@pytest.mark.parametrize("data, field, bound", [
    ({"num": C.MAX_NUM + 1}, "num", "100000000"),
    ({"timing": {"exchanges": [1_000_000, 1_000_000]}}, "timing.exchanges", f"<= {C.MAX_EXCHANGES}"),
    ({"timing": {"pause_s": {"kind": "normal", "mu": 1.0, "sigma": 0.5, "lo": 0.1}}}, "timing.pause_s", "60"),
    ({"timing": {"silence_s": [3, 1000]}}, "timing.silence_s", "60"),
    ({"timing": {"tail_s": [0.5, 1e6]}}, "timing.tail_s", "60"),
    ({"timing": {"lead_in_s": [0.5, 61]}}, "timing.lead_in_s", "60"),
    ({"timing": {"response_lead_s": [0, 100]}}, "timing.response_lead_s", "60"),
    ({"timing": {"user_gap_s": [0.1, 100]}}, "timing.user_gap_s", "60"),
    ({"timing": {"eot_s": {"kind": "lognormal", "mu": 0, "sigma": 1, "lo": 0.2}}}, "timing.eot_s", "60"),
    ({"timing": {"backchannel_per_min": [1e6, 1e6]}}, "timing.backchannel_per_min", "60"),
    ({"timing": {"backchannel_per_min": [-5, 3]}}, "timing.backchannel_per_min", "below 0"),
    ({"timing": {"target_gap_per_min": [3, 90]}}, "timing.target_gap_per_min", "60"),
    ({"timing": {"backchannel_onset": [-0.3, 0.2, 1e9]}}, "timing.backchannel_onset", "tau <= 5"),
    ({"timing": {"backchannel_onset": [-0.3, -0.2, 0.2]}}, "timing.backchannel_onset", "0 <= sigma"),
    ({"harness": {"timeout_s": 1e9}}, "harness.timeout_s", "120"),
    ({"harness": {"tools": {"search": {"latency_max_s": 1e9}}}}, "harness.tools.search.latency_max_s", "120"),
    ({"harness": {"tools": {"search": {"latency_median_s": 1e6}}}}, "harness.tools.search.latency_median_s", "120"),
    ({"max_shard_attempts": 1000}, "max_shard_attempts", "20"),
    ({"shard_size": 10_001}, "shard_size", "10000"),
    ({"scenarios": {"pause": 1e300}}, "scenarios.pause", "1000000"),
    ({"scenarios": {"pause": -1, "turn_taking": 1}}, "scenarios.pause", "0"),
    ({"acoustics": {"user_gain_db": [-6, 400]}}, "acoustics.user_gain_db", "40"),
    ({"acoustics": {"drr_db": [0, 1000]}}, "acoustics.drr_db", "40"),
    ({"acoustics": {"babble_talkers": [3, 100]}}, "acoustics.babble_talkers", "12"),
    ({"seed": 2**64}, "seed", str(2**63 - 1)),
])
def test_everything_that_sizes_work_has_an_upper_bound(data, field, bound):
    _config_error(data, f"{field}: ", bound)


def test_exchanges_bound_through_the_cli(tmp_path, capsys):
    f = _write(tmp_path / "c.yaml", "timing:\n  exchanges: [1000000, 1000000]\n")
    _refused(capsys, _generate(f, tmp_path / "d"), tmp_path / "d", "timing.exchanges", "<= 40")


def test_a_bounded_dist_is_accepted():
    cfg = parse_config({"timing": {"pause_s": {"kind": "normal", "mu": 1.0, "sigma": 0.5, "lo": 0.1, "hi": 3}}})
    assert cfg.timing.pause_s.support() == (0.1, 3.0)


# ------------------------------------------------- 5. unit_s, sample_rate, SNR the output can satisfy

def test_unit_s_below_the_measured_floor_is_refused(tmp_path, capsys):
    _config_error({"unit_s": 0.04}, "unit_s: ", f">= {C.MIN_UNIT_S}", "validate")
    f = _write(tmp_path / "c.yaml", "unit_s: 0.2\n")
    _refused(capsys, _generate(f, tmp_path / "d"), tmp_path / "d", "unit_s: ", f">= {C.MIN_UNIT_S}")


def test_unit_s_floor_is_higher_when_conversations_voice_long_breaks():
    conv = {"scenarios": {"conversation": 1.0}}
    _config_error({**conv, "unit_s": C.MIN_UNIT_S}, "unit_s: ", f">= {C.MIN_UNIT_S_LONG_BREAKS}",
                  "long_break_prob")
    parse_config({**conv, "unit_s": C.MIN_UNIT_S_LONG_BREAKS})
    parse_config({**conv, "unit_s": C.MIN_UNIT_S, "timing": {"long_break_prob": 0.0, "phrase_break_prob": 0.0}})
    parse_config({"unit_s": C.MIN_UNIT_S})   # the default families have no long breaks
    with pytest.raises(ConfigError, match="unit_s"):
        load_config(None, {"unit_s": C.MIN_UNIT_S}, preset="natural")


@pytest.mark.parametrize("rate", [8000, 11025, 12345, 96000])
def test_unsupported_sample_rates_are_refused(rate):
    _config_error({"sample_rate": rate}, "sample_rate: ", str(list(C.SUPPORTED_SAMPLE_RATES)))


@pytest.mark.parametrize("rate", C.SUPPORTED_SAMPLE_RATES)
def test_supported_sample_rates_are_accepted(rate):
    assert parse_config({"sample_rate": rate}).sample_rate == rate


@pytest.mark.parametrize("field, value, needle", [
    ("snr_db", [-100, 10], "[-30, 60] dB"),
    ("babble_snr_db", [0, 200], "[-30, 60] dB"),
    ("hum_snr_db", [20, 10], "must be >= lo"),
    ("noise_file_snr_db", [-31, 0], "[-30, 60] dB"),
])
def test_snr_ranges_are_finite_ordered_and_sane(field, value, needle):
    _config_error({"acoustics": {field: value}}, f"acoustics.{field}", needle)


# -------------------------------------------------------------------- 6. noise and RIR sources exist

def test_empty_noise_colors_with_noise_is_refused(tmp_path, capsys):
    _config_error({"acoustics": {"noise_colors": []}}, "acoustics: ", "noise_colors is empty")
    assert parse_config({"acoustics": {"noise_colors": [], "noise_prob": 0}}).acoustics.noise_colors == ()
    f = _write(tmp_path / "c.yaml", "acoustics:\n  noise_colors: []\n")
    _refused(capsys, _generate(f, tmp_path / "d"), tmp_path / "d", "noise_colors is empty")


def test_noise_dir_without_audio_is_refused_by_preflight(tmp_path):
    folder = tmp_path / "noises"
    folder.mkdir()
    (folder / "README.txt").write_text("no audio here")
    cfg = parse_config({"acoustics": {"noise_dir": str(folder), "noise_file_prob": 0.5}})
    with pytest.raises(ConfigError, match=r"acoustics\.noise_dir: no \.wav/\.flac file under .*noises"):
        preflight(cfg)
    _wav(folder / "sub" / "hum.wav")
    preflight(cfg)   # one audio file, in a subfolder, is enough


def test_rir_dir_without_audio_is_refused_by_preflight(tmp_path):
    folder = tmp_path / "rirs"
    folder.mkdir()
    cfg = parse_config({"acoustics": {"rir_dir": str(folder), "reverb_prob": 0.3, "reverb_kinds": ["file"]}})
    with pytest.raises(ConfigError, match=r"acoustics\.rir_dir: no \.wav/\.flac file under"):
        preflight(cfg)
    preflight(parse_config({"acoustics": {"rir_dir": str(folder), "reverb_prob": 0.3, "reverb_kinds": ["exp"]}}))
    _wav(folder / "room.wav", 0.3)
    preflight(cfg)


# ---------------------------------------------------------------------------------------- 7. language

def test_unsupported_language_is_refused_naming_the_supported_ones(tmp_path, capsys):
    _config_error({"language": "fr"}, "language: ", "'fr'", "supported: ['en', 'zh']")
    assert C.SUPPORTED_LANGUAGES == ("en", "zh")
    assert parse_config({"language": "zh"}).language == "zh"
    f = _write(tmp_path / "c.yaml", "language: fr\n")
    _refused(capsys, _generate(f, tmp_path / "d"), tmp_path / "d", "language: ", "['en', 'zh']")


def test_a_language_mix_is_weights_and_excludes_language(tmp_path, capsys):
    mix = parse_config({"languages": {"en": 0.5, "zh": 0.5}})
    assert mix.language_weights() == {"en": 0.5, "zh": 0.5}
    assert parse_config(yaml.safe_load(dump_config(mix))) == mix   # the dump holds `languages` only
    _config_error({"language": "zh", "languages": {"en": 1.0}}, "language and languages", "not both")
    _config_error({"languages": {"de": 1.0}}, "languages: ", "['de']", "supported: ['en', 'zh']")
    _config_error({"languages": {"en": 0.0, "zh": 0.0}}, "languages: ", "at least one language")
    f = _write(tmp_path / "c.yaml", "language: en\nlanguages: {zh: 1}\n")
    _refused(capsys, _generate(f, tmp_path / "d"), tmp_path / "d", "language and languages", "not both")
    # the zh bank has no web-search requests: a zh run with only that tool cannot make a delegation family
    f = _write(tmp_path / "c2.yaml", "language: zh\nharness: {tools: {search: {}}}\n"
                                     "scenarios: {delegation_cancel: 1, pause: 1}\n")
    _refused(capsys, _generate(f, tmp_path / "d2"), tmp_path / "d2", "scenarios: ", "delegation_cancel",
             "language zh", "no delegated requests for the tools enabled (search)")
    # a run without a mix hashes as before `languages` existed
    assert "languages" not in RunConfig().model_dump()


# ------------------------------------------------------------------------- 8. the tokenizer ONNX file

def test_tokenizer_onnx_is_checked_before_any_worker(tmp_path):
    good = build_tiny_s3_onnx(tmp_path / "speech_tokenizer_v2.onnx")
    preflight(parse_config({"speech_tokenizer": {"onnx_path": str(good)}}))
    text = _write(tmp_path / "speech_tokenizer_v3.onnx", "not a model\n")
    with pytest.raises(ConfigError, match=r"speech_tokenizer\.onnx_path: .*speech_tokenizer_v3\.onnx: cannot be "
                                          r"loaded as an ONNX model"):
        preflight(parse_config({"speech_tokenizer": {"onnx_path": str(text)}}))
    wrong = build_wrong_signature_onnx(tmp_path / "wrong.onnx")
    with pytest.raises(ConfigError) as info:
        preflight(parse_config({"speech_tokenizer": {"onnx_path": str(wrong)}}))
    msg = str(info.value)
    assert "wrong.onnx: not an S3 speech tokenizer" in msg and "found inputs (mel" in msg and "\n" not in msg


def test_check_onnx_model_is_a_usage_error(tmp_path):
    from pipeline.speech_tokens import check_onnx_model
    with pytest.raises(UsageError, match="not found"):
        check_onnx_model(tmp_path / "missing.onnx")
    check_onnx_model(build_tiny_s3_onnx(tmp_path / "ok.onnx"))


def test_submit_refuses_a_bad_tokenizer_before_contacting_a_cluster(tmp_path, capsys):
    text = _write(tmp_path / "tok.onnx", "not a model\n")
    f = _write(tmp_path / "c.yaml", f"speech_tokenizer:\n  onnx_path: {text}\n")
    # no cluster runs at this address: reaching it would be a different error (ClusterError)
    _refused(capsys, ["submit", "--address", "http://127.0.0.1:9", "--config", str(f), "--out", str(tmp_path / "d"),
                      "--no-wait"], tmp_path / "d", "speech_tokenizer.onnx_path", "cannot be loaded as an ONNX model")


def test_generate_refuses_a_bad_tokenizer_before_writing(tmp_path, capsys):
    wrong = build_wrong_signature_onnx(tmp_path / "wrong.onnx")
    f = _write(tmp_path / "c.yaml", f"speech_tokenizer:\n  onnx_path: {wrong}\n")
    _refused(capsys, _generate(f, tmp_path / "d"), tmp_path / "d", "speech_tokenizer.onnx_path",
             "not an S3 speech tokenizer")


# ------------------------------------------------------------------------------ 9. negative seeds

def test_negative_seed_is_refused_in_config_and_on_the_cli(tmp_path, capsys):
    _config_error({"seed": -1}, "seed: ", "greater than or equal to 0")
    with pytest.raises(SystemExit) as info:
        main(["generate", "--seed", "-1", "--out", str(tmp_path / "d")])
    assert info.value.code == 2
    assert "argument --seed: must be >= 0" in capsys.readouterr().err.splitlines()[-1]
    assert not (tmp_path / "d").exists()


def test_a_failing_seed_is_a_failed_record_not_a_lost_shard(tmp_path):
    """Seed and scenario are computed inside the per-trajectory try: a failure there is a record."""
    cfg = RunConfig.model_construct(**{**dict(RunConfig()), "seed": -1, "num": 2, "shard_size": 2})
    s = run_shard(cfg, ShardPlan(0, 0, 2), tmp_path, tts=object())
    assert s.rows == 0 and s.failed == 2
    failed = pq.read_table(tmp_path / s.failed_path).to_pylist()
    assert [f["index"] for f in failed] == [0, 1] and all(f["seed"] == -1 for f in failed)
    assert all("ValueError" in f["error"] for f in failed)
    assert (tmp_path / "summaries" / "shard-00000.json").exists()


# ----------------------------------------------------------------------- 10. generate's own options

@pytest.mark.parametrize("option, value", [
    ("--workers", "-1"), ("--workers", "0"), ("--num", "0"), ("--shard-size", "0"), ("--max-in-flight", "0"),
    ("--progress-interval", "-1"), ("--progress-interval", "nan"), ("--progress-interval", "inf"),
    ("--num", "many"), ("--workers", "2.5"),
])
def test_generate_options_are_checked(tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as info:
        main(["generate", "--out", str(tmp_path / "d"), f"{option}={value}"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: must be" in err.splitlines()[-1] and "Traceback" not in err, err
    assert not (tmp_path / "d").exists()


# ------------------------------------------------------------- 11. dead config and the fault hook

@pytest.mark.parametrize("data, field", [({"tts": {"voices": ["en-us"]}}, "tts.voices"),
                                         ({"fail_on": ["s0-00000-0000000"]}, "fail_on")])
def test_removed_fields_are_refused(data, field):
    _config_error(data, f"{field}: Extra inputs are not permitted")


def test_row_faults_come_from_the_environment_not_the_config():
    faults = read_faults({"DUPLEXSYNTH_FAULTS": "raise:2,row:s3-00000-0000001"})
    assert faults["rows"] == ["s3-00000-0000001"] and faults["shards"] == {2: "raise"}
    with pytest.raises(ValueError, match="row:TRAJECTORY_ID"):
        read_faults({"DUPLEXSYNTH_FAULTS": "row:"})
    assert "fail_on" not in RunConfig.model_fields


# --------------------------------------------------------------------- 12. one-line error messages

def test_every_bad_field_is_named_on_one_line():
    msg = _config_error({"timing": {"eot_s": [0.1, 0.3]}, "acoustics": {"snr_db": [5, 100]}, "num": 0})
    assert msg.startswith("invalid config (t.yaml): ")
    assert "timing.eot_s: eot_s.lo must be >= 0.2 s" in msg and "; acoustics.snr_db: " in msg and "num: " in msg
    assert "Value error" not in msg and ".range." not in msg


# ----------------------------------------------------------------------- defaults and presets

def test_defaults_and_every_preset_validate_and_round_trip(tmp_path):
    for preset in [None, *list_presets()]:
        cfg = load_config(None, preset=preset)
        f = _write(tmp_path / "c.yaml", dump_config(cfg))
        again = load_config(f)
        assert again == cfg and again.config_hash() == cfg.config_hash()
        preflight(cfg)
    assert RunConfig.model_validate_json(RunConfig().model_dump_json()) == RunConfig()
    assert math.isclose(load_config(None).unit_s, 1.0)
