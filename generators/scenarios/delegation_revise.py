"""Delegation family 'revise' (see delegation.py)."""
from generators.scenarios.delegation import plan_revise as plan

__all__ = ["plan"]
