"""Interruption, stop-and-discard family (see interruption.py)."""
from generators.scenarios.interruption import plan_discard as plan

__all__ = ["plan"]
