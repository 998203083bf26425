"""Languages are an axis (DESIGN §6): how a language's stored text splits into words and sentences.

A row's `language` names one of `LANGUAGES`. Everything that reads or writes words in text
(composition, unit slicing, validation, the planners) asks the row's `Language` instead of
splitting on spaces: its word segmentation (the tokens a TTS backend gives one timing each),
how words join back, where sentences and phrases end. How numbers, times and money are *said*
is content and lives with each language's text banks (generators/banks/<lang>/).

Mandarin (`CHINESE`) is segmented with jieba (see `chinese_words`); its words join with no
separator, so `CHINESE.join(CHINESE.words(t)) == t.strip()` for every text.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from schemas.numerals import chinese_numbers, english_numbers


def whitespace_words(text: str) -> list[str]:
    """Whitespace-separated tokens: languages that write spaces between words (English)."""
    return text.split()


@dataclass(frozen=True)
class Language:
    code: str                         # BCP-47, what the row's `language` column holds
    name: str
    word_separator: str               # between words when text is joined from them
    sentence_ends: tuple[str, ...]    # a word ending in one of these ends a sentence element
    phrase_ends: tuple[str, ...]      # ... or a phrase (where a listener may backchannel)
    question_ends: tuple[str, ...]    # a sentence ending in one of these asks something
    segment: Callable[[str], list[str]] = whitespace_words   # text -> word tokens, punctuation attached
    closers: str = ""                 # closing quotes/brackets that may follow a sentence end ("好。”")
    numbers: Callable[[str], set[str]] = english_numbers   # the numbers a text states (rule 6)

    def words(self, text: str) -> list[str]:
        """The word tokens of `text`, punctuation attached (one TTS word timing each)."""
        return self.segment(text)

    def join(self, words: Sequence[str]) -> str:
        return self.word_separator.join(words)

    def _end(self, text: str) -> str:
        """`text` without trailing whitespace and closers: what its last punctuation mark is."""
        return text.rstrip().rstrip(self.closers).rstrip() if self.closers else text.rstrip()

    def ends_sentence(self, word: str) -> bool:
        return self._end(word).endswith(self.sentence_ends)

    def is_question(self, text: str) -> bool:
        return self._end(text).endswith(self.question_ends)

    def phrase_boundaries(self, text: str) -> list[int]:
        """Indices of words that end a phrase (never the last word): where listeners backchannel."""
        words = self.words(text)
        return [i for i, w in enumerate(words[:-1]) if self._end(w).endswith(self.phrase_ends)]

    def sentence_elements(self, texts: Sequence[str]) -> list[str]:
        """The sentence elements of `texts` in order: each text split after every word that ends a
        sentence ("Soul, nice! That's a nice fit." is two). What a continuation resumes from."""
        out: list[str] = []
        for text in texts:
            current: list[str] = []
            for w in self.words(text):
                current.append(w)
                if self.ends_sentence(w):
                    out.append(self.join(current))
                    current = []
            if current:
                out.append(self.join(current))
        return out

    def sentence_of_word(self, sentences: Sequence[str]) -> list[int]:
        """For the text joined from `sentences`, the sentence index of every word."""
        out: list[int] = []
        for i, s in enumerate(sentences):
            out.extend([i] * len(self.words(s)))
        return out


# --- Mandarin segmentation ------------------------------------------------------------------------
# Text is first cut into atoms: runs of Han characters (segmented by jieba's dictionary), Latin/digit
# words ("Wi-Fi", "iPhone", "3.5", "U.S", "3:45", "20%", "1,000"), single punctuation marks and whitespace
# runs. Then punctuation and spaces are attached: a closing mark or a space goes on the word before
# it (as English tokens carry their "," and "."), an opening quote/bracket on the word after it.
# Cutting at punctuation first makes segmentation local: a sentence segments the same alone as
# inside a paragraph, which `sentence_of_word` relies on.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f\u3007"
_LATIN_CHAR = rf"(?:(?![{_HAN}])[^\W_])"        # a letter or digit of a non-Han script
_ATOM_RE = re.compile(
    rf"(?P<han>[{_HAN}]+)"
    rf"|(?P<latin>{_LATIN_CHAR}+(?:(?:(?<=\d)[:,](?=\d)|[.'’\-_+&/]){_LATIN_CHAR}+)*%?)"
    r"|(?P<space>\s+)"
    r"|(?P<punct>.)", re.DOTALL)
_OPENERS = frozenset("“‘「『（《〈【〔([{\"'")   # attach to the next word
CHINESE_CLOSERS = "”’」』）》〉】〕)]}\"'"
JIEBA_HMM = False   # dictionary words only: HMM guesses merge words wrongly ("帮我查" -> "我查")


@functools.lru_cache(maxsize=1)
def _jieba_tokenizer() -> Any:
    """jieba's bundled dictionary, built in memory: no user dictionary, and no cache file.

    (jieba's own initialise loads `<tmp>/jieba.cache` whenever it exists, whoever wrote it, so a
    stale or foreign cache would change our segmentation; building the prefix dict costs ~1 s
    once per process.)
    """
    import jieba  # lazy: only Mandarin text needs it

    tk = jieba.Tokenizer()
    with tk.get_dict_file() as f:
        tk.FREQ, tk.total = tk.gen_pfdict(f)
    tk.initialized = True
    return tk


def _han_words(run: str) -> list[str]:
    words = list(_jieba_tokenizer().cut(run, cut_all=False, HMM=JIEBA_HMM))
    return words if "".join(words) == run else list(run)   # jieba partitions its input; guard anyway


def chinese_words(text: str) -> list[str]:
    """Mandarin word tokens, punctuation and inner spaces attached; leading/trailing space dropped.

    `"".join(chinese_words(t)) == t.strip()`: a space inside the text (between Latin words, say
    "iPhone 15") stays on the token before it ("iPhone ", "15"), so joining never loses or invents
    a character. A text of punctuation only is one token.
    """
    words: list[str] = []
    pending = ""   # opening marks (or leading punctuation) waiting for the next word
    for m in _ATOM_RE.finditer(text.strip()):
        kind, atom = m.lastgroup, m.group()
        if kind in ("han", "latin"):
            for w in _han_words(atom) if kind == "han" else [atom]:
                words.append(pending + w)
                pending = ""
        elif pending or (kind == "punct" and (atom in _OPENERS or not words)):
            pending += atom
        else:   # a closing mark or a space: on the word before it
            words[-1] += atom
    if pending:
        if words:
            words[-1] += pending
        else:
            words.append(pending)
    return words


def segmenter_identity() -> dict[str, str]:
    """What decides Mandarin segmentation (jieba version, dictionary digest, HMM), for manifests."""
    import hashlib
    from importlib import metadata

    tk = _jieba_tokenizer()
    with tk.get_dict_file() as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    return {"segmenter": "jieba", "version": metadata.version("jieba"), "dict_sha256": digest,
            "hmm": str(JIEBA_HMM)}


ENGLISH = Language(code="en", name="English", word_separator=" ", sentence_ends=(".", "?", "!"),
                   phrase_ends=(".", ",", "?", "!", ";", ":"), question_ends=("?",))

CHINESE = Language(code="zh", name="Mandarin Chinese", word_separator="",
                   sentence_ends=("。", "？", "！", "?", "!", "."),
                   phrase_ends=("，", "、", "；", "：", "。", "？", "！", ",", ";", ":", "?", "!", "."),
                   question_ends=("？", "?"), segment=chinese_words, closers=CHINESE_CLOSERS,
                   numbers=chinese_numbers)

LANGUAGES: dict[str, Language] = {lang.code: lang for lang in (ENGLISH, CHINESE)}


def language(code: str) -> Language:
    """The Language of a row or script; an unknown code is refused by name."""
    try:
        return LANGUAGES[code]
    except KeyError:
        raise ValueError(f"language {code!r} is not supported (supported: {', '.join(LANGUAGES)})") from None
