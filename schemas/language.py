"""Languages are an axis (DESIGN §6): the `Language` dataclass and the registry of languages.

A row's `language` names one of `LANGUAGES`. Everything that reads or writes words in text
(composition, unit slicing, validation, the planners) asks the row's `Language` instead of
splitting on spaces: its word segmentation (the tokens a TTS backend gives one timing each),
how words join back, where sentences and phrases end, the numbers a text states (rule 6), what
each written token is said as (the TTS spoken form), which espeak voice files speak it, and which
script it is written in.

Each language is one module, `schemas/languages/<code>.py`, defining its `Language` (English
`schemas.languages.en`, Mandarin `schemas.languages.zh`), plus one line in `LANGUAGES` below; its
content (text banks, babble sentences, lints) is its folder `generators/banks/<code>/`. The
dataclass lives in `schemas.languages.base` (so the modules need not import the registry) and is
named here as `Language` for its callers.
"""
from __future__ import annotations

from schemas.languages.base import Language
# The registry: one import and one entry per language module.
from schemas.languages.en import ENGLISH
from schemas.languages.zh import CHINESE

__all__ = ["CHINESE", "ENGLISH", "LANGUAGES", "Language", "language", "written_in"]

LANGUAGES: dict[str, Language] = {lang.code: lang for lang in (ENGLISH, CHINESE)}


def written_in(lang: Language, text: str) -> bool:
    """Whether `text` is written in `lang`'s script: its own test, else \"no other language's script\"."""
    if lang.script is not None:
        return lang.script(text)
    return not any(o.script(text) for o in LANGUAGES.values() if o.script is not None)


def language(code: str) -> Language:
    """The Language of a row or script; an unknown code is refused by name."""
    try:
        return LANGUAGES[code]
    except KeyError:
        raise ValueError(f"language {code!r} is not supported (supported: {', '.join(LANGUAGES)})") from None
