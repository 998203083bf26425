"""Mandarin delegated requests to the calculator and unit_convert tools, against the real harness.

Every zh spec of the two tools is drawn with several seeds and run on a fresh harness (complete and
partial results). The relay's numbers are read back with schemas/languages/zh.py (written independently
of the speller, zh/numbers.py) and compared by value with the number this test parses from the
harness's English result text itself, not with the bank's reader; the speech is Mandarin throughout.
"""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np
import pytest

from generators import text_bank as tb
from generators.harness import HarnessState, run_task
from schemas.config import HarnessConfig
from schemas.languages.zh import chinese_numbers

HARNESS = HarnessConfig()
TOOLS = ("calculator", "unit_convert")
D = tb._text("zh").delegations
SPECS = [s for s in D.specs if s.tool in TOOLS]
SEEDS = range(6)
LATIN = re.compile(r"[A-Za-z]")
ANSWER = re.compile(r"= (-?\d+(?:\.\d+)?)(?: [a-z ]+)?\.?$")   # "... = 34.5." / "5 miles = 8.05 kilometers."


def answer_of(text: str) -> Decimal | None:
    m = ANSWER.search(text)
    return Decimal(m.group(1)) if m else None


def near(said: str, value: Decimal) -> bool:
    """``said`` is ``value`` rounded to the places it is said with (九十六点五六 for 96.5606)."""
    n = Decimal(said)
    places = max(0, -int(n.as_tuple().exponent))
    return abs(n - value) <= Decimal(1).scaleb(-places) / 2


def draw(spec_name: str, seed: int) -> tuple[tb.DelegationContent, np.random.Generator]:
    rng = np.random.default_rng(seed)
    return tb._content(rng, D.by_name[spec_name], lang="zh"), rng


def speech_of(content: tb.DelegationContent, rng: np.random.Generator, lines: tuple[str, ...]) -> list[str]:
    return [content.user_request, content.ack, *lines, tb.cancel_request(rng, content), tb.cancel_ack(rng, content)]


def test_every_tool_has_zh_specs_in_zh_domains() -> None:
    by_tool = {t: [s for s in SPECS if s.tool == t] for t in TOOLS}
    assert all(len(v) >= 5 for v in by_tool.values()), {t: len(v) for t, v in by_tool.items()}
    domains = set(tb.domains("zh"))
    assert {s.domain for s in SPECS} <= domains
    assert len({s.domain for s in SPECS}) >= 5
    assert any(s.revisions for s in by_tool["calculator"]) and any(s.revisions for s in by_tool["unit_convert"])


@pytest.mark.parametrize("name", [s.name for s in SPECS])
def test_complete_relay_states_the_result_by_value(name: str) -> None:
    for seed in SEEDS:
        content, rng = draw(name, seed)
        ex = run_task("t1", content.call, HARNESS, rng, HarnessState(), force="ok")  # type: ignore[arg-type]
        assert ex.status == "ok", ex.text
        value = answer_of(ex.text)
        assert value is not None, ex.text
        relay = tb.relay_lines(rng, content, ex)
        said = chinese_numbers("".join(relay))
        heard = chinese_numbers(content.user_request)
        assert any(near(n, value) for n in said), (ex.text, relay)
        stray = [n for n in said if not near(n, value) and n not in heard]
        assert not stray, (ex.text, relay, stray)
        for line in speech_of(content, rng, relay):
            assert not LATIN.search(line), line


@pytest.mark.parametrize("name", [s.name for s in SPECS])
def test_partial_relay_says_no_number_it_did_not_receive(name: str) -> None:
    for seed in SEEDS:
        content, rng = draw(name, seed)
        ex = run_task("t1", content.call, HARNESS, rng, HarnessState(), force="partial")  # type: ignore[arg-type]
        assert ex.status == "partial"
        received = answer_of(ex.text.removesuffix(" The rest of the result did not arrive."))
        relay = tb.relay_lines(rng, content, ex)
        assert len(relay) >= 2
        said = chinese_numbers("".join(relay))
        heard = chinese_numbers(content.user_request)
        stray = [n for n in said if n not in heard and not (received is not None and near(n, received))]
        assert not stray, (ex.text, relay, stray)
        for line in speech_of(content, rng, relay):
            assert not LATIN.search(line), line


@pytest.mark.parametrize("name", [s.name for s in SPECS])
def test_failures_and_revisions_speak_mandarin(name: str) -> None:
    for seed in SEEDS[:3]:
        content, rng = draw(name, seed)
        ex = run_task("t1", content.call, HARNESS, rng, HarnessState(), force="timeout")  # type: ignore[arg-type]
        failed = [*tb.fallback_lines(rng, content, ex), tb.retry_line(rng, content, ex)]
        assert chinese_numbers("".join(failed)) <= chinese_numbers(content.user_request), failed
        revised_lines: list[str] = []
        if content.revisable:
            line, revised = tb.draw_revision(rng, content)
            ack = tb.revision_ack(rng, revised)
            assert revised.call != content.call
            assert chinese_numbers(ack) <= chinese_numbers(content.user_request + line), (line, ack)
            revised_lines = [line, ack, revised.user_request]
        for line in failed + revised_lines:
            assert not LATIN.search(line), line


def test_results_module_reads_what_arrived() -> None:
    """The shared readers (generators/banks/results.py) find the answer in a complete result and
    nothing in a partial one, which the harness cuts before the '='."""
    from generators.banks.delegations import result_of
    from generators.banks.results import calculation_value, conversion_value

    content, rng = draw("service_split_zh", 0)
    ok = run_task("t1", content.call, HARNESS, rng, HarnessState(), force="ok")  # type: ignore[arg-type]
    part = run_task("t1", content.call, HARNESS, rng, HarnessState(), force="partial")  # type: ignore[arg-type]
    assert abs(Decimal(str(calculation_value(result_of(ok)))) - answer_of(ok.text)) <= Decimal("0.00005")
    assert calculation_value(result_of(part)) is None
    content, rng = draw("convert_travel_zh", 1)
    ok = run_task("t1", content.call, HARNESS, rng, HarnessState(), force="ok")  # type: ignore[arg-type]
    assert abs(Decimal(str(conversion_value(result_of(ok)))) - answer_of(ok.text)) <= Decimal("0.005")
