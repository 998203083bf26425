"""The question types added for variety (issue #12): their derive functions compute what the answer says
from what the request gives, exactly, in English and Mandarin."""
from __future__ import annotations

from decimal import Decimal

import pytest

from generators.banks.loader import load_language
from tests.test_bank_files_zh import _yuan, parse_zh


@pytest.fixture(scope="module")
def en():
    return load_language("en")


@pytest.fixture(scope="module")
def zh():
    return load_language("zh")


def test_fuel_for_a_drive(en) -> None:
    from generators.banks.en.travel import travel_drive
    v = travel_drive({"city": "Lisbon", "km": 290, "l100": "5", "price": Decimal("1.63"), "speed": 90}, en.data)
    assert (v["litres"], v["cost"], v["cost2"]) == ("14.5", "23 euros and 64 cents", "47 euros and 27 cents")
    assert v["drive_t"] == "3 hours and 15 minutes" and v["breaks_s"] == "so plan one fifteen minute break"
    v = travel_drive({"city": "Lisbon", "km": 100, "l100": "6", "price": Decimal(2), "speed": 100}, en.data)
    assert (v["litres"], v["cost"], v["drive_t"], v["breaks_s"]) == ("6", "12 euros", "1 hour", "short enough to do in one go")


def test_a_cake_scaled_to_another_tin(en) -> None:
    from generators.banks.en.cooking import cooking_tin
    v = cooking_tin({"tins": (20, 25), "eggs": 2, "flour": 200, "sugar": 150}, en.data)
    assert v["factor"] == "1.56" and v["change"] == "about 56 percent more"
    assert (v["flour_n"], v["sugar_n"], v["eggs_n"]) == (310, 235, "3 eggs")   # 2 x 1.56 = 3.12
    assert cooking_tin({"tins": (18, 23), "eggs": 2, "flour": 150, "sugar": 150}, en.data)["eggs_n"] == "3 eggs plus a yolk"   # 3.26
    assert cooking_tin({"tins": (20, 25), "eggs": 3, "flour": 150, "sugar": 150}, en.data)["eggs_n"].startswith("5 eggs, beaten")  # 4.68
    v = cooking_tin({"tins": (23, 20), "eggs": 4, "flour": 300, "sugar": 200}, en.data)
    assert v["change"] == "about 24 percent less" and v["eggs_n"] == "3 eggs"   # 4 x 0.76 = 3.04


def test_lengths_of_a_pool(en) -> None:
    from generators.banks.en.fitness import fitness_swim
    v = fitness_swim({"pool": 25, "dist": 1500, "rest": 20}, en.data)
    assert (v["dist_s"], v["lengths"], v["per100"], v["sets"]) == ("1.5 kilometres", 60, 4, 15)
    assert fitness_swim({"pool": 50, "dist": 800, "rest": 15}, en.data)["dist_s"] == "800 metres"


def test_a_taxi_fare(zh) -> None:
    from generators.banks.zh.travel import travel_taxi
    for base, base_km, per, km in [(13, 3, "2.5", 13), (11, 2, "2.5", 15), (14, 3, "3", 2), (10, 2, "2.7", 21)]:
        v = travel_taxi({"city": "北京", "base": base, "base_km": base_km, "per": per, "km": km}, zh.data)
        extra = Decimal(per) * max(0, km - base_km)
        assert _yuan(str(v["extra_w"])) == extra and _yuan(str(v["fare_w"])) == base + extra
        assert parse_zh(str(v["extra_km_w"]).removesuffix("公里").replace("两", "二")) == max(0, km - base_km)


def test_water_for_rice(zh) -> None:
    from generators.banks.zh.cooking import cooking_rice
    row = zh.data.tables["rices"]["杂粮米"]
    v = cooking_rice({"rice": row, "cups": 4}, zh.data)
    assert (v["cups_w"], v["ratio_w"], v["water_w"], v["people_w"]) == ("四杯", "一点六", "一千一百五十毫升", "八个人")   # 4 x 180 x 1.6 = 1152
