"""A streaming duplex runtime: the model reads one unit at a time and writes its own output.

Per unit k it appends the unit's input (``<unit>``, the frame for Omni, the 10 audio embeddings of
window k, any backend result readable from unit k) to its context, picks ``<|listen|>`` or
``<|speak|>`` (the larger logit), and on speak generates its own spoken text, then, for the unified
recipe on data with speech tokens, exactly one unit's speech tokens; then optionally
``<|turn_eos|>``, optionally a ``<delegate> request </delegate>``, and ``<|chunk_eos|>``. Decoding is
greedy and constrained to the unit grammar of model/protocol.py (the only tokens allowed next are
those the layout allows there), so every output parses as one unit. Its own output, not the gold
one, is what it reads back next: the evaluation is closed-loop.

Context: a KV cache (`use_cache`, the default: each token is one decoder step on the cached
prefix) or, with `use_cache=False`, the whole prefix recomputed for every token (the reference
the cache must agree with; quadratic, for checks only). When the context would pass
`max_context` tokens it restarts at the current unit with an empty history, as training samples
start at a unit boundary (counted in `context_resets`).

Recipe venus: the LLM has no speech rows, so it writes text only; its frozen speech decoder is not
run here (no metric reads the speech).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import torch

from model.duplex_metrics import ModelUnit
from model.modeling import DuplexModel
from model.protocol import (CHUNK_EOS, DELEGATE, DELEGATE_END, LISTEN, SPEAK, TURN_EOS, UNIT, UNIT_END,
                            ProtocolVocab)
from schemas.vocab import Decision


@dataclass
class UnitOutput:
    """One unit's generated output: the ModelUnit the metrics read, plus the generated ids."""

    unit: ModelUnit
    text_ids: list[int] = field(default_factory=list)
    delegate_ids: list[int] = field(default_factory=list)


@dataclass
class RunStats:
    units: int = 0
    tokens_in: int = 0
    tokens_generated: int = 0
    decoder_calls: int = 0
    context_resets: int = 0
    seconds: float = 0.0


class DuplexRuntime:
    """Greedy, grammar-constrained closed-loop decoding of one trajectory at a time."""

    def __init__(self, model: DuplexModel, vocab: ProtocolVocab, *, speech_per_unit: int, use_cache: bool = True,
                 max_text_tokens: int = 24, max_delegate_tokens: int = 48, max_context: int = 4096):
        self.model, self.v = model, vocab
        self.speech_per_unit = speech_per_unit
        self.use_cache = use_cache
        self.max_text, self.max_deleg, self.max_context = max_text_tokens, max_delegate_tokens, max_context
        self.device = next(model.parameters()).device
        n = model.vocab_size                       # LLM rows actually trained (venus: no speech rows)
        control = torch.zeros(n, dtype=torch.bool)
        for tid in vocab.control_ids():
            if tid < n:
                control[tid] = True
        speech = torch.zeros(n, dtype=torch.bool)
        lo, hi = vocab.speech_offset, min(vocab.speech_offset + len(vocab.speech_range), n)
        if lo < n:
            speech[lo:hi] = True
        self.n = n
        self.ordinary = ~control & ~speech          # text a unit may say or a request may hold
        self.speech = speech
        self.has_speech_rows = bool(speech.any())
        self.stats = RunStats()
        # transformers 5 names the decoder's KV cache `cache` (in and out); 4.x named it past_key_values
        import inspect

        params = inspect.signature(model.llm.get_decoder().forward).parameters
        self._cache_kw = "cache" if "cache" in params else "past_key_values"
        self._allow: dict[tuple, torch.Tensor] = {}

    # ------------------------------------------------------------------ decoder steps
    def _reset(self) -> None:
        self.cache = None
        self.prefix: list[torch.Tensor] = []          # recompute mode: every embedding so far
        self.length = 0

    def _step(self, emb: torch.Tensor) -> torch.Tensor:
        """Append embeddings [T, d] to the context; return the logits after the last one."""
        dec = self.model.llm.get_decoder()
        self.stats.decoder_calls += 1
        self.length += emb.shape[0]
        if self.use_cache:
            out = dec(inputs_embeds=emb.unsqueeze(0), use_cache=True, **{self._cache_kw: self.cache})
            self.cache = out[self._cache_kw]
        else:
            self.prefix.append(emb)
            out = dec(inputs_embeds=torch.cat(self.prefix).unsqueeze(0), use_cache=False)
        return self.model.logits(out.last_hidden_state[0, -1])[: self.n]

    def _tokens(self, ids: list[int]) -> torch.Tensor:
        return self.model.llm.get_input_embeddings()(torch.tensor(ids, device=self.device))

    def _pick(self, logits: torch.Tensor, allowed: torch.Tensor | list[int]) -> int:
        if isinstance(allowed, list):
            return allowed[int(torch.argmax(logits[allowed]))]
        return int(torch.argmax(logits.masked_fill(~allowed, float("-inf"))))

    def _mask(self, *ids: int, ordinary: bool = False, speech: bool = False) -> torch.Tensor:
        key = (ids, ordinary, speech)
        if key not in self._allow:                 # a handful of distinct masks per run: build each once
            m = torch.zeros(self.n, dtype=torch.bool)
            if ordinary:
                m |= self.ordinary
            if speech:
                m |= self.speech
            for i in ids:
                m[i] = True
            self._allow[key] = m.to(self.device)
        return self._allow[key]

    # ------------------------------------------------------------------ one trajectory
    @torch.no_grad()
    def run(self, unit_inputs: list[list[int]], audio_features: torch.Tensor, pixel_values: torch.Tensor | None,
            emit_speech: bool) -> list[UnitOutput]:
        """Feed unit k's input ids (from ``<unit>`` to before the decision; audio/image placeholders
        filled from `audio_features[k]`/`pixel_values[k]`) and decode its output, k = 0..n-1."""
        v = self.v
        emit_speech = emit_speech and self.has_speech_rows
        t0 = time.perf_counter()
        self._reset()
        outs: list[UnitOutput] = []
        pending: list[int] = []                 # the previous unit's closing tokens, fed with the next input
        for k, inp in enumerate(unit_inputs):
            if inp[0] != v[UNIT]:
                raise ValueError(f"unit {k}'s input does not start with {UNIT}")
            need = len(pending) + len(inp) + 4 + self.max_text + self.speech_per_unit + self.max_deleg
            if self.length and self.length + need > self.max_context:
                self.stats.context_resets += 1
                self._reset()
                pending = []
            ids = pending + inp
            emb = self.model.embed(torch.tensor([ids], device=self.device), audio_features[k:k + 1].to(self.device),
                                   None if pixel_values is None else pixel_values[k:k + 1].to(self.device))[0]
            self.stats.tokens_in += len(ids)
            logits = self._step(emb)
            outs.append(self._unit_output(logits, emit_speech))
            pending = [v[CHUNK_EOS], v[UNIT_END]]
        self.stats.units += len(unit_inputs)
        self.stats.seconds += time.perf_counter() - t0
        return outs

    def _unit_output(self, logits: torch.Tensor, emit_speech: bool) -> UnitOutput:
        """Decision, then the rest of the unit up to (not including) <|chunk_eos|>, by the grammar."""
        v = self.v
        out = UnitOutput(ModelUnit(Decision.LISTEN))

        def feed(tok: int) -> torch.Tensor:
            self.stats.tokens_generated += 1
            return self._step(self._tokens([tok]))

        decision = self._pick(logits, [v[LISTEN], v[SPEAK]])
        logits = feed(decision)
        speak = decision == v[SPEAK]
        turn_eos = False
        n_speech = 0
        tok = None
        if speak:
            while True:        # spoken text, then (unified with speech) exactly one unit of speech tokens
                text_ok = len(out.text_ids) < self.max_text
                tok = self._pick(logits, self._mask(v[TURN_EOS], v[DELEGATE], v[CHUNK_EOS], ordinary=text_ok,
                                                    speech=emit_speech))
                if self.ordinary[tok]:
                    out.text_ids.append(tok)
                    logits = feed(tok)
                    continue
                break
            if emit_speech:
                while n_speech < self.speech_per_unit:
                    tok = self._pick(logits, self._mask(speech=True))
                    n_speech += 1
                    logits = feed(tok)
                tok = self._pick(logits, [v[TURN_EOS], v[DELEGATE], v[CHUNK_EOS]])
            if tok == v[TURN_EOS]:
                turn_eos = True
                logits = feed(tok)
                tok = self._pick(logits, [v[DELEGATE], v[CHUNK_EOS]])
        else:
            tok = self._pick(logits, [v[DELEGATE], v[CHUNK_EOS]])
        delegate = tok == v[DELEGATE]
        if delegate:
            logits = feed(tok)
            while len(out.delegate_ids) < self.max_deleg:
                tok = self._pick(logits, self._mask(v[DELEGATE_END], ordinary=True))
                if tok == v[DELEGATE_END]:
                    break
                out.delegate_ids.append(tok)
                logits = feed(tok)
            feed(v[DELEGATE_END])        # closed by the model, or forced at the request cap
        # <|chunk_eos|> is chosen (or forced after </delegate>); it is fed with the next unit's input
        self.stats.tokens_generated += 1
        out.unit = ModelUnit(Decision.SPEAK if speak else Decision.LISTEN, delegate=delegate, turn_eos=turn_eos,
                             text_tokens=len(out.text_ids), speech_tokens=n_speech)
        return out
