"""Numbers a derive function computes for an answer, checked against an independent computation.

The payoff case is the one a reviewer read in a 1,000-row run (issue #12): "I owe 10500 dollars on my
store card at 22 percent. If I pay 950 dollars a month..." answered "Interest cost: around 1,850
dollars", which counted the 13th payment as a full 950; it is 443 dollars, so the interest is 1,343.
"""
from __future__ import annotations

import itertools

import yaml

from generators.banks.en.finance import finance_loan
from generators.banks.engine import money
from generators.banks.loader import BANKS_DIR


def _schedule(balance: int, apr: int, pay: int) -> tuple[int, float]:
    """Month by month: interest accrues, then the payment (or what is left) is paid."""
    r, left, months, paid = apr / 100 / 12, float(balance), 0, 0.0
    while left > 1e-6:
        left *= 1 + r
        p = min(pay, left)
        left, paid, months = left - p, paid + p, months + 1
    return months, paid


def _dollars(spoken: str) -> int:
    return int(spoken.split()[0].replace(",", ""))


def test_the_read_payoff_says_the_interest_the_schedule_charges() -> None:
    got = finance_loan({"balance": 10500, "apr": 22, "pay_pct": 9}, None)   # type: ignore[arg-type]
    assert (got["pay_s"], got["months"], got["interest"], got["total"]) == \
        ("950 dollars", 13, "1,343 dollars", "11,843 dollars")


def test_every_payoff_the_bank_can_draw_matches_the_schedule() -> None:
    """Over the slot ranges finance.yaml draws: the months, the total repaid and the interest."""
    bank = yaml.safe_load((BANKS_DIR / "en" / "finance.yaml").read_text(encoding="utf-8"))
    slots = next(x for x in bank["scenarios"] if x.get("derive") == "finance_loan")["slots"]
    lo, hi, step = slots["balance"]["int"]
    assert (slots["apr"]["int"], slots["pay_pct"]["int"]) == ([5, 25], [2, 10])
    for balance, apr, pct in itertools.product(range(lo, hi + 1, step), range(5, 26), range(2, 11)):
        got = finance_loan({"balance": balance, "apr": apr, "pay_pct": pct}, None)   # type: ignore[arg-type]
        months, paid = _schedule(balance, apr, _dollars(str(got["pay_s"])))
        assert got["months"] == months, (balance, apr, pct)
        assert abs(_dollars(str(got["total"])) - paid) <= 1, (balance, apr, pct, got["total"], paid)
        assert abs(_dollars(str(got["interest"])) - (paid - balance)) <= 1, (balance, apr, pct)
    assert money(1343) == "1,343 dollars"
