"""The decode budget of a delegate request: what a model can write in the time its unit leaves.

A unit's output is computed in real time: after the unit's input is read the model spends
`DECODE_PREFILL_S` on prefill, `DECODE_TTS_S` more when the unit speaks (its speech is rendered
first), and then writes the non-spoken part (our `<delegate>` request) at `DECODE_MS_PER_STEP` per
token, all before the next unit's input is in. These are the MiniCPM-o protocol SDK's default timing
profile (minicpm-o5-sdk `O5UnitPolicy`: prefill 0.2 s, TTS 0.3 s, 15 ms per decode step), which the
`minicpm-o` export writes and the SDK enforces (`non_spoken_actual_timing_capacity_exceeded`).

A request is written as a tool call, so it costs `DELEGATE_FRAME_STEPS` steps of framing (the
call's markup and the end-of-slot token) on top of its own text. Its text tokens are counted by
`request_token_bound`, which needs no tokenizer: it over-counts what the MiniCPM-o 4.5 (Qwen)
tokenizer spends on such text, so a request within the bound is within the SDK's budget
(tests/test_export_minicpmo.py checks the bound against the real tokenizer on generated requests).

The decode rate is a run's choice (config `decode_budget.ms_per_step`, default DECODE_MS_PER_STEP);
a row made at another rate records it in meta[DECODE_META_KEY] (`row_ms_per_step` reads it back),
and a row made at the default records nothing, so its bytes are those of a run before the key.
"""
from __future__ import annotations

import json
import math
import unicodedata

DECODE_MS_PER_STEP = 15.0
DECODE_META_KEY = "decode_budget"   # meta key of a row made at a non-default rate: {"ms_per_step": x}
DECODE_PREFILL_S = 0.2
DECODE_TTS_S = 0.3
# <tool_call>, the function and parameter markup around the request, </tool_call>, and the slot's
# end token: 18 steps for the harness tool names with the SDK's minicpm4_xml serializer, 19 for
# the longest (unit_convert); this is that maximum.
DELEGATE_FRAME_STEPS = 19
# letters of a Latin word that one token is assumed to cover at most (see request_token_bound)
_LETTERS_PER_TOKEN = 5


def decode_steps_available(unit_s: float, speaking: bool, ms_per_step: float = DECODE_MS_PER_STEP) -> int:
    """Decode steps that fit in one unit after prefill (and TTS when the unit speaks)."""
    left_s = unit_s - DECODE_PREFILL_S - (DECODE_TTS_S if speaking else 0.0)
    return max(0, math.floor(round(left_s * 1000.0 / ms_per_step, 6)))


def row_ms_per_step(meta: str) -> float:
    """The decode rate a row was made at, from its meta JSON string (the default when it records none)."""
    record = json.loads(meta).get(DECODE_META_KEY)
    return DECODE_MS_PER_STEP if record is None else float(record["ms_per_step"])


def _is_cjk(ch: str) -> bool:
    return ord(ch) >= 0x2E80 and (ch.isalpha() or unicodedata.category(ch).startswith("L"))


def request_token_bound(text: str) -> int:
    """At least the text tokens a Qwen-family BPE spends on `text`, without a tokenizer.

    Counts one token per digit (Qwen splits numbers into digits), per CJK character, per
    punctuation mark, per space before a digit, and one per started `_LETTERS_PER_TOKEN` letters
    of each Latin word (common words are one token; long and rare ones more).
    """
    n = 0
    letters = 0
    prev = ""
    for ch in text + " ":
        if ch.isalpha() and not _is_cjk(ch):
            letters += 1
            prev = ch
            continue
        if letters:
            n += math.ceil(letters / _LETTERS_PER_TOKEN)
            letters = 0
        if ch.isdigit():
            n += 1 + (prev == " ")
        elif _is_cjk(ch) or not ch.isspace():
            n += 1
        prev = ch
    return n


def delegate_decode_steps(request: str) -> int:
    """The decode steps a delegate request needs at most: its framing and its text."""
    return DELEGATE_FRAME_STEPS + request_token_bound(request)


def delegate_fits(request: str, unit_s: float, speaking: bool, ms_per_step: float = DECODE_MS_PER_STEP) -> bool:
    """Whether the request can be written in the time its unit leaves at `ms_per_step` per step."""
    return delegate_decode_steps(request) <= decode_steps_available(unit_s, speaking, ms_per_step)
