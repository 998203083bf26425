"""Rule 6 on Mandarin rows: a zh relay of the (English) harness result states only numbers it has read.

The relay says 三到九度 for "3 to 9 degrees Celsius"; schemas/languages/zh.py reads both by value, written
independently of the speller (generators/banks/zh/numbers.py), so a wrong spelling is a violation.
"""
from __future__ import annotations

import dataclasses
import re
from decimal import Decimal

import pytest

from generators.banks.zh import numbers as zh
from pipeline.validate import validate_row
from schemas.languages.en import english_numbers
from schemas.languages.zh import chinese_numbers
from tests.generated import FIXTURE_CONFIG, find_relay

_NUMERAL = re.compile(r"[零一二两三四五六七八九十百千万]+")


@pytest.mark.parametrize("text, want", [
    ("北京周六多云，三到九度，晚上五度，降雨概率百分之六十。", {"3", "9", "5", "60"}),
    ("每人十二块五毛，一共三块零五分。", {"12.5", "3.05"}),
    ("五毛钱", {"0.5"}),
    ("下午三点一刻开会，晚上七点半吃饭，三点四十分出发。", {"3", "15", "7", "30", "40"}),
    ("二零二六年五月四号，星期一。", {"2026", "5", "4"}),
    ("大概三十八万四千四百公里，一万二，三千五百米，两百五。", {"384400", "12000", "3500", "250"}),
    ("一点五公斤，百分之二十点五，十分钟。", {"1.5", "20.5", "10"}),
    ("零下五度", {"5"}),
    # words with numeral characters that state no number: 一下, 一起, 三明治, 十分 (very), 万一, 第二, 周一
    ("带一件薄外套，一下就好，我们一起吃三明治，十分好吃，以防万一，第二天周一见。", set()),
    ("你要是着急，查查百科也能找到，百货商店里也有。", set()),   # 百科 is no hundred (a 1000-row zh run found it)
])
def test_chinese_numbers_reads_spoken_numerals_by_value(text: str, want: set[str]) -> None:
    assert chinese_numbers(text) == want


def test_the_reader_agrees_with_the_speller_by_value() -> None:
    """Every spelling the zh bank uses reads back as its value (the two are written independently)."""
    for n in (*range(0, 130), 205, 1005, 1200, 2050, 10500, 20050, 99999, 384400):
        if n > 1:
            assert chinese_numbers(zh.number(n)) == {str(n)}, zh.number(n)
    for cents in (50, 100, 305, 1250, 1234, 35000, 99999):   # (a lone 五分 reads 5: fen, minutes or points)
        amount = f"{cents // 100}.{cents % 100:02d}".rstrip("0").rstrip(".")
        assert chinese_numbers(zh.money(Decimal(cents) / 100)) == {amount}, zh.money(Decimal(cents) / 100)
    for h, m in ((15, 15), (19, 30), (8, 45), (14, 5), (21, 40), (12, 0)):
        assert str(h % 12 or 12) in chinese_numbers(zh.clock(h, m))
        assert (m == 0 or str(m) in chinese_numbers(zh.clock(h, m))), zh.clock(h, m)
    assert english_numbers("Monday, May 4") == {"4", "5"}


def _zh_relay_row(generated):
    g = dataclasses.replace(generated, cfg=FIXTURE_CONFIG.model_copy(update={"language": "zh"}), _rows={})
    for seed in range(1, 40):
        row = g.row("delegation", seed, tts="tone")
        try:
            _, relay = find_relay(row)
        except AssertionError:
            continue
        if chinese_numbers(relay.text):
            return row, relay
    raise AssertionError("no zh delegation row in 40 seeds relays a number")


def test_a_zh_relay_validates_and_a_changed_number_breaks_rule6(generated) -> None:
    row, relay = _zh_relay_row(generated)
    assert row.language == "zh" and re.search(r"[\u4e00-\u9fff]", relay.text)
    assert not validate_row(row, expect_tokens=False, recompose=True, tts=generated.tts["tone"])
    # a numeral the relay states as a number (not the 四 of 周四) becomes one the model has read nowhere
    m = next(m for m in _NUMERAL.finditer(relay.text)
             if relay.text[max(0, m.start() - 1):m.start()] not in ("周", "期", "拜", "第") and m.group(0) != "一")
    relay.text = relay.text[:m.start()] + "九百八十七" + relay.text[m.end():]
    assert "987" in chinese_numbers(relay.text)
    fired = {v.rule for v in validate_row(row, expect_tokens=False, recompose=False)}
    assert "rule6_relay_facts_read" in fired
