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
import threading
from pathlib import Path
from typing import Any

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
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        with self._count:
            self.hits += 1
        return str(entry["response"])

    def put(self, key: str, model: str, response: str) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps({"model": model, "prompt_sha256": key, "response": response}, ensure_ascii=False),
                       encoding="utf-8")
        os.replace(tmp, path)
