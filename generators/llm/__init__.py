"""The LLM script source (issue #14, DESIGN §6): scripts written by an OpenAI-compatible endpoint."""
from generators.llm.client import CallGate, ChatClient, LLMCallError, LLMFigures
from generators.llm.writer import (
    FAMILIES,
    LLMWriteError,
    LLMWriter,
    check_source,
    writer_for,
)

__all__ = ["FAMILIES", "CallGate", "ChatClient", "LLMCallError", "LLMFigures", "LLMWriteError", "LLMWriter", "check_source", "writer_for"]
