"""Delegation family 'cancel' (see delegation.py)."""
from generators.scenarios.delegation import plan_cancel as plan

__all__ = ["plan"]
