"""The `Language` dataclass (DESIGN §6) and what language modules share; the registry of
languages is `schemas.language.LANGUAGES`, which imports every `schemas/languages/<code>.py`."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


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
    segment: Callable[[str], list[str]]          # text -> word tokens, punctuation attached
    numbers: Callable[[str], set[str]]           # the numbers a text states (rule 6)
    spoken: Callable[[Sequence[str]], list[str]]  # written tokens -> what each says (TTS spoken form)
    espeak_voices: tuple[str, ...] = ()          # espeak-ng voice files (name before "+") that speak
                                                 # it, as fnmatch patterns ("en*", "cmn")
    closers: str = ""                 # closing quotes/brackets that may follow a sentence end ("好。”")
    script: Callable[[str], bool] | None = None  # whether a text is written in this language's script
                                                 # (None: a Latin-script language, "no Han")

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

    def first_changed(self, before: Sequence[str], after: Sequence[str]) -> int:
        """The index of the first sentence element of `after` whose words differ from `before`'s
        (len(after) when none does). A repair whose user heard that element must say it again: the
        correction changed what it states (rule 7)."""
        for i, new in enumerate(after):
            if i >= len(before) or self.words(before[i]) != self.words(new):
                return i
        return len(after)

    def sentence_of_word(self, sentences: Sequence[str]) -> list[int]:
        """For the text joined from `sentences`, the sentence index of every word."""
        out: list[int] = []
        for i, s in enumerate(sentences):
            out.extend([i] * len(self.words(s)))
        return out


def split_punct(token: str, opens: str, closes: str) -> tuple[str, str, str]:
    """(leading marks, core, trailing marks) of a token."""
    i, j = 0, len(token)
    while i < j and token[i] in opens:
        i += 1
    while j > i and (token[j - 1] in closes or token[j - 1].isspace()):
        j -= 1
    return token[:i], token[i:j], token[j:]
