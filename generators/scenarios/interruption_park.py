"""Interruption, park-and-follow family (see interruption.py)."""
from generators.scenarios.interruption import plan_park as plan

__all__ = ["plan"]
