"""Tool registry, execution and the latency / failure draws of each task."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from generators.harness import calculator, dates, lookup, units, weather
from generators.harness.calendar import BookingError, Calendar
from generators.harness.format import plain_text
from schemas.config import HarnessConfig
from schemas.vocab import TaskStatus

Status = TaskStatus   # how a harness call ended


class ToolFailure(ValueError):
    """The tool ran and refused the request (bad expression, unknown unit, clash...)."""


@dataclass(frozen=True)
class ToolCall:
    tool: str
    args: Mapping[str, str]


@dataclass
class HarnessState:
    """Per-trajectory harness state (never shared between trajectories)."""

    calendar: Calendar = field(default_factory=Calendar)


@dataclass(frozen=True)
class Execution:
    task_id: str
    tool: str
    args: dict[str, str]
    status: Status
    latency_s: float
    text: str                       # the backend result, plain text
    fields: dict[str, Any]          # structured values, for relay phrasing


def _calc(a: Mapping[str, str], st: HarnessState) -> tuple[str, dict[str, Any]]:
    try:
        v = calculator.evaluate(a["expression"])
    except calculator.CalcError as err:
        raise ToolFailure(f"the calculator could not compute that: {err}") from None
    out = calculator.format_number(v)
    return f"{a['expression']} = {out}", {"value": v, "value_text": out}


def _convert(a: Mapping[str, str], st: HarnessState) -> tuple[str, dict[str, Any]]:
    try:
        v = units.convert(float(a["value"]), a["from"], a["to"])
    except (units.UnitError, ValueError) as err:
        raise ToolFailure(f"the conversion failed: {err}") from None
    out = calculator.format_number(round(v, 2))
    return f"{a['value']} {a['from']} = {out} {a['to']}", {"value": v, "value_text": out}


def _datetime(a: Mapping[str, str], st: HarnessState) -> tuple[str, dict[str, Any]]:
    op = a.get("op", "")
    try:
        if op == "add_days":
            d = dates.add_days(a["date"], int(a["days"]))
            return f"{a['days']} days after {a['date']} is {dates.spoken_date(d)}", {"date": d.isoformat(),
                                                                                  "spoken": dates.spoken_date(d)}
        if op == "days_between":
            n = dates.days_between(a["from"], a["to"])
            return f"From {a['from']} to {a['to']} is {n} days", {"days": n}
        if op == "weekday":
            w = dates.weekday(a["date"])
            return f"{a['date']} is a {w}", {"weekday": w}
        if op == "add_minutes":
            t = dates.add_minutes(a["time"], int(a["minutes"]))
            return f"{a['minutes']} minutes after {a['time']} is {t}", {"time": t}
    except (dates.DateError, ValueError, KeyError) as err:
        raise ToolFailure(f"the date calculation failed: {err}") from None
    raise ToolFailure(f"unknown date operation {op!r}")


def _timer(a: Mapping[str, str], st: HarnessState) -> tuple[str, dict[str, Any]]:
    seconds = float(a["seconds"])
    if not 0 < seconds <= 24 * 3600:
        raise ToolFailure("timers run from one second to a day")
    return f"Timer {a.get('label', 'timer')} set for {calculator.format_number(seconds)} seconds", {"seconds": seconds}


def _weather(a: Mapping[str, str], st: HarnessState) -> tuple[str, dict[str, Any]]:
    if a["city"] not in weather.CLIMATE:
        raise ToolFailure(f"no forecast is available for {a['city']}")
    day = next((d for d in dates.DAYS if d[0] == a["day"]), None)
    if day is None:
        raise ToolFailure(f"no forecast is available for {a['day']}")
    w = weather.forecast(a["city"], day, int(a["seed"]))   # the one weather model, which the text banks word
    text = (f"{a['city']}, {w['day']}: {w['cond']}, {w['low']} to {w['high']} degrees Celsius, "
            f"{w['evening']} in the evening, {w['rain']}% chance of rain, wind {w['wind']} km/h")   # relays say it (rule 6)
    return text, dict(w)


def _lookup(a: Mapping[str, str], st: HarnessState) -> tuple[str, dict[str, Any]]:
    try:
        v = lookup.lookup(a["key"])
    except lookup.NotFound as err:
        raise ToolFailure(str(err)) from None
    return f"{a['key']}: {v}", {"value": v}


def _search(a: Mapping[str, str], st: HarnessState) -> tuple[str, dict[str, Any]]:
    try:
        hits = lookup.search(a["query"])
    except lookup.NotFound as err:
        raise ToolFailure(str(err)) from None
    title, text = hits[0]
    return f"{title}: {text}", {"title": title, "snippet": text}


def _calendar(a: Mapping[str, str], st: HarnessState) -> tuple[str, dict[str, Any]]:
    try:
        if a["action"] == "book":
            return st.calendar.book(a["day"], a["time"], int(a.get("minutes", "60")), a["title"]), {"booked": True}
        if a["action"] == "cancel":
            return st.calendar.cancel(a["day"], a["time"]), {"cancelled": True}
        if a["action"] == "agenda":
            return st.calendar.agenda(a["day"]), {}
    except (BookingError, ValueError, KeyError) as err:
        raise ToolFailure(f"the calendar refused: {err}") from None
    raise ToolFailure(f"unknown calendar action {a.get('action')!r}")


TOOLS: dict[str, Callable[[Mapping[str, str], HarnessState], tuple[str, dict[str, Any]]]] = {
    "calculator": _calc, "unit_convert": _convert, "datetime": _datetime, "timer": _timer,
    "weather": _weather, "lookup": _lookup, "search": _search, "calendar": _calendar,
}


def execute(call: ToolCall, state: HarnessState) -> tuple[Status, str, dict[str, Any]]:
    """Run a call now: ('ok', text, fields) or ('error', reason, {})."""
    fn = TOOLS.get(call.tool)
    if fn is None:
        return TaskStatus.ERROR, plain_text(f"There is no tool called {call.tool}."), {}
    try:
        text, fields = fn(call.args, state)
    except ToolFailure as err:
        return TaskStatus.ERROR, plain_text(f"The {call.tool} request failed: {err}."), {}
    except KeyError as err:
        return TaskStatus.ERROR, plain_text(f"The {call.tool} request is missing {err}."), {}
    return TaskStatus.OK, plain_text(text.rstrip(".") + "."), fields


def draw_latency(tool: str, cfg: HarnessConfig, rng: np.random.Generator,
                 quantiles: tuple[float, float] = (0.0, 1.0)) -> float:
    """Lognormal latency by inverse CDF; `quantiles` restricts the draw to a band of the same distribution
    (e.g. (0.8, 0.99) for a slow call), which is how out-of-order results are made likely, not forced."""
    from scipy.special import ndtri
    lo, hi = quantiles
    z = float(ndtri(min(max(rng.uniform(lo, hi), 1e-9), 1 - 1e-9)))
    tc = cfg.tools[tool]
    return float(round(min(tc.latency_max_s, max(0.2, tc.latency_median_s * np.exp(tc.latency_sigma * z))), 3))


def run_task(task_id: str, call: ToolCall, cfg: HarnessConfig, rng: np.random.Generator, state: HarnessState,
             force: Status | None = None, quantiles: tuple[float, float] = (0.0, 1.0)) -> Execution:
    """Execute with a drawn latency and failure mode (`force` pins the mode, for outcome scenarios)."""
    if call.tool not in cfg.tools:
        raise ValueError(f"tool {call.tool!r} is not enabled in the harness config")
    tc = cfg.tools[call.tool]
    latency = draw_latency(call.tool, cfg, rng, quantiles)
    u = float(rng.random())
    mode: Status = force or (TaskStatus.ERROR if u < tc.p_error else TaskStatus.TIMEOUT if u < tc.p_error + tc.p_timeout
                             else TaskStatus.PARTIAL if u < tc.p_error + tc.p_timeout + tc.p_partial else TaskStatus.OK)
    if mode == TaskStatus.ERROR:      # the service failed before running: no side effects on state
        status, text, fields = TaskStatus.ERROR, f"The {call.tool} service is unavailable right now.", {}
    elif mode == TaskStatus.TIMEOUT:
        latency = cfg.timeout_s
        status, text, fields = TaskStatus.TIMEOUT, (f"The {call.tool} request timed out after "
                                           f"{calculator.format_number(cfg.timeout_s)} seconds with no answer."), {}
    else:
        status, text, fields = execute(call, state)
        if status == TaskStatus.OK and mode == TaskStatus.PARTIAL:
            words = text.split()
            keep = max(2, len(words) // 2)
            status, text = TaskStatus.PARTIAL, " ".join(words[:keep]).rstrip(",;:.") + ". The rest of the result did not arrive."
    return Execution(task_id=task_id, tool=call.tool, args=dict(call.args), status=status, latency_s=latency,
                     text=plain_text(text), fields=fields)
