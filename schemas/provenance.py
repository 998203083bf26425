"""Where a row's script came from (DESIGN §6): the `meta` key and record every script source writes.

Rows of the procedural planners carry no such key (their provenance is the generator version and
config hash already in meta), so their bytes are as before script sources existed; in a run that
mixes sources (`script_sources`) they carry a ProceduralProvenance, so every row names its source.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from schemas.script import Script

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


class CorpusProvenance(BaseModel):
    """A script spoken from a dialogue corpus: which record of which file, and a hash of its content.

    `sha256` is of the canonical JSON of the record's [user, assistant] texts as the corpus wrote them,
    so one conversation hashes the same in a JSONL, a Parquet or a datasets copy of the corpus, and a
    changed record is told from the old.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: str                # ScriptSourceConfig.kind
    path: str                # the corpus as the config names it
    index: int               # the record's position among the corpus's records (0-based)
    line: int | None = None  # a JSONL record's line (1-based); None for Parquet / datasets rows
    layout: str              # the record's layout: its messages field (generators/corpus/read.py)
    sha256: str
    exchanges: int           # the user/assistant exchanges the script speaks
    truncated: bool          # it says less than the record holds (max_exchanges, max_sentences, a question
                             # ending an answer early, or the exchanges after a cut)
    llm: ScriptProvenance | None = None   # what the source's `llm` wrote over the record (a repair), if any

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if out.get("llm") is None:   # no LLM in it: the row's meta reads as before the field existed
            out.pop("llm", None)
        return out


class ProceduralProvenance(BaseModel):
    """A script of the procedural planners in a run that mixes script sources (`script_sources`), so
    every row of such a run says where its words came from. A run of one source leaves it out."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: str                # ScriptSourceConfig.kind: procedural


class ScriptRecord(BaseModel):
    """One line of `duplexsynth write-scripts` output: a planned script, its trajectory id and where it
    came from (a ScriptProvenance / CorpusProvenance dump; None for the procedural planners)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    index: int
    script: Script
    source: dict[str, Any] | None = None
