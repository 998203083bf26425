"""Unit conversion over a small table of everyday units (linear factors; temperature by formula)."""
from __future__ import annotations

# unit -> (dimension, factor to the SI-ish base unit)
UNITS: dict[str, tuple[str, float]] = {
    "millimeters": ("length", 0.001), "centimeters": ("length", 0.01), "meters": ("length", 1.0),
    "kilometers": ("length", 1000.0), "inches": ("length", 0.0254), "feet": ("length", 0.3048),
    "yards": ("length", 0.9144), "miles": ("length", 1609.344),
    "grams": ("mass", 0.001), "kilograms": ("mass", 1.0), "ounces": ("mass", 0.028349523125),
    "pounds": ("mass", 0.45359237), "stones": ("mass", 6.35029318),
    "milliliters": ("volume", 0.001), "liters": ("volume", 1.0), "cups": ("volume", 0.2365882365),
    "tablespoons": ("volume", 0.01478676478125), "teaspoons": ("volume", 0.00492892159375),
    "fluid ounces": ("volume", 0.0295735295625), "gallons": ("volume", 3.785411784), "pints": ("volume", 0.473176473),
    "kilometers per hour": ("speed", 1 / 3.6), "miles per hour": ("speed", 0.44704), "meters per second": ("speed", 1.0),
    "celsius": ("temperature", 1.0), "fahrenheit": ("temperature", 1.0), "kelvin": ("temperature", 1.0),
}


class UnitError(ValueError):
    pass


def _unit(name: str) -> str:
    n = name.strip().lower()
    for cand in (n, n + "s", n.rstrip("s"), n.replace("degrees ", "")):
        if cand in UNITS:
            return cand
    raise UnitError(f"unknown unit {name!r}")


def convert(value: float, src: str, dst: str) -> float:
    """value in `src` expressed in `dst`; raises UnitError across dimensions."""
    a, b = _unit(src), _unit(dst)
    (da, fa), (db, fb) = UNITS[a], UNITS[b]
    if da != db:
        raise UnitError(f"cannot convert {da} ({a}) to {db} ({b})")
    if da == "temperature":
        kelvin = {"celsius": value + 273.15, "fahrenheit": (value - 32) * 5 / 9 + 273.15, "kelvin": value}[a]
        return {"celsius": kelvin - 273.15, "fahrenheit": (kelvin - 273.15) * 9 / 5 + 32, "kelvin": kelvin}[b]
    return value * fa / fb
