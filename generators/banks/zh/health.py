"""Computed slots for the Mandarin health exchanges: bedtimes worked back, daily water, in words."""

from __future__ import annotations

import math

from ..engine import Slots
from ..loader import BankData
from .numbers import clock_of, count, duration, minutes_of_day, number, quantity

_FALL_ASLEEP = 15     # minutes; the templates say 十五分钟
_PHONE_OFF = 30       # minutes before bed; the templates say 半小时
_CYCLE = 90           # minutes in one sleep cycle (一个半小时)
_ML_PER_KG = 30       # the templates say 每公斤三十毫升
_CUP_ML = 250
_SPORT_ML = 500


def health_sleep(s: Slots, data: BankData) -> Slots:
    """When to be asleep, in bed and off the phone for the wake time and hours wanted."""
    h, m = s["wake"]  # type: ignore[misc]
    wake = minutes_of_day(int(h), int(m))
    sleep = int(s["sleep"])  # type: ignore[call-overload]
    asleep = wake - sleep
    bed = asleep - _FALL_ASLEEP
    if sleep % _CYCLE == 0:
        cycle_note = f"{duration(sleep)}正好是{count(sleep // _CYCLE, '个')}睡眠周期，醒来的时候会比较清醒"
    else:
        cycle_note = f"一个睡眠周期大概一个半小时，{duration(sleep)}不是整数个周期，闹钟响的时候可能会有点迷糊"
    return {
        "wake_t": clock_of(wake), "sleep_w": duration(sleep), "asleep_t": clock_of(asleep),
        "bed_t": clock_of(bed), "phone_t": clock_of(bed - _PHONE_OFF), "cycle_note": cycle_note,
    }


def health_water(s: Slots, data: BankData) -> Slots:
    """Daily water at thirty millilitres per kilogram, in litres and in cups, and on a sports day."""
    kg = int(s["weight"])  # type: ignore[call-overload]
    ml = kg * _ML_PER_KG
    return {
        "weight_w": number(kg) + "公斤", "ml_w": number(ml) + "毫升", "liters_w": quantity(ml / 1000, 1, "升"),
        "cups_w": count(math.ceil(ml / _CUP_ML), "杯"), "sport_w": number(ml + _SPORT_ML) + "毫升",
    }


FUNCTIONS = (health_sleep, health_water)
