"""Reading a local dialogue corpus into two-party conversations, each named by where it is.

Formats: JSONL (one JSON object a line; blank lines are not records), Parquet, and a folder saved by
`datasets` (`Dataset.save_to_disk`). Layouts: OpenAI `messages` ([{"role", "content"}]) and ShareGPT
`conversations` ([{"from", "value"}]). System messages are dropped (nothing is spoken of them); a
tool call or any other party refuses the whole conversation, since one side of it would be missing.

A record that is not a clean user/assistant exchange raises CorpusRecordError naming its file and
line (or row) and why: the run makes it a failed record and goes on. A corpus that cannot be opened
at all raises ConfigError naming `script_source.path`.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from schemas.bounds import (
    MAX_CORPUS_MESSAGE_CHARS,
    MAX_CORPUS_RECORD_BYTES,
    regular_file,
)
from schemas.config import ConfigError

# layout -> (its messages field, a message's speaker key, a message's text key)
LAYOUTS: dict[str, tuple[str, str, str]] = {
    "messages": ("messages", "role", "content"),           # OpenAI chat format
    "conversations": ("conversations", "from", "value"),   # ShareGPT
}
USER_ROLES = frozenset({"user", "human"})
ASSISTANT_ROLES = frozenset({"assistant", "gpt", "chatgpt", "bard", "bing", "model"})
DROPPED_ROLES = frozenset({"system", "developer"})
TOOL_CALL_KEYS = ("tool_calls", "function_call")   # an OpenAI assistant message that calls a tool
JSONL_SUFFIXES = (".jsonl", ".ndjson")
PARQUET_SUFFIXES = (".parquet",)


class CorpusRecordError(ValueError):
    """One corpus record that cannot be spoken; the message starts with where it is."""


@dataclass(frozen=True)
class Exchange:
    """One user request and the assistant's answer, as the corpus wrote them; `*_at`: message indices."""

    user: str
    assistant: str
    user_at: int
    assistant_at: int


@dataclass(frozen=True)
class Conversation:
    """A record read as two-party exchanges, with where it came from (for provenance and errors)."""

    index: int
    where: str            # "corpus.jsonl:12" or "corpus.parquet row 3": what an error names
    line: int | None      # JSONL line (1-based)
    layout: str
    sha256: str           # of the canonical JSON of its [user, assistant] texts: the same in any format
    exchanges: tuple[Exchange, ...]


def exchanges_of(record: Any, where: str) -> tuple[str, tuple[Exchange, ...]]:
    """(layout, exchanges) of one record; raises CorpusRecordError saying what is wrong with it."""
    if not isinstance(record, Mapping):
        raise CorpusRecordError(f"{where}: a record is a JSON object, got {type(record).__name__}")
    layout = next((name for name, (field, _, _) in LAYOUTS.items() if record.get(field) is not None), None)
    if layout is None:
        raise CorpusRecordError(f"{where}: neither of the fields {', '.join(f for f, _, _ in LAYOUTS.values())}")
    field, who_key, text_key = LAYOUTS[layout]
    messages = record[field]
    if not isinstance(messages, list):
        raise CorpusRecordError(f"{where}: {field} is a list of messages, got {type(messages).__name__}")
    turns: list[tuple[bool, str, int]] = []   # (is the user, text, message index)
    for k, msg in enumerate(messages):
        at = f"{where}: {field}[{k}]"
        if not isinstance(msg, Mapping):
            raise CorpusRecordError(f"{at}: a message is an object, got {type(msg).__name__}")
        who = msg.get(who_key)
        if not isinstance(who, str):
            raise CorpusRecordError(f"{at}: {who_key} is not a text, got {who!r:.60}")
        if who in DROPPED_ROLES:
            continue
        if who not in USER_ROLES and who not in ASSISTANT_ROLES:
            raise CorpusRecordError(f"{at}: {who_key} {who!r} is not a user or the assistant "
                                    "(only two-party user/assistant conversations can be spoken)")
        if any(msg.get(key) for key in TOOL_CALL_KEYS):
            raise CorpusRecordError(f"{at}: the assistant calls a tool (only two-party conversations can be spoken)")
        text = msg.get(text_key)
        if not isinstance(text, str) or not text.strip():
            raise CorpusRecordError(f"{at}: {text_key} is not a non-empty text")
        if len(text) > MAX_CORPUS_MESSAGE_CHARS:
            raise CorpusRecordError(f"{at}: {text_key} has {len(text):,} characters, over the "
                                    f"{MAX_CORPUS_MESSAGE_CHARS:,} one spoken turn may have (MAX_CORPUS_MESSAGE_CHARS)")
        is_user = who in USER_ROLES
        if not turns and not is_user:
            raise CorpusRecordError(f"{at}: the conversation starts with the assistant, not a user request")
        if turns and turns[-1][0] == is_user:
            raise CorpusRecordError(f"{at}: two {'user' if is_user else 'assistant'} messages in a row")
        turns.append((is_user, text, k))
    pairs = tuple(Exchange(u[1], a[1], u[2], a[2]) for u, a in zip(turns[0::2], turns[1::2]))
    if not pairs:
        raise CorpusRecordError(f"{where}: no user request with an assistant answer")
    return layout, pairs   # a last user message with no answer is left out


def _content_hash(exchanges: tuple[Exchange, ...]) -> str:
    blob = json.dumps([[e.user, e.assistant] for e in exchanges], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


class Corpus:
    """Random access to the records of one corpus file or folder, in their stored order."""

    def __init__(self, path: Path):
        self.path = path
        self._jsonl: list[tuple[int, int]] | None = None   # (byte offset, line number) of each record
        self._parquet: Any = None
        self._groups: list[int] = []          # Parquet: the first row of each row group
        self._group: tuple[int, list[dict[str, Any]]] | None = None   # the row group last read
        self._dataset: Any = None
        if path.is_dir():
            self._dataset = _load_dataset(path)
            self.size = len(self._dataset)
        elif path.suffix in JSONL_SUFFIXES:
            self._jsonl = _line_offsets(path)
            self.size = len(self._jsonl)
        elif path.suffix in PARQUET_SUFFIXES:
            self._parquet, self._groups, self.size = _open_parquet(path)
        else:
            raise ConfigError(f"script_source.path: {path} is not a {'/'.join(JSONL_SUFFIXES + PARQUET_SUFFIXES)} "
                              "file or a folder saved by datasets (save_to_disk)")
        if self.size == 0:
            raise ConfigError(f"script_source.path: {path} holds no records")

    def __len__(self) -> int:
        return self.size

    def conversation(self, index: int) -> Conversation:
        """Record `index` as a Conversation; raises CorpusRecordError naming where it is."""
        record, where, line = self._record(index)
        layout, exchanges = exchanges_of(record, where)
        return Conversation(index, where, line, layout, _content_hash(exchanges), exchanges)

    def _record(self, index: int) -> tuple[Any, str, int | None]:
        if self._jsonl is not None:
            offset, line = self._jsonl[index]
            where = f"{self.path}:{line}"
            with self.path.open("rb") as f:
                f.seek(offset)
                raw = f.readline(MAX_CORPUS_RECORD_BYTES + 1)
            if len(raw) > MAX_CORPUS_RECORD_BYTES:
                raise CorpusRecordError(f"{where}: the record is over {MAX_CORPUS_RECORD_BYTES:,} bytes "
                                        "(MAX_CORPUS_RECORD_BYTES); not read")
            try:
                return json.loads(raw.decode("utf-8")), where, line
            except UnicodeDecodeError:
                raise CorpusRecordError(f"{where}: the line is not UTF-8") from None
            except json.JSONDecodeError as err:
                raise CorpusRecordError(f"{where}: not valid JSON ({err.msg} at column {err.colno})") from None
        where = f"{self.path} row {index}"
        if self._dataset is not None:
            return self._dataset[index], where, None
        group = max(g for g, first in enumerate(self._groups) if first <= index)
        if self._group is None or self._group[0] != group:
            self._group = (group, self._parquet.read_row_group(group).to_pylist())
        return self._group[1][index - self._groups[group]], where, None


def _line_offsets(path: Path) -> list[tuple[int, int]]:
    """(byte offset, line number) of each non-blank line, read in pieces of at most
    MAX_CORPUS_RECORD_BYTES, so one endless line costs no more memory than that (its record is refused)."""
    out: list[tuple[int, int]] = []
    offset, line = 0, 0
    with path.open("rb") as f:
        while piece := f.readline(MAX_CORPUS_RECORD_BYTES + 1):
            line += 1
            start, blank = offset, not piece.strip()
            offset += len(piece)
            while not piece.endswith(b"\n") and len(piece) > MAX_CORPUS_RECORD_BYTES:   # the rest of a long line
                piece = f.readline(MAX_CORPUS_RECORD_BYTES + 1)
                blank = blank and not piece.strip()
                offset += len(piece)
            if not blank:
                out.append((start, line))
    return out


def _open_parquet(path: Path) -> tuple[Any, list[int], int]:
    import pyarrow.parquet as pq
    try:
        pf = pq.ParquetFile(path)
    except Exception as err:  # noqa: BLE001 - pyarrow raises several kinds for a file that is not Parquet
        raise ConfigError(f"script_source.path: {path} is not a readable Parquet file ({err})") from None
    firsts, total = [], 0
    for g in range(pf.metadata.num_row_groups):
        firsts.append(total)
        total += pf.metadata.row_group(g).num_rows
    return pf, firsts, total


def _load_dataset(path: Path) -> Any:
    try:
        import datasets
    except ModuleNotFoundError:
        raise ConfigError(f"script_source.path: {path} is a folder, and reading a saved datasets folder "
                          "needs the datasets package (pip install datasets)") from None
    try:
        ds = datasets.load_from_disk(str(path))
    except FileNotFoundError as err:
        raise ConfigError(f"script_source.path: {path} is not a folder saved by datasets ({err})") from None
    if isinstance(ds, datasets.DatasetDict):
        raise ConfigError(f"script_source.path: {path} holds the splits {', '.join(ds)}; "
                          f"point path at one of them ({path}/{next(iter(ds))})")
    return ds


@lru_cache(maxsize=4)
def _open_cached(path: str, size: int, mtime_ns: int) -> Corpus:
    return Corpus(Path(path))


FINGERPRINT_CHUNK = 1 << 20


def _files_of(path: Path) -> list[tuple[str, Path]]:
    """(name relative to `path`, file) of a corpus: the file itself, or every file under a folder, sorted."""
    if not path.is_dir():
        return [("", path)]
    return sorted((f.relative_to(path).as_posix(), f) for f in path.rglob("*") if f.is_file())


@lru_cache(maxsize=8)
def _fingerprint_cached(stamp: tuple[tuple[str, str, int, int], ...]) -> str:
    h = hashlib.sha256()
    folder = not (len(stamp) == 1 and stamp[0][0] == "")   # a file: the sha256 of its bytes (what sha256sum says)
    for name, file, _, _ in stamp:
        if folder:
            h.update(json.dumps(name).encode() + b"\0")   # a folder's file names are part of its content
        with open(file, "rb") as f:
            while chunk := f.read(FINGERPRINT_CHUNK):
                h.update(chunk)
        if folder:
            h.update(b"\0")
    return h.hexdigest()


def corpus_fingerprint(path: str | Path) -> str:
    """sha256 of a corpus's content: a file's bytes (as sha256sum prints it), or a saved datasets folder's
    files (names and bytes, in sorted order), so a copy elsewhere fingerprints the same and any edit does not. Computed once per
    process per (names, sizes, mtimes); raises ConfigError naming `script_source.path` if unreadable."""
    p = Path(path)
    try:
        if not p.is_dir():
            regular_file(p, "script_source.path")
        stamp = tuple((name, str(f), (st := f.stat()).st_size, st.st_mtime_ns) for name, f in _files_of(p))
        return _fingerprint_cached(stamp)
    except OSError as err:
        raise ConfigError(f"script_source.path: cannot read {p} ({err.strerror or err})") from None


def open_corpus(path: str | Path) -> Corpus:
    """The corpus at `path`, indexed once per process (keyed by its size and mtime, so an edit re-reads)."""
    p = Path(path)
    try:
        if not p.is_dir():
            regular_file(p, "script_source.path")
        st = p.stat()
    except OSError as err:
        raise ConfigError(f"script_source.path: cannot read {p} ({err.strerror})") from None
    return _open_cached(str(p), st.st_size, st.st_mtime_ns)
