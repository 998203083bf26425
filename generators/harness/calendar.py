"""A stateful booking calendar: one per trajectory, so a booking can conflict with an earlier one."""
from __future__ import annotations

from dataclasses import dataclass, field


class BookingError(ValueError):
    pass


@dataclass
class Calendar:
    """Bookings keyed by (day, start minute); each holds (end minute, title)."""

    slots: dict[tuple[str, int], tuple[int, str]] = field(default_factory=dict)

    @staticmethod
    def _minutes(clock: str) -> int:
        h, m = (int(x) for x in clock.split(":"))
        return h * 60 + m

    def conflicts(self, day: str, start: int, end: int) -> list[str]:
        return [title for (d, s), (e, title) in self.slots.items() if d == day and s < end and start < e]

    def book(self, day: str, clock: str, minutes: int, title: str) -> str:
        start = self._minutes(clock)
        end = start + minutes
        if not (6 * 60 <= start and end <= 23 * 60):
            raise BookingError("that time is outside bookable hours")
        clash = self.conflicts(day, start, end)
        if clash:
            raise BookingError(f"{day} at {clock} clashes with {clash[0]}")
        self.slots[(day, start)] = (end, title)
        return f"Booked {title} on {day} at {clock} for {minutes} minutes."

    def cancel(self, day: str, clock: str) -> str:
        key = (day, self._minutes(clock))
        if key not in self.slots:
            raise BookingError(f"nothing is booked on {day} at {clock}")
        _, title = self.slots.pop(key)
        return f"Cancelled {title} on {day} at {clock}."

    def agenda(self, day: str) -> str:
        items = sorted((s, e, t) for (d, s), (e, t) in self.slots.items() if d == day)
        if not items:
            return f"Nothing is booked on {day}."
        return f"On {day}: " + "; ".join(f"{t} at {s // 60:02d}:{s % 60:02d}" for s, _, t in items) + "."
