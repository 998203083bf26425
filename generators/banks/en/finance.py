"""Computed slots for the finance exchanges (finance.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

import math

from ..engine import Rng, Slots, money, number_words, row_prose
from ..loader import BankData


def _grid(rng: Rng, lo: int, hi: int, step: int) -> int:
    return lo + step * int(rng.integers(0, (hi - lo) // step + 1))


# A savings target and what is saved towards it already: a tenth to a half of it, so something is left
# to save and "0 dollars already" cannot be said. The user says what is saved; a correction of the target
# keeps it (the savings do not change because the target did), so a new target stays above twice it.
SAVE_RANGE = (500, 12000, 250)


def save_amount(rng: Rng, slots: Slots, data: BankData) -> int:
    lo, hi, step = SAVE_RANGE
    if "saved_n" in slots:
        lo = max(lo, step * math.ceil(2 * int(slots["saved_n"]) / step))  # type: ignore[arg-type]
    return _grid(rng, lo, hi, step)


def save_saved(rng: Rng, slots: Slots, data: BankData) -> int:
    return int(rng.integers(1, 6)) * int(slots["amount"]) // 10  # type: ignore[arg-type]


def finance_save(s: Slots, data: BankData) -> Slots:
    amount = int(s["amount"])  # type: ignore[arg-type]
    months = int(s["months"])  # type: ignore[arg-type]
    saved = int(s["saved_n"])  # type: ignore[arg-type]
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


# A monthly take-home income and a rent that fits in it: rent is at most RENT_MAX_SHARE of income (a
# budget for a rent above the income is not a budget), so "rent is 111 percent of your income" cannot be said.
INCOME_RANGE = (1800, 7000, 100)
RENT_RANGE = (600, 2400, 50)
RENT_MAX_SHARE = 0.6


def budget_income(rng: Rng, slots: Slots, data: BankData) -> int:
    """The income; redrawn for a correction (rent already known), one the rent still fits in."""
    lo, hi, step = INCOME_RANGE
    if "rent" in slots:
        lo = max(lo, step * math.ceil(int(slots["rent"]) / RENT_MAX_SHARE / step))  # type: ignore[arg-type]
    return _grid(rng, lo, hi, step)


def budget_rent(rng: Rng, slots: Slots, data: BankData) -> int:
    """The rent, at most RENT_MAX_SHARE of the income drawn before it."""
    lo, hi, step = RENT_RANGE
    hi = min(hi, step * math.floor(int(slots["income"]) * RENT_MAX_SHARE / step))  # type: ignore[arg-type]
    return _grid(rng, lo, hi, step)


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
    # the last payment is only what is left: the balance after n-1 full payments, plus its month's interest
    growth = (1 + r) ** (n - 1)
    left = balance * growth - (pay * (growth - 1) / r if r > 0 else pay * (n - 1))
    total = round(pay * (n - 1) + left * (1 + r))
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


def finance_terms(s: Slots, data: BankData) -> Slots:
    """The terms scenario: the drawn row's own prose fields (and lower-case-first copies for mid-sentence use)."""
    row = s["pair"]
    return row_prose(row, ('pair', 'first', 'second', 'pick'), ('second', 'pick'))


def finance_cutback(s: Slots, data: BankData) -> Slots:
    """The cutback scenario: the drawn row's own prose fields (and lower-case-first copies for mid-sentence use)."""
    row = s["cost"]
    return row_prose(row, ('cost', 'first', 'also', 'tip'), ('first', 'also', 'tip'))


FUNCTIONS = (save_amount, save_saved, finance_save, budget_income, budget_rent, finance_budget, finance_growth, finance_loan, finance_terms, finance_cutback,)
