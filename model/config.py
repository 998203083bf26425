"""Trainer configuration (model + optimisation), loaded from model/configs/*.yaml.

One YAML file fully describes a run apart from its data and output folder; it is copied beside every
checkpoint so a checkpoint can always be rebuilt and evaluated on its own.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from schemas.errors import UsageError
from schemas.protocol import LOSS_CLASSES, SPEECH_CODEBOOK

CONFIG_DIR = Path(__file__).parent / "configs"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Component(_Strict):
    """A Hugging Face component: weights from a local `path`, or random init from `config`."""

    path: str | None = None                 # local folder (never downloaded)
    config: dict[str, Any] | None = None    # HF config kwargs, used when path is None (and to override)

    @model_validator(mode="after")
    def _one_source(self) -> "Component":
        if self.path is None and not self.config:
            raise ValueError("give a local `path` or a `config` mapping")
        return self


class LLMConfig(Component):
    pad_vocab_to_multiple_of: int = Field(64, ge=1)   # GPU-friendly embedding/lm_head shapes


class AudioConfig(Component):
    pool: int = Field(5, ge=1)              # 50 Whisper frames per second -> 10 embeddings
    # venus: pool -> Linear -> GELU -> Linear. minicpmo: Linear -> ReLU -> pool -> Linear, which is
    # MiniCPM-o 4.5's audio_projection_layer followed by its average pooling (pooling commutes with
    # the second Linear), so 4.5's projector weights keep their meaning (model/minicpmo_weights.py).
    projector: Literal["venus", "minicpmo"] = "venus"


class VisionConfig(Component):
    tokens_per_frame: int = Field(64, ge=1)  # mlp: patch grid pooled to sqrt(n) x sqrt(n); resampler: n queries
    # mlp: pool the patch grid, then Linear -> GELU -> Linear. resampler: MiniCPM-o 4.5's perceiver
    # resampler (model/resampler.py), tokens_per_frame learned queries cross-attending to every patch,
    # so 4.5's `resampler.*` weights load into `vision_proj` (model/minicpmo_weights.py).
    projector: Literal["mlp", "resampler"] = "mlp"
    resampler_heads: int | None = Field(None, ge=1)   # None: LLM width // 128, as 4.5 (at least 1)

    @model_validator(mode="after")
    def _square(self) -> "VisionConfig":
        r = round(self.tokens_per_frame ** 0.5)
        if self.projector == "mlp" and r * r != self.tokens_per_frame:
            raise ValueError("tokens_per_frame must be a perfect square (the patch grid is pooled to r x r)")
        if self.projector == "mlp" and self.resampler_heads is not None:
            raise ValueError("resampler_heads is for projector: resampler")
        return self


class LossWeights(_Strict):
    """Weight of each loss class (schemas/protocol.py LOSS_CLASSES) in the per-token loss.

    The step loss is sum(w_c * ce) / sum(w_c) over target tokens, so weight 0 is exactly the
    same as masking the class out, and all weights 1 is the plain token mean.
    """

    decision: float = Field(1.0, ge=0)
    text: float = Field(1.0, ge=0)
    speech: float = Field(1.0, ge=0)
    turn_eos: float = Field(1.0, ge=0)
    chunk_eos: float = Field(1.0, ge=0)
    delegate: float = Field(1.0, ge=0)

    @model_validator(mode="after")
    def _some_weight(self) -> "LossWeights":
        if not any(self.as_list()):
            raise ValueError("at least one loss weight must be > 0")
        return self

    def as_list(self) -> list[float]:
        """The weights in LOSS_CLASSES order (the order of the loader's class indices)."""
        return [float(getattr(self, c)) for c in LOSS_CLASSES]


assert tuple(LossWeights.model_fields) == LOSS_CLASSES, "LossWeights fields must follow LOSS_CLASSES"


RECIPE_UNIFIED, RECIPE_VENUS = "unified", "venus"


class SpeechDecoderConfig(_Strict):
    """The separate speech decoder of the venus recipe (model/speech_decoder.py).

    It reads the LLM's last hidden states and token ids of a speaking unit (its <|speak|> and spoken
    text) and predicts that unit's S3 tokens, as MiniCPM-o 4.5's TTS reads its LLM. In the venus
    recipe it is frozen: loaded from `path` when given (a safetensors file, or a folder holding
    speech_decoder.safetensors as `duplexsynth export-checkpoint` writes it), random-init otherwise.
    """

    path: str | None = None
    hidden_size: int = Field(256, ge=8)
    num_layers: int = Field(4, ge=1)
    num_heads: int = Field(4, ge=1)
    intermediate_size: int | None = Field(None, ge=1)   # None: 4 x hidden_size
    max_cond_tokens: int = Field(64, ge=1)              # a unit's condition is cut to its last N tokens
    max_speech_tokens: int = Field(50, ge=1)            # speech tokens per unit it can predict
    normalize_projected_hidden: bool = True             # L2-normalise the projected LLM states (as MiniCPM-o)
    # venus: our own small pre-norm transformer with learned positions. minicpmtts: MiniCPM-o 4.5's
    # TTS (MiniCPMTTS: a Llama backbone, emb_text/projector_semantic/emb_code/head_code), so 4.5's
    # `tts.*` weights load into it by name (model/minicpmo_weights.py). The fields below are for it.
    backbone: Literal["venus", "minicpmtts"] = "venus"
    num_kv_heads: int | None = Field(None, ge=1)        # None: num_heads
    num_text_tokens: int | None = Field(None, ge=1)     # emb_text rows (LLM ids); None: the LLM vocabulary
    num_audio_tokens: int = Field(SPEECH_CODEBOOK + 1, ge=SPEECH_CODEBOOK)   # the codebook and 4.5's stop code
    # emb_text rows that close the condition and open the codes; set them to the checkpoint's
    # tts_config values (the loader checks); defaults are MiniCPMTTSConfig's.
    text_eos_token_id: int = Field(21133, ge=0)
    audio_bos_token_id: int = Field(21132, ge=0)

    @model_validator(mode="after")
    def _heads(self) -> SpeechDecoderConfig:
        if self.hidden_size % self.num_heads:
            raise ValueError("hidden_size must be a multiple of num_heads")
        if self.num_kv_heads is not None and self.num_heads % self.num_kv_heads:
            raise ValueError("num_heads must be a multiple of num_kv_heads")
        if self.backbone == "venus" and (self.num_kv_heads is not None or self.num_text_tokens is not None):
            raise ValueError("num_kv_heads and num_text_tokens are for backbone: minicpmtts")
        return self


class InitFrom(_Strict):
    """Initialise the whole DuplexModel from one local pretrained checkpoint folder (never downloaded)."""

    kind: Literal["minicpm-o-4.5"]
    path: str


class ModelConfig(_Strict):
    """`recipe` says what the LLM learns to emit.

    unified: the 6,561 S3 speech tokens are rows of the LLM vocabulary and speech is an LLM loss
    class (the LLM decodes 25 extra tokens per second of speech). venus (Realtime-Venus, MiniCPM-o
    4.5 lineage): the LLM vocabulary stops below the speech rows, the loader takes speech tokens out
    of the LLM sequence (one export serves both recipes), and a separate `speech_decoder`, frozen,
    turns the LLM's hidden states and text into speech tokens; only the LLM (and encoders) train.
    """

    recipe: Literal["unified", "venus"] = RECIPE_UNIFIED
    llm: LLMConfig
    audio: AudioConfig
    vision: VisionConfig | None = None
    projector_hidden: int | None = None     # None: the LLM hidden size
    loss_chunk_tokens: int = Field(4096, ge=1)  # lm_head + CE over this many target tokens at a time
    loss_weights: LossWeights = LossWeights()
    speech_decoder: SpeechDecoderConfig | None = None   # venus only
    init_from: InitFrom | None = None       # loaded after the modules are built (model/minicpmo_weights.py)

    @model_validator(mode="after")
    def _recipe(self) -> ModelConfig:
        if self.recipe == RECIPE_VENUS and self.speech_decoder is None:
            raise ValueError("recipe venus needs a speech_decoder section (its dims, and `path` for trained weights)")
        if self.recipe == RECIPE_UNIFIED and self.speech_decoder is not None:
            raise ValueError("speech_decoder is for recipe venus; recipe unified predicts speech with the LM head")
        return self


LOGGER_JSONL, LOGGER_TENSORBOARD, LOGGER_WANDB = "jsonl", "tensorboard", "wandb"
LoggerName = Literal["jsonl", "tensorboard", "wandb"]


class TrainConfig(_Strict):
    seed: int = 0
    micro_batch_size: int = Field(1, ge=1)          # samples per rank per micro-step
    grad_accum: int = Field(1, ge=1)
    lr: float = Field(2e-5, gt=0)
    min_lr_ratio: float = Field(0.1, ge=0, le=1)
    warmup_steps: int = Field(100, ge=0)
    max_steps: int = Field(1000, ge=1)
    weight_decay: float = Field(0.1, ge=0)
    betas: tuple[float, float] = (0.9, 0.95)
    eps: float = 1e-8
    grad_clip: float = Field(1.0, gt=0)
    max_seq_len: int = Field(8192, ge=64)
    save_every: int = Field(500, ge=1)
    keep_checkpoints: int = Field(2, ge=1)
    log_every: int = Field(1, ge=1)
    precision: Literal["auto", "fp32", "bf16"] = "auto"   # auto: bf16 on GPU, fp32 on CPU
    activation_checkpointing: bool = True
    fsdp: Literal["auto", "on", "off"] = "auto"           # auto: on when world size > 1
    loader_workers: int = Field(2, ge=0)
    shuffle_shard_group: int = Field(4, ge=1)             # shards shuffled together per block
    deterministic: bool = True
    cpu_threads: int | None = Field(None, ge=1)           # torch intra-op threads on CPU (None: torch default)
    # Gradient accumulation reduces gradients once per optimizer step (DDP no_sync, FSDP2
    # set_requires_gradient_sync(False) until the last micro-batch). Under FSDP that keeps unsharded
    # gradients between micro-batches (+2 bytes/param in bf16); false reduces after every micro-batch.
    defer_grad_sync: bool = True
    val_every: int | None = Field(None, ge=1)             # validation loss on the export's val split every N steps
    val_max_samples: int | None = Field(None, ge=1)       # cap on val samples per evaluation (None: all)
    # per-step metrics (model/experiment_log.py): OUT/metrics.jsonl always, plus TensorBoard / W&B
    loggers: list[LoggerName] = Field(default_factory=lambda: [LOGGER_JSONL])
    wandb_project: str = "duplexsynth"
    wandb_mode: Literal["offline", "online"] = "offline"  # offline: nothing leaves the machine (wandb sync later)

    @model_validator(mode="after")
    def _jsonl_kept(self) -> "TrainConfig":
        if LOGGER_JSONL not in self.loggers:
            raise ValueError("loggers must include jsonl (OUT/metrics.jsonl is the run's own record: resume reads it)")
        return self


class RunSpec(_Strict):
    name: str
    model: ModelConfig
    train: TrainConfig = TrainConfig()
    memory_plan: str | None = None          # documentation only (9B configs)


PARALLEL_NONE, PARALLEL_DDP, PARALLEL_FSDP = "none", "ddp", "fsdp"


def parallel_mode(spec: RunSpec, world: int) -> str:
    """FSDP2 when asked (`fsdp: on`) or by default with more than one process; else DDP across
    processes, so more than one process never trains unsynchronised copies."""
    f = spec.train.fsdp
    if f == "on" or (f == "auto" and world > 1):
        return PARALLEL_FSDP
    return PARALLEL_DDP if world > 1 else PARALLEL_NONE


class TrainConfigError(UsageError, ValueError):
    """A trainer config that cannot be used; names every bad field."""


def resolve_config_path(path: str | Path) -> Path:
    """A path, or a bare name such as `tiny` looked up in model/configs/."""
    p = Path(path)
    if p.is_file():
        return p
    named = CONFIG_DIR / f"{path}.yaml"
    if named.is_file():
        return named
    known = sorted(q.stem for q in CONFIG_DIR.glob("*.yaml"))
    raise TrainConfigError(f"config not found: {path} (known names: {known})")


def parse_run_spec(data: dict[str, Any], source: str = "<dict>") -> RunSpec:
    try:
        return RunSpec.model_validate(data)
    except ValidationError as err:
        lines = [f"invalid trainer config ({source}):"]
        for e in err.errors():
            lines.append(f"  {'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}")
        raise TrainConfigError("\n".join(lines)) from None


def read_yaml_mapping(path: Path) -> dict[str, Any]:
    """A YAML file that must hold a mapping (a checkpoint's config.yaml). Tags that would build Python
    objects, bad YAML or bytes, or another top level: TrainConfigError naming the file, one line."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        first = (str(err).splitlines() or [""])[0]
        raise TrainConfigError(f"{path}: not a plain YAML config ({type(err).__name__}: {first})") from None
    if not isinstance(data, dict):
        raise TrainConfigError(f"{path}: not a YAML mapping (got {type(data).__name__})")
    return data


def load_checkpoint_spec(ckpt: Path) -> RunSpec:
    """The RunSpec stored beside a checkpoint (config.yaml), refused in one line naming it when unusable."""
    p = Path(ckpt) / "config.yaml"
    return parse_run_spec(read_yaml_mapping(p), str(p))


def load_run_spec(path: str | Path, train_overrides: dict[str, Any] | None = None) -> RunSpec:
    p = resolve_config_path(path)
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise TrainConfigError(f"invalid YAML in {p}: {err}") from None
    if not isinstance(data, dict):
        raise TrainConfigError(f"trainer config {p} is not a YAML mapping (got {type(data).__name__})")
    if train_overrides:
        if not isinstance(data.setdefault("train", {}), dict):
            raise TrainConfigError(f"trainer config {p}: train is not a mapping")
        data["train"] = {**data["train"], **{k: v for k, v in train_overrides.items() if v is not None}}
    return parse_run_spec(data, str(p))


def dump_run_spec(spec: RunSpec) -> str:
    return yaml.safe_dump(spec.model_dump(mode="json"), sort_keys=False)
