"""Mandarin checks of the generated-text lint (generators/text_lint.py): 的的, 二 counting things,
runs of marks, English words in speech or in a private request, pronoun perspective."""
from __future__ import annotations

import re

from generators.text_lint import TEMPLATE_MARK, Hit, Lints, found, mood, no_hits, self_blame
from schemas.language import CHINESE

_GOOD_NEWS_ZH = re.compile("开心|激动|高兴|放假|订婚|生了个宝宝")
_CONSOLING_ZH = re.compile("辛苦|别硬撑|^唉|^哎呀|受不了|能理解")

# the user correcting their own words (我刚才说错了，是…; 啊不对，我想说的是…) and the assistant taking the blame for it
_SELF_CORRECTION_ZH = re.compile("说错|不对|我想说的是|我说的是|改成|换成|应该是|不是|等一下|等等|其实|不好意思|哎呀|算了|改主意")
_OWN_MISTAKE_ZH = re.compile("我听岔了|听岔了|是我没听清|我没听清|我听错了|是我搞错了|我搞错了|是我弄错了|我弄错了|我的错")

_HAN = "\u4e00-\u9fff"
_DOUBLED_DE = re.compile("的的(?!确)")
# 二 counting things ("二个人"): a count of two before a measure word is 两 (十二个, 第二个, 周二天气 are right)
_ER_BEFORE_MEASURE = re.compile("(?<![零一二两三四五六七八九十百千万第周期拜])二(?:个|位|杯|件|份|张|本|瓶|碗|次|天|周|条|只|双|家|间|斤|岁|种|样|台|部|辆|遍|层|口)")
_PUNCT_RUN_ZH = re.compile("[，、；：。？！]{2,}")
# a verb said twice where a template's 去 meets a slot that brings its own ("想去{activity}" with 去海边玩)
_DOUBLED_VERB_ZH = re.compile("去去(?!就回)")
_LATIN_WORD = re.compile("[A-Za-z]{3,}")
_MY_ZH = re.compile(f"我(?:的|家)([{_HAN}]{{1,4}})")
# two-character words a speaker repeats on purpose ("不对不对，是周六", "好的好的")
_REPEATABLE_ZH = frozenset("不对 好的 对的 是的 没事 谢谢 不是 等等 快点 慢点 好吧 行吧 没错 可以 知道 明白 一个 一步 一点".split())   # 一个一个: one by one


def lint_utterance_zh(text: str) -> list[Hit]:
    """Mandarin artefacts inside one utterance: 的的, 二 counting things (二个人), a run of marks left by an
    empty option (好的，。), a word of two or more characters said twice in a row (北京北京), and 去去 where a
    template's verb meets a slot's (想去去海边玩)."""
    hits = [*found("doubled_de", _DOUBLED_DE, text),
            *found("number_agreement", _ER_BEFORE_MEASURE, text),
            *found("punctuation_run", _PUNCT_RUN_ZH, text),
            *found("repeated_word", _DOUBLED_VERB_ZH, text),
            *found("template_mark", TEMPLATE_MARK, text)]
    words = CHINESE.words(text)
    for a, b in zip(words, words[1:]):   # not across a mark: "还有位子。位子方面" picks the word up again
        b = b.rstrip("，、；：。？！“”‘’（）《》 ")
        if a == b and len(a) >= 2 and re.fullmatch(f"[{_HAN}]+", a) and a not in _REPEATABLE_ZH:
            hits.append(Hit("repeated_word", a + b))
    return hits


def lint_speech_zh(text: str) -> list[Hit]:
    """Mandarin speech has no English words in it (a name the harness knows, "Beijing", stays in the
    private request and the backend text, which are read, not said)."""
    return [*found("latin_in_speech", _LATIN_WORD, text)]


_GLOSS_ZH = re.compile("（[^）]*）")


def lint_request_zh(text: str) -> list[Hit]:
    """A Mandarin private request is Mandarin: an English word in it ("14.2 plus 32.8") is mixed-language
    text; only a gloss in full-width brackets, the name the harness knows ("周二（Tuesday）"), may be Latin."""
    return [*found("latin_in_request", _LATIN_WORD, _GLOSS_ZH.sub("", text))]


def lint_reply_zh(user_text: str, assistant_text: str) -> list[Hit]:
    """Perspective: the assistant saying the user's 我的客厅 / 我家 as its own (it is 你的客厅 / 你家); and
    the assistant blaming itself for the user's slip (我听岔了 after 我刚才说错了)."""
    said = {m.group(0) for m in _MY_ZH.finditer(user_text)}
    return [Hit("pronoun_perspective", m.group(0)) for m in _MY_ZH.finditer(assistant_text)
            if any(s.startswith(m.group(0)[:4]) or m.group(0).startswith(s[:4]) for s in said)
            ] + mood(user_text, assistant_text, _GOOD_NEWS_ZH, _CONSOLING_ZH) + \
        self_blame(user_text, assistant_text, _SELF_CORRECTION_ZH, _OWN_MISTAKE_ZH)


LINTS = Lints(lint_utterance_zh, lint_reply_zh, no_hits, lint_speech_zh, lint_request_zh)
