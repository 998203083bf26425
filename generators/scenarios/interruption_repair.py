"""Interruption, repair family (see interruption.py)."""
from generators.scenarios.interruption import plan_repair as plan

__all__ = ["plan"]
