"""Corpus import (issue #14 item 5) on corpora made in each test: JSONL in both layouts with broken
lines, the same conversations as Parquet and as a saved `datasets` folder, and a short `duplexsynth
generate` + `validate` on the corpus source. Everything is real: the reader, the planners, the
harness-free overlays, composition, espeak, Parquet, the validator.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from generators.corpus import (
    FAMILIES,
    CorpusRecordError,
    CorpusSource,
    Unspeakable,
    check_source,
    corpus_fingerprint,
    pin_corpus,
    spoken_sentences,
)
from schemas.config import (
    ConfigError,
    RunConfig,
    ScriptSourceConfig,
    dump_config,
    parse_config,
)
from schemas.language import language
from schemas.provenance import CorpusProvenance
from schemas.script import Script
from tests.generated import FAST_VOICES

REPO = Path(__file__).resolve().parents[1]
EN = language("en")
# The families a corpus carries without an `llm` (a repair's correction is an LLM's)
NO_LLM = tuple(f for f in FAMILIES if f != "interruption_repair")

BASIL = "How do I keep basil alive on a windowsill?"
BASIL_ANSWER = ("Give it at least six hours of sun, and turn the pot every few days. Water it when the top of "
                "the soil feels dry. Pinch off the flower buds, so the leaves keep growing.")
RUN = "What's a good way to start running?"
RUN_ANSWER = ("Here is a simple plan:\n\n1. Walk briskly for five minutes.\n2. Run **slowly** for one minute, "
              "then walk for two.\n3. Repeat that six times, three days a week.\n\nSee [this guide]"
              "(https://example.org/run) for more, and after a month, run for longer stretches.")
RUN_SPOKEN = ("Here is a simple plan.", "Walk briskly for five minutes.", "Run slowly for one minute, then walk for two.",
              "Repeat that six times, three days a week.",
              "See this guide for more, and after a month, run for longer stretches.")
OCTOPUS = "Tell me a fun fact about octopuses, please."
OCTOPUS_ANSWER = ("An octopus has three hearts, and its blood is blue. Two hearts pump blood to the gills, while "
                  "the third pumps it to the rest of the body.")


def _openai(*turns: tuple[str, str]) -> dict[str, Any]:
    return {"messages": [{"role": r, "content": c} for r, c in turns]}


def _sharegpt(*turns: tuple[str, str]) -> dict[str, Any]:
    return {"conversations": [{"from": r, "value": c} for r, c in turns]}


GOOD = [
    _openai(("system", "You are a helpful assistant."), ("user", BASIL), ("assistant", BASIL_ANSWER),
            ("user", "And how often should I feed it?"), ("assistant", "Once a month is plenty, with a weak liquid feed."),
            ("user", "Thanks!")),   # the last request has no answer: left out
    _sharegpt(("human", RUN), ("gpt", RUN_ANSWER)),
    _openai(("user", OCTOPUS), ("assistant", OCTOPUS_ANSWER)),
]
# (JSONL text of the line, what its failed record must say)
BROKEN = [
    ('{"messages": [{"role": "user", "content": "oops"', "not valid JSON"),
    (json.dumps(_openai(("user", "What's the weather in Oslo?"), ("tool", "Sunny, 12 degrees."),
                        ("assistant", "It's sunny."))), "messages[1]: role 'tool' is not a user or the assistant"),
    (json.dumps(_openai(("user", "How do I sort a list in Python?"),
                        ("assistant", "Use this:\n```python\nsorted(xs)\n```\nIt returns a new list."))),
     "messages[1]: a code block cannot be spoken"),
    (json.dumps(_sharegpt(("human", "Compare two phones for me."),
                          ("gpt", "| phone | price |\n|---|---|\n| A | 300 |\n| B | 400 |"))),
     "conversations[1]: a table cannot be spoken"),
    (json.dumps(_openai(("user", "Hi."), ("user", "Are you there?"), ("assistant", "Yes, I'm here."))),
     "messages[1]: two user messages in a row"),
    (json.dumps({"messages": [{"role": {"name": "user"}, "content": "Hi."}]}), "messages[0]: role is not a text"),
]


def _write_jsonl(path: Path) -> dict[int, tuple[int, str | None]]:
    """The corpus file: good and broken records interleaved, with a blank line (not a record).
    Returns record index -> (its line, the failure it must give or None)."""
    lines: list[tuple[str, str | None]] = [(json.dumps(GOOD[0]), None), (BROKEN[0][0], BROKEN[0][1]),
                                           (json.dumps(GOOD[1]), None), ("", None)]
    lines += [BROKEN[1], (json.dumps(GOOD[2]), None), *BROKEN[2:]]
    path.write_text("".join(text + "\n" for text, _ in lines), encoding="utf-8")
    out: dict[int, tuple[int, str | None]] = {}
    for n, (text, why) in enumerate(lines, start=1):
        if text:
            out[len(out)] = (n, why)
    return out


def _source(path: Path, **kw: Any) -> CorpusSource:
    return CorpusSource(ScriptSourceConfig(kind="corpus", path=path, **kw))


def _said(script: Script) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in script.turns]


# ------------------------------------------------------------------------------------------ reading

def test_jsonl_in_both_layouts_and_broken_lines_named(tmp_path: Path) -> None:
    path = tmp_path / "chats.jsonl"
    expect = _write_jsonl(path)
    src, timing = _source(path), RunConfig().timing
    assert len(src.corpus) == len(expect) == 9   # the blank line is not a record
    spoken = []
    for i, (line, why) in expect.items():
        if why is None:
            script, prov = src.write(i, "turn_taking", 1000 + i, timing)
            assert prov.line == line and prov.index == i and prov.path == str(path)
            spoken.append(_said(script))
        else:
            with pytest.raises(CorpusRecordError) as err:
                src.write(i, "turn_taking", 1000 + i, timing)
            assert str(err.value).startswith(f"{path}:{line}: ") and why in str(err.value), str(err.value)
    assert spoken[0] == [("user", BASIL), ("assistant", BASIL_ANSWER), ("user", "And how often should I feed it?"),
                         ("assistant", "Once a month is plenty, with a weak liquid feed.")]   # no system, no "Thanks!"
    assert spoken[1] == [("user", RUN), ("assistant", " ".join(RUN_SPOKEN))]   # ShareGPT, markdown spoken
    assert spoken[2] == [("user", OCTOPUS), ("assistant", OCTOPUS_ANSWER)]


def test_parquet_and_datasets_copies_give_the_same_scripts(tmp_path: Path) -> None:
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    jsonl = tmp_path / "chats.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in GOOD), encoding="utf-8")
    openai = [GOOD[0], GOOD[2], json.loads(BROKEN[1][0])]   # a Parquet file holds one layout: messages
    pq.write_table(pa.Table.from_pylist(openai), tmp_path / "chats.parquet", row_group_size=2)
    folder = tmp_path / "sharegpt"
    datasets.Dataset.from_list([GOOD[1], _sharegpt(("human", "Hello there, how are you?"), ("observation", "x"))]
                               ).save_to_disk(str(folder))
    timing = RunConfig().timing
    from_jsonl = [_source(jsonl).write(i, "backchannel", 7, timing) for i in range(3)]
    pq_src, ds_src = _source(tmp_path / "chats.parquet"), _source(folder)
    for (script, prov), (want, want_prov) in zip([pq_src.write(0, "backchannel", 7, timing),
                                                  pq_src.write(1, "backchannel", 7, timing),
                                                  ds_src.write(0, "backchannel", 7, timing)],
                                                 [from_jsonl[0], from_jsonl[2], from_jsonl[1]]):
        assert script == want   # the same words, overlays and timing draws from every copy
        assert prov.sha256 == want_prov.sha256 and prov.line is None and want_prov.line is not None
    with pytest.raises(CorpusRecordError, match=r"chats.parquet row 2: messages\[1\]: role 'tool'"):
        pq_src.write(2, "backchannel", 7, timing)   # in the second row group
    with pytest.raises(CorpusRecordError, match=r"sharegpt row 1: conversations\[1\]: from 'observation'"):
        ds_src.write(1, "backchannel", 7, timing)


@pytest.mark.parametrize("text, sentences", [
    ("**Sure!** Here's how:\n- Boil *water*\n- Add the `pasta`\n\n## Serving\nEat it hot.",
     ["Sure!", "Here's how.", "Boil water.", "Add the pasta.", "Serving.", "Eat it hot."]),
    ("> Quoted advice: rest well.\n\n---\n1) Sleep early; 2) drink water.", ["Quoted advice: rest well.",
                                                                             "Sleep early; 2) drink water."]),
    ("Read [the docs](https://example.org/docs) first.", ["Read the docs first."]),
])
def test_markdown_becomes_spoken_sentences(text: str, sentences: list[str]) -> None:
    assert spoken_sentences(text, EN) == sentences


@pytest.mark.parametrize("text, why", [
    ("Try:\n```\nls -la\n```", "a code block"),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "a table"),
    ("Go to https://example.org now.", "a URL"),
    ("Set `x = 3` before the loop.", "inline code `x = 3`"),
    ("Well done 🎉", "the symbol(s) 🎉"),
    ("![a cat](cat.png)", "an image"),
    ("Press <kbd>Enter</kbd>.", "HTML markup"),
])
def test_unspeakable_content_is_refused_saying_what(text: str, why: str) -> None:
    with pytest.raises(Unspeakable, match=f"^{__import__('re').escape(why)} cannot be spoken"):
        spoken_sentences(text, EN)


def test_markup_left_after_normalising_or_wrong_language_refuses_the_record(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(_openai(("user", "Name a variable for me."), ("assistant", "Call it max_speed_limit."))) + "\n"
                    + json.dumps(_openai(("user", "你好，今天天气怎么样？"), ("assistant", "今天晴天。"))) + "\n", encoding="utf-8")
    src = _source(path)
    with pytest.raises(CorpusRecordError, match=r"c.jsonl:1: messages\[1\]: .*markup"):
        src.write(0, "turn_taking", 1, RunConfig().timing)
    with pytest.raises(CorpusRecordError, match=r"c.jsonl:2: messages\[0\]: .*not written in English"):
        src.write(1, "turn_taking", 1, RunConfig().timing)
    script, _ = src.write(1, "turn_taking", 1, RunConfig().timing, "zh")   # the same record in a zh run
    assert _said(script) == [("user", "你好，今天天气怎么样？"), ("assistant", "今天晴天。")]


# ------------------------------------------------------------------------------------------ planning

def test_each_family_plans_its_overlay_onto_the_corpus_words(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD[0]) + "\n", encoding="utf-8")
    src, timing = _source(path), RunConfig().timing
    for family in NO_LLM:
        for seed in range(3):
            script, prov = src.write(0, family, seed, timing)
            if family == "delegation":   # a bank task handed off, the corpus exchange while it runs, the relay
                d, relay = script.turns[1].delegate, script.turns[-1]
                assert d is not None and relay.ref == d.task_id and relay.trigger == "backend" and len(script.turns) == 5
                assert _said(script)[2:4] == [("user", BASIL), ("assistant", BASIL_ANSWER)] and prov.exchanges == 1
                continue
            user, answer = script.turns[0], script.turns[1]
            assert (user.text, answer.text) == (BASIL, BASIL_ANSWER) and script.scenario == family
            if family in ("backchannel", "other_directed", "background_speech"):   # event kind = family name
                assert answer.overlays and all(o.kind == family for o in answer.overlays)
            if family == "pause":
                assert user.pause is not None and 1 <= user.pause.after_word < len(EN.words(BASIL))
            if family in ("interruption_discard", "interruption_park"):
                assert answer.interruption is not None and answer.interruption.action in family
                assert prov.exchanges == 1 and prov.truncated   # the later exchange is not spoken after a cut
            else:
                assert _said(script)[2:] == [("user", "And how often should I feed it?"),
                                             ("assistant", "Once a month is plenty, with a weak liquid feed.")]
            if family == "interruption_park":   # resumed from where the cut fell, or set aside out loud
                last = script.turns[3]
                assert len(script.turns) == 4
                resume = last.continuation
                if resume is None:
                    assert last.attrs.get("drops") == answer.id
                else:
                    assert resume.of_turn == answer.id
                    assert resume.sentences == tuple(EN.sentence_elements([BASIL_ANSWER]))


def test_records_are_taken_in_order_and_wrap(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in GOOD), encoding="utf-8")
    src, timing = _source(path), RunConfig().timing
    firsts = [src.write(i, "turn_taking", 5, timing)[0].turns[0].text for i in range(6)]
    assert firsts == [BASIL, RUN, OCTOPUS] * 2
    again, prov = src.write(4, "turn_taking", 99, timing)
    assert prov.index == 1 and again.turns[0].text == RUN and again != src.write(1, "turn_taking", 5, timing)[0]


def test_long_answers_are_cut_and_a_question_ends_the_answer(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    asks = "Sure, I can help. Do you want it quick? Then boil it for ten minutes."
    path.write_text(json.dumps(GOOD[0]) + "\n" + json.dumps(_openai(("user", "Can you help with eggs?"), ("assistant", asks),
                                                                    ("user", "Yes."), ("assistant", "Okay."))) + "\n",
                    encoding="utf-8")
    src, timing = _source(path, max_sentences=2), RunConfig().timing
    script, prov = src.write(0, "turn_taking", 3, timing)
    assert _said(script) == [("user", BASIL), ("assistant", " ".join(EN.sentence_elements([BASIL_ANSWER])[:2]))]
    assert prov.truncated and prov.exchanges == 1   # the next request answered words never said: left out
    script, prov = _source(path).write(1, "turn_taking", 3, timing)
    assert _said(script) == [("user", "Can you help with eggs?"), ("assistant", "Sure, I can help. Do you want it quick?")]
    assert prov.truncated
    short, prov = _source(path, max_exchanges=1).write(0, "turn_taking", 3, timing)
    assert len(short.turns) == 2 and prov.truncated and prov.exchanges == 1


def test_a_record_too_short_for_its_family_fails_saying_why(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(_openai(("user", "Hi there."), ("assistant", "Hello, nice to meet you."))) + "\n", encoding="utf-8")
    src, timing = _source(path), RunConfig().timing
    with pytest.raises(CorpusRecordError, match=r"c.jsonl:1: the first request is under 4 words"):
        src.write(0, "pause", 1, timing)
    with pytest.raises(CorpusRecordError, match=r"c.jsonl:1: the first answer has 1 sentence\(s\); interruption_park needs 2"):
        src.write(0, "interruption_park", 1, timing)
    assert src.write(0, "backchannel", 1, timing)[0].turns[1].overlays   # "Hello," is a phrase boundary


def test_a_repair_over_a_corpus_answer_is_the_llm_s_and_resumes_from_the_cut(tmp_path: Path) -> None:
    """interruption_repair with the source's `llm` (the scripted loopback server): the corpus's words
    are cut by the planners' draw, the correction and the repaired answer are the LLM's, the repair is
    a Continuation over the repaired sentences (composition speaks what the user did not hear), and
    a rerun reads the reply from the cache."""
    from generators.corpus import corpus_for
    from tests.scripted_llm import ScriptedServer

    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD[0]) + "\n", encoding="utf-8")
    sentences = tuple(EN.sentence_elements([BASIL_ANSWER]))
    with ScriptedServer(["malformed"]) as srv:
        src = ScriptSourceConfig.model_validate({"kind": "corpus", "path": str(path), "llm": {
            "base_url": srv.base_url, "model": "scripted-test-model", "timeout_s": 5.0, "backoff_s": 0.01}})
        script, prov = corpus_for(src, tmp_path / "out").write(0, "interruption_repair", 4, RunConfig().timing)
        again, prov2 = corpus_for(src, tmp_path / "out").write(0, "interruption_repair", 4, RunConfig().timing)
    assert len(srv.requests) == 2 and "1. Give it at least six hours" in srv.requests[0]["body"]["messages"][1]["content"]
    assert "could not be used" in srv.requests[1]["body"]["messages"][-1]["content"]   # the bad reply fed back
    user, answer, repair = script.turns
    assert (user.text, answer.text) == (BASIL, BASIL_ANSWER) and prov.exchanges == 1 and prov.truncated
    assert answer.interruption is not None and answer.interruption.action == "repair"
    assert answer.interruption.text == "Sorry, I meant for a small balcony, not a windowsill."
    cont = repair.continuation
    assert cont is not None and cont.of_turn == answer.id and cont.prefix == "Got it, a balcony then."
    assert cont.sentences == (f"On a balcony, g{sentences[0][1:]}", *sentences[1:])
    assert prov.llm is not None and prov.llm.model == "scripted-test-model" and len(prov.llm.calls) == 2
    assert (again, prov2) == (script, prov)
    with pytest.raises(ValueError, match="not 'interruption_repair'"):   # no llm: no repair made up
        _source(path).write(0, "interruption_repair", 4, RunConfig().timing)


# ------------------------------------------------------------------------------------------ config

def test_corpus_config_checks_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD[2]) + "\n", encoding="utf-8")
    cases = [({"kind": "corpus"}, "path is required with kind corpus"),
             ({"kind": "corpus", "path": str(tmp_path / "nope.jsonl")}, "script_source.path: corpus not found"),
             ({"kind": "corpus", "path": str(path), "model": "m"}, "model is only for kind llm"),
             ({"kind": "llm", "base_url": "http://h/v1", "model": "m", "path": str(path)}, "path is only for kind corpus"),
             ({"kind": "corpus", "path": str(path), "max_sentences": 0}, "script_source.max_sentences")]
    for source, field in cases:
        with pytest.raises(ConfigError) as err:
            parse_config({"script_source": source})
        assert field in str(err.value) and "\n" not in str(err.value), str(err.value)
    cfg = parse_config({"script_source": {"kind": "corpus", "path": str(path)}, "scenarios": {"turn_taking": 1.0}})
    assert parse_config(yaml.safe_load(dump_config(cfg))) == cfg
    assert set(cfg.model_dump(mode="json")["script_source"]) == {"kind", "path", "max_exchanges", "max_sentences"}
    llm = parse_config({"script_source": {"kind": "llm", "base_url": "http://h/v1", "model": "m"}})
    assert not {"path", "max_exchanges", "max_sentences"} & set(llm.model_dump(mode="json")["script_source"])


def test_check_source_refuses_families_and_corpora_it_cannot_read(tmp_path: Path) -> None:
    import datasets

    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD[2]) + "\n", encoding="utf-8")
    src = {"kind": "corpus", "path": str(path)}
    with pytest.raises(ConfigError, match=r"scenarios: .*\(interruption_repair, delegation_multi, .*words the corpus"):
        check_source(parse_config({"script_source": src}))   # the default mix asks for every family
    with pytest.raises(ConfigError, match=r"\(interruption_repair asked for; .* give the source an `llm`"):
        check_source(parse_config({"script_source": src, "scenarios": {s: 1.0 for s in FAMILIES}}))
    check_source(parse_config({"script_source": src, "scenarios": {s: 1.0 for s in NO_LLM}}))
    llm = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}
    check_source(parse_config({"script_source": {**src, "llm": llm}, "scenarios": {s: 1.0 for s in FAMILIES}}))
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    (tmp_path / "c.csv").write_text("a,b\n", encoding="utf-8")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    (tmp_path / "plain").mkdir()
    dd = tmp_path / "dd"
    datasets.DatasetDict({"train": datasets.Dataset.from_list([GOOD[2]])}).save_to_disk(str(dd))
    for name, why in [("empty.jsonl", "holds no records"), ("c.csv", "is not a .jsonl/.ndjson/.parquet file"),
                      ("bad.parquet", "is not a readable Parquet file"), ("plain", "is not a folder saved by datasets"),
                      ("dd", "holds the splits train; point path at one of them")]:
        cfg = parse_config({"script_source": {"kind": "corpus", "path": str(tmp_path / name)},
                            "scenarios": {"turn_taking": 1.0}})
        with pytest.raises(ConfigError, match=f"script_source.path: .*{why}"):
            check_source(cfg)


def test_the_fingerprint_pins_the_corpus_content(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD[2]) + "\n", encoding="utf-8")
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(path.read_bytes())
    folder = tmp_path / "saved"
    (folder / "part").mkdir(parents=True)
    (folder / "state.json").write_text("{}", encoding="utf-8")
    (folder / "part" / "data.arrow").write_bytes(b"rows")
    before = corpus_fingerprint(folder)
    assert corpus_fingerprint(copy) == corpus_fingerprint(path) == __import__("hashlib").sha256(path.read_bytes()).hexdigest()
    (folder / "part" / "data.arrow").write_bytes(b"rows!")
    edited = corpus_fingerprint(folder)
    (folder / "part" / "data.arrow").rename(folder / "part" / "other.arrow")
    assert len({before, edited, corpus_fingerprint(folder)}) == 3   # a folder's bytes and names both count

    cfg = parse_config({"script_source": {"kind": "corpus", "path": str(path)}, "scenarios": {"turn_taking": 1.0}})
    pinned = pin_corpus(cfg)
    assert pinned.script_source.corpus_sha256 == corpus_fingerprint(path) and pinned.config_hash() != cfg.config_hash()
    assert parse_config(yaml.safe_load(dump_config(pinned))) == pinned == pin_corpus(pinned)
    path.write_text(json.dumps(GOOD[0]) + "\n", encoding="utf-8")   # the corpus changes under the same path
    assert pin_corpus(cfg).config_hash() not in (cfg.config_hash(), pinned.config_hash())
    for pinned_check in (lambda: pin_corpus(pinned), lambda: check_source(pinned),
                         lambda: CorpusSource(pinned.script_source)):   # driver, preflight, and a worker
        with pytest.raises(ConfigError, match=r"^script_source.corpus_sha256: the corpus .*c.jsonl has changed"):
            pinned_check()


def test_the_resume_refusal_names_what_changed(tmp_path: Path) -> None:
    from jobs.runner import CONFIG_FILE, RunRefused, _check_previous_run
    from pipeline.io import Store

    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD[2]) + "\n", encoding="utf-8")
    data = {"num": 3, "script_source": {"kind": "corpus", "path": str(path)}, "scenarios": {"turn_taking": 1.0}}
    store = Store(tmp_path / "out")
    store.makedirs()
    store.write_bytes(CONFIG_FILE, dump_config(pin_corpus(parse_config(data))).encode())
    _check_previous_run(pin_corpus(parse_config(data)), store, force_new_run=False)   # the same run: resumed
    with pytest.raises(RunRefused, match=r"different config \(hash \w+ != \w+; changed: num, timing.eot_s.lo\); see "):
        _check_previous_run(pin_corpus(parse_config({**data, "num": 4, "timing": {"eot_s": [0.3, 0.6]}})), store, False)
    path.write_text(json.dumps(GOOD[0]) + "\n", encoding="utf-8")
    with pytest.raises(RunRefused, match=r"the corpus at the same path has changed since that run "
                                         r"\(script_source.corpus_sha256\); also changed: num\); see "):
        _check_previous_run(pin_corpus(parse_config({**data, "num": 4})), store, False)


def test_source_mix_config_checks_in_one_line(tmp_path: Path) -> None:
    from generators.registry import check_sources
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD[2]) + "\n", encoding="utf-8")
    corpus = {"kind": "corpus", "path": str(path), "weight": 1}
    cases = [({"script_source": {"kind": "procedural"}, "script_sources": [corpus]}, "script_source and script_sources"),
             ({"script_source": {**corpus, "weight": 2}}, "script_source.weight: a weight is only for an entry of"),
             ({"script_sources": []}, "script_sources: List should have at least 1 item"),
             ({"script_sources": [{"kind": "procedural", "weight": 0}]}, "script_sources.0.weight")]
    for data, field in cases:
        with pytest.raises(ConfigError) as err:
            parse_config(data)
        assert field in str(err.value) and "\n" not in str(err.value), str(err.value)
    mix = parse_config({"script_sources": [{"kind": "procedural", "weight": 0.25}, corpus],
                        "scenarios": {"turn_taking": 1.0, "delegation_multi": 1.0}})
    assert parse_config(yaml.safe_load(dump_config(mix))) == mix
    assert check_sources(mix) == ["note: script_sources[1] (kind corpus) leaves out delegation_multi; those families "
                                  "are drawn by the other sources only"]
    only_corpus = parse_config({"script_sources": [corpus, corpus],
                                "scenarios": {"turn_taking": 1.0, "delegation_multi": 1.0}})
    with pytest.raises(ConfigError, match="^script_sources: no source of the mix writes delegation_multi"):
        check_sources(only_corpus)
    no_family = parse_config({"script_sources": [{"kind": "procedural"}, corpus], "scenarios": {"delegation_multi": 1.0}})
    with pytest.raises(ConfigError, match=r"^script_sources\[1\]: kind corpus writes none of the run's scenarios in en"):
        check_sources(no_family)


def test_a_mix_draws_each_trajectory_s_source_from_its_seed_and_preview_shows_it(tmp_path: Path) -> None:
    """One shard of a procedural + corpus mix, rendered in-process: every row's meta names the source its
    seed drew (procedural rows too), its family is one that source writes, and its page says the source."""
    import pyarrow.parquet as pq

    from generators.registry import source_of, trajectory_seed
    from jobs.shards import plan_shards, run_shard
    from pipeline.preview import render_html

    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD[2]) + "\n", encoding="utf-8")
    cfg = pin_corpus(parse_config({
        "num": 5, "shard_size": 5, "seed": 2, "voices": FAST_VOICES.model_dump(mode="json"),
        "scenarios": {"turn_taking": 1.0, "interruption_repair": 1.0},
        "script_sources": [{"kind": "procedural"}, {"kind": "corpus", "path": str(path), "weight": 2}]}))
    drawn = [("procedural", "corpus")[source_of(cfg, trajectory_seed(2, j))] for j in range(5)]
    assert set(drawn) == {"procedural", "corpus"}
    summary = run_shard(cfg, plan_shards(5, 5)[0], tmp_path / "out")
    assert (summary.rows, summary.failed) == (5, 0), summary.failures
    rows = pq.read_table(tmp_path / "out" / summary.path).to_pylist()
    for r, kind in zip(rows, drawn):
        meta = json.loads(r["meta"])["script_source"]
        assert meta["kind"] == kind
        if kind == "corpus":   # a corpus carries no repair: its rows draw turn_taking only
            assert r["scenario"] == "turn_taking" and meta["sha256"] and meta["line"] == 1
        label = "corpus · c.jsonl:1" if kind == "corpus" else "procedural"
        assert f"<span>script source <b>{label}</b></span>" in render_html(r)
    assert {r["scenario"] for r, k in zip(rows, drawn) if k == "procedural"} <= {"turn_taking", "interruption_repair"}


# ------------------------------------------------------------------------------------------ end to end

def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jobs.cli", *args], check=False, cwd=REPO, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(REPO)})


def test_generate_on_a_corpus_validates_and_speaks_its_words(tmp_path: Path, ray_head: str) -> None:
    import pyarrow.parquet as pq

    corpus = tmp_path / "chats.jsonl"
    expect = _write_jsonl(corpus)
    cfg = {"num": len(expect), "shard_size": len(expect), "seed": 11,
           "scenarios": {s: 1.0 for s in NO_LLM if s != "delegation"},
           "script_source": {"kind": "corpus", "path": str(corpus)}, "voices": FAST_VOICES.model_dump(mode="json")}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    gen = _cli("generate", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out"), "--address", ray_head,
               "--no-progress")
    assert gen.returncode in (0, 3), gen.stdout[-2000:] + gen.stderr[-2000:]   # failed rows: the job went on
    val = _cli("validate", str(tmp_path / "out"))
    assert val.returncode == 0, val.stdout[-3000:] + val.stderr[-3000:]
    pinned = yaml.safe_load((tmp_path / "out" / "config.yaml").read_text())["script_source"]["corpus_sha256"]
    assert pinned == __import__("hashlib").sha256(corpus.read_bytes()).hexdigest()

    # the corpus edited in place (one answer reworded): resuming into the same output is refused, saying why
    corpus.write_text(corpus.read_text(encoding="utf-8").replace("three hearts", "3 hearts"), encoding="utf-8")
    again = _cli("generate", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out"), "--address", ray_head,
                 "--no-progress")
    assert again.returncode == 2 and again.stderr.count("\n") == 1, again.stderr[-2000:]
    assert "holds a run with a different config" in again.stderr
    assert "the corpus at the same path has changed since that run (script_source.corpus_sha256)" in again.stderr

    rows = pq.read_table(tmp_path / "out" / "shards").to_pylist()
    failed = pq.read_table(tmp_path / "out" / "failed").to_pylist()
    bad = {i: (line, why) for i, (line, why) in expect.items() if why}
    assert sorted(f["index"] for f in failed) == sorted(bad)
    for f in failed:
        line, why = bad[f["index"]]
        assert f"{corpus}:{line}: " in f["error"] and why in f["error"], f["error"]
    corpus_words = {BASIL, "And how often should I feed it?", RUN, OCTOPUS, BASIL_ANSWER, " ".join(RUN_SPOKEN),
                    OCTOPUS_ANSWER, "Once a month is plenty, with a weak liquid feed."}
    assert len(rows) == 3
    for r in rows:
        prov = CorpusProvenance.model_validate(json.loads(r["meta"])["script_source"])
        assert r["id"].endswith(f"-{prov.index:07d}") and prov.line == expect[prov.index][0]   # record j: row j
        said = [e for e in r["events"] if e["kind"] in ("user_turn", "assistant_turn")]
        user = [e["text"] for e in said if e["kind"] == "user_turn"]
        planned = [json.loads(e["attrs"])["planned_text"] for e in said if e["kind"] == "assistant_turn"]
        assert user and set(user) <= corpus_words and planned[0] in corpus_words, (r["scenario"], said)


def test_generate_a_mix_of_procedural_llm_and_corpus_then_validate(tmp_path: Path, ray_head: str) -> None:
    """`generate` on `script_sources: [procedural, llm, corpus with an llm]` against the scripted
    loopback server, then `validate`: every row names the source its seed drew, all three write, and
    the corpus's repairs and the llm's scripts carry the calls they were written from."""
    import pyarrow.parquet as pq

    from generators.registry import source_of, trajectory_seed
    from tests.scripted_llm import ScriptedServer

    corpus = tmp_path / "chats.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in GOOD), encoding="utf-8")
    with ScriptedServer() as srv:
        llm = {"base_url": srv.base_url, "model": "scripted-test-model", "timeout_s": 5.0, "max_concurrency": 2}
        cfg = {"num": 3, "shard_size": 3, "seed": 14, "voices": FAST_VOICES.model_dump(mode="json"),
               "scenarios": {"turn_taking": 1.0, "interruption_repair": 1.0, "delegation": 1.0, "backchannel": 1.0},
               "script_sources": [{"kind": "procedural"}, {"kind": "llm", **llm},
                                  {"kind": "corpus", "path": str(corpus), "llm": llm}]}
        kinds = [("procedural", "llm", "corpus")[source_of(parse_config(cfg), trajectory_seed(14, j))] for j in range(3)]
        assert kinds == ["corpus", "procedural", "llm"]   # seed 14: one of each, the corpus's a repair (below)
        (tmp_path / "mix.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
        gen = _cli("generate", "--config", str(tmp_path / "mix.yaml"), "--out", str(tmp_path / "out"),
                   "--address", ray_head, "--progress-interval", "0")
        assert gen.returncode == 0, gen.stdout[-2000:] + gen.stderr[-3000:]
        last = [ln for ln in gen.stderr.splitlines() if ln.startswith("progress ")][-1]
        assert re.search(r"llm [1-9]\d* calls \([0-9.]+/s\), 0 failed, 0 cache hits$", last), last
    from jobs.cli import main
    assert main(["validate", str(tmp_path / "out")]) == 0   # in this process: its modules are loaded already
    rows = pq.read_table(tmp_path / "out" / "shards").to_pylist()
    assert [json.loads(r["meta"])["script_source"]["kind"] for r in rows] == kinds
    assert rows[0]["scenario"] == "interruption_repair"
    for r, kind in zip(rows, kinds):
        meta = json.loads(r["meta"])["script_source"]
        if kind == "llm":
            assert meta["model"] == "scripted-test-model" and meta["calls"]
        if kind == "corpus":
            assert ("llm" in meta) == (r["scenario"] == "interruption_repair"), (r["scenario"], meta)
            if r["scenario"] == "interruption_repair":
                assert meta["llm"]["calls"] and meta["llm"]["prompt"]["request"] in (BASIL, RUN, OCTOPUS)
                from pipeline.preview import script_source_label
                assert script_source_label(r) == f"corpus · chats.jsonl:{meta['line']} + llm · scripted-test-model"
