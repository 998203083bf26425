"""Choosing CosyVoice in a run config (no model needed): refusals before anything is written, the
dump at its default, and where native tokens land in the assistant channel (pipeline/native_tokens).
The end-to-end run with the tiny model is in tests/test_tts_cosyvoice.py."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from jobs.cli import main
from jobs.cosyvoice_actor import REQUIRED_FILES
from pipeline.native_tokens import overlay_native
from pipeline.tts.base import Synthesis
from schemas.config import RunConfig
from schemas.protocol import NATIVE_TOKENS, RETOKENIZED
from schemas.script import VoiceSpec
from schemas.timeline import Cut, SpeechSource, Stem, Track


def _model(root: Path, files: bool = True, wav: bool = True, txt: bool = True) -> Path:
    d = root / "CosyVoice2-x"
    (d / "prompts").mkdir(parents=True)
    for f in REQUIRED_FILES if files else ():
        (d / f).touch()
    if wav:
        sf.write(d / "prompts" / "alice.wav", np.full(1600, 0.1, np.float32), 16000)
    if txt:
        (d / "prompts" / "alice.txt").write_text("hello there.", encoding="utf-8")
    return d


def _generate(tmp_path: Path, voices: dict, capsys, **extra) -> tuple[int, str]:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(json.dumps({"voices": voices, **extra}), encoding="utf-8")
    rc = main(["generate", "--config", str(cfg), "--num", "2", "--out", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert not (tmp_path / "out").exists()   # nothing written
    return rc, err


@pytest.mark.parametrize("case, want", [
    ("no_folder", "voices.cosyvoice.model_dir: folder not found"),
    ("no_model_file", "voices.cosyvoice.model_dir: cosyvoice model folder"),
    ("no_transcript", "alice.txt does not exist"),
    ("no_recording", "no voice 'cosyvoice:alice' in the voice bank"),
    ("speed_without_tokenizer", "voices.cosyvoice.speed: 1.2 time-stretches"),
])
def test_bad_cosyvoice_config_is_one_line_exit_2(tmp_path, capsys, case, want):
    d = (tmp_path / "nope" if case == "no_folder" else
         _model(tmp_path, files=case != "no_model_file", wav=case != "no_recording", txt=case != "no_transcript"))
    cosy = {"model_dir": str(d), **({"speed": 1.2} if case == "speed_without_tokenizer" else {})}
    rc, err = _generate(tmp_path, {"cast": "espeak", "assistant": "cosyvoice:alice", "cosyvoice": cosy}, capsys)
    assert rc == 2 and len(err.splitlines()) == 1 and want in err, err


def test_default_dump_leaves_cosyvoice_out(tmp_path):
    assert not {"cosyvoice", "aligner"} & set(RunConfig().model_dump(mode="json")["voices"])
    d = _model(tmp_path)
    cfg = RunConfig.model_validate({"voices": {"cosyvoice": {"model_dir": str(d)}}})
    assert cfg.model_dump(mode="json")["voices"]["cosyvoice"] == {"model_dir": str(d), "speed": 1.0, "actors": 1}
    assert cfg.config_hash() != RunConfig().config_hash()
    # lines per actor call change no byte: dumped when set, never hashed; an instruction is both
    batched = RunConfig.model_validate({"voices": {"cosyvoice": {"model_dir": str(d), "batch_size": 3}}})
    assert batched.model_dump(mode="json")["voices"]["cosyvoice"]["batch_size"] == 3
    assert batched.config_hash() == cfg.config_hash()
    instructed = RunConfig.model_validate({"voices": {"cosyvoice": {"model_dir": str(d), "instruct": "softly"}}})
    assert instructed.config_hash() != cfg.config_hash()


def _qwen_yaml(d: Path) -> None:
    """A cosyvoice2.yaml naming CosyVoice 2's LM and Qwen tokenizer, as a released folder's does."""
    (d / "cosyvoice2.yaml").write_text("llm: !new:cosyvoice.llm.llm.Qwen2LM\n"
                                       "get_tokenizer: !name:cosyvoice.tokenizer.tokenizer.get_qwen_tokenizer\n",
                                       encoding="utf-8")


@pytest.mark.parametrize("case, want", [
    ("instruct_without_instruct_mode", "voices.cosyvoice.instruct: "),
    ("aligner_folder_missing", "voices.aligner.model_dir: folder not found"),
    ("aligner_not_a_ctc_folder", "lacks config.json, vocab.json"),
    ("aligner_without_cosyvoice", "voices: aligner times CosyVoice voices only"),
])
def test_bad_instruct_or_aligner_is_one_line_exit_2(tmp_path, capsys, case, want):
    d = _model(tmp_path)
    voices: dict = {"cast": "espeak", "assistant": "cosyvoice:alice", "cosyvoice": {"model_dir": str(d)}}
    if case == "instruct_without_instruct_mode":   # an empty yaml: no Qwen2LM, no <|endofprompt|> tokenizer
        voices["cosyvoice"]["instruct"] = "speak softly."
    else:
        (tmp_path / "ctc").mkdir()
        voices["aligner"] = {"kind": "ctc", "model_dir": str(tmp_path / ("nope" if "missing" in case else "ctc"))}
    if case == "aligner_without_cosyvoice":   # a well-formed CTC folder, with nothing to align
        for f in ("config.json", "vocab.json", "model.safetensors"):
            (tmp_path / "ctc" / f).touch()
        voices = {"cast": "espeak", "aligner": voices["aligner"]}
    rc, err = _generate(tmp_path, voices, capsys)
    assert rc == 2 and len(err.splitlines()) == 1 and want in err, err
    if case == "instruct_without_instruct_mode":
        assert "has no instruct mode" in err


def test_instruct_and_batch_size_reach_the_backend(tmp_path):
    """A CosyVoice 2 folder has instruct mode; the instruction joins every request (and its seed)."""
    from jobs.cosyvoice_actor import instruct_refusal
    from jobs.shards import batch_size
    from pipeline.tts import tts_for_voices

    d = _model(tmp_path)
    assert instruct_refusal(d) is not None
    _qwen_yaml(d)
    assert instruct_refusal(d) is None
    cfg = RunConfig.model_validate({"voices": {"cast": "espeak", "assistant": "cosyvoice:alice", "cosyvoice": {
        "model_dir": str(d), "instruct": "speak softly.", "batch_size": 5}}})
    router = tts_for_voices(cfg.voices, lambda model_dir: None)
    cosy = router.engines["cosyvoice"]
    req = cosy.request("hi there.", VoiceSpec(name="cosyvoice:alice"))
    assert req["instruct"] == "speak softly." and cosy.identity()["instruct"] == "speak softly."
    plain = tts_for_voices(RunConfig.model_validate({"voices": {"cast": "espeak", "assistant": "cosyvoice:alice",
                                                               "cosyvoice": {"model_dir": str(d)}}}).voices,
                           lambda model_dir: None).engines["cosyvoice"]
    assert "instruct" not in plain.request("hi there.", VoiceSpec(name="cosyvoice:alice"))
    assert plain.request("hi there.", VoiceSpec(name="cosyvoice:alice"))["seed"] != req["seed"]
    assert batch_size(cfg) == 5 and batch_size(RunConfig()) == 1


def _track(offset: int, voice: str, text: str, ops: tuple = ()) -> Track:
    return Track(event_id=text, stem=Stem.ASSISTANT, offset=offset,
                 source=SpeechSource(text=text, voice=VoiceSpec(name=voice)), ops=ops)


def test_native_tokens_land_where_the_line_sounds():
    """Native token j goes to the 25 Hz slot nearest its time; tokens of the trimmed lead-in, and
    after an interruption's cut, are not placed; a voice without its own tokens is retokenized."""
    sr = 16000
    native = np.arange(100, 125)   # 25 tokens = 1 s of the engine's audio
    # 0.1 s was trimmed from the front: token 0 is heard 0.1 s before audio[0] (2.5 tokens)
    syn = {"a": Synthesis(np.ones(int(0.9 * sr), np.float32), sr, (), speech_tokens=native, tokens_start_s=-0.1),
           "b": Synthesis(np.ones(sr, np.float32), sr, ())}
    speak = lambda text, voice: syn[text]  # noqa: E731
    base = np.zeros(200, np.int16)
    tracks = [_track(2 * sr, "cosyvoice:alice", "a"), _track(5 * sr, "en-us", "b")]
    out, src = overlay_native(base, tracks, speak, sr)
    assert src == {"cosyvoice:alice": NATIVE_TOKENS, "en-us": RETOKENIZED}
    # the line sounds from 2.0 s; token 0 at 1.9 s -> slot 48 (47.5 rounded half up); tokens 0 and 1
    # have their middle (1.92, 1.96 s) before 2.0 s (the trimmed lead-in): not placed
    assert list(out[50:73]) == list(native[2:])
    assert not out[:50].any() and not out[73:].any()
    cut = [_track(2 * sr, "cosyvoice:alice", "a", (Cut(at=sr // 2, fade=160),))]
    out, _ = overlay_native(base, cut, speak, sr)
    assert list(out[50:63]) == list(native[2:15]) and not out[63:].any()   # none whose middle is past 2.5 s


def test_actors_share_the_gpus_in_shares_that_fit_one_gpu():
    from jobs.cosyvoice_actor import gpu_share

    assert [gpu_share(0, 2), gpu_share(1, 1), gpu_share(1, 4), gpu_share(2, 3), gpu_share(8, 3)] == [0.0, 1.0, 0.25, 0.5, 1.0]
    for gpus in (1, 2, 3):   # the actors always fit: whole shares per GPU, enough GPUs for them all
        for actors in range(1, 10):
            share = gpu_share(gpus, actors)
            assert gpus * int(round(1 / share)) >= actors and share <= 1.0
