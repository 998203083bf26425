"""Lookup in a bundled facts table and keyword search over a bundled snippet corpus."""
from __future__ import annotations

import csv
import re
from functools import lru_cache
from importlib import resources


class NotFound(LookupError):
    pass


def _rows(name: str) -> list[dict[str, str]]:
    text = resources.files("generators.harness").joinpath("data", name).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines(), delimiter="\t"))


@lru_cache(maxsize=None)   # read-only bundled data: loading once per process is safe
def facts() -> dict[str, str]:
    return {r["key"].strip().lower(): r["value"].strip() for r in _rows("facts.tsv")}


@lru_cache(maxsize=None)
def snippets() -> tuple[tuple[str, str], ...]:
    return tuple((r["title"].strip(), r["text"].strip()) for r in _rows("snippets.tsv"))


def lookup(key: str) -> str:
    k = " ".join(key.lower().split())
    table = facts()
    if k not in table:
        raise NotFound(f"no entry for {key!r} in the facts table")
    return table[k]


_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("the a an of in on at for to is are what when does do how and or".split())


@lru_cache(maxsize=None)
def _snippet_terms() -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """(title words, text words) per snippet, split once per process instead of on every search."""
    return tuple((frozenset(_WORD.findall(title.lower())), frozenset(_WORD.findall(text.lower())))
                 for title, text in snippets())


def search(query: str, k: int = 1) -> list[tuple[str, str]]:
    """Top-k snippets by query-term overlap (title terms count double); NotFound if nothing matches."""
    terms = {w for w in _WORD.findall(query.lower()) if w not in _STOP}
    scored = []
    for i, ((title, text), (tw, bw)) in enumerate(zip(snippets(), _snippet_terms())):
        score = 2 * len(terms & tw) + len(terms & bw)
        if score:
            scored.append((-score, i, title, text))
    if not scored:
        raise NotFound(f"no snippet matches {query!r}")
    return [(t, x) for _, _, t, x in sorted(scored)[:k]]
