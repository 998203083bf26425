"""Word onsets from a CTC forced aligner (a local wav2vec2 / MMS model through transformers).

For engines that report no word or phoneme events (CosyVoice): the spoken text is force-aligned to
the audio with the model's character vocabulary, and each word starts at the first frame of its
first aligned character. The model folder is local (never downloaded) and is loaded lazily, once
per process; the backend records ``word_timing: aligner (...)`` in its identity.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CtcAligner", "ctc_forced_path"]

ALIGN_RATE = 16000


def ctc_forced_path(logp: np.ndarray, targets: list[int], blank: int) -> list[int]:
    """The first frame of each target in the most likely CTC path (Viterbi over the blank-
    interleaved targets). Raises ValueError when the audio has too few frames for the text."""
    t_n, n = logp.shape[0], len(targets)
    states = [blank]
    for tok in targets:
        states += [tok, blank]
    s_n = len(states)
    st = np.asarray(states)
    # a state may skip the blank before it when its label differs from the one two states back
    skip = np.zeros(s_n, dtype=bool)
    skip[3::2] = st[3::2] != st[1:-2:2]
    neg = -np.inf
    score = np.full(s_n, neg)
    score[0] = logp[0, st[0]]
    if s_n > 1:
        score[1] = logp[0, st[1]]
    back = np.zeros((t_n, s_n), dtype=np.int8)   # 0: stay, 1: from s-1, 2: from s-2
    for t in range(1, t_n):
        stay = score
        step = np.concatenate([[neg], score[:-1]])
        jump = np.where(skip, np.concatenate([[neg, neg], score[:-2]]), neg)
        cand = np.stack([stay, step, jump])
        back[t] = np.argmax(cand, axis=0)
        score = cand.max(axis=0) + logp[t, st]
    end = s_n - 1 if s_n == 1 or score[s_n - 1] >= score[s_n - 2] else s_n - 2
    if not np.isfinite(score[end]):
        raise ValueError(f"audio of {t_n} frames is too short to align {n} characters")
    first = [0] * n
    s = end
    for t in range(t_n - 1, -1, -1):
        if s % 2 == 1:
            first[s // 2] = t
        s -= int(back[t, s]) if t > 0 else 0
    return first


class CtcAligner:
    """A character CTC model from ``model_dir`` (Wav2Vec2ForCTC + its processor)."""

    def __init__(self, model_dir: str | Path) -> None:
        self.model_dir = Path(model_dir)
        if not (self.model_dir / "config.json").is_file():
            raise ValueError(f"aligner model folder {str(self.model_dir)!r} has no config.json")
        self._loaded: tuple[Any, Any] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"model_dir": self.model_dir, "_loaded": None}   # workers load their own copy

    def _load(self) -> tuple[Any, Any]:
        if self._loaded is None:
            from transformers import Wav2Vec2ForCTC, Wav2Vec2Processor

            proc = Wav2Vec2Processor.from_pretrained(str(self.model_dir), local_files_only=True)
            model = Wav2Vec2ForCTC.from_pretrained(str(self.model_dir), local_files_only=True).eval()
            self._loaded = (proc, model)
        return self._loaded

    def _targets(self, vocab: dict[str, int], text: str, delimiter: str | None) -> tuple[list[int], list[int]]:
        """Token ids of the characters the vocabulary has, with their offsets into ``text``."""
        ids, offs = [], []
        for i, ch in enumerate(text):
            if ch.isspace():
                if delimiter and ids and ids[-1] != vocab[delimiter]:
                    ids.append(vocab[delimiter])
                    offs.append(-1)
                continue
            for cand in (ch, ch.lower(), ch.upper()):
                if cand in vocab:
                    ids.append(vocab[cand])
                    offs.append(i)
                    break
        return ids, offs

    def char_onsets(self, audio: np.ndarray, sr: int, text: str) -> list[tuple[int, int]]:
        """(offset in ``text``, sample at ``sr``) where each aligned character starts."""
        import soxr
        import torch

        proc, model = self._load()
        x = np.asarray(audio, dtype=np.float32)
        if sr != ALIGN_RATE:
            x = soxr.resample(x, sr, ALIGN_RATE, quality="HQ").astype(np.float32)
        tok = proc.tokenizer
        vocab = tok.get_vocab()
        delim = getattr(tok, "word_delimiter_token", None)
        ids, offs = self._targets(vocab, text, delim if delim in vocab else None)
        if not ids:
            return []
        feats = proc(x, sampling_rate=ALIGN_RATE, return_tensors="pt").input_values
        with torch.inference_mode():
            logp = torch.log_softmax(model(feats).logits[0].float(), dim=-1).numpy()
        first = ctc_forced_path(logp, ids, int(tok.pad_token_id))
        per_frame = len(audio) / logp.shape[0]
        return [(o, min(len(audio) - 1, round(f * per_frame))) for o, f in zip(offs, first) if o >= 0]

    def identity(self) -> str:
        return f"aligner (CTC, {self.model_dir.name})"
