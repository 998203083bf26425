"""Chat text to spoken sentences: the cheap, safe part of turning a written answer into speech.

Markdown that only decorates is removed (emphasis, headings, quote marks, link targets), and each
line of a list or heading becomes a sentence of its own. What has no spoken form (a code block, a
table, an image, a bare URL, inline code that is not words, emoji) is refused, never guessed: the
caller makes the conversation a failed record that says which message and why.
"""
from __future__ import annotations

import re
import unicodedata

from schemas.language import Language

_FENCE = re.compile(r"^\s*(```|~~~)", re.MULTILINE)
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$", re.MULTILINE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$", re.MULTILINE)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\((?:https?://|www\.|/|#)[^)\s]*\)")
_URL = re.compile(r"https?://|www\.\S")
_HTML = re.compile(r"</?[A-Za-z][^>]*>")
_INLINE_CODE = re.compile(r"`([^`\n]*)`")
_WORDY = re.compile(r"[^\W\d_][\w' -]*", re.UNICODE)   # inline code that reads as words ("`git`", "`pip install`")
_EMPHASIS = (re.compile(r"\*\*(.+?)\*\*"), re.compile(r"__(.+?)__"),
             re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"),   # *emphasis*, not 2*3 or a list mark
             re.compile(r"(?<![\w_])_(?!\s)(.+?)(?<!\s)_(?![\w_])"))       # _emphasis_, not snake_case
_STRIKE = re.compile(r"~~.+?~~")
_HEADING = re.compile(r"^#{1,6}\s+")
_ITEM = re.compile(r"^(?:[-*+•]|\d{1,3}[.)])\s+")
_QUOTE = re.compile(r"^(?:>\s?)+")
_RULE_LINE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_SPACE = re.compile(r"\s+")
_LINE_END_TO_STOP = (":", "：", ";", "；", ",", "，", "-", "–", "—")


class Unspeakable(ValueError):
    """A text with something that has no spoken form; the message says what."""


def _refuse_unspeakable(text: str) -> None:
    if _FENCE.search(text):
        raise Unspeakable("a code block cannot be spoken")
    if _TABLE_RULE.search(text) or len(_TABLE_ROW.findall(text)) >= 2:
        raise Unspeakable("a table cannot be spoken")
    if _IMAGE.search(text):
        raise Unspeakable("an image cannot be spoken")
    if _HTML.search(text):
        raise Unspeakable("HTML markup cannot be spoken")
    if _STRIKE.search(text):
        raise Unspeakable("struck-out text cannot be spoken")
    for code in _INLINE_CODE.findall(text):
        if not _WORDY.fullmatch(code.strip()):
            raise Unspeakable(f"inline code `{code}` cannot be spoken")
    symbols = sorted({c for c in text if unicodedata.category(c) in ("So", "Cs", "Co")})
    if symbols:
        raise Unspeakable(f"the symbol(s) {' '.join(symbols)} cannot be spoken")


def _line_sentence(line: str, lang: Language) -> str:
    """One markdown line as plain text that ends a sentence (a list item or heading is one)."""
    for pattern in (_QUOTE, _HEADING, _ITEM):
        line = pattern.sub("", line.strip())
    line = _INLINE_CODE.sub(r"\1", _LINK.sub(r"\1", line))
    for pattern in _EMPHASIS:
        line = pattern.sub(r"\1", line)
    line = _SPACE.sub(" ", line).strip()
    if not line:
        return ""
    if line.endswith(_LINE_END_TO_STOP):
        line = line[:-1].rstrip()
    if not lang.ends_sentence(line):
        line += lang.sentence_ends[0]
    return line


def spoken_sentences(text: str, lang: Language) -> list[str]:
    """`text` as the sentence elements a voice says, in order; raises Unspeakable."""
    _refuse_unspeakable(text)
    lines = [_line_sentence(line, lang) for line in text.splitlines() if not _RULE_LINE.match(line)]
    joined = lang.word_separator.join(line for line in lines if line)
    if _URL.search(joined):
        raise Unspeakable("a URL cannot be spoken")
    sentences = lang.sentence_elements([joined]) if joined else []
    if not sentences:
        raise Unspeakable("nothing in it can be spoken")
    return sentences
