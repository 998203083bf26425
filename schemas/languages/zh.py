"""Mandarin Chinese (`zh`, DESIGN §6): what the `Language` knows about it.

Words are segmented with jieba (`chinese_words`) and join with no separator, so
`CHINESE.join(CHINESE.words(t)) == t.strip()` for every text. How a written token is *said*
(`chinese_spoken`: digits as Han numerals, 两 before measure words, 点/分, 百分之) is what every TTS
engine synthesises (pipeline/tts/spoken.py). `chinese_numbers` reads the numbers a text states.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from schemas.languages.base import Language, split_punct
from schemas.languages.en import english_numbers


# --- Mandarin segmentation ------------------------------------------------------------------------
# Text is first cut into atoms: runs of Han characters (segmented by jieba's dictionary), Latin/digit
# words ("Wi-Fi", "iPhone", "3.5", "U.S", "3:45", "20%", "1,000"), single punctuation marks and whitespace
# runs. Then punctuation and spaces are attached: a closing mark or a space goes on the word before
# it (as English tokens carry their "," and "."), an opening quote/bracket on the word after it.
# Cutting at punctuation first makes segmentation local: a sentence segments the same alone as
# inside a paragraph, which `sentence_of_word` relies on.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f\u3007"
_LATIN_CHAR = rf"(?:(?![{_HAN}])[^\W_])"        # a letter or digit of a non-Han script
_ATOM_RE = re.compile(
    rf"(?P<han>[{_HAN}]+)"
    rf"|(?P<latin>{_LATIN_CHAR}+(?:(?:(?<=\d)[:,](?=\d)|[.'’\-_+&/]){_LATIN_CHAR}+)*%?)"
    r"|(?P<space>\s+)"
    r"|(?P<punct>.)", re.DOTALL)
_OPENERS = frozenset("“‘「『（《〈【〔([{\"'")   # attach to the next word
CHINESE_CLOSERS = "”’」』）》〉】〕)]}\"'"
JIEBA_HMM = False   # dictionary words only: HMM guesses merge words wrongly ("帮我查" -> "我查")


@functools.lru_cache(maxsize=1)
def _jieba_tokenizer() -> Any:
    """jieba's bundled dictionary, built in memory: no user dictionary, and no cache file.

    (jieba's own initialise loads `<tmp>/jieba.cache` whenever it exists, whoever wrote it, so a
    stale or foreign cache would change our segmentation; building the prefix dict costs ~1 s
    once per process.)
    """
    import jieba  # lazy: only Mandarin text needs it

    tk = jieba.Tokenizer()
    with tk.get_dict_file() as f:
        tk.FREQ, tk.total = tk.gen_pfdict(f)
    tk.initialized = True
    return tk


def _han_words(run: str) -> list[str]:
    words = list(_jieba_tokenizer().cut(run, cut_all=False, HMM=JIEBA_HMM))
    return words if "".join(words) == run else list(run)   # jieba partitions its input; guard anyway


def chinese_words(text: str) -> list[str]:
    """Mandarin word tokens, punctuation and inner spaces attached; leading/trailing space dropped.

    `"".join(chinese_words(t)) == t.strip()`: a space inside the text (between Latin words, say
    "iPhone 15") stays on the token before it ("iPhone ", "15"), so joining never loses or invents
    a character. A text of punctuation only is one token.
    """
    words: list[str] = []
    pending = ""   # opening marks (or leading punctuation) waiting for the next word
    for m in _ATOM_RE.finditer(text.strip()):
        kind, atom = m.lastgroup, m.group()
        if kind in ("han", "latin"):
            for w in _han_words(atom) if kind == "han" else [atom]:
                words.append(pending + w)
                pending = ""
        elif pending or (kind == "punct" and (atom in _OPENERS or not words)):
            pending += atom
        else:   # a closing mark or a space: on the word before it
            words[-1] += atom
    if pending:
        if words:
            words[-1] += pending
        else:
            words.append(pending)
    return words


def segmenter_identity() -> dict[str, str]:
    """What decides Mandarin segmentation (jieba version, dictionary digest, HMM), for manifests."""
    import hashlib
    from importlib import metadata

    tk = _jieba_tokenizer()
    with tk.get_dict_file() as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    return {"segmenter": "jieba", "version": metadata.version("jieba"), "dict_sha256": digest,
            "hmm": str(JIEBA_HMM)}


# ----------------------------------------------------------------------------- numbers stated (rule 6)
# Reading the numbers a text states, per language: what DESIGN §2 rule 6 compares.
#
# A relay may state only numbers it has read (a backend result) or heard (what was said before it).
# `english_numbers` reads digits, as English content writes them; `chinese_numbers` reads Mandarin
# numerals as spoken Mandarin says them (三到九度, 百分之六十, 十二块五毛, 下午三点一刻, 二零二六年),
# plus any digits. Both return canonical decimal strings ("12.5", "3", "2026"), so a Mandarin relay
# of an English result ("12.50 dollars" -> 十二块五毛) compares by value.
#
# These readers are written independently of the speller (generators/banks/zh/numbers.py), so the
# check is a check: a speller bug shows up as a rule 6 violation, not as agreement with itself.
#
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


# ----------------------------------------------------------------------------- Mandarin
_ZH_DIGITS = "零一二三四五六七八九"
_ZH_UNITS = ("", "十", "百", "千")
#: measure words and time words after which 2 is read 两 (两个, 两点, 两块), not 二
_ZH_MEASURES = tuple(
    "个 位 点 块 元 次 天 年 岁 本 张 件 只 杯 瓶 份 斤 公斤 公里 米 小时 钟头 分钟 秒 周 星期 种 条 双 台 辆 家 "
    "间 层 遍 碗 盒 包 口 句 页 首 部 场 节 趟 套 组 排 片 座 架 把 支 根 颗 粒 匹 头 棵 朵 封 笔 倍 千 万 亿".split())
_ZH_OPEN = "“‘「『（《〈【〔([{\"'"
_ZH_CLOSE = "，。、；：？！…”’」』）》〉】〕)]},.;:?!\"'"


def _zh_group(n: int) -> str:
    """0 < n < 10000 in Han numerals, with 零 for inner gaps ("一千零八十七")."""
    digits = [int(d) for d in f"{n:04d}"]
    out, zero = "", False
    for i, d in enumerate(digits):
        if d == 0:
            zero = bool(out)
            continue
        if zero:
            out += "零"
            zero = False
        out += _ZH_DIGITS[d] + _ZH_UNITS[3 - i]
    return out


def zh_cardinal(n: int) -> str:
    """An integer in Han numerals as said: 10-19 as 十..., 两千/两万 for a leading 2."""
    if n < 0:
        return "负" + zh_cardinal(-n)
    if n == 0:
        return "零"
    parts: list[str] = []
    for scale, word in ((10**8, "亿"), (10**4, "万"), (1, "")):
        group = n // scale % 10**4 if scale < 10**8 else n // scale
        if group:
            said = _zh_group(group) if group < 10**4 else zh_cardinal(group)
            if parts and (group < 1000 or parts[-1].endswith("零")):
                said = "零" + said if not said.startswith("零") else said
            parts.append(said + word)
        elif parts and not parts[-1].endswith("零"):
            parts.append("零")
    out = "".join(parts).rstrip("零")
    if out.startswith("一十"):
        out = out[1:]
    if out.startswith("二千") or out.startswith("二万") or out.startswith("二亿"):
        out = "两" + out[1:]
    return out


def _zh_digits(s: str) -> str:
    return "".join(_ZH_DIGITS[int(d)] for d in s)


def _zh_number(core: str, nxt: str | None) -> str | None:
    core = core.replace(",", "")
    if m := re.fullmatch(r"(\d{1,2}):(\d{2})", core):
        hour, minute = int(m.group(1)), int(m.group(2))
        said = ("两" if hour == 2 else zh_cardinal(hour)) + "点"
        return said if minute == 0 else said + ("零" if minute < 10 else "") + zh_cardinal(minute) + "分"
    if m := re.fullmatch(r"(-?\d+(?:\.\d+)?)%", core):
        said = _zh_number(m.group(1), None)
        return "百分之" + said if said else None
    if m := re.fullmatch(r"[¥￥$](\d+(?:\.\d+)?)", core):
        said = _zh_number(m.group(1), None)
        return said + ("美元" if core[0] == "$" else "元") if said else None
    if m := re.fullmatch(r"(-?)(\d+)\.(\d+)", core):
        return ("负" if m.group(1) else "") + zh_cardinal(int(m.group(2))) + "点" + _zh_digits(m.group(3))
    if re.fullmatch(r"\d+", core):
        following = (nxt or "").lstrip(_ZH_OPEN)
        if len(core) == 4 and following.startswith("年"):
            return _zh_digits(core)                      # 2024年: 二零二四年
        if core.startswith("0") and len(core) > 1 or len(core) >= 7:
            return _zh_digits(core)                      # codes and phone numbers, digit by digit
        if int(core) == 2 and following.startswith(_ZH_MEASURES):
            return "两"
        return zh_cardinal(int(core))
    return None


def _zh_token(token: str, nxt: str | None) -> str:
    lead, core, trail = split_punct(token, _ZH_OPEN, _ZH_CLOSE)
    said = _zh_number(core, nxt) if any(c.isdigit() for c in core) else None
    if said is None and core in ("%", "&", "+", "="):
        said = {"%": "百分之", "&": "和", "+": "加", "=": "等于"}[core]
    return token if said is None else lead + said + trail

def chinese_spoken(tokens: Sequence[str]) -> list[str]:
    """What each written Mandarin token says ("3点" -> "三点", 两 before a measure word); `Language.spoken`."""
    toks = list(tokens)
    return [_zh_token(t, toks[i + 1] if i + 1 < len(toks) else None) for i, t in enumerate(toks)]




def has_han(text: str) -> bool:
    """Whether `text` holds a Han character: written in Mandarin, not in a Latin-script language."""
    return bool(_HAN_CHAR.search(text))


_HAN_CHAR = re.compile(r"[\u3400-\u9fff]")

CHINESE = Language(code="zh", name="Mandarin Chinese", word_separator="",
                   sentence_ends=("。", "？", "！", "?", "!", "."),
                   phrase_ends=("，", "、", "；", "：", "。", "？", "！", ",", ";", ":", "?", "!", "."),
                   question_ends=("？", "?"), segment=chinese_words, closers=CHINESE_CLOSERS,
                   numbers=chinese_numbers,
                   spoken=chinese_spoken, espeak_voices=("cmn",), script=has_han)
