"""Where a row's script came from (DESIGN §6): the `meta` key and record every script source writes.

Rows of the procedural planners carry no such key (their provenance is the generator version and
config hash already in meta), so their bytes are as before script sources existed.
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict

SOURCE_META_KEY = "script_source"   # the row's meta key that holds a ScriptProvenance


class LLMCall(BaseModel):
    """One completion the script was written from, in order (rejected attempts included, for audit)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    prompt_sha256: str   # generators/llm/cache.request_key: model id, full prompt, sampling, seed
    response: str        # the raw assistant message, as the endpoint sent it


class ScriptProvenance(BaseModel):
    """An LLM-written script: the endpoint's model id, the prompt's draws and every call made."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: str                      # ScriptSourceConfig.kind
    model: str
    prompt: dict[str, str]         # the trajectory's draws that filled the prompt (persona, register, ...)
    calls: tuple[LLMCall, ...]
