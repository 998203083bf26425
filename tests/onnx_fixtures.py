"""Tiny ONNX stand-ins for the official S3 speech tokenizer, for tests only.

Built directly with ``onnx.helper`` (no torch exporter, no onnxscript), with random weights from a
fixed seed, so the real onnxruntime path is exercised without any downloaded model.

The tiny model has the signature of CosyVoice's ``speech_tokenizer_v2.onnx`` as its frontend
feeds it: input 0 ``feats`` float32 ``[B, 128, T]`` (Whisper log-mel, 100 frames/s), input 1
``feats_length`` int32 ``[B]``; output ``indices`` int64 ``[B, ceil(T/4)]`` (25 Hz) in
``[0, 6561)``. Like the real encoder it masks frames beyond ``feats_length`` and downsamples with
two Conv1d (kernel 3, stride 2, padding 1), then projects to 6561 logits and takes the argmax.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

N_MELS = 128
CODEBOOK = 6561
_OPSET = 17
_IR_VERSION = 9  # loadable by every onnxruntime this project supports (>= 1.17)


def _init(name: str, arr: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(arr, name=name)


def build_tiny_s3_onnx(path: str | Path, *, channels: int = 32, seed: int = 0,
                       length_dtype: int = TensorProto.INT32) -> Path:
    """Write a random-weight model with the S3 tokenizer signature to ``path`` and return it."""
    rng = np.random.default_rng(seed)
    c = channels
    w1 = (rng.standard_normal((c, N_MELS, 3)) / np.sqrt(N_MELS * 3)).astype(np.float32)
    w2 = (rng.standard_normal((c, c, 3)) / np.sqrt(c * 3)).astype(np.float32)
    w3 = rng.standard_normal((c, CODEBOOK)).astype(np.float32)
    inits = [
        _init("w1", w1), _init("b1", np.zeros(c, np.float32)),
        _init("w2", w2), _init("b2", np.zeros(c, np.float32)),
        _init("w3", w3),
        _init("zero", np.array(0, np.int64)), _init("one", np.array(1, np.int64)),
        _init("ax0", np.array([0], np.int64)), _init("ax1", np.array([1], np.int64)),
        _init("idx2", np.array(2, np.int64)),
    ]
    nodes = [
        # mask = arange(T)[None, :] < feats_length[:, None], applied to feats as the real encoder does
        helper.make_node("Shape", ["feats"], ["shape"]),
        helper.make_node("Gather", ["shape", "idx2"], ["t"], axis=0),
        helper.make_node("Range", ["zero", "t", "one"], ["ar"]),
        helper.make_node("Unsqueeze", ["ar", "ax0"], ["ar2"]),
        helper.make_node("Cast", ["feats_length"], ["len64"], to=TensorProto.INT64),
        helper.make_node("Unsqueeze", ["len64", "ax1"], ["len2"]),
        helper.make_node("Less", ["ar2", "len2"], ["maskb"]),
        helper.make_node("Cast", ["maskb"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["maskf", "ax1"], ["mask3"]),
        helper.make_node("Mul", ["feats", "mask3"], ["xm"]),
        # centre each mel bin over time so random weights see the frame-to-frame variation
        helper.make_node("ReduceMean", ["xm"], ["mean"], axes=[2], keepdims=1),
        helper.make_node("Sub", ["xm", "mean"], ["x0"]),
        # 4x temporal downsampling: T -> ceil(T/2) -> ceil(T/4)
        helper.make_node("Conv", ["x0", "w1", "b1"], ["c1"], kernel_shape=[3], strides=[2], pads=[1, 1]),
        helper.make_node("Tanh", ["c1"], ["h1"]),
        helper.make_node("Conv", ["h1", "w2", "b2"], ["c2"], kernel_shape=[3], strides=[2], pads=[1, 1]),
        helper.make_node("Tanh", ["c2"], ["h2"]),
        helper.make_node("Transpose", ["h2"], ["h2t"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["h2t", "w3"], ["logits"]),
        helper.make_node("ArgMax", ["logits"], ["indices"], axis=2, keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "tiny_s3_tokenizer",
        inputs=[helper.make_tensor_value_info("feats", TensorProto.FLOAT, ["B", N_MELS, "T"]),
                helper.make_tensor_value_info("feats_length", length_dtype, ["B"])],
        outputs=[helper.make_tensor_value_info("indices", TensorProto.INT64, ["B", "N"])],
        initializer=inits,
    )
    return _save(graph, path)


def build_wrong_signature_onnx(path: str | Path) -> Path:
    """Write a model that is not an S3 tokenizer (80-bin input, no length, float output)."""
    w = np.random.default_rng(1).standard_normal((80, 16)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Transpose", ["mel"], ["mt"], perm=[0, 2, 1]),
         helper.make_node("MatMul", ["mt", "w"], ["emb"])],
        "not_a_tokenizer",
        inputs=[helper.make_tensor_value_info("mel", TensorProto.FLOAT, ["B", 80, "T"])],
        outputs=[helper.make_tensor_value_info("emb", TensorProto.FLOAT, ["B", "T", 16])],
        initializer=[_init("w", w)],
    )
    return _save(graph, path)


def _save(graph: onnx.GraphProto, path: str | Path) -> Path:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)],
                              producer_name="duplexsynth-tests")
    model.ir_version = _IR_VERSION
    onnx.checker.check_model(model)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))
    return path
