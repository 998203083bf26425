"""Protocol tokens, tokenizer extension and the trainer's unit layout (DESIGN §3).

One unit of the training sequence (MiniCPM-o 4.5 style):

    <unit> [<image> frame embeds </image>] [10 audio embeds] [<backend> result </backend>]
           ( <|listen|> | <|speak|> spoken_text [speech tokens] [<|turn_eos|>] )
           [<delegate> request </delegate>] <|chunk_eos|> </unit>

Why it is built this way:

- Control tokens are inserted **by id**, and all text (spoken text, delegate requests, backend
  results) goes through an *ordinary* encoder: the target tokenizer's BPE with every added/special
  token removed. So a literal ``<unit>`` typed by a user or returned by a tool is just text and can
  never forge a control token; a final check refuses any ordinary id that is a protocol id.
- The target tokenizer's existing ids are reused for tokens it already has (MiniCPM-o 4.5: ``<unit>``
  151683, ``<|listen|>`` 151705, ``<|speak|>`` 151706, ``<|spoken_turn_eos|>`` 151717 = our
  ``<|turn_eos|>``, ``<|spoken_slot_eos|>`` 151718 = our ``<|chunk_eos|>``), so a pretrained 4.5
  checkpoint keeps its embeddings. An id is reused only when it is an added token, never an
  ordinary BPE id (the 4.5 bundle maps its image placeholder to 128244, an ordinary id; we add a
  fresh placeholder instead so text can never be mistaken for an image slot).
- ``<delegate> </delegate> <backend> </backend>``, the two embedding placeholders and the 6,561 S3
  speech tokens ``<|s_0|>``... are appended after the highest id the tokenizer knows.

Spoken text follows the MiniCPM-o SDK's token-to-unit rule: a turn's text is encoded whole and each
token belongs to the unit of its first character (`UnitEncoder.spoken_ids`), so our ids per unit are
the SDK's, in English and Mandarin alike; a unit carries at most one turn (composition never starts
a turn in the window where the previous one ended).

Loss rule (DESIGN §3): loss on the model's own outputs: the decision token, spoken text, speech
tokens, ``<|turn_eos|>``, the delegate request (with its ``<delegate>``/``</delegate>`` brackets:
opening and closing it is the model's decision). By default ``<|chunk_eos|>`` also gets loss: the
model emits it to end its output for the unit, and without it ``<|turn_eos|>`` and ``<delegate>``
would only ever see positive targets (a model that always predicts them would pay nothing). This is a
deliberate refinement of the DESIGN list; ``chunk_eos_loss=False`` gives the literal DESIGN rule.
Inputs (``<unit>``, image, audio, backend blocks) and ``</unit>`` never get loss.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol as TypingProtocol, Sequence

import numpy as np

from schemas.errors import UsageError
# Every protocol name and number is defined once, in schemas/protocol.py; this module adds the
# tokenizer logic. VOCAB_TOKENS (the protocol tokens plus the two embedding placeholders) is what
# the vocabulary extension assigns ids to, in that order.
from schemas.protocol import (AUDIO_EMBEDS_PER_SECOND, AUDIO_PH, BACKEND, BACKEND_END, CHUNK_EOS,  # noqa: F401
                              DELEGATE, DELEGATE_END, IMAGE, IMAGE_END, IMAGE_PH, LISTEN, LOSS_CHUNK_EOS,
                              LOSS_CLASSES, LOSS_DECISION, LOSS_DELEGATE, LOSS_SPEECH, LOSS_TEXT, LOSS_TURN_EOS,
                              PROTOCOL_TOKENS, SPEAK, SPEECH_CODEBOOK, SPEECH_TOKENS_PER_SECOND, TURN_EOS, UNIT,
                              UNIT_END, VOCAB_TOKENS, speech_token_name)
from schemas.thresholds import DEFAULT_UNIT_S
from schemas.vocab import Decision

# Names under which a target tokenizer may already hold a token (MiniCPM-o 4.5 display names).
ALIASES: dict[str, tuple[str, ...]] = {
    TURN_EOS: (TURN_EOS, "<|spoken_turn_eos|>"),
    CHUNK_EOS: (CHUNK_EOS, "<|spoken_slot_eos|>"),
}
SDK_SPECS = ("minicpm-o45", "sdk:o45_fc", "minicpm-o5-sdk")


class ProtocolError(UsageError, ValueError):
    """A trajectory or tokenizer that cannot be laid out as the protocol requires."""


# ----------------------------------------------------------------------------- tokenizers
class TextTokenizer(TypingProtocol):
    """What the layout needs from a target tokenizer."""

    spec: str
    def encode_ordinary(self, text: str) -> list[int]: ...
    def encode_ordinary_offsets(self, text: str) -> list[tuple[int, int]]: ...
    def decode_ordinary(self, ids: Sequence[int]) -> str: ...
    def existing_id(self, name: str) -> int | None: ...
    def next_free_id(self) -> int: ...
    def is_ordinary_id(self, tid: int) -> bool: ...
    def identity(self) -> dict[str, Any]: ...
    def base_tokenizer_json(self) -> dict[str, Any]: ...


def _ordinary_backend(tokenizer_json: dict[str, Any]):
    """A `tokenizers.Tokenizer` with the same BPE but no added tokens and no post-processor.

    This is what makes control tokens impossible to forge from text: with no added-token table,
    the string ``<unit>`` goes through the pre-tokenizer and BPE like any other text.
    """
    from tokenizers import Tokenizer

    data = dict(tokenizer_json)
    data["added_tokens"] = []
    data["post_processor"] = None
    return Tokenizer.from_str(json.dumps(data))


class HFJsonTokenizer:
    """A Hugging Face `tokenizer.json` (a file, or a folder holding one, or any AutoTokenizer folder)."""

    def __init__(self, path: str | Path):
        p = Path(path)
        if p.is_dir() and (p / "tokenizer.json").is_file():
            p = p / "tokenizer.json"
        if p.is_file():
            try:
                self._json = json.loads(p.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, ValueError) as err:
                raise ProtocolError(f"tokenizer {p} is not a tokenizer.json ({type(err).__name__}: "
                                    f"{str(err).splitlines()[0] if str(err) else ''})") from None
            if not isinstance(self._json, dict) or not isinstance(self._json.get("model"), dict):
                raise ProtocolError(f"tokenizer {p} is not a tokenizer.json (no 'model' object)")
        elif p.is_dir():
            from transformers import AutoTokenizer

            try:
                hf = AutoTokenizer.from_pretrained(str(p), local_files_only=True)
            except Exception as err:  # noqa: BLE001 - re-raised with the path named
                raise ProtocolError(f"cannot load a tokenizer from {p}: {err}") from err
            self._json = json.loads(hf.backend_tokenizer.to_str())
        else:
            raise ProtocolError(f"tokenizer not found: {p} (give a tokenizer.json, a folder with one, "
                                f"or one of {SDK_SPECS} for the bundled MiniCPM-o 4.5 tokenizer)")
        self.spec = str(path)
        try:
            self._added = {t["content"]: int(t["id"]) for t in self._json.get("added_tokens", [])}
            self._ordinary = _ordinary_backend(self._json)
        except Exception as err:  # noqa: BLE001 - a malformed file: name it, not a defect of ours
            raise ProtocolError(f"tokenizer {p} cannot be loaded ({type(err).__name__}: "
                                f"{(str(err).splitlines() or [''])[0]})") from None
        self._digest = hashlib.sha256(json.dumps(self._json, sort_keys=True).encode()).hexdigest()[:16]

    def encode_ordinary(self, text: str) -> list[int]:
        return self._ordinary.encode(text, add_special_tokens=False).ids

    def encode_ordinary_offsets(self, text: str) -> list[tuple[int, int]]:
        return _ids_and_starts(self._ordinary, text)

    def decode_ordinary(self, ids: Sequence[int]) -> str:
        return self._ordinary.decode(list(ids), skip_special_tokens=False)

    def existing_id(self, name: str) -> int | None:
        return self._added.get(name)

    def next_free_id(self) -> int:
        top = self._ordinary.get_vocab_size(with_added_tokens=False)
        return max([top] + [i + 1 for i in self._added.values()])

    def is_ordinary_id(self, tid: int) -> bool:
        """Could ordinary text produce `tid`? Tokenizers trained with `special_tokens=[...]` keep those
        tokens inside the model vocab under their own literal; they count as added tokens as long as
        encoding the literal as text does not give them back."""
        piece = self._ordinary.id_to_token(tid)
        if piece is None:
            return False
        if self._added.get(piece) == tid and tid not in self.encode_ordinary(piece):
            return False
        return True

    def identity(self) -> dict[str, Any]:
        return {"kind": "tokenizer.json", "spec": self.spec, "sha256_16": self._digest,
                "ordinary_vocab_size": self._ordinary.get_vocab_size(with_added_tokens=False)}

    def base_tokenizer_json(self) -> dict[str, Any]:
        return json.loads(json.dumps(self._json))


class SdkTokenizer:
    """The MiniCPM-o 4.5 tokenizer bundled offline in `minicpm-o5-sdk` (real 4.5 ids)."""

    def __init__(self, spec: str = "minicpm-o45"):
        import warnings

        from minicpm_o5_sdk.tokenizers.bundle import load_builtin_o45_fc_tokenizer
        from transformers.utils import logging as hf_logging

        self.spec = spec
        level = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()   # the bundle's config type triggers a harmless notice
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._sdk = load_builtin_o45_fc_tokenizer()
        finally:
            hf_logging.set_verbosity(level)
        backend = self._sdk.base_adapter.tokenizer.backend_tokenizer
        self._json = json.loads(backend.to_str())
        self._ordinary = _ordinary_backend(self._json)
        self._vocab = int(self._sdk.manifest.base_tokenizer_fingerprint.vocab_size)

    def encode_ordinary(self, text: str) -> list[int]:
        # Same BPE as the SDK's encode_ordinary; unlike it, never raises on literals such as
        # "<|endoftext|>" in the text: they are encoded as plain text.
        return self._ordinary.encode(text, add_special_tokens=False).ids

    def encode_ordinary_offsets(self, text: str) -> list[tuple[int, int]]:
        return _ids_and_starts(self._ordinary, text)

    def decode_ordinary(self, ids: Sequence[int]) -> str:
        return self._ordinary.decode(list(ids), skip_special_tokens=False)

    def existing_id(self, name: str) -> int | None:
        tid = self._sdk.control_id_by_display.get(name)
        return None if tid is None else int(tid)

    def next_free_id(self) -> int:
        return max([self._vocab] + [int(i) + 1 for i in self._sdk.control_display_by_id])

    def is_ordinary_id(self, tid: int) -> bool:
        # Ids below the BPE vocabulary size are ordinary pieces, whatever the manifest calls them
        # (the 4.5 image placeholder 128244 is one).
        return tid < self._vocab

    def identity(self) -> dict[str, Any]:
        from importlib.metadata import version

        fp = self._sdk.manifest.base_tokenizer_fingerprint
        return {"kind": "minicpm-o5-sdk", "spec": self.spec, "bundle_id": self._sdk.bundle_id,
                "bundle_version": self._sdk.bundle_version, "sdk_version": version("minicpm-o5-sdk"),
                "vocab_hash": fp.vocab_hash, "merges_hash": fp.merges_hash, "ordinary_vocab_size": self._vocab}

    def base_tokenizer_json(self) -> dict[str, Any]:
        """The 4.5 BPE plus every pretrained added token and SDK control token, by its real id."""
        data = json.loads(json.dumps(self._json))
        pretrain = self._sdk.load_pretrain_added_tokens()["added_tokens"]
        seen: dict[int, dict[str, Any]] = {}
        for e in pretrain:
            seen[int(e["id"])] = _added(int(e["id"]), e["content"], bool(e["special"]))
        for tid, name in self._sdk.control_display_by_id.items():
            seen.setdefault(int(tid), _added(int(tid), name, True))
        data["added_tokens"] = [seen[i] for i in sorted(seen)]
        return data


def _ids_and_starts(backend: Any, text: str) -> list[tuple[int, int]]:
    """(id, first character) of each token of `text`: the character a token starts at decides its
    unit (the SDK's rule, `_compute_spoken_token_start_times`: a token of zero width counts at its
    start, clamped to the text)."""
    enc = backend.encode(text, add_special_tokens=False)
    last = max(len(text) - 1, 0)
    return [(int(i), min(int(a), last)) for i, (a, _) in zip(enc.ids, enc.offsets)]


def _added(tid: int, content: str, special: bool = True) -> dict[str, Any]:
    return {"id": tid, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": special}


def load_text_tokenizer(spec: str | Path) -> TextTokenizer:
    """`minicpm-o45` (alias `sdk:o45_fc`) for the bundled 4.5 tokenizer, else a local path."""
    if str(spec) in SDK_SPECS:
        return SdkTokenizer(str(spec))
    return HFJsonTokenizer(spec)


# ----------------------------------------------------------------------------- the extended vocabulary
@dataclass(frozen=True)
class ProtocolVocab:
    """Ids of every protocol token and of the speech tokens in the extended vocabulary."""

    ids: dict[str, int]
    sources: dict[str, str]          # token -> "reused:<name in target>" | "added"
    speech_offset: int               # id of <|s_0|>
    vocab_size: int                  # extended vocabulary size (model embedding rows, before padding)
    base_next_id: int                # first id the extension was free to use
    tokenizer: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> int:
        return self.ids[name]

    @property
    def speech_range(self) -> range:
        return range(self.speech_offset, self.speech_offset + SPEECH_CODEBOOK)

    def control_ids(self) -> set[int]:
        return set(self.ids.values())

    def to_json(self) -> dict[str, Any]:
        return {"format": "duplexsynth-protocol-v1", "ids": self.ids, "sources": self.sources,
                "speech_offset": self.speech_offset, "speech_codebook": SPEECH_CODEBOOK,
                "vocab_size": self.vocab_size, "base_next_id": self.base_next_id, "tokenizer": self.tokenizer}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "ProtocolVocab":
        if d.get("format") != "duplexsynth-protocol-v1":
            raise ProtocolError(f"not a duplexsynth protocol file (format={d.get('format')!r})")
        return cls(ids={k: int(v) for k, v in d["ids"].items()}, sources=dict(d["sources"]),
                   speech_offset=int(d["speech_offset"]), vocab_size=int(d["vocab_size"]),
                   base_next_id=int(d["base_next_id"]), tokenizer=dict(d.get("tokenizer", {})))

    @classmethod
    def load(cls, path: str | Path) -> "ProtocolVocab":
        return cls.from_json(json.loads(Path(path).read_text()))


def extend_vocab(tok: TextTokenizer) -> ProtocolVocab:
    """Assign ids: reuse the target's added tokens where it has them, append the rest, then speech."""
    ids: dict[str, int] = {}
    sources: dict[str, str] = {}
    base_next = tok.next_free_id()
    nxt = base_next
    for name in VOCAB_TOKENS:
        reuse = None
        for alias in ALIASES.get(name, (name,)):
            tid = tok.existing_id(alias)
            # Never reuse an id that ordinary text could produce -- only true added tokens.
            if tid is not None and not tok.is_ordinary_id(tid):
                reuse = (tid, alias)
                break
        if reuse is not None and reuse[0] not in ids.values():
            ids[name], sources[name] = reuse[0], f"reused:{reuse[1]}"
        else:
            ids[name], sources[name] = nxt, "added"
            nxt += 1
    # A tokenizer written by a previous export (TRAIN_DIR/tokenizer) already holds <|s_0|>..<|s_6560|>
    # as one contiguous added block: reuse it rather than appending a second speech vocabulary.
    s0 = tok.existing_id(speech_token_name(0))
    if s0 is not None and all(tok.existing_id(speech_token_name(c)) == s0 + c
                              for c in range(SPEECH_CODEBOOK)) and not tok.is_ordinary_id(s0):
        sources["speech"] = "reused"
        return ProtocolVocab(ids=ids, sources=sources, speech_offset=s0,
                             vocab_size=max(nxt, s0 + SPEECH_CODEBOOK), base_next_id=base_next,
                             tokenizer=tok.identity())
    sources["speech"] = "added"
    return ProtocolVocab(ids=ids, sources=sources, speech_offset=nxt, vocab_size=nxt + SPEECH_CODEBOOK,
                         base_next_id=base_next, tokenizer=tok.identity())


def write_extended_tokenizer(tok: TextTokenizer, vocab: ProtocolVocab, out_dir: str | Path) -> Path:
    """Write protocol.json and a tokenizer.json holding every protocol and speech token at its id.

    The tokenizer.json is for decoding and inspection (and as a later `--tokenizer`); training
    sequences are never built by encoding protocol strings.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = tok.base_tokenizer_json()
    by_id = {int(t["id"]): t for t in data.get("added_tokens", [])}
    for name, tid in vocab.ids.items():
        # Added tokens get their protocol name; a reused id keeps its content when that is one of the
        # names we look up (so re-exporting with this file reuses it), else it is renamed to ours
        # (the 4.5 bundle stores 151698 as "<|audio|>", which is our <|audio_placeholder|>).
        if tid not in by_id or by_id[tid]["content"] not in ALIASES.get(name, (name,)):
            by_id[tid] = _added(tid, name)
    for code in range(SPEECH_CODEBOOK):
        by_id[vocab.speech_offset + code] = _added(vocab.speech_offset + code, speech_token_name(code))
    data["added_tokens"] = [by_id[i] for i in sorted(by_id)]
    _atomic_write(out / "tokenizer.json", json.dumps(data, ensure_ascii=False))
    _atomic_write(out / "protocol.json", json.dumps(vocab.to_json(), indent=2))
    return out


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


# ----------------------------------------------------------------------------- the unit layout
@dataclass
class Encoded:
    """One trajectory as trainer tokens. `loss_mask[i]` = 1 when token i is a training target."""

    input_ids: list[int]
    loss_mask: list[int]
    unit_offsets: list[int]          # index of each unit's <unit> token


def render_input_event(kind: str, task_id: str | None, text: str) -> str:
    """Backend results and other external events as plain text inside <backend>...</backend>."""
    tag = kind if not task_id else f"{kind} {task_id}"
    return f"[{tag}] {text}"


class UnitEncoder:
    """Turns `units` (DESIGN §3 dicts) into the interleaved token sequence and loss mask."""

    def __init__(self, tok: TextTokenizer, vocab: ProtocolVocab, *, unit_s: float = DEFAULT_UNIT_S,
                 image_tokens_per_frame: int = 64, chunk_eos_loss: bool = True):
        self.tok, self.v = tok, vocab
        self.unit_s = unit_s
        self.audio_per_unit = _whole(AUDIO_EMBEDS_PER_SECOND * unit_s, f"{AUDIO_EMBEDS_PER_SECOND} audio embeddings per second")
        self.speech_per_unit = _whole(SPEECH_TOKENS_PER_SECOND * unit_s, f"{SPEECH_TOKENS_PER_SECOND} speech tokens per second")
        self.image_tokens = image_tokens_per_frame
        self.chunk_eos_loss = chunk_eos_loss
        self._control = vocab.control_ids() | set(vocab.speech_range)

    def text(self, s: str) -> list[int]:
        return self._checked(s, self.tok.encode_ordinary(s))

    def _checked(self, s: str, ids: list[int]) -> list[int]:
        bad = [i for i in ids if i in self._control]
        if bad:
            raise ProtocolError(f"ordinary encoding of {s[:60]!r} produced protocol id(s) {bad}; the "
                                "tokenizer's BPE vocabulary contains a protocol token as plain text")
        return ids

    def spoken_ids(self, units: Sequence[dict[str, Any]], word_separator: str = " ") -> list[list[int]]:
        """Per unit, the ids of its spoken text, as the MiniCPM-o SDK assigns them.

        A speech run (one turn's units, up to its `<|turn_eos|>` or the next `listen`) is encoded
        whole, its units' texts joined by the language's word separator, and each token goes to the
        unit holding its first character; a separator belongs to the unit whose word it precedes.
        So a BPE token spanning two words of two units (zh "七个|小时") sits in the first one, as
        the SDK's `arrange()` puts it, and a unit's text keeps its leading space (" the", not "the").
        """
        out: list[list[int]] = [[] for _ in units]
        run: list[tuple[int, str]] = []

        def flush() -> None:
            if not run:
                return
            text, starts = "", []
            for k, t in run:
                piece = (word_separator if text else "") + t
                starts.append((len(text), k))
                text += piece
            pieces = self.tok.encode_ordinary_offsets(text)
            self._checked(text, [tid for tid, _ in pieces])
            for tid, at in pieces:
                out[next(k for a, k in reversed(starts) if a <= at)].append(tid)
            run.clear()

        for k, u in enumerate(units):
            if u.get("decision") != Decision.SPEAK:
                flush()
                continue
            if u.get("spoken_text"):
                run.append((k, u["spoken_text"]))
            if u.get("turn_eos"):
                flush()
        flush()
        return out

    def encode(self, units: Sequence[dict[str, Any]], *, has_frames: bool = False, where: str = "",
               word_separator: str = " ") -> Encoded:
        v = self.v
        ids: list[int] = []
        mask: list[int] = []
        offsets: list[int] = []

        def put(toks: Sequence[int], loss: int) -> None:
            ids.extend(toks)
            mask.extend([loss] * len(toks))

        spoken = self.spoken_ids(units, word_separator)
        for k, u in enumerate(units):
            at = f"{where} unit {k}"
            if int(u.get("index", k)) != k:
                raise ProtocolError(f"{at}: units must be numbered 0..n-1, got index {u.get('index')}")
            offsets.append(len(ids))
            put([v[UNIT]], 0)
            if has_frames:
                put([v[IMAGE]] + [v[IMAGE_PH]] * self.image_tokens + [v[IMAGE_END]], 0)
            put([v[AUDIO_PH]] * self.audio_per_unit, 0)
            for e in u.get("input_events") or []:
                put([v[BACKEND]] + self.text(render_input_event(e.get("kind", ""), e.get("task_id"),
                                                                e.get("text", ""))) + [v[BACKEND_END]], 0)
            decision = u.get("decision")
            tokens = list(u.get("speech_tokens") or [])
            if decision == Decision.LISTEN:
                if tokens or u.get("spoken_text") or u.get("turn_eos"):
                    raise ProtocolError(f"{at}: a listen unit carries speech tokens, text or turn_eos")
                put([v[LISTEN]], 1)
            elif decision == Decision.SPEAK:
                put([v[SPEAK]], 1)
                put(spoken[k], 1)
                if tokens:
                    if len(tokens) != self.speech_per_unit:
                        raise ProtocolError(f"{at}: {len(tokens)} speech tokens, expected {self.speech_per_unit}")
                    if min(tokens) < 0 or max(tokens) >= SPEECH_CODEBOOK:
                        raise ProtocolError(f"{at}: speech token outside [0, {SPEECH_CODEBOOK})")
                    put([v.speech_offset + int(c) for c in tokens], 1)
                if u.get("turn_eos"):
                    put([v[TURN_EOS]], 1)
            else:
                raise ProtocolError(f"{at}: decision must be one of {[d.value for d in Decision]}, got {decision!r}")
            if u.get("delegate"):
                put([v[DELEGATE]] + self.text(u["delegate"]) + [v[DELEGATE_END]], 1)
            put([v[CHUNK_EOS]], 1 if self.chunk_eos_loss else 0)
            put([v[UNIT_END]], 0)
        return Encoded(ids, mask, offsets)


NOT_A_TARGET = -1   # loss class of a token that carries no loss


def loss_classes(ids: np.ndarray, loss_mask: np.ndarray, vocab: ProtocolVocab) -> np.ndarray:
    """Per token, the index in LOSS_CLASSES of its loss class, NOT_A_TARGET where loss_mask is 0.

    By id, except the delegate request: its text is ordinary ids, so everything from <delegate> to
    </delegate> (both included) is the delegate class. A sample starts at a unit boundary, so a
    request is never cut in half.
    """
    ids = np.asarray(ids, dtype=np.int64)
    k = {name: i for i, name in enumerate(LOSS_CLASSES)}
    out = np.full(ids.shape, k[LOSS_TEXT], dtype=np.int8)
    out[(ids == vocab[LISTEN]) | (ids == vocab[SPEAK])] = k[LOSS_DECISION]
    out[(ids >= vocab.speech_offset) & (ids < vocab.speech_offset + SPEECH_CODEBOOK)] = k[LOSS_SPEECH]
    out[ids == vocab[TURN_EOS]] = k[LOSS_TURN_EOS]
    out[ids == vocab[CHUNK_EOS]] = k[LOSS_CHUNK_EOS]
    opened = np.cumsum(ids == vocab[DELEGATE])
    closed_before = np.cumsum(ids == vocab[DELEGATE_END]) - (ids == vocab[DELEGATE_END])
    out[opened > closed_before] = k[LOSS_DELEGATE]
    out[~np.asarray(loss_mask).astype(bool)] = NOT_A_TARGET
    return out


def _whole(x: float, what: str) -> int:
    if abs(x - round(x)) > 1e-6:
        raise ProtocolError(f"unit_s gives {x} per unit, must be whole ({what})")
    return int(round(x))


def describe(ids: Sequence[int], vocab: ProtocolVocab, tok: TextTokenizer | None = None) -> list[str]:
    """Human-readable pieces: protocol names, `<|s_k|>`, and decoded runs of ordinary text."""
    names = {i: n for n, i in vocab.ids.items()}
    out: list[str] = []
    run: list[int] = []

    def flush() -> None:
        if run:
            out.append(tok.decode_ordinary(run) if tok is not None else f"<text:{len(run)}>")
            run.clear()

    for i in ids:
        if i in names:
            flush()
            out.append(names[i])
        elif i in vocab.speech_range:
            flush()
            out.append(speech_token_name(i - vocab.speech_offset))
        else:
            run.append(int(i))
    flush()
    return out
