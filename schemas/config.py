"""Run configuration: one pydantic model tree, loadable from YAML, with errors that name the field."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

SCENARIOS: tuple[str, ...] = (
    "turn_taking",
    "pause",
    "backchannel",
    "interruption_discard",
    "interruption_repair",
    "interruption_park",
    "other_directed",
    "background_speech",
    "delegation",
    "delegation_multi",
    "delegation_cancel",
    "delegation_revise",
    "delegation_failure",
    "proactive_timer",
)


class ConfigError(ValueError):
    """A config that cannot be used; the message names every bad field and why."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Range(_Strict):
    """A closed interval [lo, hi] to draw uniformly from."""

    lo: float
    hi: float

    @model_validator(mode="after")
    def _ordered(self) -> "Range":
        if self.hi < self.lo:
            raise ValueError(f"hi ({self.hi}) must be >= lo ({self.lo})")
        return self

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, v: Any) -> Any:
        if isinstance(v, (list, tuple)) and len(v) == 2:
            return {"lo": v[0], "hi": v[1]}
        return v


class TimingConfig(_Strict):
    """Timing draws in seconds. Defaults follow human conversation data (DESIGN §1)."""

    eot_s: Range = Range(lo=0.2, hi=0.6)          # silence needed to know the user finished (>= 0.2)
    detect_s: Range = Range(lo=0.3, hi=0.8)       # overlap heard before an interruption is acted on
    response_lead_s: Range = Range(lo=0.0, hi=0.35)  # leading silence inside the first speaking window
    user_gap_s: Range = Range(lo=0.15, hi=0.6)    # assistant end -> next user start
    lead_in_s: Range = Range(lo=0.3, hi=1.2)      # silence before the first user word
    tail_s: Range = Range(lo=0.5, hi=1.5)         # silence after the last event
    pause_s: Range = Range(lo=0.8, hi=2.0)        # hesitation pause inside a user turn
    fade_s: Range = Range(lo=0.02, hi=0.05)       # fade-out before an interruption cut
    backchannel_onset: tuple[float, float, float] = (-0.32, 0.18, 0.20)  # ex-Gaussian mu, sigma, tau

    @field_validator("eot_s")
    @classmethod
    def _eot_floor(cls, v: Range) -> Range:
        if v.lo < 0.2:
            raise ValueError("eot_s.lo must be >= 0.2 s (DESIGN §2 rule 2)")
        return v

    @field_validator("fade_s")
    @classmethod
    def _fade(cls, v: Range) -> Range:
        if v.lo < 0.02 or v.hi > 0.05:
            raise ValueError("fade_s must lie within [0.02, 0.05] s (DESIGN §2 rule 3)")
        return v


class AcousticsConfig(_Strict):
    """User-channel acoustics. SNR is drawn per trajectory and measured over active user speech."""

    noise_prob: float = Field(0.8, ge=0.0, le=1.0)
    snr_db: Range = Range(lo=5.0, hi=30.0)
    noise_colors: tuple[Literal["white", "pink", "brown"], ...] = ("white", "pink", "brown")
    user_gain_db: Range = Range(lo=-6.0, hi=3.0)


class ToolConfig(_Strict):
    """One harness capability: lognormal latency and failure probabilities."""

    latency_median_s: float = Field(3.0, gt=0)
    latency_sigma: float = Field(0.5, ge=0)
    latency_max_s: float = Field(25.0, gt=0)
    p_error: float = Field(0.05, ge=0, le=1)
    p_timeout: float = Field(0.03, ge=0, le=1)
    p_partial: float = Field(0.05, ge=0, le=1)

    @model_validator(mode="after")
    def _probabilities(self) -> "ToolConfig":
        if self.p_error + self.p_timeout + self.p_partial > 1:
            raise ValueError("p_error + p_timeout + p_partial must be <= 1")
        return self


DEFAULT_TOOLS: dict[str, ToolConfig] = {
    "calculator": ToolConfig(latency_median_s=0.8, latency_sigma=0.3),
    "unit_convert": ToolConfig(latency_median_s=0.9, latency_sigma=0.3),
    "datetime": ToolConfig(latency_median_s=0.8, latency_sigma=0.3),
    "timer": ToolConfig(latency_median_s=0.5, latency_sigma=0.2, p_error=0.0, p_timeout=0.0, p_partial=0.0),
    "weather": ToolConfig(latency_median_s=2.5, latency_sigma=0.5),
    "lookup": ToolConfig(latency_median_s=2.0, latency_sigma=0.5),
    "search": ToolConfig(latency_median_s=4.0, latency_sigma=0.6),
    "calendar": ToolConfig(latency_median_s=3.0, latency_sigma=0.5),
}


class HarnessConfig(_Strict):
    """The simulated background harness: which tools exist and how they behave."""

    tools: dict[str, ToolConfig] = Field(default_factory=lambda: dict(DEFAULT_TOOLS))
    timeout_s: float = Field(12.0, gt=0)   # a call still running this long is reported as timed out

    @field_validator("tools")
    @classmethod
    def _known(cls, v: dict[str, ToolConfig]) -> dict[str, ToolConfig]:
        unknown = sorted(set(v) - set(DEFAULT_TOOLS))
        if unknown:
            raise ValueError(f"unknown tool(s) {unknown}; known: {sorted(DEFAULT_TOOLS)}")
        return v


class TTSConfig(_Strict):
    backend: Literal["espeak"] = "espeak"
    voices: tuple[str, ...] = ()   # empty: the backend's default voice list


class SpeechTokenizerConfig(_Strict):
    """Path to an official S3 tokenizer ONNX file (speech_tokenizer_v2.onnx / v3). None: no tokens."""

    onnx_path: Path | None = None

    @field_validator("onnx_path")
    @classmethod
    def _exists(cls, v: Path | None) -> Path | None:
        if v is not None and not Path(v).is_file():
            raise ValueError(f"file not found: {v}")
        return v


class RunConfig(_Strict):
    """Everything that decides the bytes of a dataset. Its hash goes in the manifest."""

    seed: int = 0
    num: int = Field(60, ge=1)
    shard_size: int = Field(8, ge=1, le=10_000)
    language: str = "en"
    sample_rate: int = Field(16_000, ge=8_000, le=48_000)
    unit_s: float = Field(1.0, gt=0.0, le=10.0)
    scenarios: dict[str, float] = Field(default_factory=lambda: {s: 1.0 for s in SCENARIOS})
    timing: TimingConfig = TimingConfig()
    acoustics: AcousticsConfig = AcousticsConfig()
    tts: TTSConfig = TTSConfig()
    harness: HarnessConfig = HarnessConfig()
    speech_tokenizer: SpeechTokenizerConfig = SpeechTokenizerConfig()
    flac_compression: int = Field(5, ge=0, le=8)
    max_shard_attempts: int = Field(3, ge=1)
    fail_on: tuple[str, ...] = ()  # test hook: trajectory ids whose rendering must raise

    @field_validator("scenarios")
    @classmethod
    def _known_scenarios(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(v) - set(SCENARIOS))
        if unknown:
            raise ValueError(f"unknown scenario(s) {unknown}; known: {list(SCENARIOS)}")
        if any(w < 0 for w in v.values()):
            raise ValueError("scenario weights must be >= 0")
        if not any(w > 0 for w in v.values()):
            raise ValueError("at least one scenario needs a positive weight")
        return v

    @model_validator(mode="after")
    def _units_fit_tokens(self) -> "RunConfig":
        if abs(self.unit_s * 25 - round(self.unit_s * 25)) > 1e-9:
            raise ValueError("unit_s must be a multiple of 0.04 s so each unit holds whole 25 Hz speech tokens")
        if abs(self.unit_s * self.sample_rate - round(self.unit_s * self.sample_rate)) > 1e-6:
            raise ValueError("unit_s * sample_rate must be a whole number of samples")
        return self

    def config_hash(self) -> str:
        """Stable hash of everything that decides the output bytes."""
        import hashlib
        import json

        blob = json.dumps(self.model_dump(mode="json"), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def _format_errors(err: ValidationError, source: str) -> str:
    lines = [f"invalid config ({source}):"]
    for e in err.errors():
        path = ".".join(str(p) for p in e["loc"]) or "<root>"
        lines.append(f"  {path}: {e['msg']}")
    return "\n".join(lines)


def parse_config(data: dict[str, Any], source: str = "<dict>") -> RunConfig:
    """Validate a mapping into a RunConfig, raising ConfigError that names each bad field."""
    if not isinstance(data, dict):
        raise ConfigError(f"invalid config ({source}): top level must be a mapping, got {type(data).__name__}")
    try:
        return RunConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_format_errors(err, source)) from None


def load_config(path: str | Path | None, overrides: dict[str, Any] | None = None) -> RunConfig:
    """Load a YAML config (or the embedded defaults when path is None) and apply CLI overrides."""
    data: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        source = str(path)
        try:
            data = yaml.safe_load(Path(path).read_text()) or {}
        except FileNotFoundError:
            raise ConfigError(f"config file not found: {path}") from None
        except yaml.YAMLError as err:
            raise ConfigError(f"invalid YAML in {path}: {err}") from None
    data = {**data, **{k: v for k, v in (overrides or {}).items() if v is not None}}
    return parse_config(data, source)


def dump_config(cfg: RunConfig) -> str:
    """The YAML file form of a resolved config."""
    return yaml.safe_dump(cfg.model_dump(mode="json"), sort_keys=False)
