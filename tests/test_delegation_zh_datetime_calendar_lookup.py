"""Mandarin delegations to the date calculator, the calendar and the lookup (generators/banks/zh/delegation_{datetime,calendar,lookup}.*).

Every zh spec of the two tools is drawn with several seeds and run on the real harness (ok, partial,
failures, a calendar clash); the relay's dates, weekdays, clock times and counts are parsed here, by
a small Mandarin reader of this file's own (not the bank's readers, not schemas/languages/zh.py), and
compared by value with what the harness computed; no English leaks into the Mandarin speech.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import numpy as np
import pytest

from generators import text_bank as tb
from generators.banks.delegations import Spec
from generators.banks.loader import load_language
from generators.harness import HarnessState, run_task
from schemas.config import HarnessConfig
from schemas.languages.en import english_numbers
from schemas.languages.zh import chinese_numbers

HARNESS = HarnessConfig()
D = tb._text("zh").delegations
D_TABLES = load_language("zh").data.tables
TOOLS = ("datetime", "calendar", "lookup")
SPECS = tuple(s for s in D.specs if s.tool in TOOLS)
SEEDS = range(8)
LATIN = re.compile(r"[A-Za-z]")
WEEKDAY_ZH = dict(zip(("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"), "一二三四五六日"))

# --------------------------------------------------------------------------- an independent reader of spoken Mandarin

_D = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
N = "[零一二两三四五六七八九十]+"


def zh_number(s: str) -> Decimal:
    """A Mandarin numeral with 万/千/百/十/零 and a 点 decimal part: 三十八万四千四百, 四十二点一九五, 八千八百四十九."""
    whole, _, frac = s.partition("点")
    total = section = digit = 0
    for c in whole:
        if c in _D:
            digit = _D[c]
        elif c == "万":
            total, section, digit = (section + digit) * 10000, 0, 0
        else:
            section += (digit or (1 if c == "十" else 0)) * {"十": 10, "百": 100, "千": 1000}[c]
            digit = 0
    return Decimal(total + section + digit) + (Decimal("0." + "".join(str(_D[c]) for c in frac)) if frac else 0)


def zh_int(s: str) -> int:
    """0-99 as Mandarin says them: 十二, 二十, 三十一, 零五 (what dates, hours, minutes and counts here need)."""
    s = s.lstrip("零") or "零"
    if "十" in s:
        tens, _, ones = s.partition("十")
        return (_D[tens] if tens else 1) * 10 + (_D[ones] if ones else 0)
    return _D[s]


_PM = {"下午", "晚上"}
_CLOCK = re.compile(rf"(半夜|凌晨|早上|上午|中午|下午|晚上)({N})点(?:(半)|(一刻)|(三刻)|({N})分)?")


def clocks(text: str) -> list[str]:
    """Every clock time said with its part of the day, as 24-hour "HH:MM": 晚上七点五十分 -> "19:50"."""
    out = []
    for m in _CLOCK.finditer(text):
        h = zh_int(m.group(2))
        h = 0 if m.group(1) == "半夜" else h + 12 if m.group(1) in _PM and h < 12 else h
        minute = 30 if m.group(3) else 15 if m.group(4) else 45 if m.group(5) else zh_int(m.group(6)) if m.group(6) else 0
        out.append(f"{h:02d}:{minute:02d}")
    return out


def dates(text: str) -> list[tuple[int, int]]:
    """Every (month, day) said as 四月二号."""
    return [(zh_int(a), zh_int(b)) for a, b in re.findall(rf"({N})月({N})号", text)]


def minutes_said(text: str) -> list[int]:
    """Lengths of time: 四十五分钟, 一个小时, 一个半小时, 两个小时二十分钟 (a length that follows no clock time)."""
    out = []
    for m in re.finditer(rf"(?:({N})个(半)?小时)?(?:({N})分钟)?", text):
        if m.group(0) and not (m.group(1) is None and m.group(3) is None):
            out.append((zh_int(m.group(1)) * 60 if m.group(1) else 0) + (30 if m.group(2) else 0)
                       + (zh_int(m.group(3)) if m.group(3) else 0))
    return out


@pytest.mark.parametrize(("said", "hhmm"), [
    ("晚上七点五十分", "19:50"), ("中午十二点十分", "12:10"), ("下午两点零五分", "14:05"), ("上午十点一刻", "10:15"),
    ("早上八点半", "08:30"), ("晚上六点", "18:00"), ("中午十二点半", "12:30")])
def test_the_reader_of_this_file_reads_clock_times(said: str, hhmm: str) -> None:
    assert clocks(said) == [hhmm]


def test_the_reader_of_this_file_reads_numbers() -> None:
    assert [zh_number(x) for x in ("三十八万四千四百", "四十二点一九五", "八千八百四十九", "两百零六", "一千零八十五")] == \
        [384400, Decimal("42.195"), 8849, 206, 1085]


def test_the_reader_of_this_file_reads_dates_and_lengths() -> None:
    assert dates("十二月三十一号，四月二号") == [(12, 31), (4, 2)]
    assert minutes_said("一个半小时") == [90] and minutes_said("两个小时二十分钟") == [140] and minutes_said("四十五分钟") == [45]


# --------------------------------------------------------------------------- helpers


def draws(spec: Spec, n: int = len(SEEDS)) -> list[tuple[np.random.Generator, tb.DelegationContent]]:
    out = []
    for seed in range(n):
        rng = np.random.default_rng(seed)
        out.append((rng, tb._content(rng, spec, lang="zh")))
    return out


def run(c: tb.DelegationContent, rng: np.random.Generator, mode: str, state: HarnessState | None = None):
    return run_task("t1", c.call, HARNESS, rng, state or HarnessState(), force=mode)  # type: ignore[arg-type]


def mandarin(text: str) -> None:
    """Spoken Mandarin: no Latin letters (no English word, no ISO date, no clock digits), full-width end."""
    assert not LATIN.search(text) and not re.search(r"\d", text), text
    assert text and text[-1] in "。？！", text


def numbers_known(c: tb.DelegationContent, result: str) -> set[str]:
    return chinese_numbers(c.user_request) | chinese_numbers(c.request) | english_numbers(result)


# --------------------------------------------------------------------------- tests


def test_both_tools_have_zh_specs_in_zh_domains_and_revisable_ones() -> None:
    domains = set(tb.domains("zh"))
    for tool in ("datetime", "calendar"):
        specs = [s for s in SPECS if s.tool == tool]
        assert len(specs) >= 5, tool
        assert {s.domain for s in specs} <= domains and len({s.domain for s in specs}) >= 4, tool
        assert any(s.revisions for s in specs), tool


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_ok_relays_say_what_the_harness_computed(spec: Spec) -> None:
    for rng, c in draws(spec):
        for line in (c.user_request, c.ack):
            mandarin(line)
        ex = run(c, rng, "ok")
        assert ex.status == "ok", ex.text
        lines = tb.relay_lines(rng, c, ex)
        for line in lines:
            mandarin(line)
        said, a, f = "".join(lines), c.call.args, ex.fields
        op = a.get("op") or a.get("action") or spec.tool
        if op == "add_minutes":
            assert f["time"] in clocks(said), (ex.text, said)
        elif op == "days_between":
            m = re.search(rf"({N})(?:个晚上|晚)", said)
            assert m and zh_int(m.group(1)) == f["days"], (ex.text, said)
        elif op == "add_days":
            d = dt.date.fromisoformat(f["date"])
            assert (d.month, d.day) in dates(said), (ex.text, said)
            assert "星期" + WEEKDAY_ZH[d.strftime("%A")] in said, (ex.text, said)
        elif op == "weekday":
            assert re.findall(r"星期(.)", said) == [WEEKDAY_ZH[f["weekday"]]], (ex.text, said)
        elif op == "book":
            assert a["title"] in said and "周" + WEEKDAY_ZH[a["day"]] in said and a["time"] in clocks(said), (ex.text, said)
            assert all(m == int(a["minutes"]) for m in minutes_said(said)), (ex.text, said)
        elif op == "lookup":
            value = str(f["value"])
            if a["key"].startswith("capital of "):
                assert D_TABLES["world_cities"][value].zh in said, (ex.text, said)
            else:
                m = re.search(rf"([{N[1:-2]}百千万点]+)(米|公里)", said)
                assert m, (ex.text, said)
                stated = Decimal(re.sub(r"[^\d.]", "", value.split()[-2]))
                assert zh_number(m.group(1)) == stated and {"米": "meters", "公里": "kilometers"}[m.group(2)] in value, said
                assert ("大约" in said) == value.startswith("about "), (value, said)
        else:   # agenda on a fresh calendar
            assert ex.text.startswith("Nothing is booked") and not chinese_numbers(said), said
        assert not {x for x in chinese_numbers(said) if x not in numbers_known(c, ex.text)}, (ex.text, said)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_partial_relays_say_so_and_only_what_arrived(spec: Spec) -> None:
    for rng, c in draws(spec):
        ex = run(c, rng, "partial")
        assert ex.status == "partial"
        lines = tb.relay_lines(rng, c, ex)
        for line in lines:
            mandarin(line)
        said = "".join(lines)
        assert re.search(r"一部分|一半|不完整|截断|截掉|断掉", lines[0]), (ex.text, lines)
        assert not {x for x in chinese_numbers(said) if x not in numbers_known(c, ex.text)}, (ex.text, said)
        body = ex.text.removesuffix(" The rest of the result did not arrive.")
        # the clock times, dates and weekdays said are the user's own or ones that arrived
        arrived = set(re.findall(r"\d\d:\d\d", body))
        assert set(clocks(said)) <= set(clocks(c.user_request)) | arrived, (ex.text, said)
        arrived_dates = {(d.month, d.day) for d in map(dt.date.fromisoformat, re.findall(r"\d{4}-\d\d-\d\d", body))}
        assert set(dates(said)) <= set(dates(c.user_request)) | arrived_dates, (ex.text, said)
        if not re.search(r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day", body):   # no weekday but the user's
            weekday = r"(?:星期|周)([一二三四五六日])"
            assert set(re.findall(weekday, said)) <= set(re.findall(weekday, c.user_request)), (ex.text, said)


def test_an_agenda_lists_what_the_calendar_holds_in_order() -> None:
    agenda = D.by_name["agenda_trip_zh"]
    books = [s for s in SPECS if s.name.startswith("book_")]
    for seed in SEEDS:
        rng = np.random.default_rng(100 + seed)
        state = HarnessState()
        first = tb._content(rng, books[seed % len(books)], lang="zh")
        day = first.slots["day"]
        other = books[(seed + 1) % len(books)]

        def span(c: tb.DelegationContent) -> tuple[int, int]:
            h, m = (int(x) for x in c.call.args["time"].split(":"))
            return h * 60 + m, h * 60 + m + int(c.call.args["minutes"])

        while True:   # another entry the same day, not overlapping the first
            second = tb._content(rng, other, {**dict(other.draw(rng)), "day": day}, lang="zh")
            (a0, a1), (b0, b1) = span(first), span(second)
            if (b1 <= a0 or a1 <= b0) and second.call.args["title"] != first.call.args["title"]:
                break
        for c in (first, second):
            assert run(c, rng, "ok", state).status == "ok"
        a = tb._content(rng, agenda, {"day": day}, lang="zh")
        ex = run(a, rng, "ok", state)
        said = "".join(tb.relay_lines(rng, a, ex))
        mandarin(said)
        booked = sorted((c.call.args["time"], c.call.args["title"]) for c in (first, second))
        assert all(t in said for _, t in booked) and said.index(booked[0][1]) < said.index(booked[1][1]), (ex.text, said)
        assert clocks(said) == [t for t, _ in booked], (ex.text, said)
        assert "两个安排" in said or "两个" not in said, said
        partial = run(a, rng, "partial", state)
        psaid = "".join(tb.relay_lines(rng, a, partial))
        assert "两个安排" not in psaid, (partial.text, psaid)   # a partial listing gives no count


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_failures_cancels_and_retries_are_mandarin(spec: Spec) -> None:
    for rng, c in draws(spec, 4):
        for mode in ("error", "timeout"):
            ex = run(c, rng, mode)
            lines = tb.fallback_lines(rng, c, ex)
            assert len(lines) == 2
            for line in (*lines, tb.retry_line(rng, c, ex)):
                mandarin(line)
        mandarin(tb.cancel_request(rng, c))
        mandarin(tb.cancel_ack(rng, c))


def test_a_calendar_clash_names_the_clashing_entry_in_mandarin() -> None:
    for spec in (s for s in SPECS if s.name.startswith("book_")):
        for rng, c in draws(spec, 4):
            state = HarnessState()
            assert run(c, rng, "ok", state).status == "ok"
            ex = run(c, rng, "ok", state)
            assert ex.status == "error" and "clashes with" in ex.text
            lines = tb.fallback_lines(rng, c, ex)
            for line in lines:
                mandarin(line)
            said = "".join(lines)
            assert c.call.args["title"] in lines[0] and "周" + WEEKDAY_ZH[c.call.args["day"]] in said, lines


@pytest.mark.parametrize("spec", [s for s in SPECS if s.revisions], ids=lambda s: s.name)
def test_revisions_change_the_call_and_are_said_in_mandarin(spec: Spec) -> None:
    for rng, c in draws(spec, 6):
        line, new = tb.draw_revision(rng, c)
        mandarin(line)
        mandarin(tb.revision_ack(rng, new))
        assert new.call != c.call and new.spec == c.spec
        changed = {k for k in c.slots if c.slots[k] != new.slots[k]}
        assert changed == {new.revised_slot}, changed
        ex = run(new, rng, "ok")
        assert ex.status == "ok"
        for out in tb.relay_lines(rng, new, ex):
            mandarin(out)
