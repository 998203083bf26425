"""Languages are an axis (DESIGN §6): how a language's stored text splits into words and sentences.

A row's `language` names one of `LANGUAGES`. Everything that reads or writes words in text
(composition, unit slicing, validation, the planners) asks the row's `Language` instead of
splitting on spaces: its word segmentation (the tokens a TTS backend gives one timing each),
how words join back, where sentences and phrases end. How numbers, times and money are *said*
is content and lives with each language's text banks (generators/banks/<lang>/).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    code: str                         # BCP-47, what the row's `language` column holds
    name: str
    word_separator: str               # between words when text is joined from them
    sentence_ends: tuple[str, ...]    # a word ending in one of these ends a sentence element
    phrase_ends: tuple[str, ...]      # ... or a phrase (where a listener may backchannel)
    question_ends: tuple[str, ...]    # a sentence ending in one of these asks something

    def words(self, text: str) -> list[str]:
        """The word tokens of `text`, punctuation attached (one TTS word timing each)."""
        return text.split()

    def join(self, words: Sequence[str]) -> str:
        return self.word_separator.join(words)

    def ends_sentence(self, word: str) -> bool:
        return word.endswith(self.sentence_ends)

    def is_question(self, text: str) -> bool:
        return text.rstrip().endswith(self.question_ends)

    def phrase_boundaries(self, text: str) -> list[int]:
        """Indices of words that end a phrase (never the last word): where listeners backchannel."""
        words = self.words(text)
        return [i for i, w in enumerate(words[:-1]) if w.endswith(self.phrase_ends)]

    def sentence_of_word(self, sentences: Sequence[str]) -> list[int]:
        """For the text joined from `sentences`, the sentence index of every word."""
        out: list[int] = []
        for i, s in enumerate(sentences):
            out.extend([i] * len(self.words(s)))
        return out


ENGLISH = Language(code="en", name="English", word_separator=" ", sentence_ends=(".", "?", "!"),
                   phrase_ends=(".", ",", "?", "!", ";", ":"), question_ends=("?",))

LANGUAGES: dict[str, Language] = {lang.code: lang for lang in (ENGLISH,)}


def language(code: str) -> Language:
    """The Language of a row or script; an unknown code is refused by name."""
    try:
        return LANGUAGES[code]
    except KeyError:
        raise ValueError(f"language {code!r} is not supported (supported: {', '.join(LANGUAGES)})") from None
