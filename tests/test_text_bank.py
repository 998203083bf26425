"""Tests for generators.text_bank: variety over 1,000 simulated dialogues, determinism,
coverage, TTS-safe text and pause splitting. Delegation content against the harness is
tested in test_delegation_content.py."""

from __future__ import annotations

import re

import numpy as np
import pytest

from generators import text_bank as tb
from generators.banks.en.render import RULES
from generators.harness import HarnessState, run_task
from schemas.config import HarnessConfig

N_DIALOGUES = 1000
KINDS = ("answer", "repair", "discard", "followup", "smalltalk", "delegation", "timer")

MARKUP = re.compile(r"[*#_\[\]`<>{}|\\]")
# things TTS reads badly or that are not spoken English
UNSPOKEN = re.compile(r"%|&|/|\+|=|@|\be\.g\b|\betc\b|\bkm\b|\bmph\b|\bkg\b|\bmins?\b|\bhrs?\b|\bapprox\b|\bbpm\b|\bpm\b|\bam\b")
EMOJI = re.compile("[\U0001F300-\U0001FAFF\u2600-\u27BF]")
HARNESS = HarnessConfig()
# what a delegation dialogue does with its task, in turn: relay, partial relay, fallback, retry, cancel, revise
DELEGATION_OUTCOMES = ("ok", "ok", "partial", "fallback", "retry", "cancel", "revise", "ok")


def delegation_dialogue(rng: np.random.Generator, k: int) -> list[str]:
    """The assistant's delegation texts of one dialogue, executed on the harness like the planners do."""
    outcome = DELEGATION_OUTCOMES[k % len(DELEGATION_OUTCOMES)]
    d = tb.draw_delegation(rng, revisable=outcome == "revise")
    state = HarnessState()
    if outcome in ("ok", "partial"):
        ex = run_task("t1", d.call, HARNESS, rng, state, force=outcome)
        return [d.ack, *tb.relay_lines(rng, d, ex)]
    if outcome == "fallback":
        ex = run_task("t1", d.call, HARNESS, rng, state, force="timeout" if rng.random() < 0.35 else "error")
        return [d.ack, *tb.fallback_lines(rng, d, ex)]
    if outcome == "retry":
        ex = run_task("t1", d.call, HARNESS, rng, state, force="timeout" if rng.random() < 0.35 else "error")
        ex2 = run_task("t2", d.call, HARNESS, rng, state, force="ok")
        return [d.ack, tb.retry_line(rng, d, ex), *tb.relay_lines(rng, d, ex2)]
    if outcome == "cancel":
        return [d.ack, tb.cancel_ack(rng, d)]
    _, revised = tb.draw_revision(rng, d)
    ex = run_task("t2", revised.call, HARNESS, rng, state, force="ok")
    return [d.ack, tb.revision_ack(rng, revised), *tb.relay_lines(rng, revised, ex)]


def simulate(seed: int, n: int = N_DIALOGUES, realistic: bool = False) -> list[str]:
    """Assistant utterances of ``n`` dialogues, an even mix of the planners' dialogue kinds.

    With ``realistic`` the interrupted answer prefix is spoken before a discard ack and
    the parked answer is spoken around a followup, as planners will do.
    """
    rng = np.random.default_rng(seed)
    texts: list[str] = []
    n_delegations = 0
    for i in range(n):
        kind = KINDS[i % len(KINDS)]
        if kind == "answer":
            texts += tb.draw_exchange(rng).answer
        elif kind == "repair":
            ex = tb.draw_exchange(rng)
            j = int(rng.integers(1, len(ex.answer)))
            texts += ex.answer[:j] + ex.repaired_answer
        elif kind == "discard":
            ex = tb.draw_exchange(rng)
            j = int(rng.integers(1, len(ex.answer)))
            if realistic:
                texts += ex.answer[:j]
            texts.append(tb.draw_discard_ack(rng, ex.topic))
        elif kind == "followup":
            ex = tb.draw_exchange(rng)
            j = int(rng.integers(1, len(ex.answer)))
            follow = tb.draw_followup(rng, ex.domain)
            resume = tb.draw_resume_phrase(rng, ex.topic)
            if realistic:
                texts += ex.answer[:j] + follow.answer + (resume,) + ex.answer[j:]
            else:
                texts += follow.answer + (resume,)
        elif kind == "smalltalk":
            texts.append(tb.draw_smalltalk(rng)[1])
        elif kind == "delegation":
            texts += delegation_dialogue(rng, n_delegations)
            n_delegations += 1
        else:
            t = tb.draw_timer(rng)
            texts += (t.ack, t.announce)
    return texts


def sentences_of(texts: list[str]) -> list[str]:
    return [s for t in texts for s in tb.split_sentences(t)]


@pytest.mark.parametrize("realistic", [False, True], ids=["as-specified", "realistic"])
def test_variety_over_1000_dialogues(realistic: bool) -> None:
    texts = simulate(seed=20240601, realistic=realistic)
    sents = sentences_of(texts)
    d2 = tb.distinct_n(texts, 2)
    share, top = tb.max_sentence_share(sents)
    mode = "realistic" if realistic else "as-specified"
    print(f"\n[{mode}] {len(sents)} assistant sentences: distinct-2 = {d2:.3f}, max sentence share = {share:.4%} ({top!r})")
    assert d2 >= 0.30
    assert share <= 0.01


def test_variety_holds_across_seeds() -> None:
    for seed in (1, 2, 3):
        texts = simulate(seed=seed)
        share, top = tb.max_sentence_share(sentences_of(texts))
        d2 = tb.distinct_n(texts)
        print(f"\nseed {seed}: distinct-2 = {d2:.3f}, max share = {share:.4%}")
        assert d2 >= 0.30
        assert share <= 0.01, top


def test_each_kind_is_varied() -> None:
    """Short utterances are slot-filled: no single one dominates its own kind."""
    rng = np.random.default_rng(7)
    kinds: dict[str, list[str]] = {
        "repair_ack": [tb.draw_exchange(rng).repair_ack for _ in range(300)],
        "discard": [tb.draw_discard_ack(rng, tb.draw_exchange(rng).topic) for _ in range(300)],
        "resume": [tb.draw_resume_phrase(rng, tb.draw_exchange(rng).topic) for _ in range(300)],
        "smalltalk": [tb.draw_smalltalk(rng)[1] for _ in range(300)],
        "timer_ack": [tb.draw_timer(rng).ack for _ in range(300)],
        "timer_announce": [tb.draw_timer(rng).announce for _ in range(300)],
        "delegation_ack": [tb.draw_delegation(rng).ack for _ in range(300)],
    }
    contents = [tb.draw_delegation(rng) for _ in range(300)]
    runs = [(d, run_task("t", d.call, HARNESS, rng, HarnessState(), force=mode))
            for d, mode in zip(contents, ("ok", "partial", "error", "timeout") * 75)]
    kinds["relay"] = [" ".join(tb.relay_lines(rng, d, ex)) for d, ex in runs if ex.status in ("ok", "partial")]
    kinds["fallback"] = [" ".join(tb.fallback_lines(rng, d, ex)) for d, ex in runs if ex.status in ("error", "timeout")]
    kinds["retry"] = [tb.retry_line(rng, d, ex) for d, ex in runs if ex.status in ("error", "timeout")]
    kinds["cancel_ack"] = [tb.cancel_ack(rng, d) for d in contents]
    kinds["cancel_request"] = [tb.cancel_request(rng, d) for d in contents]
    revisable = [tb.draw_delegation(rng, revisable=True) for _ in range(300)]
    kinds["revision_ack"] = [tb.revision_ack(rng, tb.draw_revision(rng, d)[1]) for d in revisable]
    kinds["revision_request"] = [tb.draw_revision(rng, d)[0] for d in revisable]
    for name, texts in kinds.items():
        share, top = tb.max_sentence_share(sentences_of(texts))
        assert share <= 0.03, (name, top, share)


def _everything(seed: int) -> list[object]:
    rng = np.random.default_rng(seed)
    out: list[object] = []
    for _ in range(30):
        ex = tb.draw_exchange(rng)
        out += [
            ex,
            tb.draw_followup(rng, ex.domain),
            tb.draw_resume_phrase(rng, ex.topic),
            tb.draw_discard_ack(rng, ex.topic),
            tb.draw_stop_request(rng),
            tb.draw_backchannel(rng),
            tb.draw_hesitation(rng),
            tb.split_for_pause(rng, ex.user_request),
            tb.draw_other_directed(rng),
            tb.draw_background_speech(rng),
            tb.draw_smalltalk(rng),
            tb.draw_delegation(rng),
            tb.draw_timer(rng),
        ]
    return out


def test_determinism_with_same_seed() -> None:
    assert _everything(11) == _everything(11)
    assert _everything(11) != _everything(12)


def test_rng_is_the_only_source_of_randomness() -> None:
    import random

    random.seed(1)
    np.random.seed(1)
    a = _everything(5)
    random.seed(2)
    np.random.seed(2)
    b = _everything(5)
    assert a == b


def test_every_domain_reachable() -> None:
    assert len(tb.DOMAINS) >= 8
    rng = np.random.default_rng(3)
    seen = {tb.draw_exchange(rng).domain for _ in range(600)}
    assert seen == set(tb.DOMAINS)
    seen_deleg = {tb.draw_delegation(rng).domain for _ in range(600)}
    assert seen_deleg == set(tb.DOMAINS)
    for d in tb.DOMAINS:
        assert tb.draw_exchange(rng, d).domain == d
        assert tb.draw_delegation(rng, d).domain == d
        assert tb.draw_followup(rng, d).domain != d
    with pytest.raises(ValueError):
        tb.draw_exchange(rng, "astrology")


def _ends_like_sentence(s: str) -> bool:
    return bool(s) and s[-1] in ".!?" and s == s.strip() and "  " not in s


def test_exchange_structure() -> None:
    rng = np.random.default_rng(4)
    for _ in range(400):
        ex = tb.draw_exchange(rng)
        assert 4 <= len(ex.answer) <= 6
        assert len(ex.repaired_from) == len(ex.answer)
        assert ex.repaired_answer == (ex.repair_ack,) + ex.repaired_from
        assert ex.answer != ex.repaired_from, "the corrected slot must change the answer"
        assert 1 <= len(tb.split_sentences(ex.user_request)) <= 2
        assert ex.topic and ex.topic == ex.topic.strip()
        for s in ex.answer + ex.repaired_from:
            assert _ends_like_sentence(s), s
            # one sentence, or a short exclamation or question leading into one
            assert len(tb.split_sentences(s)) <= 2, s
            assert s[0].isupper() or s[0].isdigit(), s
        for s in (ex.user_request, ex.correction, ex.repair_ack):
            assert _ends_like_sentence(s), s


def _all_texts(seed: int, n: int = 300) -> tuple[list[str], list[str]]:
    """(assistant spoken texts, other texts) from every API."""
    rng = np.random.default_rng(seed)
    spoken: list[str] = []
    other: list[str] = []
    for _ in range(n):
        ex = tb.draw_exchange(rng)
        spoken += ex.answer + ex.repaired_answer + (ex.repair_ack,)
        other += [ex.user_request, ex.correction, ex.topic]
        spoken += [tb.draw_resume_phrase(rng, ex.topic), tb.draw_discard_ack(rng, ex.topic)]
        user, reply = tb.draw_smalltalk(rng)
        spoken.append(reply)
        other.append(user)
        spoken += delegation_dialogue(rng, len(spoken))
        d = tb.draw_delegation(rng)
        ex = run_task("t", d.call, HARNESS, rng, HarnessState(), force="ok")
        other += [d.user_request, d.request, d.topic, ex.text, tb.cancel_request(rng, d), tb.cancel_request_text(d)]
        t = tb.draw_timer(rng)
        spoken += [t.ack, t.announce]
        other += [t.user_request, t.label]
        other += [
            tb.draw_stop_request(rng), tb.draw_backchannel(rng), tb.draw_hesitation(rng),
            tb.draw_other_directed(rng), tb.draw_background_speech(rng),
        ]
    return spoken, other


def test_no_markup_anywhere_and_spoken_text_is_tts_safe() -> None:
    spoken, other = _all_texts(5)
    for text in spoken + other:
        assert isinstance(text, str) and text
        assert not MARKUP.search(text), text
        assert not EMOJI.search(text), text
        assert "\n" not in text
    for text in spoken:
        assert not UNSPOKEN.search(text), text
        assert _ends_like_sentence(text), text
        for s in tb.split_sentences(text):
            assert s[0].isupper() or s[0].isdigit(), s


def test_resume_and_discard_accept_plain_domain_names() -> None:
    rng = np.random.default_rng(6)
    for d in tb.DOMAINS:
        for fn in (tb.draw_resume_phrase, tb.draw_discard_ack):
            text = fn(rng, d)
            assert tb._BANK.domain_topics[d] in text, text
            assert not MARKUP.search(text)


def test_split_for_pause() -> None:
    rng = np.random.default_rng(8)
    requests = [tb.draw_exchange(rng).user_request for _ in range(300)]
    requests += [tb.draw_delegation(rng).user_request for _ in range(200)]
    requests += [tb.draw_timer(rng).user_request for _ in range(100)]
    requests.append("Can you tell me the weather in Paris tomorrow?")
    for text in requests:
        head, tail = tb.split_for_pause(rng, text)
        assert head and tail
        assert head == head.strip() and tail == tail.strip()
        assert f"{head} {tail}" == " ".join(text.split())
        assert head[-1] not in ".!?,;:", (head, tail)
        words = text.split()
        assert head.split() == words[: len(head.split())]
    # the head is audibly unfinished: it ends on a function word, past the first two words, and the
    # split is drawn among such places (not one fixed cut, never before "Paris" or after "tomorrow?")
    heads = {tb.split_for_pause(rng, "Can you tell me the weather in Paris tomorrow?")[0] for _ in range(60)}
    for head in heads:
        last = re.sub(r"[^a-z]", "", head.split()[-1].lower())
        assert RULES.pause_after(last) and len(head.split()) >= 3, head
        assert "Paris" not in head, head
    assert len(heads) >= 2, heads
    with pytest.raises(ValueError):
        tb.split_for_pause(rng, "Hello.")


def test_split_for_pause_prefers_function_words() -> None:
    rng = np.random.default_rng(9)
    dangling = 0
    total = 0
    for _ in range(300):
        head, _ = tb.split_for_pause(rng, tb.draw_exchange(rng).user_request)
        total += 1
        last = re.sub(r"[^a-z]", "", head.split()[-1].lower())
        dangling += last in {
            "a", "an", "the", "my", "your", "for", "in", "on", "at", "to", "with", "about", "of", "and",
            "or", "is", "are", "can", "could", "would", "should", "do", "i", "me", "you", "what", "how",
            "this", "that", "some", "from", "by", "if", "but", "so", "make", "get", "find", "tell", "give",
            "help", "check", "set", "book", "plan", "we", "it", "our", "their", "his", "her", "its", "these",
            "those", "any", "onto", "into", "near", "around", "between", "like", "than", "because", "when",
            "while", "as", "whether", "was", "be", "will", "does", "did", "where", "which", "who", "whats",
        }
    assert dangling / total > 0.9


def test_timer_content() -> None:
    rng = np.random.default_rng(15)
    for _ in range(300):
        t = tb.draw_timer(rng)
        assert 10 <= t.seconds <= 60   # the tasks' ranges in chatter.yaml timer_labels (each checked in test_bank_files)
        assert t.label
        assert str(t.seconds) in t.user_request or t.label in t.user_request
        for text in (t.ack, t.announce):
            assert _ends_like_sentence(text)
            assert t.label in text.lower() or str(t.seconds) in text or tb_number_word(t.seconds) in text.lower()


def tb_number_word(n: int) -> str:
    from generators.banks.engine import number_words

    return number_words(n)


def test_short_user_side_phrases() -> None:
    rng = np.random.default_rng(16)
    backchannels = {tb.draw_backchannel(rng) for _ in range(300)}
    hesitations = {tb.draw_hesitation(rng) for _ in range(300)}
    stops = {tb.draw_stop_request(rng) for _ in range(300)}
    assert len(backchannels) >= 10 and all(len(b.split()) <= 3 for b in backchannels)
    assert len(hesitations) >= 8 and all(len(h.split()) <= 5 for h in hesitations)
    assert len(stops) >= 10 and all(_ends_like_sentence(s) for s in stops)
    others = {tb.draw_other_directed(rng) for _ in range(300)}
    backgrounds = {tb.draw_background_speech(rng) for _ in range(300)}
    assert len(others) > 100 and len(backgrounds) > 100


def test_metrics() -> None:
    assert tb.distinct_n(["a b c", "a b d"], 2) == pytest.approx(3 / 4)
    assert tb.distinct_n(["Hello, World!", "hello world"], 2) == pytest.approx(1 / 2)
    assert tb.distinct_n([], 2) == 0.0
    assert tb.distinct_n(["one two three"], 1) == 1.0
    share, top = tb.max_sentence_share(["A.", "B.", "A.", "C."])
    assert share == pytest.approx(0.5) and top == "A."
    assert tb.max_sentence_share([]) == (0.0, "")
    assert tb.split_sentences("It costs 12.50 dollars. Want more? Yes! ok") == [
        "It costs 12.50 dollars.",
        "Want more?",
        "Yes! ok",
    ]
    assert tb.split_sentences("  ") == []


def test_spoken_times_and_numbers() -> None:
    from generators.banks.engine import expansions, money, number_words, realise, spoken_time

    assert number_words(42) == "forty-two"
    assert number_words(105) == "one hundred and five"
    assert expansions(spoken_time(19, 30, 0)) == ("half past seven in the evening", "seven thirty in the evening")
    assert expansions(spoken_time(18, 0, 1)) == ("6 o'clock in the evening", "6 in the evening")
    assert spoken_time(7, 15, 2) == "7:15"
    assert spoken_time(12, 0, 0) == "noon"
    assert spoken_time(22, 45, 4) == "a quarter to eleven"
    assert money(12.5) == "12 dollars and 50 cents"
    assert money(1) == "1 dollar"
    # a slot value's alternations are chosen where it is said, from the same generator
    said = {realise("Be there at {t}.", {"t": spoken_time(19, 30, 0)}, np.random.default_rng(s)) for s in range(20)}
    assert said == {"Be there at half past seven in the evening.", "Be there at seven thirty in the evening."}


def test_every_city_and_day_a_bank_names_has_a_forecast() -> None:
    """The weather model lives in the harness (generators/harness/weather.py); the banks draw from its world."""
    from generators.banks.loader import load_language
    from generators.harness import ToolCall, execute
    from generators.harness.weather import CLIMATE

    data = load_language("en").data
    CITIES, DAYS = data.tables["cities"], data.lists["days"]
    zh_cities = [c.en for c in load_language("zh").data.tables["cities"]]
    assert [c.name for c in CITIES] + [c for c in zh_cities if c not in {c.name for c in CITIES}] == list(CLIMATE)
    for city in CITIES:
        for day, _ in DAYS:
            status, text, _ = execute(ToolCall("weather", {"city": city.name, "day": day, "seed": "7"}), HarnessState())
            assert status == "ok", (city.name, day, text)
