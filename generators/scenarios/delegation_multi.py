"""Delegation family 'multi' (see delegation.py)."""
from generators.scenarios.delegation import plan_multi as plan

__all__ = ["plan"]
