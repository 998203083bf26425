"""The on-disk cache of LLM responses: what makes an LLM-written dataset reproducible and resumable.

An entry is keyed by everything that decides a response (the endpoint's model id, the full prompt,
the sampling parameters, the trajectory seed), so a rerun or a resume reads every response back and
makes no call. Entries are written to a temp name and renamed, so a killed worker leaves none half
written. Nothing secret is in a key or an entry (the API key is only ever in a request header).
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

from schemas.bounds import MAX_LLM_REPLY_BYTES, BoundsError, read_bounded

CACHE_DIR = "llm_cache"   # under the output root


def request_key(model: str, messages: list[dict[str, str]], sampling: dict[str, Any], seed: int) -> str:
    """sha256 of the canonical JSON of what decides a response: also the row's `prompt_sha256`."""
    blob = json.dumps({"model": model, "messages": messages, "sampling": sampling, "seed": seed},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


class ResponseCache:
    """Responses by request key, one JSON file each under `root` (two-level fan-out)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.hits = 0
        self._count = threading.Lock()   # a shard task writes several scripts at once (jobs/shards.py)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        """The cached response, or None: no entry, or one that is not a whole entry of this key (cut
        short by a full disk or an editor, over MAX_LLM_REPLY_BYTES, not a regular file). Such an
        entry is named on stderr and the request is asked again (its new reply replaces it)."""
        path = self._path(key)
        try:
            entry = json.loads(read_bounded(path, "llm cache entry", MAX_LLM_REPLY_BYTES + 4096).decode("utf-8"))
            response = entry["response"]
            if not isinstance(response, str) or entry.get("prompt_sha256", key) != key:
                raise ValueError("no response text for this request")
        except BoundsError as err:
            if not os.path.lexists(path):
                return None
            return self._bad(path, str(err))
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            return self._bad(path, f"not a whole cache entry ({type(err).__name__}: {err})")
        with self._count:
            self.hits += 1
        return response

    @staticmethod
    def _bad(path: Path, why: str) -> None:
        print(f"note: {path}: {why}; asking the endpoint again", file=sys.stderr, flush=True)

    def put(self, key: str, model: str, response: str) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps({"model": model, "prompt_sha256": key, "response": response}, ensure_ascii=False),
                       encoding="utf-8")
        os.replace(tmp, path)
