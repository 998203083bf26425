"""The simulated background harness: real, deterministic capabilities behind `<delegate>` requests.

`execute` runs a call against per-trajectory state (the calendar); `run_task` adds the drawn
latency and failure mode from the tool's config. Results are plain text (format.plain_text).
"""
from generators.harness.registry import TOOLS, Execution, HarnessState, ToolCall, execute, run_task

__all__ = ["TOOLS", "Execution", "HarnessState", "ToolCall", "execute", "run_task"]
