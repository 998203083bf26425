"""The Language axis (schemas/language.py): Mandarin segmentation with jieba, its round trip and
determinism, and where Chinese sentences, phrases and questions end; English stays whitespace."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from generators import voices as vx
from generators.common import Planner
from schemas.config import ConfigError, TimingConfig, parse_config
from schemas.language import CHINESE, ENGLISH, LANGUAGES, language
from schemas.languages.zh import segmenter_identity
from schemas.script import Script
from tests.generated import FAST_VOICES

# Real spoken Mandarin of the kinds the content will hold: requests, corrections, backchannels,
# numbers and times, mixed Latin and digits, quotes.
ZH_TEXTS = [
    "今天北京的天气怎么样？",
    "等一下，不对，我说的是上海，不是北京。",
    "嗯，对，好的。",
    "好的，我帮你订3.5公斤的苹果、两瓶牛奶；还有别的吗？",
    "我想把Wi-Fi密码改一下，可以吗？",
    "帮我查一下iPhone 15现在多少钱。",
    "明天下午3点提醒我开会！",
    "他说：“我明天不来了。”",
    "从这里开车到机场大概需要四十分钟，路上可能会堵车。",
    "一共1,000元，折扣是20%，3:45以前付款。",
    "（笑）好吧，那就这样。",
    "今天北京的天气怎么样?我要出门.",
]


def test_registered_and_refused_by_name() -> None:
    assert language("zh") is CHINESE and language("en") is ENGLISH
    assert set(LANGUAGES) == {"en", "zh"}
    with pytest.raises(ValueError, match="'xx' is not supported"):
        language("xx")


def test_every_supported_language_has_a_language_and_an_unknown_one_is_refused() -> None:
    """Config accepts the languages with text banks; each is a Language the pipeline can realise."""
    from schemas.config import SUPPORTED_LANGUAGES
    assert set(SUPPORTED_LANGUAGES) <= set(LANGUAGES)
    assert parse_config({"language": "zh"}).language == "zh"
    with pytest.raises(ConfigError, match="language 'fr' is not supported"):
        parse_config({"language": "fr"})
    with pytest.raises(ValueError, match="language 'fr' is not supported"):
        Script(scenario="turn_taking", seed=1, language="fr", turns=[])


@pytest.mark.parametrize("text", ZH_TEXTS)
def test_zh_round_trip(text: str) -> None:
    words = CHINESE.words(text)
    assert CHINESE.join(words) == text
    assert all(w.strip() for w in words)   # no token is only spaces
    assert len(words) >= 2


def test_zh_segmentation_of_known_sentences() -> None:
    """Punctuation rides on the word before it, as "Paris," does in English; Latin and numbers stay whole."""
    assert CHINESE.words("等一下，不对，我说的是上海，不是北京。") == [
        "等", "一下，", "不", "对，", "我", "说", "的", "是", "上海，", "不是", "北京。"]
    assert CHINESE.words("我想把Wi-Fi密码改一下，可以吗？") == [
        "我", "想", "把", "Wi-Fi", "密码", "改", "一下，", "可以", "吗？"]
    assert CHINESE.words("明天下午3点提醒我开会！") == ["明天", "下午", "3", "点", "提醒", "我", "开会！"]
    assert CHINESE.words("好的，我帮你订3.5公斤的苹果。")[6] == "3.5"
    assert CHINESE.words("一共1,000元，3:45以前付款。")[:4] == ["一共", "1,000", "元，", "3:45"]
    assert CHINESE.words("他说：“我明天不来了。”")[-1] == "了。”"
    assert CHINESE.words("“你好”，他说。")[0] == "“你好”，"   # an opening quote goes on the word after it
    assert CHINESE.words("……") == ["……"]                   # punctuation only: one token


def test_zh_spaces_stay_on_the_token_they_follow() -> None:
    """Decision: inner spaces are kept (so text round-trips), on the token before them; the text's own
    leading and trailing whitespace is dropped, as English `split` drops it."""
    assert CHINESE.words("帮我查一下iPhone 15的价格。")[4:6] == ["iPhone ", "15"]
    assert CHINESE.words("我在听 Taylor Swift 的歌") == ["我", "在", "听 ", "Taylor ", "Swift ", "的", "歌"]
    assert CHINESE.words("  你好，  世界。 ") == ["你好，  ", "世界。"]
    for text in ("  你好，  世界。 ", "我在听 Taylor Swift 的歌", "\t好的\n谢谢"):
        assert CHINESE.join(CHINESE.words(text)) == text.strip()
    assert CHINESE.words("   ") == []


def test_zh_segmentation_is_local_to_sentences() -> None:
    """A sentence splits the same alone as inside a paragraph (`sentence_of_word` counts per sentence)."""
    sentences = ["好的，我来查一下。", "明天北京有小雨？", "Wi-Fi密码是1234。", "嗯。"]
    joined = CHINESE.words(CHINESE.join(sentences))
    assert joined == [w for s in sentences for w in CHINESE.words(s)]
    assert CHINESE.sentence_of_word(sentences) == [i for i, s in enumerate(sentences) for _ in CHINESE.words(s)]


def test_zh_sentence_phrase_and_question_ends() -> None:
    text = "好的，我帮你订了两张票、一间房；还有别的吗？我等你回复。"
    words = CHINESE.words(text)
    ends = [w for w in words if CHINESE.ends_sentence(w)]
    assert ends == ["吗？", "回复。"]
    assert [words[i] for i in CHINESE.phrase_boundaries(text)] == ["的，", "票、", "房；", "吗？"]   # jieba: 好/的
    assert CHINESE.is_question("你最近在看什么书？")
    assert CHINESE.is_question("他问：“你去吗？”")           # a closing quote after the question mark
    assert not CHINESE.is_question("他问我去不去。")
    assert CHINESE.is_question("今天天气怎么样?")            # ASCII forms in mixed text
    assert CHINESE.ends_sentence("出门.") and CHINESE.ends_sentence("走吧!")
    assert not CHINESE.ends_sentence("3.5") and not CHINESE.ends_sentence("一下，")


def test_english_is_still_whitespace() -> None:
    text = "Sure, I can help with that. Is it (e.g.) \"ok?\""
    assert ENGLISH.words(text) == text.split()
    assert ENGLISH.join(ENGLISH.words(text)) == " ".join(text.split())
    assert ENGLISH.phrase_boundaries(text) == [0, 5]
    assert ENGLISH.is_question(text) is False   # ends in `"`: English has no closers (unchanged)


_CHILD = """
import json, sys
from schemas.language import CHINESE
print(json.dumps([CHINESE.words(t) for t in json.loads(sys.stdin.read())], ensure_ascii=False))
"""


def test_zh_segmentation_is_identical_across_processes(tmp_path) -> None:
    """Two fresh interpreters (each builds jieba's dictionary itself, with a different TMPDIR so no
    cache file is shared) segment every text the same as this process does."""
    here = [CHINESE.words(t) for t in ZH_TEXTS]
    outs = []
    for i in range(2):
        env_tmp = tmp_path / f"tmp{i}"
        env_tmp.mkdir()
        r = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(ZH_TEXTS), capture_output=True,
                           text=True, check=True, env={"TMPDIR": str(env_tmp), "PATH": "", "PYTHONPATH": ":".join(sys.path)})
        outs.append(json.loads(r.stdout))
        assert list(env_tmp.iterdir()) == []   # no jieba.cache written, none read
    assert outs[0] == outs[1] == here


def test_segmenter_identity_is_pinned() -> None:
    ident = segmenter_identity()
    assert ident["segmenter"] == "jieba" and ident["version"] == "0.42.1" and ident["hmm"] == "False"
    assert len(ident["dict_sha256"]) == 16


def test_voice_pools_by_language() -> None:
    for code, pools in vx.VOICE_POOLS.items():
        assert code in LANGUAGES
        assert not {v.name for v in pools.assistant} & {v.name for v in pools.people}
        assert len(pools.people) >= 4   # user, other and background never share a voice with the assistant
    assert all(v.name.partition("+")[0] == "cmn" for p in (vx.ASSISTANT_VOICES_ZH, vx.PEOPLE_VOICES_ZH) for v in p)
    with pytest.raises(ValueError, match="no voices for language 'xx'"):
        vx.pools_for("xx")


def _cast(seed: int, lang=ENGLISH):
    """The espeak cast's draw: what every run drew before the natural default (EN_CASTS_BEFORE)."""
    return Planner.create(np.random.default_rng(seed), TimingConfig(), lang=lang, voices=FAST_VOICES).cast


def test_planner_draws_voices_of_its_language() -> None:
    for seed in range(20):
        zh = _cast(seed, CHINESE)
        assert zh.assistant.name in {v.name for v in vx.ASSISTANT_VOICES_ZH}
        people = [zh.user, zh.other, zh.background]
        assert all(v.name in {p.name for p in vx.PEOPLE_VOICES_ZH} for v in people)
        assert len({v.name for v in people}) == 3
        en = _cast(seed)
        assert en.assistant.name in {v.name for v in vx.ASSISTANT_VOICES}


def test_planner_english_draws_unchanged() -> None:
    """Same RNG calls in the same order as before the pools were per language (recorded before)."""
    got = [[v.model_dump() for v in (c.assistant, c.user, c.other, c.background)] for c in map(_cast, (0, 1, 7))]
    assert got == EN_CASTS_BEFORE


# Planner.create(default_rng(seed), TimingConfig()).cast for seeds 0, 1, 7, recorded before the change.
EN_CASTS_BEFORE: list[list[dict[str, object]]] = [
    [
        {"name": "en-gb+f4", "rate": 169, "pitch": 50, "pitch_range": 50},
        {"name": "en-gb", "rate": 154, "pitch": 42, "pitch_range": 50},
        {"name": "en-us", "rate": 150, "pitch": 39, "pitch_range": 50},
        {"name": "en+m4", "rate": 160, "pitch": 52, "pitch_range": 50},
    ],
    [
        {"name": "en-us+f2", "rate": 170, "pitch": 64, "pitch_range": 50},
        {"name": "en+f5", "rate": 161, "pitch": 49, "pitch_range": 50},
        {"name": "en-gb+f3", "rate": 184, "pitch": 66, "pitch_range": 50},
        {"name": "en-us+m3", "rate": 191, "pitch": 39, "pitch_range": 50},
    ],
    [
        {"name": "en-gb+f4", "rate": 169, "pitch": 53, "pitch_range": 50},
        {"name": "en+f5", "rate": 177, "pitch": 60, "pitch_range": 50},
        {"name": "en-gb+f3", "rate": 161, "pitch": 62, "pitch_range": 50},
        {"name": "en-us+m3", "rate": 173, "pitch": 46, "pitch_range": 50},
    ],
]


def test_sentence_elements_split_a_bank_sentence_that_holds_two():
    """A continuation resumes by sentence element: "Soul, nice! That's a fit." is two of them."""
    texts = ["Soul, nice! That's a nice fit for the gym.", "Let's go with 17 songs."]
    assert ENGLISH.sentence_elements(texts) == ["Soul, nice!", "That's a nice fit for the gym.", "Let's go with 17 songs."]
    assert ENGLISH.sentence_elements(["no end here", "Done."]) == ["no end here", "Done."]
    assert CHINESE.sentence_elements(["好的，我看看。明天晴。", "要带伞吗？"]) == ["好的，我看看。", "明天晴。", "要带伞吗？"]
