"""What each training recipe (ModelConfig.recipe) makes of one exported sample.

One export serves both recipes: the trainer shards always hold the unified layout of DESIGN §3
(speech tokens as rows after the protocol tokens). `unified` trains on it as is. `venus` maps it at
load time: every speech token leaves the LLM sequence (the LLM never decodes one, and its
vocabulary stops at the first speech row), and each speaking unit's speech tokens become a target
of the separate speech decoder, conditioned on the LLM states at that unit's <|speak|> and spoken
text (its *condition positions*, in the mapped sequence). Samples are the same windows of whole
units in both recipes (cut by the unified token counts), so a venus sample is shorter than
max_seq_len by its speech tokens and both recipes see the same sample order.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch

from model.config import RECIPE_UNIFIED, RECIPE_VENUS
from model.protocol import SPEAK, SPEECH_CODEBOOK, ProtocolError, ProtocolVocab

PAD = -1   # padding of the speech decoder's batch tensors


def llm_vocab_size(vocab: ProtocolVocab, recipe: str) -> int:
    """Rows of the LLM vocabulary (before padding): all of it (unified) or all below the speech rows (venus)."""
    if recipe == RECIPE_UNIFIED:
        return vocab.vocab_size
    if recipe != RECIPE_VENUS:
        raise ValueError(f"unknown recipe {recipe!r}")
    above = sorted(n for n, i in vocab.ids.items() if i >= vocab.speech_offset)
    if above:
        raise ProtocolError(f"recipe venus drops the speech rows from the LLM vocabulary, but protocol token(s) "
                            f"{above} sit above them (re-export with a tokenizer that has no speech tokens)")
    return vocab.speech_offset


def split_speech(ids: np.ndarray, mask: np.ndarray, vocab: ProtocolVocab
                 ) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """(ids without speech, their loss mask, per speaking unit (condition positions, speech codes)).

    A unit's speech tokens are one run after its <|speak|> and spoken text; its condition is that
    <|speak|> and the text between it and the run (positions in the returned sequence).
    """
    ids = np.asarray(ids, dtype=np.int64)
    is_sp = (ids >= vocab.speech_offset) & (ids < vocab.speech_offset + SPEECH_CODEBOOK)
    if not is_sp.any():
        return ids, np.asarray(mask), []
    new_pos = np.cumsum(~is_sp) - 1
    speak = np.flatnonzero(ids == vocab[SPEAK])
    starts = np.flatnonzero(is_sp & ~np.concatenate([[False], is_sp[:-1]]))
    ends = np.flatnonzero(is_sp & ~np.concatenate([is_sp[1:], [False]])) + 1
    units = []
    for s, e in zip(starts.tolist(), ends.tolist()):
        before = speak[speak < s]
        if not len(before):
            raise ProtocolError(f"speech tokens at position {s} follow no {SPEAK}")
        p = int(before[-1])
        units.append((new_pos[p:s].astype(np.int64), ids[s:e] - vocab.speech_offset))
    return ids[~is_sp], np.asarray(mask)[~is_sp], units


def collate_speech(samples: list[dict[str, Any]], seq_len: int) -> dict[str, torch.Tensor]:
    """Speech decoder targets of a batch: `speech_pos` [N, L] indexes the flattened [B * seq_len]
    LLM states (PAD = none), `speech_codes` [N, S] the S3 codes (PAD = none)."""
    units = [(i * seq_len + pos, codes) for i, s in enumerate(samples) for pos, codes in s.get("speech", [])]
    n = len(units)
    L = max((len(p) for p, _ in units), default=0)
    S = max((len(c) for _, c in units), default=0)
    pos = torch.full((n, L), PAD, dtype=torch.long)
    codes = torch.full((n, S), PAD, dtype=torch.long)
    for k, (p, c) in enumerate(units):
        pos[k, :len(p)] = torch.from_numpy(p)
        codes[k, :len(c)] = torch.from_numpy(c.astype(np.int64))
    return {"speech_pos": pos, "speech_codes": codes}
