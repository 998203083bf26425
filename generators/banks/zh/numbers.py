"""How Mandarin says numbers, counts, money, temperatures, percentages, clock times and durations.

Every zh derive function spells its numbers here, so one convention holds across the bank:

* 两 for a leading 2 before 百/千/万 (两百, 两千, 两万) and for a count of 2 with a measure word
  (两个人, 两杯); 二 everywhere else (二十, 十二, 一千二百, 第二).
* 十 at the very start (十二, 十万), 一十 inside a number (一百一十, 三千零一十).
* 零 once for each run of missing places (一千零五, 一万零五百, 一百零五).
* Money in the spoken register: 块 / 毛 / 分 (三百五十块, 十二块五毛, 三块零五分, 两毛).
* Clock times with the part of the day (下午三点一刻, 早上八点半); 两点, never 二点.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

_DIGITS = "零一二三四五六七八九"
_PLACES = ((1000, "千"), (100, "百"), (10, "十"), (1, ""))


def _below_10000(n: int, leading: bool) -> str:
    """0 < n < 10000; ``leading`` when nothing is said before it (so 十二, not 一十二)."""
    out = ""
    gap = False          # a zero place was skipped since the last digit said
    said = not leading   # something was said before this group
    for value, unit in _PLACES:
        d, n = divmod(n, value)
        if d == 0:
            gap = gap or said
            continue
        if gap:
            out += "零"
        gap = False
        if d == 1 and unit == "十" and not said:
            out += "十"
        elif d == 2 and unit in ("百", "千") and not said:
            out += "两" + unit
        else:
            out += _DIGITS[d] + unit
        said = True
    return out


def number(n: int) -> str:
    """The integer ``n`` (|n| < 10**8) as a numeral: 十二, 一百零五, 一千二百, 两万零五十."""
    if n < 0:
        return "负" + number(-n)
    if n == 0:
        return "零"
    if n >= 10**8:
        raise ValueError(f"{n} is too large for number() (below one hundred million only)")
    wan, rest = divmod(n, 10000)
    if wan == 0:
        return _below_10000(rest, leading=True)
    head = "两万" if wan == 2 else _below_10000(wan, leading=True) + "万"
    if rest == 0:
        return head
    return head + _below_10000(rest, leading=False)   # says its own 零: 一万零五百


def count(n: int, measure: str) -> str:
    """``n`` things with their measure word: 一份, 两个人, 十二杯, 二十二个."""
    if n < 0:
        raise ValueError(f"cannot count {n} things")
    return ("两" if n == 2 else number(n)) + measure


def decimal(x: float | Decimal, places: int = 1) -> str:
    """A decimal number read digit by digit after 点: 一点五, 零点八, 三 (no trailing 点零)."""
    q = Decimal(str(x)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    if q < 0:
        return "负" + decimal(-q, places)
    whole, _, frac = f"{q:f}".partition(".")
    frac = frac.rstrip("0")
    out = number(int(whole))
    return out + ("点" + "".join(_DIGITS[int(c)] for c in frac) if frac else "")


def quantity(x: float | Decimal, places: int, unit: str) -> str:
    """``x`` rounded to ``places`` with its unit: 两百三十七毫升, 两公里 (两 for a whole 2 of a unit), 九十六点五六公里."""
    q = Decimal(str(x)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return count(int(q), unit) if unit and q == q.to_integral_value() else decimal(q, places) + unit


def money(amount: int | Decimal) -> str:
    """Yuan in the spoken register: 三百五十块, 两块, 十二块五毛, 三块零五分, 五毛."""
    fen_total = int((Decimal(amount) * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    if fen_total < 0:
        raise ValueError(f"negative amount {amount}")
    yuan, fen_rest = divmod(fen_total, 100)
    mao, fen = divmod(fen_rest, 10)
    out = count(yuan, "块") if yuan else ""
    if mao:
        out += ("两" if mao == 2 else _DIGITS[mao]) + "毛"   # 两毛, as people say it
    elif fen and yuan:
        out += "零"
    if fen:
        out += ("两" if fen == 2 else _DIGITS[fen]) + "分"
    return out or "零块"


def percent(n: int) -> str:
    """百分之二十, 百分之五."""
    return "百分之" + number(n)


def degrees(n: int) -> str:
    """A temperature: 二十五度, 零度, 零下五度."""
    return f"零下{number(-n)}度" if n < 0 else f"{number(n)}度"


def daypart(hour: int) -> str:
    """What part of the day a 24-hour ``hour`` falls in: 半夜, 凌晨, 早上, 上午, 中午, 下午, 晚上."""
    hour %= 24
    if hour == 0:
        return "半夜"
    if hour < 5:
        return "凌晨"
    if hour < 9:
        return "早上"
    if hour < 12:
        return "上午"
    if hour < 13:
        return "中午"
    if hour < 18:
        return "下午"
    return "晚上"


def clock(hour: int, minute: int = 0, with_daypart: bool = True) -> str:
    """A 24-hour clock time as said: 下午三点一刻, 早上八点半, 晚上七点四十分, 中午十二点, 两点零五分."""
    if not (0 <= minute < 60):
        raise ValueError(f"minute {minute} out of range")
    hour %= 24
    h12 = hour % 12 or 12
    out = count(h12, "点")
    if minute == 15:
        out += "一刻"
    elif minute == 30:
        out += "半"
    elif 0 < minute < 10:
        out += "零" + _DIGITS[minute] + "分"
    elif minute:
        out += number(minute) + "分"
    return (daypart(hour) + out) if with_daypart else out


def minutes_of_day(hour: int, minute: int) -> int:
    return (hour * 60 + minute) % (24 * 60)


def clock_of(minutes: int, with_daypart: bool = True) -> str:
    """:func:`clock` for a count of minutes since midnight (wraps past midnight)."""
    h, m = divmod(minutes % (24 * 60), 60)
    return clock(h, m, with_daypart)


def duration(minutes: int) -> str:
    """A length of time: 四十五分钟, 一个小时, 一个半小时, 两个小时二十分钟."""
    if minutes < 0:
        raise ValueError(f"negative duration {minutes}")
    hours, mins = divmod(minutes, 60)
    if hours == 0:
        return number(mins) + "分钟"
    if mins == 30:
        return count(hours, "个半小时")
    head = count(hours, "个小时")
    return head if mins == 0 else head + number(mins) + "分钟"


def say_time(rng: object, hhmm: str) -> str:
    """A harness clock time ("18:30") as said (the loader's ``SAY_TIME`` hook): 晚上六点半."""
    h, m = (int(x) for x in hhmm.strip().split(":"))
    return clock(h, m)


_WEEKDAYS = {"Monday": "周一", "Tuesday": "周二", "Wednesday": "周三", "Thursday": "周四", "Friday": "周五",
             "Saturday": "周六", "Sunday": "周日"}


def say_weekday(day: str) -> str:
    """A harness weekday ("Monday") as said (the loader's ``SAY_DAY`` hook): 周一."""
    return _WEEKDAYS[day]


def jin(grams: int) -> str:
    """Grams in market weight (1 斤 = 500 g, 1 两 = 50 g), to the nearest 两: 一斤二两, 两斤, 半斤, 三两."""
    liang_total = (grams + 25) // 50
    j, liang = divmod(liang_total, 10)
    if j == 0:
        return "半斤" if liang == 5 else count(liang, "两")
    if liang == 0:
        return count(j, "斤")
    if liang == 5:
        return count(j, "斤半")
    return count(j, "斤") + number(liang) + "两"
