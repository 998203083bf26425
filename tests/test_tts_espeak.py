"""Real-library tests of the espeak-ng TTS backend (no mocks): the audio/timing contract the
composer relies on, determinism, and use from a spawned worker process."""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import pickle
import threading

import numpy as np
import pytest

from pipeline.tts import DEFAULT_VOICES, EspeakBackend, Synthesis, TTSBackend, WordTiming
from pipeline.tts.espeak import voice_language
from schemas.language import CHINESE
from schemas.script import VoiceSpec
from schemas.thresholds import SPEECH_FLOOR_AMP

THR = SPEECH_FLOOR_AMP
SENTENCE = "Sure, I can help with that. The weather in Paris tomorrow looks sunny."
TRICKY = [
    SENTENCE,
    "I paid 20 dollars at 3:45 on 1,234,567 things.",
    "Café naïve résumé — déjà vu!",
    "Well - I think so... maybe; yes!",
    "It costs $20, i.e. 20% more (e.g. U.S.A. prices), don't you think?",
    "  leading and\ttrailing whitespace \n",
]


@pytest.fixture(scope="module")
def tts() -> EspeakBackend:
    return EspeakBackend()


def _digest(s: Synthesis) -> str:
    return hashlib.sha256(s.audio.tobytes()).hexdigest()


def _check_timings(s: Synthesis, text: str) -> None:
    assert [w.word for w in s.words] == text.split()
    dur = s.duration_s
    prev_end = 0.0
    for w in s.words:
        assert isinstance(w, WordTiming)
        assert prev_end <= w.start_s <= w.end_s <= dur + 1e-9, (w, prev_end, dur)
        prev_end = w.end_s


def test_implements_protocol(tts: EspeakBackend) -> None:
    assert isinstance(tts, TTSBackend)
    ident = tts.identity()
    assert ident["backend"] == "espeak-ng"
    assert ident["version"].startswith("1.")


def test_sentence_audio_is_plausible(tts: EspeakBackend) -> None:
    s = tts.synthesize(SENTENCE, VoiceSpec(name="en-us"), 16000)
    assert s.sample_rate == 16000
    assert s.audio.dtype == np.float32 and s.audio.ndim == 1
    # 12 words at 170 wpm, plus a sentence pause: a few seconds
    assert 2.5 < s.duration_s < 7.0
    assert np.abs(s.audio).max() <= 0.9 + 1e-6
    # loudness normalised to about -20 dBFS over active 10 ms frames
    frames = s.audio[: len(s.audio) // 160 * 160].astype(np.float64).reshape(-1, 160)
    rms = np.sqrt((frames**2).mean(axis=1))
    active = rms[rms >= rms.max() * 0.01]
    level = 20 * np.log10(np.sqrt((active**2).mean()))
    assert -22.5 < level < -19.5


@pytest.mark.parametrize("text", TRICKY)
def test_one_timing_per_token_monotone(tts: EspeakBackend, text: str) -> None:
    s = tts.synthesize(text, VoiceSpec(name="en-us"), 16000)
    _check_timings(s, text)
    # every token with letters or digits is actually voiced
    for w in s.words:
        if any(c.isalnum() for c in w.word):
            assert w.end_s - w.start_s > 0.04, w


def test_word_times_follow_speech(tts: EspeakBackend) -> None:
    s = tts.synthesize(SENTENCE, VoiceSpec(name="en-us"), 16000)
    words = s.words
    assert words[0].start_s == 0.0
    assert abs(words[-1].end_s - s.duration_s) < 0.005
    # the sentence pause after "that." is silence, not part of either word
    that, the = words[5], words[6]
    assert that.word == "that." and the.word == "The"
    gap = s.audio[round(that.end_s * 16000) : round(the.start_s * 16000)]
    assert the.start_s - that.end_s > 0.1
    assert np.abs(gap).max() < THR


def test_number_token_gets_one_timing(tts: EspeakBackend) -> None:
    text = "I paid 20 dollars for 1,234,567 grains."
    s = tts.synthesize(text, VoiceSpec(name="en-us"), 16000)
    _check_timings(s, text)
    twenty, big = s.words[2], s.words[5]
    assert twenty.word == "20" and big.word == "1,234,567"
    assert 0.2 < twenty.end_s - twenty.start_s < 1.0  # "twenty"
    assert big.end_s - big.start_s > 2.0  # "one million two hundred and thirty four thousand ..."


def test_resampling_lengths(tts: EspeakBackend) -> None:
    v = VoiceSpec(name="en-us+f3")
    out = {sr: tts.synthesize(SENTENCE, v, sr) for sr in (16000, 22050, 24000)}
    base = out[22050].duration_s
    for sr, s in out.items():
        assert s.sample_rate == sr
        assert abs(s.duration_s - base) < 0.005  # same utterance, within trimming jitter
        for a, b in zip(s.words, out[22050].words):
            assert abs(a.start_s - b.start_s) < 0.005 and abs(a.end_s - b.end_s) < 0.005
    ratio = len(out[24000].audio) / len(out[16000].audio)
    assert abs(ratio - 1.5) < 0.005


def test_deterministic_bytes(tts: EspeakBackend) -> None:
    v = VoiceSpec(name="en-us", rate=180, pitch=55)
    first = tts.synthesize(SENTENCE, v, 16000)
    tts.synthesize("Something else in between, with another voice.", VoiceSpec(name="en+m3"), 24000)
    second = tts.synthesize(SENTENCE, v, 16000)
    third = EspeakBackend().synthesize(SENTENCE, v, 16000)
    assert _digest(first) == _digest(second) == _digest(third)
    assert first.words == second.words == third.words
    other = tts.synthesize(SENTENCE, VoiceSpec(name="en-us", rate=150, pitch=55), 16000)
    assert _digest(other) != _digest(first)


def test_concurrent_threads_are_serialised(tts: EspeakBackend) -> None:
    ref = _digest(tts.synthesize(SENTENCE, VoiceSpec(name="en-us"), 16000))
    results: list[str] = []

    def work() -> None:
        results.append(_digest(tts.synthesize(SENTENCE, VoiceSpec(name="en-us"), 16000)))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [ref] * 4


@pytest.mark.parametrize("voice", DEFAULT_VOICES[:4] + [VoiceSpec(name="en-gb-x-rp+f4", rate=300)])
@pytest.mark.parametrize("sr", [16000, 24000])
def test_trimmed_to_speech(tts: EspeakBackend, voice: VoiceSpec, sr: int) -> None:
    s = tts.synthesize("Okay, hmm... let me check that for you.", voice, sr)
    edge = int(0.005 * sr)
    assert np.abs(s.audio[:edge]).max() >= THR
    assert np.abs(s.audio[-edge:]).max() >= THR


def test_default_voices_all_work_and_differ(tts: EspeakBackend) -> None:
    assert len(DEFAULT_VOICES) >= 10
    assert len(set(DEFAULT_VOICES)) == len(DEFAULT_VOICES)
    digests = set()
    for v in DEFAULT_VOICES:
        s = tts.synthesize(SENTENCE, v, 16000)
        _check_timings(s, SENTENCE)
        assert 2.0 < s.duration_s < 8.0, v
        digests.add(_digest(s))
    assert len(digests) == len(DEFAULT_VOICES)


def test_voice_roundtrip() -> None:
    v = VoiceSpec(name="en-us+f3", rate=175, pitch=60, pitch_range=40)
    assert VoiceSpec.model_validate_json(v.model_dump_json()) == v
    assert {v: 1}[VoiceSpec(name="en-us+f3", rate=175, pitch=60, pitch_range=40)] == 1


def test_planned_voice_is_what_the_backend_speaks(tts: EspeakBackend) -> None:
    """The voice a real planned script carries goes to the backend as is (one voice type)."""
    from generators.registry import plan_script
    from schemas.config import TimingConfig
    from tests.generated import FAST_VOICES

    turn = plan_script("turn_taking", 3, TimingConfig(), voices=FAST_VOICES).turns[0]
    assert type(turn.voice) is VoiceSpec
    s = tts.synthesize(turn.text, turn.voice, 16000)
    _check_timings(s, turn.text)
    same = VoiceSpec.model_validate(turn.voice.model_dump())   # as a row's meta records it
    assert _digest(tts.synthesize(turn.text, same, 16000)) == _digest(s)


def test_language_code_alias(tts: EspeakBackend) -> None:
    # espeak names British English's voice file "en"; the language code must work too
    gb = tts.synthesize("Hello there", VoiceSpec(name="en-gb+f4"), 16000)
    assert _digest(gb) == _digest(tts.synthesize("Hello there", VoiceSpec(name="en+f4"), 16000))


@pytest.mark.parametrize("name", ["xx-nosuch", "en-us+nosuchvariant", "+f3", ""])
def test_unknown_voice_raises_clear_error(tts: EspeakBackend, name: str) -> None:
    with pytest.raises(ValueError, match="unknown espeak-ng voice") as err:
        tts.synthesize("hello", VoiceSpec(name=name), 16000)
    assert "en-us" in str(err.value) and "f3" in str(err.value)


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_text_raises(tts: EspeakBackend, text: str) -> None:
    with pytest.raises(ValueError, match="empty"):
        tts.synthesize(text, VoiceSpec(name="en-us"), 16000)


def test_bad_parameters_raise(tts: EspeakBackend) -> None:
    with pytest.raises(ValueError, match="rate"):
        tts.synthesize("hello", VoiceSpec(name="en-us", rate=5), 16000)
    with pytest.raises(ValueError, match="pitch"):
        tts.synthesize("hello", VoiceSpec(name="en-us", pitch=150), 16000)
    with pytest.raises(ValueError, match="sample_rate"):
        tts.synthesize("hello", VoiceSpec(name="en-us"), 0)


def test_list_voices(tts: EspeakBackend) -> None:
    voices = tts.list_voices()
    assert {"en", "en-us", "en-gb-scotland"} <= set(voices)
    assert {"f3", "m3"} <= set(tts.list_variants())


def _synth_in_child(blob: bytes) -> tuple[str, tuple[WordTiming, ...]]:
    backend = pickle.loads(blob)
    s = backend.synthesize(SENTENCE, VoiceSpec(name="en+m3"), 24000)
    return _digest(s), s.words


def test_pickle_and_spawned_process(tts: EspeakBackend) -> None:
    tts.synthesize("warm up the library first", VoiceSpec(name="en-us"), 16000)  # state must not travel
    blob = pickle.dumps(tts)
    ref = tts.synthesize(SENTENCE, VoiceSpec(name="en+m3"), 24000)
    with mp.get_context("spawn").Pool(1) as pool:
        digest, words = pool.apply(_synth_in_child, (blob,))
    assert digest == _digest(ref)
    assert words == ref.words


# --- Mandarin (espeak-ng `cmn`, tokens from schemas.language.CHINESE) ------------------------------
# Thirty everyday sentences, 263 jieba words (requests, times, numbers, corrections, mixed Latin).
ZH_SENTENCES = [
    "今天北京的天气怎么样？",
    "明天下午三点提醒我去开会。",
    "好的，我已经帮你把闹钟设在早上七点。",
    "等一下，不对，我说的是上海，不是北京。",
    "你能帮我查一下去广州的火车票吗？",
    "这家餐厅的评价还不错，离你大概两公里。",
    "我想把客厅的灯调暗一点。",
    "嗯，对，就是那个周末的安排。",
    "外面正在下雨，出门记得带伞。",
    "你最近在看什么书？",
    "这个月的电费比上个月多了一百二十块。",
    "我们先去超市买点水果，然后再回家做饭。",
    "他说会议推迟到下周三了。",
    "请把音乐的声音调小一点，孩子在睡觉。",
    "从这里开车到机场大概需要四十分钟。",
    "我觉得这个计划挺好的，不过预算有点紧张。",
    "帮我给妈妈发一条消息，说我晚点到。",
    "周末的时候你一般喜欢做什么？",
    "这道题的答案应该是二十五。",
    "飞机已经起飞了，预计晚上九点到达。",
    "对不起，我刚才没听清楚，你能再说一遍吗？",
    "学习一门新的语言需要很多耐心。",
    "你可以先休息一下，我来处理剩下的事情。",
    "图书馆每天早上八点开门，晚上十点关门。",
    "我把Wi-Fi密码改了，新的密码在冰箱上。",
    "帮我查一下iPhone 15现在多少钱。",
    "明天下午3点有一个电话会议。",
    "这件衣服打完折以后只要九十九块钱。",
    "今年夏天我们打算去云南旅游。",
    "医生说你需要多喝水，早点睡觉。",
]

#: sha256 over audio bytes and word timings of TRICKY x (en-us, en-gb+f4) x (16, 24 kHz): English
#: output must not change by accident. Re-recorded for issue #18 (espeak is given the spoken form,
#: "$20," as "twenty dollars,", and timings come from phoneme events); it was e8ce1a1c... since
#: Mandarin tokenisation. (A new espeak-ng or soxr build changes it legitimately; then re-record it.)
#: Re-recorded when an event inside a word stopped starting a run (spoken._inside_word): espeak puts
#: "vu" of "déjà vu" inside "déjà", which timed "vu!" 116-128 ms late; audio unchanged (was 864a2850...).
EN_DIGEST_BEFORE = "69060f4d7f696c086e1424ce9f22b92b3c5a6f4090ef1f9113612f9e5d07cfaa"


def test_english_bytes_and_timings_unchanged(tts: EspeakBackend) -> None:
    h = hashlib.sha256()
    for text in TRICKY:
        for v in (VoiceSpec(name="en-us"), VoiceSpec(name="en-gb+f4", rate=165, pitch=50)):
            for sr in (16000, 24000):
                s = tts.synthesize(text, v, sr)
                h.update(s.audio.tobytes())
                h.update(repr(s.words).encode())
    assert h.hexdigest() == EN_DIGEST_BEFORE


def test_voice_decides_the_tokens() -> None:
    assert voice_language(VoiceSpec(name="cmn")) is CHINESE
    assert voice_language(VoiceSpec(name="cmn+f3")) is CHINESE
    for name in ("en-us", "en-gb+f4", "cmn-latn-pinyin", "yue"):   # spaced or romanised: whitespace tokens
        assert voice_language(VoiceSpec(name=name)) is None


def _check_zh_timings(s: Synthesis, text: str) -> None:
    assert [w.word for w in s.words] == CHINESE.words(text)
    prev_end = 0.0
    for w in s.words:
        assert prev_end <= w.start_s <= w.end_s <= s.duration_s + 1e-9, (w, prev_end)
        assert w.end_s - w.start_s > 0.04, w   # every jieba word is voiced, none left at zero length
        prev_end = w.end_s
    assert s.words[0].start_s == 0.0


@pytest.mark.parametrize("voice", [VoiceSpec(name="cmn"), VoiceSpec(name="cmn+f3", rate=175, pitch=55)])
def test_zh_one_timing_per_jieba_word_monotone(tts: EspeakBackend, voice: VoiceSpec) -> None:
    for text in ZH_SENTENCES:
        _check_zh_timings(tts.synthesize(text, voice, 16000), text)


def test_zh_mixed_latin_and_digits(tts: EspeakBackend) -> None:
    text = "帮我查一下iPhone 15现在多少钱。"
    s = tts.synthesize(text, VoiceSpec(name="cmn"), 16000)
    _check_zh_timings(s, text)
    assert [w.word for w in s.words][4:6] == ["iPhone ", "15"]
    assert CHINESE.join(w.word for w in s.words) == text


def test_zh_deterministic(tts: EspeakBackend) -> None:
    text = ZH_SENTENCES[1]
    first = tts.synthesize(text, VoiceSpec(name="cmn+f3"), 16000)
    tts.synthesize(SENTENCE, VoiceSpec(name="en-us"), 16000)
    second = EspeakBackend().synthesize(text, VoiceSpec(name="cmn+f3"), 16000)
    assert _digest(first) == _digest(second) and first.words == second.words


def _start_errors_ms(tts: EspeakBackend, voice: VoiceSpec) -> np.ndarray:
    """How far each word's start lies from where the audio says it starts, in ms.

    The audio's answer: synthesise the sentence from word i on; the full utterance minus that
    suffix's length is where word i starts (both end on the same sentence end, so the final
    lengthening cancels). Words after a pause mark are skipped (the suffix starts on speech).
    """
    errs = []
    for text in ZH_SENTENCES:
        s = tts.synthesize(text, voice, 16000)
        toks = [w.word for w in s.words]
        pauses = set(CHINESE.phrase_boundaries(text))
        for i in range(1, len(toks)):
            if i - 1 in pauses:
                continue
            suffix = tts.synthesize(CHINESE.join(toks[i:]), voice, 16000)
            errs.append((s.words[i].start_s - (s.duration_s - suffix.duration_s)) * 1000)
    return np.abs(np.array(errs))


@pytest.mark.parametrize("voice", [VoiceSpec(name="cmn"), VoiceSpec(name="cmn+f3", rate=175, pitch=55)])
def test_zh_word_starts_match_the_audio(tts: EspeakBackend, voice: VoiceSpec) -> None:
    """Measured over 214 jieba words of the 30 sentences: cmn |err| p50 17 ms, p90 43, p99 92, max 277;
    cmn+f3 p50 26, p90 48, p99 101, max 265. The English DP on these short tokens (it shifts whole
    runs of events by one word rather than leave a token without one) gives p99 362, max 780-811."""
    err = _start_errors_ms(tts, voice)
    assert len(err) >= 200
    assert np.percentile(err, 50) < 40
    assert np.percentile(err, 90) < 80
    assert np.percentile(err, 99) < 200
    assert err.max() < 350


def test_zh_pool_voices_render_and_differ(tts: EspeakBackend) -> None:
    from generators.voices import ASSISTANT_VOICES_ZH, PEOPLE_VOICES_ZH

    text = ZH_SENTENCES[2]
    digests = set()
    for v in ASSISTANT_VOICES_ZH + PEOPLE_VOICES_ZH:
        s = tts.synthesize(text, v, 16000)
        _check_zh_timings(s, text)
        digests.add(_digest(s))
    assert len(digests) == len(ASSISTANT_VOICES_ZH) + len(PEOPLE_VOICES_ZH)
