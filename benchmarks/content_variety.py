"""Variety of assistant text: distinct-2, the top sentence's share and the most repeated n-grams.

    python benchmarks/content_variety.py [--num 1000] [--language en] [--top 30] [--n 6]
    python benchmarks/content_variety.py --shards OUT/shards        # row-level, from generated rows

Script level (the default) plans the default-mix scripts only, no audio: an assistant turn counts
the words voiced before its planned cut (`at_fraction` of its words) and a continuation counts
its prefix and all its sentences, so it approximates what the rows hold. Row level reads the
events' text of assistant turns from Parquet shards, as `duplexsynth generate` reports it.
Distinct-2 is `text_bank.distinct_n` over one text per row (unique bigrams / total bigrams).
"""
from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from generators import text_bank as tb
from generators.registry import plan_trajectory, scenario_for, trajectory_seed
from schemas.config import RunConfig
from schemas.script import Script
from schemas.vocab import EventKind, Role


def script_text(script: Script) -> str:
    """The assistant's words of one script, cut where a planned interruption falls; a continuation
    from the sentence its turn was cut in (composition finds the exact element from the audio)."""
    parts: list[str] = []
    voiced: dict[str, int] = {}   # interrupted turn id -> words voiced before the cut, as planned
    for t in script.turns:
        if t.role != Role.ASSISTANT:
            continue
        if t.continuation is not None:
            heard, left = voiced.get(t.continuation.of_turn, 0), list(t.continuation.sentences)
            while left and len(left[0].split()) <= heard:
                heard -= len(left.pop(0).split())
            parts.append(" ".join([t.continuation.prefix, *left]).strip())
            continue
        words = t.text.split()
        if t.interruption is not None:
            words = words[: max(1, round(len(words) * t.interruption.at_fraction))]
            voiced[t.id] = len(words)
        parts.append(" ".join(words))
    return " ".join(p for p in parts if p)


def planned_texts(num: int, language: str) -> list[str]:
    cfg = RunConfig(language=language)
    return [script_text(plan_trajectory(cfg, scenario_for(j, cfg.seed, cfg.scenarios), trajectory_seed(cfg.seed, j)))
            for j in range(num)]


def row_texts(shards: Path) -> list[str]:
    """One text per row: its assistant turns' event text, as `jobs.shards.assistant_text` joins it."""
    import pyarrow.parquet as pq   # only the row-level measure needs Parquet

    texts: list[str] = []
    for path in sorted(shards.glob("*.parquet")):
        if "events" not in pq.read_schema(path).names:
            continue   # a failure table
        for events in pq.read_table(path, columns=["events"]).column("events").to_pylist():
            texts.append(" ".join(e["text"] for e in events if e["kind"] == EventKind.ASSISTANT_TURN))
    return texts


def top_ngrams(texts: list[str], n: int, k: int) -> list[tuple[int, str]]:
    counts: Counter[tuple[str, ...]] = Counter()
    for text in texts:
        toks = tb._tokens(text)
        counts.update(tuple(toks[i : i + n]) for i in range(len(toks) - n + 1))
    return [(c, " ".join(g)) for g, c in counts.most_common(k)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num", type=int, default=1000)
    ap.add_argument("--language", default="en")
    ap.add_argument("--shards", type=Path, default=None, help="read rows from these shards instead of planning")
    ap.add_argument("--top", type=int, default=0, help="print the most repeated n-grams")
    ap.add_argument("--n", type=int, default=6)
    args = ap.parse_args()
    texts = row_texts(args.shards) if args.shards else planned_texts(args.num, args.language)
    sents = [s for t in texts for s in tb.split_sentences(t)]
    share, top = tb.max_sentence_share(sents)
    print(f"{len(texts)} rows, {len(sents)} assistant sentences: distinct-2 {tb.distinct_n(texts, 2):.4f}, "
          f"top sentence {share:.3%} ({top!r})")
    for c, g in top_ngrams(texts, args.n, args.top):
        print(f"{c:5d}  {g}")


if __name__ == "__main__":
    main()
