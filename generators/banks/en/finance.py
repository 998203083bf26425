"""Computed slots for the finance exchanges (finance.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

import math

from ..engine import Slots, money, number_words
from ..loader import BankData


def finance_save(s: Slots, data: BankData) -> Slots:
    amount = int(s["amount"])  # type: ignore[arg-type]
    months = int(s["months"])  # type: ignore[arg-type]
    saved = int(s["saved_frac"]) * amount // 10  # type: ignore[arg-type]
    left = amount - saved
    monthly = left / months
    weekly = left / (months * 52 / 12)
    return {
        "amount_s": f"{amount:,}",
        "saved": f"{saved:,}",
        "left": f"{left:,}",
        "monthly": money(math.ceil(monthly)),
        "weekly": money(math.ceil(weekly)),
        "daily": money(math.ceil(left / (months * 30.4) * 100) / 100),
        "months_w": number_words(months),
        "goal_s": str(s["goal"]).replace("I want", "you want"),
    }


def finance_budget(s: Slots, data: BankData) -> Slots:
    income = int(s["income"])  # type: ignore[arg-type]
    rent = int(s["rent"])  # type: ignore[arg-type]
    needs = income * 0.5
    wants = income * 0.3
    save = income * 0.2
    rent_share = round(100 * rent / income)
    rent_note = (
        "[which leaves good room for the other essentials|so there's plenty left for everything else you need]" if rent_share <= 30 else
        "[which is on the high side, so the other needs have to be lean|which is a big slice, so the other essentials need to stay tight]" if rent_share <= 50 else
        "[which is more than the whole needs bucket, so we'd need to trim the wants|which already eats the whole needs share, so the wants have to shrink]"
    )
    return {
        "income_s": f"{income:,}",
        "rent_s": f"{rent:,}",
        "needs": money(needs),
        "wants": money(wants),
        "save": money(save),
        "rent_share": rent_share,
        "rent_note": rent_note,
        "yearly": money(save * 12),
    }


def finance_growth(s: Slots, data: BankData) -> Slots:
    monthly = int(s["monthly"])  # type: ignore[arg-type]
    rate = int(s["rate"])  # type: ignore[arg-type]
    years = int(s["years"])  # type: ignore[arg-type]
    r = rate / 100 / 12
    n = years * 12
    fv = monthly * ((1 + r) ** n - 1) / r
    paid = monthly * n
    return {
        "fv": money(round(fv)), "paid": money(paid), "growth": money(round(fv - paid)),
        "years_w": number_words(years), "rate_w": number_words(rate),
    }


def finance_loan(s: Slots, data: BankData) -> Slots:
    balance = int(s["balance"])  # type: ignore[arg-type]
    apr = int(s["apr"])  # type: ignore[arg-type]
    r = apr / 100 / 12
    pay = max(25 * math.ceil(balance * int(s["pay_pct"]) / 100 / 25), 25 * math.ceil((balance * r + 20) / 25))  # type: ignore[arg-type]
    n = math.ceil(-math.log(1 - r * balance / pay) / math.log(1 + r)) if r > 0 else math.ceil(balance / pay)
    total = pay * n
    interest = max(0, total - balance)
    years, months = divmod(n, 12)
    span = (f"{years} year{'s' if years != 1 else ''}" if years else "") + (" and " if years and months else "") + (f"{months} month{'s' if months != 1 else ''}" if months else "")
    extra_pay = pay + 50
    n2 = math.ceil(-math.log(1 - r * balance / extra_pay) / math.log(1 + r)) if r > 0 else math.ceil(balance / extra_pay)
    return {
        "pay_s": money(pay), "months": n, "span": span, "interest": money(interest), "total": money(total),
        "balance_s": f"{balance:,}", "extra_pay": money(extra_pay),
        "faster_s": {0: "hardly any time", 1: "about a month"}.get(n - n2, f"{n - n2} months"),
    }


FUNCTIONS = (finance_save, finance_budget, finance_growth, finance_loan,)
