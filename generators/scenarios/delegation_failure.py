"""Delegation family 'failure' (see delegation.py)."""
from generators.scenarios.delegation import plan_failure as plan

__all__ = ["plan"]
