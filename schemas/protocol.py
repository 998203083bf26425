"""Protocol constants (DESIGN §1, §3): the control tokens and the numbers the unit layout rests on.

Defined once here; the generator (result text must never carry a token), the validator (token
counts, request length) and the trainer (model/protocol.py: ids, layout) all import these names.
"""
from __future__ import annotations

# S3 speech tokens (CosyVoice 2/3): 25 per second, codebook 3^8.
SPEECH_TOKENS_PER_SECOND = 25
SPEECH_CODEBOOK = 6561
# Where an assistant voice's speech tokens come from (manifest and row meta `speech_token_source`):
# `native`, the tokens the TTS engine's own LLM generated for that audio (CosyVoice at speed 1.0),
# or `retokenized`, the speech tokenizer run on the rendered audio (every other engine).
SPEECH_TOKEN_SOURCE_KEY = "speech_token_source"
NATIVE_TOKENS, RETOKENIZED = "native", "retokenized"
# The model's audio encoder (Whisper-medium in MiniCPM-o; the SDK's O5_AUDIO_SAMPLE_RATE) hears this rate
# only: the trainer's log-mel features and the minicpm-o export resample user audio to it.
MODEL_AUDIO_RATE = 16_000
# Whisper-medium audio encoder after 5x pooling: embeddings per second of user audio.
AUDIO_EMBEDS_PER_SECOND = 10
# A delegate request: at most this many characters of plain language.
DELEGATE_MAX_CHARS = 4000

UNIT, UNIT_END = "<unit>", "</unit>"
IMAGE, IMAGE_END = "<image>", "</image>"
LISTEN, SPEAK = "<|listen|>", "<|speak|>"
TURN_EOS, CHUNK_EOS = "<|turn_eos|>", "<|chunk_eos|>"
DELEGATE, DELEGATE_END = "<delegate>", "</delegate>"
BACKEND, BACKEND_END = "<backend>", "</backend>"

# The protocol tokens of DESIGN §1, in the order the trainer assigns them ids (reproducible layout).
PROTOCOL_TOKENS: tuple[str, ...] = (
    UNIT, UNIT_END, IMAGE, IMAGE_END, LISTEN, SPEAK, TURN_EOS, CHUNK_EOS,
    DELEGATE, DELEGATE_END, BACKEND, BACKEND_END,
)
# Trainer-only slots the audio / frame embeddings replace; never text, appended after the protocol tokens.
AUDIO_PH, IMAGE_PH = "<|audio_placeholder|>", "<|image_placeholder|>"
EMBED_PLACEHOLDERS: tuple[str, ...] = (AUDIO_PH, IMAGE_PH)
# Every token the trainer adds to (or reuses from) the target tokenizer, in id order.
VOCAB_TOKENS: tuple[str, ...] = PROTOCOL_TOKENS + EMBED_PLACEHOLDERS
# Control tokens of the target tokenizer (MiniCPM-o 4.5) that a backend result must not carry either.
TARGET_CONTROL_TOKENS: tuple[str, ...] = ("<tool_call>", "</tool_call>")
# What a backend result or a spoken text must never contain.
LEAK_TOKENS: tuple[str, ...] = VOCAB_TOKENS + TARGET_CONTROL_TOKENS

# Classes of loss-bearing tokens: the trainer weights each (model config `loss_weights`) and reports
# each one's loss. decision: the listen/speak token; text: spoken text; speech: S3 speech tokens;
# turn_eos / chunk_eos: the two ends of a unit's output; delegate: a request with its brackets.
LOSS_DECISION, LOSS_TEXT, LOSS_SPEECH = "decision", "text", "speech"
LOSS_TURN_EOS, LOSS_CHUNK_EOS, LOSS_DELEGATE = "turn_eos", "chunk_eos", "delegate"
LOSS_CLASSES: tuple[str, ...] = (LOSS_DECISION, LOSS_TEXT, LOSS_SPEECH, LOSS_TURN_EOS, LOSS_CHUNK_EOS, LOSS_DELEGATE)


def speech_token_name(code: int) -> str:
    """The display name of speech token `code` in the extended vocabulary."""
    return f"<|s_{code}|>"
