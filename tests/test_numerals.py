"""schemas/languages/zh.py: the numbers a text states, read as DESIGN §2 rule 6 compares them.

Cases are Mandarin as the banks say it (zh/numbers.py spells it; these readers are written apart
from the speller), each with the canonical values it must read. Add cases; don't rewrite.
"""

from __future__ import annotations

import pytest

from schemas.languages.zh import chinese_numbers

CASES = [
    # money: 块/毛/分, and a bare digit after 块 is 毛 unless it starts a count
    ("每人一百零六块一毛五分。", {"106.15"}),
    ("十二块五", {"12.5"}),
    ("三块零五分", {"3.05"}),
    ("十二块五一斤", {"12.5"}),
    ("帮我算算，一千四百六十三块四个人分，一人多少钱？", {"1463", "4"}),
    ("三百块二十五个人平摊", {"300", "25"}),
    ("七千五百九十九块分二十四期", {"7599", "24"}),
    ("四万二千五百块", {"42500"}),
    # 万一 ("in case") and 千万 ("by all means") are words, but not inside a number
    ("一万一千块", {"11000"}),
    ("两万一千五百块", {"21500"}),
    ("一千万", {"10000000"}),
    ("万一下雨，千万别忘了带伞", set()),
    # decimals and units of the conversion tool
    ("时速九十六点五六公里", {"96.56"}),
    ("两百零三点二厘米", {"203.2"}),
    ("十点零八公里", {"10.08"}),
    ("一百零一点三华氏度是三十八点五摄氏度", {"101.3", "38.5"}),
    # 折 said digit by digit, as the user says it
    ("打完八五折", {"85"}),
    # dates, weekdays and clock times of the date calculator and the calendar: a weekday states no number,
    # and 十分 after a clock's 点 is ten minutes, not "very"
    ("十二月三十一号，星期四。", {"12", "31"}),
    ("中午十二点十分就能好。", {"12", "10"}),
    ("下午两点零五分", {"2", "5"}),
    ("上午十点一刻的体检和晚上七点半的家庭聚餐。", {"10", "15", "7", "30"}),
    ("我的航班是二零二七年八月五号的", {"2027", "8", "5"}),
    ("这个菜十分好吃", set()),
    # heights and lengths of the lookup tool
    ("珠穆朗玛峰海拔八千八百四十九米。", {"8849"}),
    ("尼罗河全长大约六千六百五十公里。", {"6650"}),
]


@pytest.mark.parametrize(("text", "values"), CASES)
def test_chinese_numbers(text: str, values: set[str]) -> None:
    assert chinese_numbers(text) == values
