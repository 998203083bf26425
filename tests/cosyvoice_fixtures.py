"""A tiny random-init CosyVoice 2 model folder, for tests only.

The folder has the layout of a released CosyVoice2-0.5B folder (cosyvoice2.yaml, llm.pt, flow.pt,
hift.pt, campplus.onnx, speech_tokenizer_v2.onnx, CosyVoice-BlankEN/ with a Qwen2 model and its
tokenizer) but every network is shrunk and randomly initialised, so the real CosyVoice inference
code (Qwen2LM.inference, the flow matching decoder, HiFT) runs on it in seconds on a CPU. The
flow encoder keeps its 512 channels: the released flow code hard-wires that width.

Run in the CosyVoice environment (it imports cosyvoice): ``python -m tests.cosyvoice_fixtures DIR``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

# A random-init LLM almost never samples its end-of-speech id, so it would speak up to
# max_token_text_ratio (20) tokens per text token: a 50-word line becomes 30 s of audio and
# minutes of CPU. Its logits have std ~0.6 and the top 25 sit near +1.5..+2.1; +5.5 on the EOS
# logit gives EOS ~2/3 (at most ~0.85) of the top-25 sampling mass: before CosyVoice's minimum
# length (2 tokens per text token) EOS is resampled away (0.85^100 trials: never exhausted), and
# past it a line stops within a token or two.
BPE_VOCAB = 3000
SPEECH_EOS = 6561   # Qwen2LM's end-of-speech id (speech_token_size)
EOS_BIAS = 5.5

TINY_YAML = """\
sample_rate: 24000
llm_input_size: 64
llm_output_size: 64
spk_embed_dim: 192
qwen_pretrain_path: ''
token_frame_rate: 25
token_mel_ratio: 2
chunk_size: 25
num_decoding_left_chunks: -1

llm: !new:cosyvoice.llm.llm.Qwen2LM
    llm_input_size: !ref <llm_input_size>
    llm_output_size: !ref <llm_output_size>
    speech_token_size: 6561
    length_normalized_loss: True
    lsm_weight: 0
    mix_ratio: [5, 15]
    llm: !new:cosyvoice.llm.llm.Qwen2Encoder
        pretrain_path: !ref <qwen_pretrain_path>
    sampling: !name:cosyvoice.utils.common.ras_sampling
        top_p: 0.8
        top_k: 25
        win_size: 10
        tau_r: 0.1

flow: !new:cosyvoice.flow.flow.CausalMaskedDiffWithXvec
    input_size: 512
    output_size: 80
    spk_embed_dim: !ref <spk_embed_dim>
    output_type: 'mel'
    vocab_size: 6561
    input_frame_rate: !ref <token_frame_rate>
    only_mask_loss: True
    token_mel_ratio: !ref <token_mel_ratio>
    pre_lookahead_len: 3
    encoder: !new:cosyvoice.transformer.upsample_encoder.UpsampleConformerEncoder
        output_size: 512
        attention_heads: 4
        linear_units: 64
        num_blocks: 1
        dropout_rate: 0.0
        positional_dropout_rate: 0.0
        attention_dropout_rate: 0.0
        normalize_before: True
        input_layer: 'linear'
        pos_enc_layer_type: 'rel_pos_espnet'
        selfattention_layer_type: 'rel_selfattn'
        input_size: 512
        use_cnn_module: False
        macaron_style: False
        static_chunk_size: !ref <chunk_size>
    decoder: !new:cosyvoice.flow.flow_matching.CausalConditionalCFM
        in_channels: 240
        n_spks: 1
        spk_emb_dim: 80
        cfm_params: !new:omegaconf.DictConfig
            content:
                sigma_min: 1e-06
                solver: 'euler'
                t_scheduler: 'cosine'
                training_cfg_rate: 0.2
                inference_cfg_rate: 0.7
                reg_loss_type: 'l1'
        estimator: !new:cosyvoice.flow.decoder.CausalConditionalDecoder
            in_channels: 320
            out_channels: 80
            channels: [32]
            dropout: 0.0
            attention_head_dim: 16
            n_blocks: 1
            num_mid_blocks: 1
            num_heads: 2
            act_fn: 'gelu'
            static_chunk_size: !ref <chunk_size> * <token_mel_ratio>
            num_decoding_left_chunks: !ref <num_decoding_left_chunks>

hift: !new:cosyvoice.hifigan.generator.HiFTGenerator
    in_channels: 80
    base_channels: 32
    nb_harmonics: 8
    sampling_rate: !ref <sample_rate>
    nsf_alpha: 0.1
    nsf_sigma: 0.003
    nsf_voiced_threshold: 10
    upsample_rates: [8, 5, 3]
    upsample_kernel_sizes: [16, 11, 7]
    istft_params:
        n_fft: 16
        hop_len: 4
    resblock_kernel_sizes: [3]
    resblock_dilation_sizes: [[1, 3]]
    source_resblock_kernel_sizes: [7, 7, 11]
    source_resblock_dilation_sizes: [[1, 3], [1, 3], [1, 3]]
    lrelu_slope: 0.1
    audio_limit: 0.99
    f0_predictor: !new:cosyvoice.hifigan.f0_predictor.ConvRNNF0Predictor
        num_class: 1
        in_channels: 80
        cond_channels: 32

feat_extractor: !name:matcha.utils.audio.mel_spectrogram
    n_fft: 1920
    num_mels: 80
    sampling_rate: !ref <sample_rate>
    hop_size: 480
    win_size: 1920
    fmin: 0
    fmax: 8000
    center: False

get_tokenizer: !name:cosyvoice.tokenizer.tokenizer.get_qwen_tokenizer
    token_path: !ref <qwen_pretrain_path>
    skip_special_tokens: True
allowed_special: 'all'
"""

_CORPUS = ["hello there, how are you today?", "the weather in paris is sunny.", "你好，今天天气怎么样？",
           "please set a timer for ten minutes.", "谢谢，再见。"]


def _corpus() -> list[str]:
    """The English text banks' lines too (when the repo is beside this file): BPE merges for the
    words the generator's scripts use, so a line is ~1.3 text tokens a word, not ~4 (CosyVoice
    speaks at least 2 speech tokens per text token, and every token is an LLM step)."""
    banks = Path(__file__).resolve().parent.parent / "generators" / "banks" / "en"
    lines = [ln.strip(" -\"'") for f in sorted(banks.glob("*.yaml"))
             for ln in f.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return _CORPUS + lines


def _qwen_folder(path: Path, hidden: int) -> None:
    """A byte-level BPE tokenizer and a one-layer Qwen2 (the LLM backbone CosyVoice 2 loads)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=BPE_VOCAB, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(_corpus(), trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    fast.save_pretrained(str(path))
    torch.manual_seed(0)
    # vocab: the BPE's and room for the special tokens CosyVoice adds
    cfg = Qwen2Config(vocab_size=BPE_VOCAB + 512, hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=4096)
    Qwen2ForCausalLM(cfg).save_pretrained(str(path))


def _campplus_onnx(path: Path, seed: int) -> None:
    """The speaker-embedding model's signature: fbank (1, T, 80) -> embedding (1, 192)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = np.random.default_rng(seed).standard_normal((80, 192)).astype(np.float32) / 9.0
    graph = helper.make_graph(
        [helper.make_node("ReduceMean", ["input"], ["m"], axes=[1], keepdims=0),
         helper.make_node("MatMul", ["m", "w"], ["embedding"])],
        "tiny_campplus",
        inputs=[helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, "T", 80])],
        outputs=[helper.make_tensor_value_info("embedding", TensorProto.FLOAT, [1, 192])],
        initializer=[numpy_helper.from_array(w, name="w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))


def build_tiny_cosyvoice2(out: Path, seed: int = 0) -> Path:
    """Write the tiny folder to ``out`` (created) and return it."""
    import torch
    from hyperpyyaml import load_hyperpyyaml

    from tests.onnx_fixtures import build_tiny_s3_onnx

    out.mkdir(parents=True, exist_ok=True)
    (out / "cosyvoice2.yaml").write_text(TINY_YAML, encoding="utf-8")
    _qwen_folder(out / "CosyVoice-BlankEN", hidden=64)
    torch.manual_seed(seed)
    with open(out / "cosyvoice2.yaml", encoding="utf-8") as f:
        cfg = load_hyperpyyaml(f, overrides={"qwen_pretrain_path": str(out / "CosyVoice-BlankEN")})
    with torch.no_grad():   # stop soon after CosyVoice's minimum length (see EOS_BIAS)
        cfg["llm"].llm_decoder.bias[SPEECH_EOS] += EOS_BIAS
    torch.save(cfg["llm"].state_dict(), out / "llm.pt")
    torch.save(cfg["flow"].state_dict(), out / "flow.pt")
    torch.save(cfg["hift"].state_dict(), out / "hift.pt")
    _campplus_onnx(out / "campplus.onnx", seed)
    build_tiny_s3_onnx(out / "speech_tokenizer_v2.onnx", seed=seed)
    return out


if __name__ == "__main__":
    print(build_tiny_cosyvoice2(Path(sys.argv[1])))
