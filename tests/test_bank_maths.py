"""Numbers a derive function computes for an answer, checked against an independent computation.

The payoff case is the one a reviewer read in a 1,000-row run (issue #12): "I owe 10500 dollars on my
store card at 22 percent. If I pay 950 dollars a month..." answered "Interest cost: around 1,850
dollars", which counted the 13th payment as a full 950; it is 443 dollars, so the interest is 1,343.
"""
from __future__ import annotations

import itertools
import math
from decimal import Decimal

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


def _round_robin_slots(n: int, courts: int) -> int:
    """Build a round robin (circle method), then pack its games into time slots first-fit: a slot takes
    at most `courts` games and no team twice. The count is a schedule that exists."""
    teams: list[int | None] = [*range(n), *([None] if n % 2 else [])]
    games = []
    for _ in range(len(teams) - 1):
        games += [(a, b) for a, b in zip(teams[: len(teams) // 2], reversed(teams[len(teams) // 2:]))
                  if a is not None and b is not None]
        teams = [teams[0], teams[-1], *teams[1:-1]]
    assert len(set(games)) == n * (n - 1) // 2
    slots = 0
    while games:
        busy: set[int] = set()
        now = []
        for g in games:
            if len(now) < courts and not busy & set(g):
                now.append(g)
                busy |= set(g)
        games = [g for g in games if g not in now]
        slots += 1
    return slots


def test_a_round_robin_takes_the_slots_a_real_schedule_needs() -> None:
    """"4 teams, 20 minute games and 6 courts" was "1 slots on six courts comes to 25 minutes": six games
    in one slot would have each team playing three at once. A slot holds at most half the teams' games."""
    from generators.banks.en.sports import sports_tourney

    got = sports_tourney({"teams": 4, "courts": 6, "game_min": 20}, None)   # type: ignore[arg-type]
    assert (got["rr"], got["rr_slots"], got["rr_len"]) == (6, 3, "1 hour and 15 minutes")
    for n, courts in itertools.product(range(4, 15), range(2, 7)):   # tourney's slot ranges in sports.yaml
        got = sports_tourney({"teams": n, "courts": courts, "game_min": 10}, None)   # type: ignore[arg-type]
        fewest = math.ceil(n * (n - 1) // 2 / min(courts, n // 2))   # no schedule is shorter: games / games a slot
        assert got["rr_slots"] == _round_robin_slots(n, courts) == fewest, (n, courts)


def test_every_cleaning_plan_the_bank_can_draw_adds_up_to_its_total() -> None:
    """"25 minutes" was planned as 10 + 5 + 5 (issue #28: 7 of 13 checkable plans in 2,000 scripts did not
    add up). Over every total and room count home.yaml can draw: the rooms' minutes make the total, each is a
    whole number of five minute steps, and the first room (which the answer may call "the biggest chunk")
    gets strictly the most."""
    from generators.banks.en.home import home_clean
    from generators.banks.loader import load_language

    bank = yaml.safe_load((BANKS_DIR / "en" / "home.yaml").read_text(encoding="utf-8"))
    scenario = next(x for x in bank["scenarios"] if x.get("derive") == "home_clean")
    lo, hi, step = scenario["slots"]["minutes"]["int"]
    data = load_language("en").data
    rooms = list(data.tables["clean_tasks"].keys())
    checked = 0
    for minutes in range(lo, hi + 1, step):
        for variant in range(3):
            got = home_clean({"minutes": minutes, "rooms": tuple(rooms[variant:variant + 3]), "arrive": (18, 0),
                              "tstyle": 0, "variant": variant}, data)
            parts = [int(got[f"m{i}"]) for i in range(3)]   # type: ignore[call-overload]
            assert sum(parts) == minutes, (minutes, parts)
            assert all(p >= 5 and p % 5 == 0 for p in parts), (minutes, parts)
            assert parts[0] > max(parts[1:]), (minutes, parts)
            checked += 1
    assert checked == 3 * len(range(lo, hi + 1, step)) and lo == 20


# What a body temperature means, by mouth, from the reading in Fahrenheit: written here apart from the bank's
# Celsius floors (generators/banks/results.py) so a moved floor is caught: 99.5 F is 37.5 C, 100.4 F 38.0 C and
# 103.1 F the first reading said as 39.5 C (103.0 F is 39.44).
def _band_f(tenths_f: int) -> str:
    return "normal" if tenths_f < 995 else "raised" if tenths_f < 1004 else "fever" if tenths_f < 1031 else "high_fever"


_SAYS = {   # (must say, must not say), per band and language
    ("en", "normal"): (r"\bnormal\b", r"doctor|come down|is a fever|counts as a fever|high fever|above normal"),
    ("en", "raised"): (r"above normal|slightly raised", r"doctor|counts as a fever|high fever"),
    ("en", "fever"): (r"\bfever\b", r"normal|high fever"),
    ("en", "high_fever"): (r"\bhigh\b", r"normal|not a fever"),
    ("zh", "normal"): (r"正常", r"医|发烧了|高烧|偏高"),
    ("zh", "raised"): (r"高一点|偏高|有点高|略高", r"医|高烧|算是发烧|已经算发烧|是发烧了"),
    ("zh", "fever"): (r"发烧", r"正常|高烧|不算发烧"),
    ("zh", "high_fever"): (r"高烧", r"正常|不算发烧"),
}


def test_every_fever_reading_the_bank_can_draw_is_called_what_it_is() -> None:
    """"Is 97 Fahrenheit high?" was answered "call a doctor if it doesn't come down" (about 45% of draws were
    normal readings). Over every reading the fever specs draw (97.0 to 104.4 F, en and zh), the relay of a
    complete result says the band the reading is in, and a normal reading is never sent to a doctor."""
    import re

    import numpy as np

    from generators import text_bank as tb
    from generators.harness import HarnessState, run_task
    from schemas.config import HarnessConfig

    seen: dict[tuple[str, str], int] = {}
    for lang, name in (("en", "fever"), ("zh", "fever_zh")):
        spec = tb._text(lang).delegations.by_name[name]
        rng = np.random.default_rng(5)
        for tenths in range(970, 1045):   # fever_reading(_zh): rng.integers(970, 1045) / 10
            slots = {**spec.draw(rng), "x": str(tenths / 10)}
            c = tb._content(rng, spec, slots, lang=lang)
            ex = run_task("t1", c.call, HarnessConfig(), rng, HarnessState(), force="ok")   # type: ignore[arg-type]
            said = " ".join(tb.relay_lines(rng, c, ex))
            band = _band_f(tenths)
            must, never = _SAYS[(lang, band)]
            assert re.search(must, said) and not re.search(never, said), (lang, tenths, band, said)
            seen[(lang, band)] = seen.get((lang, band), 0) + 1
    assert set(seen) == set(_SAYS), seen


# The money a restaurant bill is paid in, by country: written here apart from restaurants.yaml.
_MONEY = {"the United States": "dollars", "Canada": "dollars", "Australia": "dollars", "Japan": "yen",
          "the United Kingdom": "pounds", "France": "euros", "Italy": "euros", "Germany": "euros", "Spain": "euros",
          "Portugal": "euros", "Ireland": "euros", "Mexico": "pesos", "South Korea": "won", "Egypt": "Egyptian pounds",
          "Thailand": "baht", "Brazil": "reais"}


def _amount(said: str, many: str) -> Decimal:
    """"7 euros and 50 cents" -> 7.50; "2,400 yen" -> 2400."""
    import re

    m = re.fullmatch(r"([\d,]+) (\w+(?: \w+)?)(?: and (\d+) (?:cents|pence))?", said)
    assert m and m.group(2).rstrip("s") in (many.rstrip("s"), many), (said, many)
    return Decimal(m.group(1).replace(",", "")) + Decimal(m.group(3) or 0) / 100


def test_every_tip_the_bank_can_draw_is_in_the_countrys_money_and_adds_up() -> None:
    """"Do people tip in Spain? We've got a 150 dollar bill" (issue #28: UK tipping in dollars). Over every
    country and bill the tipping scenario draws: the bill, the tip and the total are said in the money of the
    country, the tip is the country's percentage of the bill and the total is bill plus tip; a correction of
    the country keeps the money the bill was said in; no template of the scenario names a currency itself."""
    import numpy as np

    from generators.banks.en.restaurants import restaurants_tipping, tipping_country
    from generators.banks.loader import load_language

    bank = yaml.safe_load((BANKS_DIR / "en" / "restaurants.yaml").read_text(encoding="utf-8"))
    scenario = next(x for x in bank["scenarios"] if x.get("derive") == "restaurants_tipping")
    lo, hi, step = scenario["slots"]["bill"]["int"]
    assert "dollar" not in yaml.safe_dump(scenario)
    data = load_language("en").data
    assert set(data.tables["tipping"].keys()) == set(_MONEY)
    for country, many in _MONEY.items():
        pct = data.tables["tipping"][country].pct
        for bill in range(lo, hi + 1, step):
            got = restaurants_tipping({"country": country, "bill": bill}, data)
            b = _amount(str(got["bill_s"]), many)
            assert str(got["bill_n"]).replace(",", "") == str(b), (country, got)
            total = _amount(str(got["with_tip"]), many)
            tip = Decimal(0) if got["tip"] == "nothing extra" else _amount(str(got["tip"]), many)
            assert total == b + tip and abs(tip - b * pct / 100) <= Decimal("0.5"), (country, bill, got)
        rng = np.random.default_rng(0)
        for _ in range(20):
            other = tipping_country(rng, {"country": country, "bill": lo}, data)
            assert _MONEY[other] == many, (country, other)


def test_minutes_a_day_add_up_to_the_minutes_a_week_said() -> None:
    """"The flute with 10 minutes a day adds up to about 60 minutes a week": six days were counted for a
    daily habit. Over every daily practice the learn scenario draws, the week is seven of its days, and the
    warm-up fits in the day."""
    from generators.banks.en.music import music_learn
    from generators.banks.loader import load_language

    bank = yaml.safe_load((BANKS_DIR / "en" / "music.yaml").read_text(encoding="utf-8"))
    lo, hi, step = next(x for x in bank["scenarios"] if x.get("derive") == "music_learn")["slots"]["minutes"]["int"]
    data = load_language("en").data
    for instrument in data.tables["instruments"].keys():
        for m in range(lo, hi + 1, step):
            got = music_learn({"instrument": instrument, "minutes": m}, data)
            assert got["weekly"] == 7 * m and int(got["warm"]) < m, (instrument, m, got["weekly"])   # type: ignore[call-overload]


_EURO_AREA = {"Portugal", "Spain", "France", "Germany", "Austria", "the Netherlands", "Italy", "Ireland", "Greece",
              "Finland", "Belgium"}


def test_every_drive_the_bank_can_draw_prices_its_fuel_in_euros_and_adds_up() -> None:
    """"I'm driving 570 kilometres to Lisbon ... fuel is 1 dollar and 51 cents a litre": the price at the pump
    is in the money of the place. Over every destination, distance, consumption and price the drive scenario
    draws: the destination is in the euro area, and the fuel cost is the litres said times the price, in euros,
    doubled for the way back."""
    from generators.banks.en.travel import travel_drive
    from generators.banks.loader import load_language

    bank = yaml.safe_load((BANKS_DIR / "en" / "travel.yaml").read_text(encoding="utf-8"))
    slots = next(x for x in bank["scenarios"] if x.get("derive") == "travel_drive")["slots"]
    data = load_language("en").data
    cities = data.lists[slots["city"]["list"]]
    assert cities and all(data.tables["cities"][c].country in _EURO_AREA for c in cities)
    assert "dollar" not in yaml.safe_dump(next(x for x in bank["scenarios"] if x.get("derive") == "travel_drive"))
    lo, hi, step = slots["km"]["int"]
    p_lo, p_hi = slots["price"]["cents"]
    for km in range(lo, hi + 1, step * 7):
        for l100 in slots["l100"]["values"]:
            for cents in range(p_lo, p_hi + 1, 4):
                price = Decimal(cents) / 100
                got = travel_drive({"city": cities[0], "km": km, "l100": l100, "price": price, "speed": 90}, None)   # type: ignore[arg-type]
                assert str(got["price_s"]) in (f"{cents // 100} euro and {cents % 100} cents",
                                               f"{cents // 100} euros and {cents % 100} cents", f"{cents // 100} euros")
                litres = Decimal(str(got["litres"]))
                assert abs(litres - Decimal(km) * Decimal(l100) / 100) <= Decimal("0.05")
                cost, back = _amount(str(got["cost"]), "euros"), _amount(str(got["cost2"]), "euros")
                assert abs(cost - litres * price) <= Decimal("0.01") and abs(back - 2 * cost) <= Decimal("0.01"), got
