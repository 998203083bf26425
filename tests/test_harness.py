"""Harness tools are real and deterministic; hostile input never crashes, evaluates or leaks a token."""
from __future__ import annotations

import ast
import builtins
import re

import numpy as np
import pytest

from generators.harness import HarnessState, ToolCall, execute, run_task
from generators.harness.calculator import CalcError, evaluate
from generators.harness.format import PROTOCOL_TOKENS, has_protocol_leak, plain_text
from schemas.config import HarnessConfig

FRAGMENTS = [
    "<|speak|>", "<|listen|>", "<unit>", "</unit>", "<delegate>", "</delegate>", "<backend>", "</backend>",
    "<|turn_eos|>", "<|chunk_eos|>", "<tool_call>", "<", ">", "<|", "|>", "**bold**", "# Heading", "`code`",
    "```python\nprint(1)\n```", "[link](http://x)", "- item", "1. item", "> quote", "__import__('os')",
    "().__class__.__bases__", "lambda: 0", "open('/etc/passwd')", "eval('1')", "9**9**9", "1e308*1e308", "(" * 50,
    ")" * 50, "1/0", "\x00", "\n\n", "\t", "ünïcødé", "💥", "sqrt(-1)", "round(1,2,3,4,5)", "max()", "2**64",
    "' or 1=1 --", "{{7*7}}", "${jndi:x}", "<<unit>>", "<<|speak|>|>", "<un<unit>it>",
]


def hostile_strings(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    out = list(FRAGMENTS)
    for _ in range(n):
        k = int(rng.integers(1, 8))
        out.append("".join(FRAGMENTS[int(i)] + (" " if rng.random() < 0.5 else "") for i in rng.integers(0, len(FRAGMENTS), k)))
    out.append("x" * 200_000 + "<unit>" + "*" * 10_000)   # huge input
    return out


def test_formatter_never_leaks_protocol_tokens_or_markdown():
    for s in hostile_strings(2000):
        t = plain_text(s)
        assert not has_protocol_leak(t), (s[:80], t[:80])
        assert len(t) <= 1500
        for tok in PROTOCOL_TOKENS:
            assert tok not in t


def test_calculator_fuzz_never_evaluates(monkeypatch, tmp_path):
    sentinel = tmp_path / "pwned"
    real_compile = builtins.compile

    def ast_only_compile(source, filename, mode, flags=0, *a, **k):
        assert flags & ast.PyCF_ONLY_AST, "something tried to compile code for execution"
        return real_compile(source, filename, mode, flags, *a, **k)

    def forbidden(*a, **k):
        raise AssertionError("eval/exec called")

    monkeypatch.setattr(builtins, "compile", ast_only_compile)
    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    attacks = hostile_strings(1500, seed=1) + [
        f"__import__('os').system('touch {sentinel}')", f"open('{sentinel}', 'w')", "globals()", "().__class__",
        "[x for x in ().__class__.__base__.__subclasses__()]", "(lambda: 1)()", "a.b", "'s' * 10",
    ]
    for s in attacks:
        try:
            v = evaluate(s)
            assert isinstance(v, (int, float)) and abs(v) <= 1e15
        except CalcError:
            pass
        st, text, _ = execute(ToolCall("calculator", {"expression": s}), HarnessState())
        assert st in ("ok", "error") and not has_protocol_leak(text)
    assert not sentinel.exists()


@pytest.mark.parametrize("expr, value", [("15% of 84.50", 12.675), ("2 ** 10", 1024), ("(3 + 4) * 2 divided by 7", 2.0),
                                         ("sqrt(16) + abs(-2)", 6.0), ("1,250 times 3", 3750), ("10 minus 12.5", -2.5)])
def test_calculator_values(expr, value):
    assert evaluate(expr) == pytest.approx(value)


@pytest.mark.parametrize("expr, value", [("min(3, 4, 5)", 3), ("max(2.5, 1)", 2.5), ("max(min(1,2), 3)", 3),
                                         ("min(3,4,5)", 3), ("max(1,000, 5)", 1000), ("max(2.5,100)", 100),
                                         ("round(2.567, 2)", 2.57), ("min(2 times 3, 5)", 5), ("max(7)", 7),
                                         ("1,000,000 divided by 4", 250000)])
def test_calculator_functions_take_several_arguments(expr, value):
    assert evaluate(expr) == pytest.approx(value)


@pytest.mark.parametrize("expr, message", [("sqrt(1, 2)", "sqrt takes one number, not 2"),
                                           ("abs(1, 2, 3)", "abs takes one number, not 3"),
                                           ("round(1, 2, 3)", "round takes 1 to 2 numbers, not 3"),
                                           ("max()", "max takes at least 1 number"),
                                           ("min(*[1, 2])", "only numbers")])
def test_calculator_arity_errors(expr, message):
    with pytest.raises(CalcError, match=re.escape(message)):
        evaluate(expr)


def test_tools_are_real_and_deterministic():
    st = HarnessState()
    assert execute(ToolCall("unit_convert", {"value": "350", "from": "fahrenheit", "to": "celsius"}), st)[2]["value"] \
        == pytest.approx(176.6667, abs=1e-3)
    assert execute(ToolCall("unit_convert", {"value": "2", "from": "cups", "to": "milliliters"}), st)[2]["value"] \
        == pytest.approx(473.176, abs=1e-2)
    assert execute(ToolCall("unit_convert", {"value": "2", "from": "cups", "to": "miles"}), st)[0] == "error"
    assert execute(ToolCall("datetime", {"op": "add_days", "date": "2026-03-01", "days": "45"}), st)[2]["date"] == "2026-04-15"
    assert execute(ToolCall("datetime", {"op": "weekday", "date": "2026-11-30"}), st)[2]["weekday"] == "Monday"
    assert execute(ToolCall("datetime", {"op": "add_minutes", "time": "23:50", "minutes": "20"}), st)[2]["time"] == "00:10"
    assert "Nairobi" in execute(ToolCall("lookup", {"key": "capital of Kenya"}), st)[1]
    assert execute(ToolCall("lookup", {"key": "capital of Atlantis"}), st)[0] == "error"
    w1 = execute(ToolCall("weather", {"city": "Oslo", "day": "Saturday", "seed": "5"}), st)
    w2 = execute(ToolCall("weather", {"city": "Oslo", "day": "Saturday", "seed": "5"}), HarnessState())
    assert w1 == w2 and w1[0] == "ok" and "Oslo" in w1[1]
    # the calendar keeps state within a trajectory: a clashing booking is refused
    assert execute(ToolCall("calendar", {"action": "book", "day": "Monday", "time": "10:00", "title": "dentist"}), st)[0] == "ok"
    clash = execute(ToolCall("calendar", {"action": "book", "day": "Monday", "time": "10:30", "title": "gym"}), st)
    assert clash[0] == "error" and "dentist" in clash[1]
    assert "dentist" in execute(ToolCall("calendar", {"action": "agenda", "day": "Monday"}), st)[1]


def test_latency_and_failure_draws_follow_config():
    cfg = HarnessConfig()
    rng = np.random.default_rng(0)
    runs = [run_task("t", ToolCall("search", {"query": "bakery hours"}), cfg, rng, HarnessState()) for _ in range(3000)]
    lat = np.array([r.latency_s for r in runs if r.status != "timeout"])
    assert np.median(lat) == pytest.approx(cfg.tools["search"].latency_median_s, rel=0.1)
    share = {s: sum(r.status == s for r in runs) / len(runs) for s in ("error", "timeout", "partial")}
    assert share["error"] == pytest.approx(0.05, abs=0.015) and share["timeout"] == pytest.approx(0.03, abs=0.012)
    assert all(r.latency_s == cfg.timeout_s for r in runs if r.status == "timeout")
    # a failed booking leaves no trace in the calendar
    st = HarnessState()
    failed = run_task("t", ToolCall("calendar", {"action": "book", "day": "Monday", "time": "10:00", "title": "x"}), cfg,
                      rng, st, force="error")
    assert failed.status == "error" and not st.calendar.slots
