"""A tiny random-init wav2vec2 CTC folder with its character tokenizer, for tests only: the layout
transformers saves (config.json, vocab.json, model.safetensors, processor files), so the real
CtcAligner and the `voices.aligner` config check read it as they read a real model folder."""

from __future__ import annotations

import json
from pathlib import Path


def build_tiny_ctc(d: Path) -> Path:
    """Write the folder at ``d`` (lower-case letters, apostrophe, word delimiter '|')."""
    import torch
    from transformers import (
        Wav2Vec2Config,
        Wav2Vec2CTCTokenizer,
        Wav2Vec2FeatureExtractor,
        Wav2Vec2ForCTC,
        Wav2Vec2Processor,
    )

    d.mkdir(parents=True, exist_ok=True)
    chars = ["<pad>", "<unk>", "|", "'"] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    (d / "vocab.json").write_text(json.dumps({ch: i for i, ch in enumerate(chars)}), encoding="utf-8")
    tok = Wav2Vec2CTCTokenizer(str(d / "vocab.json"), pad_token="<pad>", unk_token="<unk>", word_delimiter_token="|")
    fe = Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000, padding_value=0.0, do_normalize=True)
    Wav2Vec2Processor(feature_extractor=fe, tokenizer=tok).save_pretrained(str(d))
    torch.manual_seed(0)
    # 200 frames a second (stride 80), not a released model's 50: the tiny random CosyVoice speaks at
    # its minimum length, 2 speech tokens per text token, about 56 characters a second where people
    # say about 15, and a CTC path needs a frame per character (two for a doubled letter).
    cfg = Wav2Vec2Config(vocab_size=len(chars), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64, conv_dim=(16,) * 7, conv_stride=(5, 2, 2, 2, 2, 1, 1),
                         num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2, pad_token_id=0)
    Wav2Vec2ForCTC(cfg).save_pretrained(str(d))
    return d
