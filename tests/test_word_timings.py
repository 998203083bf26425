"""Word timings stay true where the written word is not the spoken one (issue #18).

Real parts only: the espeak-ng backend, the spoken forms of pipeline/tts/spoken.py, rows from the
real planners and composer. The audio's own answer for where written token i starts: synthesise
the spoken form from token i on; its sounds (espeak's phonemes, pauses left out) are the last
sounds of the whole utterance, so the whole one's sound number len(full) - len(suffix) is where
token i starts. Checked by the names of the sounds there (a suffix whose first sounds differ, say
a stressed "the" at its start, is not counted); no use of the backend's token mapping. RHVoice
(skipped where it is not installed) is measured the same way on its own phoneme labels: see
``rh_true_onsets``.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from pipeline.tts import EspeakBackend
from pipeline.tts.espeak import is_pause, voice_speech_language
from pipeline.tts.spoken import spoken_form, spoken_words
from schemas.language import language
from schemas.script import VoiceSpec

EN_DENSE = [
    "I'll wake you at 8:30 in the morning, then again at 3:45 in the afternoon.",
    "Set aside 1,800 for the stay and 250 for the flights, so 2,050 in all.",
    "It costs $20.50, i.e. 15% more than the $17 one at Dr. Lee's shop on 5th Avenue.",
    "Run 5 km at 6:15 am, then rest 90 min and eat 2.5 cups of rice & 3 eggs.",
    "The 3rd of 12 payments is 1,234 dollars, due on the 21st at 11:30 pm.",
    "Mr. Brown paid £45 for 2 tickets, and Mrs. Green paid €60.25 for 3.",
    "Call IT at 9:05 about the 4K screen, the HD one costs 399 dollars, approx. 20% off.",
    "We need 1/2 a cup, 3/4 of a litre and 10-12 minutes at 180 degrees.",
    "My PIN is 4271, the code is 0042 and the room is 1150 on floor 11.",
    "Between 7:00 and 7:30 the U.S. team scored 3 goals & the 2nd half was 45 minutes.",
    "163 pounds is roughly 73.9 kilograms, and 35 percent of 603 is 211.05.",
    "Have people over by 3:30 in the afternoon, kickoff at 4 o'clock, 3 pizzas for 9 fans.",
]
ZH_DENSE = [
    "明天下午3点有2个电话会议，请提醒我。",
    "这个月的电费是120块，比上个月多了25%。",
    "我们6个人吃饭花了1,617块，每人多少钱？",
    "火车8:30出发，大概3.5个小时到上海。",
    "2024年我去了2次北京，每次住5天。",
    "请在10:05之前把2份文件发给我。",
    "这件衣服打完折以后只要99块钱，买2件就是198块。",
    "从这里开车到机场大概需要40分钟，3点前出发。",
    "他花了两千三百块买了1台电脑和3本书。",
    "我们八个人吃饭花了一千零八十七块，AA的话每人多少？",
]
EN_VOICES = [VoiceSpec(name="en-us"), VoiceSpec(name="en-gb-x-rp+f4", rate=165, pitch=58)]
ZH_VOICES = [VoiceSpec(name="cmn"), VoiceSpec(name="cmn+f3", rate=175, pitch=55)]


@pytest.fixture(scope="module")
def tts() -> EspeakBackend:
    return EspeakBackend()


def _sounds(tts: EspeakBackend, text: str, voice: VoiceSpec) -> list[tuple[int, str]]:
    """espeak's sounds for ``text`` as given: (ms from the untrimmed start, phoneme), pauses left out."""
    return [(ms, name) for _, ms, name in tts._synth_native(text, voice).phonemes if not is_pause(name)]


def true_onsets(tts: EspeakBackend, text: str, voice: VoiceSpec) -> tuple[Any, list[float | None]]:
    """(the backend's Synthesis of ``text``, the audio's start of each token in its seconds, None
    where it cannot be told: punctuation, or a suffix whose first sounds are not the whole's)."""
    code = voice_speech_language(voice)
    lang = language(code or "en")
    syn = tts.synthesize(text, voice, 16000)
    form = spoken_form(text, code)
    full = _sounds(tts, form.text, voice)
    raw: list[float | None] = [None] * len(form.tokens)
    for i, said in enumerate(form.spoken):
        if not any(c.isalnum() for c in said):
            continue
        suffix = _sounds(tts, lang.join(form.spoken[i:]), voice)
        at = len(full) - len(suffix)
        if 0 <= at and [n for _, n in full[at:at + 3]] == [n for _, n in suffix[:3]]:
            raw[i] = full[at][0] / 1000
    # untrimmed -> trimmed clock: the shift that puts the first sound where the audio starts
    lead = next(t for t in raw if t is not None) if raw[0] is None else raw[0]
    return syn, [None if t is None else t - lead for t in raw]


def _errors(truth_of: Callable[[str, VoiceSpec], tuple[Any, list[float | None]]], texts: list[str],
            voices: list[VoiceSpec]) -> tuple[np.ndarray, list[str], int]:
    """|start - its audio's onset| of every word ``truth_of`` can tell, in ms, and the words whose
    span holds another word's onset."""
    errs, holders, skipped = [], [], 0
    for voice in voices:
        for text in texts:
            syn, truth = truth_of(text, voice)
            words = syn.words
            for i, (w, t) in enumerate(zip(words, truth)):
                if t is None:
                    skipped += any(c.isalnum() for c in w.word)
                    continue
                errs.append(abs(w.start_s - t) * 1000)
                for j, other in enumerate(words):   # no other word's span holds this word's onset
                    if j != i and other.start_s + 0.010 < t < other.end_s - 0.010:
                        holders.append(f"{other.word!r} holds {w.word!r} in {text!r} ({voice.name})")
    return np.array(errs), holders, skipped


@pytest.mark.parametrize(("texts", "voices"), [(EN_DENSE, EN_VOICES), (ZH_DENSE, ZH_VOICES)], ids=["en", "zh"])
def test_word_starts_match_their_own_audio(tts: EspeakBackend, texts: list[str], voices: list[VoiceSpec]) -> None:
    """Measured (both voices): en 2 x 170 words p50 0 ms, p99 0-2, max 64-73 (one "litre" after a
    merged "of a"); zh 2 x 101 words p50 0, p99 0, max 0. Before issue #18 the same check gave en
    p99 > 300 ms, the composer's "8:30 in" holding "thirty"."""
    err, holders, skipped = _errors(lambda text, voice: true_onsets(tts, text, voice), texts, voices)
    assert len(err) >= 0.95 * (len(err) + skipped) and len(err) > 150
    assert np.percentile(err, 99) <= 50, np.sort(err)[-10:]
    assert np.median(err) <= 15
    assert not holders, holders[:5]


def test_merged_words_split_on_their_own_sounds(tts: EspeakBackend) -> None:
    """espeak says "in the" and "两个" as one word each: the second token starts on its own sound.
    In "in a row" it also puts "row" on the "n" of "in" (the 108 ms pair of the 500-row run)."""
    for text, voice, word in [("I'll see you at 8:30 in the morning.", EN_VOICES[0], "the"),
                              ("明天下午3点有2个电话会议。", ZH_VOICES[0], "个"),
                              ("Wow, 8 days in a row? Fingers crossed.", EN_VOICES[0], "a"),
                              ("Wow, 8 days in a row? Fingers crossed.", EN_VOICES[0], "row?")]:
        syn, truth = true_onsets(tts, text, voice)
        i = [w.word for w in syn.words].index(word)
        assert truth[i] is not None and abs(syn.words[i].start_s - truth[i]) < 0.02, (syn.words[i], truth[i])
        assert syn.words[i - 1].end_s <= syn.words[i].start_s + 1e-9


# --- RHVoice: the engine's own phoneme labels, counted from the end like espeak's sounds ---------
RH_VOICES = [VoiceSpec(name="rhvoice:slt"), VoiceSpec(name="rhvoice:bdl", rate=190, pitch=56)]


@pytest.fixture(scope="module")
def rhvoice() -> Any:
    from pipeline.tts.rhvoice import RHVoiceBackend, rhvoice_available

    if not rhvoice_available():
        pytest.skip("librhvoice5 / rhvoice-english are not installed (scripts/setup.sh installs them)")
    backend = RHVoiceBackend()
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def rh_engine(rhvoice: Any) -> Any:
    """RHVoice itself, in this process (its worker's engine class), for its phoneme labels."""
    from pipeline.tts.native_worker import _RHVoice

    engine = _RHVoice()
    yield engine
    engine.close()


def _rh_phones(engine: Any, text: str, voice: VoiceSpec) -> tuple[list[tuple[int, str]], np.ndarray, int]:
    """RHVoice's phonemes for ``text`` as given, (sample from the untrimmed start, name) with pauses
    left out, its audio and sample rate."""
    from pipeline.tts.rhvoice import rhvoice_request

    head, audio = engine.speak(rhvoice_request(text, voice.name.partition(":")[2], voice))
    phones = [(at + lab.start, lab.phone) for at, labs in zip(engine.sentences, engine.labels)
              for lab in labs if not lab.pause]
    return phones, audio, int(head["sample_rate"])


def _align(a: list[str], b: list[str]) -> dict[int, int]:
    """Edit-distance alignment of two phoneme sequences: index in ``a`` -> index in ``b`` of each match."""
    n, m = len(a), len(b)
    cost = np.zeros((n + 1, m + 1), dtype=np.int64)
    cost[:, 0], cost[0, :] = np.arange(n + 1), np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost[i, j] = min(cost[i - 1, j - 1] + (a[i - 1] != b[j - 1]), cost[i - 1, j] + 1, cost[i, j - 1] + 1)
    pairs, i, j = {}, n, m
    while i > 0 and j > 0:
        if cost[i, j] == cost[i - 1, j - 1] + (a[i - 1] != b[j - 1]):
            if a[i - 1] == b[j - 1]:
                pairs[i - 1] = j - 1
            i, j = i - 1, j - 1
        elif cost[i, j] == cost[i - 1, j] + 1:
            i -= 1
        else:
            j -= 1
    return pairs


def rh_true_onsets(tts: Any, engine: Any, text: str, voice: VoiceSpec) -> tuple[Any, list[float | None]]:
    """As ``true_onsets``, for RHVoice: each spoken token said alone gives its phonemes; aligned (by
    name) onto the whole utterance's phonemes, the one its first phoneme lands on is where it starts
    (only when that phoneme and at least half of the token's are matched). The clock is the
    backend's: the engine's label times, resampled and less the samples its trim cuts. Uses neither
    RHVoice's word events nor the backend's mapping of them."""
    from pipeline.tts.base import level_and_trim

    syn = tts.synthesize(text, voice, 16000)
    form = spoken_form(text, "en")
    full, audio, rate = _rh_phones(engine, form.text, voice)
    first = level_and_trim(audio, rate, 16000, tts.target_rms_dbfs, tts.peak_limit, "RHVoice", text)[2]
    seq: list[tuple[int, str]] = []   # (token, phoneme) of every token said alone
    for i, said in enumerate(form.spoken):
        if any(c.isalnum() for c in said):
            seq += [(i, name) for _, name in _rh_phones(engine, said, voice)[0]]
    pairs = _align([name for _, name in seq], [name for _, name in full])
    truth: list[float | None] = [None] * len(form.tokens)
    for i in range(len(form.tokens)):
        mine = [k for k, (tok, _) in enumerate(seq) if tok == i]
        if mine and mine[0] in pairs and 2 * sum(k in pairs for k in mine) >= len(mine):
            # a stop's silent closure can start a label before the first audible sample: the audio,
            # and so the word, starts there
            truth[i] = max(0, round(full[pairs[mine[0]]][0] * 16000 / rate) - first) / 16000
    return syn, truth


def test_rhvoice_word_starts_match_their_own_audio(rhvoice: Any, rh_engine: Any) -> None:
    """The Done-when of issue #18 for RHVoice, on the dense sentences; it prints its figures.
    Measured (slt; bdl at 190 wpm): 376 words p50 0 ms, p99 0, max 2.1. With the word events' 100 ms
    blocks (before): p50 25, p99 75, max 109, and 114 words whose span held another's onset."""
    err, holders, skipped = _errors(lambda text, voice: rh_true_onsets(rhvoice, rh_engine, text, voice),
                                    EN_DENSE, RH_VOICES)
    print(f"rhvoice: {len(err)} words (+{skipped} untold), p50 {np.median(err):.1f} ms, "
          f"p99 {np.percentile(err, 99):.1f} ms, max {err.max():.1f} ms")
    assert len(err) >= 0.9 * (len(err) + skipped) and len(err) > 150
    assert np.percentile(err, 99) <= 50, np.sort(err)[-10:]
    assert np.median(err) <= 30
    assert not holders, holders[:5]


@pytest.mark.parametrize(("tokens", "code", "said"), [
    (["at", "8:30", "in", "the"], "en", ["at", "eight thirty", "in", "the"]),
    (["3:05pm,", "4:00", "or", "7", "am."], "en", ["three oh five p m,", "four o'clock", "or", "seven", "a m."]),
    (["$1,800.50", "or", "£1", "is", "15%"], "en", ["one thousand eight hundred dollars fifty cents", "or",
                                                    "one pound", "is", "fifteen percent"]),
    (["the", "21st,", "2nd", "&", "Dr.", "Lee"], "en", ["the", "twenty first,", "second", "and", "doctor", "Lee"]),
    (["73.05", "km", "in", "IT", "etc."], "en", ["seventy three point zero five", "kilometres", "in", "I T",
                                                 "et cetera."]),
    (["when", "am", "I", "free?"], "en", ["when", "am", "I", "free?"]),   # "am" is a verb here
    (["下午", "3", "点", "有", "2", "个"], "zh", ["下午", "三", "点", "有", "两", "个"]),
    (["花了", "1,087", "块，", "多了", "25%。"], "zh", ["花了", "一千零八十七", "块，", "多了", "百分之二十五。"]),
    (["2024", "年", "8:30", "3.5", "12"], "zh", ["二零二四", "年", "八点三十分", "三点五", "十二"]),
    (["10:05", "出发", "20000", "人"], "zh", ["十点零五分", "出发", "两万", "人"]),
])
def test_spoken_words(tokens: list[str], code: str, said: list[str]) -> None:
    assert spoken_words(tokens, code) == said


def test_plain_text_is_synthesised_as_written() -> None:
    for text, code in [("Sure, I can help with that.\n\nThe weather  looks sunny.", "en"), ("今天北京的天气怎么样？", "zh")]:
        form = spoken_form(text, code)
        assert form.text == text and form.spoken == form.tokens
        assert [form.text[a:b] for a, b in form.spans] == list(form.tokens)


def drift_of_turns(tts: EspeakBackend, row: Any) -> list[tuple[float, str, str]]:
    """For every stored word of a row's assistant turns and overlays: |start - its audio's onset|,
    and the worst of two consecutive words, as (drift_s, word, text)."""
    out = []
    words_by_event: dict[str, list[Any]] = {}
    for w in row.words:
        words_by_event.setdefault(w.event_id, []).append(w)
    for ev in row.events:
        attrs = json.loads(ev.attrs)
        text = attrs.get("planned_text") if ev.kind == "assistant_turn" else ev.text if "over_turn" in attrs else None
        if not text or ev.id not in words_by_event:
            continue
        voice = VoiceSpec.model_validate(attrs["voice"])
        syn, truth = true_onsets(tts, text, voice)
        stored = words_by_event[ev.id]
        drift = [None if t is None else abs(w.start_s - ev.start_s - t) for w, t in zip(stored, truth)]
        for i in range(1, len(drift)):
            a, b = drift[i - 1], drift[i]
            if a is not None and b is not None:
                out.append((min(a, b), stored[i].word, text))
    return out


def test_no_consecutive_words_drift_in_generated_rows(generated: Any, tts: EspeakBackend) -> None:
    """Rows the generator writes: no two consecutive words both off their audio by more than 100 ms
    (scripts/… over 500 rows: see the issue #18 report)."""
    rows = [generated.row(s, seed) for s, seed in [("delegation", 1), ("delegation", 2), ("turn_taking", 1),
                                                    ("backchannel", 1), ("interruption_repair", 1)]]
    pairs = [p for row in rows for p in drift_of_turns(tts, row)]
    assert len(pairs) > 100
    worst = max(pairs)
    assert worst[0] <= 0.100, worst
    assert any(any(c.isdigit() for c in text) for _, _, text in pairs)   # numbers were in what was checked
