"""Reading the numbers a text states, per language: what DESIGN §2 rule 6 compares.

A relay may state only numbers it has read (a backend result) or heard (what was said before it).
`english_numbers` reads digits, as English content writes them; `chinese_numbers` reads Mandarin
numerals as spoken Mandarin says them (三到九度, 百分之六十, 十二块五毛, 下午三点一刻, 二零二六年),
plus any digits. Both return canonical decimal strings ("12.5", "3", "2026"), so a Mandarin relay
of an English result ("12.50 dollars" -> 十二块五毛) compares by value.

These readers are written independently of the speller (generators/banks/zh/numbers.py), so the
check is a check: a speller bug shows up as a rule 6 violation, not as agreement with itself.
"""
from __future__ import annotations

import re
from decimal import Decimal

_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")
_CLOCK = re.compile(r"\b(\d{1,2}):(\d\d)\b")
_MONEY = re.compile(r"(\d[\d,]*) dollars? and (\d{1,2}) cents?")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_MONTH = re.compile(rf"\b({'|'.join(_MONTHS)})\b")


def english_numbers(text: str) -> set[str]:
    """Numbers written in `text`. Money said "90 dollars and 41 cents" is the one number 90.41; a clock
    time 19:00 also counts as 19, 7 and 0 (said "7 in the evening"); a month name as its number (a
    Mandarin relay says "May 4" as 五月四号)."""
    text = _MONEY.sub(lambda m: f"{m.group(1)}.{int(m.group(2)):02d} dollars", text)
    out = {m.group(0).replace(",", "").rstrip(".") for m in _NUMBER.finditer(text)}
    for h, m in _CLOCK.findall(text):
        out |= {str(int(h)), str(int(h) % 12 or 12), str(int(m)), m}
    out |= {str(_MONTHS.index(m) + 1) for m in _MONTH.findall(text)}
    return out


# --- Mandarin ----------------------------------------------------------------------------------
_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
          "八": 8, "九": 9}
_UNIT = {"十": 10, "百": 100, "千": 1000}
_BIG = {"万": 10_000, "亿": 100_000_000}
_NUMERAL = "零〇一二两三四五六七八九十百千万亿"
_FRACTION = "零〇一二三四五六七八九"
_COIN = _FRACTION + "两"     # a digit of 毛 or 分 (两毛, 两分)

# Words that contain numeral characters but state no number ("a bit", "together", "sandwich", "very"),
# and numerals that name a weekday or an order rather than a quantity: blanked before reading.
_NOT_NUMBERS = re.compile(
    "|".join([
        "一下子", "一下", "一点儿", "一点点", "有点", "一些", "一起", "一定", "一样", "一直", "一般", "一会儿",
        "一边", "一切", "一共", "一旦", "一向", rf"(?<![{_NUMERAL}])万一", "统一", "唯一", "三明治", "一路", rf"(?<![{_NUMERAL}])千万", "百分百",
        "(?<![零〇一二两三四五六七八九点])十分(?!钟)", "零下", "一半", "一模一样", "一口气", "一大早", "一早", "一阵", "一时", "一方面", "一眼", "一遍",
        "一趟", "一声", "一丁点", "乱七八糟", "七上八下", "一整天", "整整一",
        "百科", "百货", "百度", "百姓", "百合", "万能", "十足", "八卦", "千万别",
        rf"(?:周|星期|礼拜|第)[{_NUMERAL}]+",
    ]))
_PERCENT = re.compile(rf"百分之([{_NUMERAL}]+(?:点[{_FRACTION}]+)?)")
# money: 十二块五毛, 十二块五, 三块零五分, 五毛, 五毛钱, 十二块五一斤; a bare digit after 块 is 毛 unless
# it starts a count (一千四百六十三块四个人分, 三百块二十五个人: yuan, then people)
_COUNTED = "个位名人期样张件杯斤瓶份本次天岁"
_YUAN = re.compile(rf"([{_NUMERAL}]+)块(?:([{_COIN}])(?:毛|(?!(?:[{_NUMERAL}]*[十百千万][{_NUMERAL}]*)?[{_COUNTED}]))"
                   rf"(?:([{_COIN}])分)?)?")
_MAO = re.compile(rf"([{_COIN}])毛(?:([{_COIN}])分?)?")
# a clock time: 三点一刻, 三点半, 三点三刻, 三点零五分, 三点四十分 (the hour, then the minutes)
_CLOCK_ZH = re.compile(rf"([{_NUMERAL}]+)点(?:(一刻|三刻|半)|(零?[{_NUMERAL}]+)分)")
# a number, with a decimal part read digit by digit (一点五); not a clock's 点 (点十五分, 点一刻)
_RUN = re.compile(rf"([{_NUMERAL}]+)(?:点([{_FRACTION}]+)(?![十百千分刻]))?")


def _integer(run: str) -> int | None:
    """A numeral run as an integer: 三十八万四千四百, 一千零五, colloquial 一万二 / 三千五 / 两百五,
    and digit-by-digit 二零二六. None for a run that is not a number (零零 is 0)."""
    if run[0] in _BIG:
        return None
    if all(c in _DIGIT for c in run):
        return int("".join(str(_DIGIT[c]) for c in run))
    total = section = 0
    digit: int | None = None
    last_unit = 0
    after_unit = colloquial = False
    for c in run:
        if c in _DIGIT:
            digit, colloquial, after_unit = _DIGIT[c], after_unit and c not in "零〇", False
        elif c in _UNIT:
            section += (1 if digit is None else digit) * _UNIT[c]
            digit, last_unit, after_unit = None, _UNIT[c], True
        else:   # 万 / 亿
            total += (section + (digit or 0)) * _BIG[c]
            section, last_unit, after_unit = 0, _BIG[c], True
            digit = None
    if digit is not None:
        section += digit * (last_unit // 10 if colloquial and last_unit >= 100 else 1)
    return total + section


def _canon(x: Decimal) -> str:
    return format(x.normalize(), "f") if x != x.to_integral() else str(int(x))


def chinese_numbers(text: str) -> set[str]:
    """The numbers a Mandarin text states, as canonical decimal strings, plus its digits.

    A lone 一 (一件外套, 一杯) is Mandarin's article, as English "a": not read, as English "a" is not.
    零下五度 reads 5, as English "minus 5" does.
    """
    out = english_numbers(text)
    t = _NOT_NUMBERS.sub(lambda m: "#" * len(m.group(0)), text)

    def take(m: re.Match[str], value: Decimal | None) -> str:
        if value is not None:
            out.add(_canon(value))
        return "#" * len(m.group(0))

    def percent(m: re.Match[str]) -> str:
        whole, _, frac = m.group(1).partition("点")
        n = _integer(whole)
        return take(m, None if n is None else Decimal(f"{n}.{''.join(str(_DIGIT[c]) for c in frac) or 0}"))

    def yuan(m: re.Match[str]) -> str:
        n = _integer(m.group(1))
        mao = _DIGIT[m.group(2)] if m.group(2) else 0
        fen = _DIGIT[m.group(3)] if m.group(3) else 0
        return take(m, None if n is None else Decimal(n) + Decimal(mao) / 10 + Decimal(fen) / 100)

    def mao(m: re.Match[str]) -> str:
        fen = _DIGIT[m.group(2)] if m.group(2) else 0
        return take(m, Decimal(_DIGIT[m.group(1)]) / 10 + Decimal(fen) / 100)

    def clock(m: re.Match[str]) -> str:
        hour = _integer(m.group(1))
        if hour is not None:
            out.add(str(hour))
        quarter = {"一刻": 15, "半": 30, "三刻": 45}.get(m.group(2) or "")
        minute = quarter if quarter is not None else _integer(m.group(3).lstrip("零"))
        return take(m, None if minute is None else Decimal(minute))

    t = _PERCENT.sub(percent, t)
    t = _YUAN.sub(yuan, t)
    t = _MAO.sub(mao, t)
    t = _CLOCK_ZH.sub(clock, t)
    for m in _RUN.finditer(t):
        run, frac = m.group(1), m.group(2)
        if run == "一" and not frac:
            continue
        n = _integer(run)
        if n is not None:
            out.add(_canon(Decimal(f"{n}.{''.join(str(_DIGIT[c]) for c in frac)}") if frac else Decimal(n)))
    return out
