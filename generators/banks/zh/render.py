"""Mandarin render rules: what :func:`generators.banks.engine.tidy` does for English, for zh text.

English tidy capitalises, fixes a/an and closes spaces before ASCII punctuation; none of that
applies to Chinese. Here instead: no spaces between Han characters or around full-width marks
(a space stays only between two Latin words), ASCII marks after Han text become full-width,
and a run of marks left by an empty alternation option ("好的，。", "，，") collapses to one.

A template renders as ``tidy_zh(realise(template, slots, rng))``, the same composition as
the engine's ``render`` with the per-language tidy swapped in. ``RULES`` is what the folder tells
the loader (generators/banks/rules.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from ..engine import Rng, pick, realise
from ..rules import Rules

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3007"
_FULL = "，、；：。？！"
_STRONG = "？！。"          # sentence ends, strongest first: a run keeping one keeps the first of these present
_OPEN = "“‘（《「"
_CLOSE = "”’）》」"
_ASCII_TO_FULL = {",": "，", ";": "；", ":": "：", "?": "？", "!": "！", ".": "。"}

# an ASCII mark after Han text or a full-width closer (not inside a number such as 3.5 or 7:30)
_ASCII_AFTER_HAN = re.compile(rf"(?<=[{_HAN}{_CLOSE}{_FULL}])\s*([,;:?!.])(?!\d)")
# a space with Han text or a full-width mark on either side
_SPACE_NEAR_HAN = re.compile(rf"(?<=[{_HAN}{_FULL}{_OPEN}{_CLOSE}])\s+|\s+(?=[{_HAN}{_FULL}{_OPEN}{_CLOSE}])")
_PUNCT_RUN = re.compile(rf"[{_FULL}]{{2,}}")
_LEADING_PUNCT = re.compile(rf"^[{_FULL}\s]+")


def _collapse(m: re.Match[str]) -> str:
    run = m.group(0)
    for mark in _STRONG:
        if mark in run:
            return mark
    return run[0]


def tidy_zh(text: str) -> str:
    """Normalise spaces and punctuation of rendered Mandarin text."""
    out = " ".join(text.split())
    out = _ASCII_AFTER_HAN.sub(lambda m: _ASCII_TO_FULL[m.group(1)], out)
    out = _SPACE_NEAR_HAN.sub("", out)
    out = _PUNCT_RUN.sub(_collapse, out)
    out = _LEADING_PUNCT.sub("", out)
    return out.strip()


def render_zh(template: str, slots: Mapping[str, object], seed: int) -> str:
    """``template`` with its alternation choices fixed by ``seed`` (as the engine's ``render``)."""
    return tidy_zh(realise(template, slots, np.random.default_rng(seed)))


def render_rng_zh(rng: Rng, templates: Sequence[str], slots: Mapping[str, object] | None = None) -> str:
    """Pick one of ``templates`` and render it, all with ``rng`` (as the engine's ``render_rng``)."""
    return tidy_zh(realise(pick(rng, templates), slots or {}, rng))


def _tidy(text: str, capitalize: bool = True) -> str:
    """Han script has no case: ``capitalize`` does not apply."""
    return tidy_zh(text)


# Mandarin words after which a request is audibly unfinished ("帮我查一下明天北京的 / 天气"), besides a
# word that ends a phrase ("帮我查一下， / 明天北京的天气")
_DANGLING = frozenset(
    "的 把 给 在 从 到 跟 和 还有 就是 一下 帮 帮我 要 想 去 是 比如 那个 这个 关于 有没有".split()
)
_PHRASE_MARKS = ("，", "、", "；", "：", ",", ";", ":")


def pause_after(word: str) -> bool:
    return word.endswith(_PHRASE_MARKS) or word in _DANGLING


# a Mandarin pause may follow a comma: "帮我查一下，呃，明天北京的天气"; never a sentence end
RULES = Rules(tidy=_tidy, no_pause_after=tuple("。？！.?!"), pause_after=pause_after,
              topic_fallback="刚才说的事", topic_ends="。？！.!?")
