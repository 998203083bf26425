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
    "conversation",
)
# The families a config without `scenarios` draws from. `conversation` (long multi-exchange
# sessions, the `natural` preset) is opt-in, so default outputs stay what they were.
DEFAULT_SCENARIOS: tuple[str, ...] = tuple(s for s in SCENARIOS if s != "conversation")


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


class Dist(_Strict):
    """A sampled distribution (generators/timing.py draws from it), truncated to [lo, hi] when given.

    kind: uniform (lo..hi), normal (mu, sigma), lognormal (median = exp(mu), sigma of the log),
    exgauss (mu, sigma, tau: a normal plus an exponential of mean tau, the shape of human turn
    offsets and backchannel onsets), empirical (inverse CDF through the quantiles `q` taken at
    evenly spaced probabilities 0..1, what `duplexsynth fit-timing` writes).
    """

    kind: Literal["uniform", "normal", "lognormal", "exgauss", "empirical"]
    mu: float = 0.0
    sigma: float = Field(0.0, ge=0.0)
    tau: float = Field(0.0, ge=0.0)
    q: tuple[float, ...] = ()
    lo: float | None = None
    hi: float | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "Dist":
        if self.lo is not None and self.hi is not None and self.hi < self.lo:
            raise ValueError(f"hi ({self.hi}) must be >= lo ({self.lo})")
        if self.kind == "uniform" and (self.lo is None or self.hi is None):
            raise ValueError("a uniform Dist needs lo and hi")
        if self.kind == "empirical":
            if len(self.q) < 2 or any(b < a for a, b in zip(self.q, self.q[1:])):
                raise ValueError("an empirical Dist needs >= 2 non-decreasing quantiles q")
        return self

    def support(self) -> tuple[float, float]:
        """The closed interval every draw lies in."""
        lo, hi = -float("inf"), float("inf")
        if self.kind == "empirical":
            lo, hi = self.q[0], self.q[-1]
        elif self.kind == "lognormal":
            lo = 0.0
        elif self.kind == "exgauss" and self.sigma == 0:
            lo = self.mu
        if self.lo is not None:
            lo = max(lo, self.lo)
        if self.hi is not None:
            hi = min(hi, self.hi)
        return lo, hi


Draw = Range | Dist   # a timing draw: a plain [lo, hi] (uniform) or any Dist


def _support(d: Draw) -> tuple[float, float]:
    return (d.lo, d.hi) if isinstance(d, Range) else d.support()


def _within(name: str, d: Draw, lo: float, hi: float) -> None:
    a, b = _support(d)
    if a < lo - 1e-12 or b > hi + 1e-12:
        raise ValueError(f"{name} must lie within [{lo}, {hi}] (got support [{a}, {b}]; "
                         "give a Dist explicit lo/hi)")


class TimingConfig(_Strict):
    """Timing draws in seconds. Defaults follow human conversation data (DESIGN §1).

    Every field that is a `Range | Dist` takes either `[lo, hi]` (uniform, as before) or a Dist
    mapping such as `{kind: exgauss, mu: -0.05, sigma: 0.25, tau: 0.2, lo: -0.3, hi: 2.0}`.
    The fields below the first block are only read when they are switched on (a probability or a
    gain above 0, or the `conversation` family), so default outputs do not change.
    """

    eot_s: Draw = Range(lo=0.2, hi=0.6)          # silence needed to know the user finished (>= 0.2)
    detect_s: Draw = Range(lo=0.3, hi=0.8)       # overlap heard before an interruption is acted on
    response_lead_s: Draw = Range(lo=0.0, hi=0.35)  # leading silence inside the first speaking window
    user_gap_s: Draw = Range(lo=0.15, hi=0.6)    # assistant end -> next user start (< 0: overlapping start)
    lead_in_s: Draw = Range(lo=0.3, hi=1.2)      # silence before the first user word
    tail_s: Draw = Range(lo=0.5, hi=1.5)         # silence after the last event
    pause_s: Draw = Range(lo=0.8, hi=2.0)        # hesitation pause inside a user turn
    fade_s: Range = Range(lo=0.02, hi=0.05)      # fade-out before an interruption cut
    backchannel_onset: tuple[float, float, float] = (-0.32, 0.18, 0.20)  # ex-Gaussian mu, sigma, tau

    # Silent stretches (Moshi: up to 30 s): the user says nothing for a long while before a turn.
    silence_prob: float = Field(0.0, ge=0.0, le=1.0)
    silence_s: Draw = Range(lo=3.0, hi=30.0)
    # Closed-loop controller (compose._place_user, generators/timing.py): each session draws targets
    # for gap, overlap and pause seconds per minute of dialogue (defaults: around Fisher's); before
    # each user turn the realised figures of the audio placed so far pull the drawn
    # assistant->user offset and hesitation length toward the targets, by `controller_gain` (0: off).
    controller_gain: float = Field(0.0, ge=0.0, le=1.0)
    target_gap_per_min: Draw = Range(lo=3.8, hi=4.8)
    target_overlap_per_min: Draw = Range(lo=3.0, hi=3.9)
    target_pause_per_min: Draw = Range(lo=5.2, hi=6.7)
    # The `conversation` family: session length, backchannel rate, hesitations, interruptions.
    exchanges: tuple[int, int] = (5, 8)
    backchannel_per_min: Draw = Range(lo=4.0, hi=10.0)   # per minute of assistant speech
    hesitation_prob: float = Field(0.3, ge=0.0, le=1.0)   # per user turn
    interrupt_prob: float = Field(0.1, ge=0.0, le=1.0)    # per long assistant turn
    interrupt_at: Draw = Range(lo=0.15, hi=0.55)          # onset, fraction of the planned turn
    long_break_prob: float = Field(0.4, ge=0.0, le=1.0)   # a sentence break voiced as a paragraph (longer) pause
    phrase_break_prob: float = Field(0.0, ge=0.0, le=1.0)  # a comma voiced as a longer pause

    @field_validator("eot_s")
    @classmethod
    def _eot_floor(cls, v: Draw) -> Draw:
        if _support(v)[0] < 0.2:
            raise ValueError("eot_s.lo must be >= 0.2 s (DESIGN §2 rule 2)")
        return v

    @field_validator("detect_s")
    @classmethod
    def _detect(cls, v: Draw) -> Draw:
        _within("detect_s", v, 0.3, 0.8)   # DESIGN §2 rule 3
        return v

    @field_validator("response_lead_s", "lead_in_s", "tail_s", "pause_s", "silence_s", "target_gap_per_min",
                     "target_overlap_per_min", "target_pause_per_min")
    @classmethod
    def _nonnegative(cls, v: Draw) -> Draw:
        if _support(v)[0] < 0:
            raise ValueError("must not go below 0 s (give a Dist lo >= 0)")
        return v

    @field_validator("pause_s")
    @classmethod
    def _pause_positive(cls, v: Draw) -> Draw:
        if _support(v)[0] <= 0:
            raise ValueError("pause_s must stay above 0 s (give a Dist lo > 0)")
        return v

    @field_validator("user_gap_s")
    @classmethod
    def _overlap_bounded(cls, v: Draw) -> Draw:
        if _support(v)[0] < -0.8 or _support(v)[1] == float("inf"):
            raise ValueError("user_gap_s needs a finite hi and lo >= -0.8 s (an overlapping start longer than "
                             "the longest detect_s would be an interruption)")
        return v

    @field_validator("interrupt_at")
    @classmethod
    def _fraction(cls, v: Draw) -> Draw:
        a, b = _support(v)
        if a <= 0 or b >= 1:
            raise ValueError("interrupt_at must lie strictly inside (0, 1)")
        return v

    @field_validator("exchanges")
    @classmethod
    def _exchanges(cls, v: tuple[int, int]) -> tuple[int, int]:
        if not 1 <= v[0] <= v[1]:
            raise ValueError("exchanges must be (lo, hi) with 1 <= lo <= hi")
        return v

    @field_validator("fade_s")
    @classmethod
    def _fade(cls, v: Range) -> Range:
        if v.lo < 0.02 or v.hi > 0.05:
            raise ValueError("fade_s must lie within [0.02, 0.05] s (DESIGN §2 rule 3)")
        return v


class AcousticsConfig(_Strict):
    """User-channel acoustics (pipeline/render.py). Every draw is recorded in meta["acoustics"].

    The microphone hears gain * (room(user speech) + other talkers + echo + noises), scaled down as
    a whole if it would clip. Each noise component has its own SNR, measured over the user's own
    (reverberant) speech; validation regenerates every component from meta and checks each one.
    The first block is what default outputs always had; everything after it is off (probability
    0) unless a config or preset (`natural`) switches it on. Moshi's ranges are in the comments.
    """

    noise_prob: float = Field(0.8, ge=0.0, le=1.0)
    snr_db: Range = Range(lo=5.0, hi=30.0)
    noise_colors: tuple[Literal["white", "pink", "brown"], ...] = ("white", "pink", "brown")
    user_gain_db: Range = Range(lo=-6.0, hi=3.0)

    gain_prob: float = Field(1.0, ge=0.0, le=1.0)          # Moshi: -24..+15 dB with p=0.5
    babble_prob: float = Field(0.0, ge=0.0, le=1.0)        # several background TTS talkers
    babble_snr_db: Range = Range(lo=5.0, hi=25.0)
    babble_talkers: tuple[int, int] = (3, 6)
    hum_prob: float = Field(0.0, ge=0.0, le=1.0)           # mains hum, 50 or 60 Hz with harmonics
    hum_snr_db: Range = Range(lo=15.0, hi=40.0)
    noise_dir: Path | None = None                          # wav/flac files (MUSAN, DNS...), looped and cropped
    noise_file_prob: float = Field(0.0, ge=0.0, le=1.0)
    noise_file_snr_db: Range = Range(lo=0.0, hi=25.0)
    reverb_prob: float = Field(0.0, ge=0.0, le=1.0)        # the user's speech in a room
    reverb_kinds: tuple[Literal["exp", "shoebox", "file"], ...] = ("exp",)
    rt60_s: Range = Range(lo=0.2, hi=0.8)
    drr_db: Range = Range(lo=0.0, hi=12.0)                 # direct-to-reverberant ratio (exp rooms)
    rir_dir: Path | None = None                            # real RIRs (wav/flac) for reverb kind "file"
    echo_prob: float = Field(0.0, ge=0.0, le=1.0)          # Moshi: x U[0, 0.2], U[100, 500] ms
    echo_gain: Range = Range(lo=0.0, hi=0.2)               # amplitude of the direct echo path
    echo_delay_s: Range = Range(lo=0.1, hi=0.5)

    @field_validator("babble_talkers")
    @classmethod
    def _talkers(cls, v: tuple[int, int]) -> tuple[int, int]:
        if not 1 <= v[0] <= v[1] <= 12:
            raise ValueError("babble_talkers must be (lo, hi) with 1 <= lo <= hi <= 12")
        return v

    @field_validator("rt60_s")
    @classmethod
    def _rt60(cls, v: Range) -> Range:
        if v.lo < 0.05 or v.hi > 3.0:
            raise ValueError("rt60_s must lie within [0.05, 3.0] s")
        return v

    @field_validator("echo_gain")
    @classmethod
    def _echo_gain(cls, v: Range) -> Range:
        if v.lo < 0 or v.hi > 1:
            raise ValueError("echo_gain must lie within [0, 1]")
        return v

    @field_validator("echo_delay_s")
    @classmethod
    def _echo_delay(cls, v: Range) -> Range:
        if v.lo < 0 or v.hi > 2:
            raise ValueError("echo_delay_s must lie within [0, 2] s")
        return v

    @field_validator("noise_dir", "rir_dir")
    @classmethod
    def _folder(cls, v: Path | None) -> Path | None:
        if v is not None and not Path(v).is_dir():
            raise ValueError(f"folder not found: {v}")
        return v

    @model_validator(mode="after")
    def _sources(self) -> "AcousticsConfig":
        if self.noise_file_prob > 0 and self.noise_dir is None:
            raise ValueError("noise_file_prob > 0 needs noise_dir")
        if self.reverb_prob > 0 and "file" in self.reverb_kinds and self.rir_dir is None:
            raise ValueError("reverb kind 'file' needs rir_dir")
        if self.reverb_prob > 0 and not self.reverb_kinds:
            raise ValueError("reverb_prob > 0 needs at least one reverb kind")
        return self


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
    scenarios: dict[str, float] = Field(default_factory=lambda: {s: 1.0 for s in DEFAULT_SCENARIOS})
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


PRESET_DIR = Path(__file__).with_name("presets")


def list_presets() -> list[str]:
    """Names of the bundled presets (schemas/presets/NAME.yaml)."""
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))


def load_preset(name: str) -> dict[str, Any]:
    """The mapping of a bundled preset, e.g. `natural` (realistic timing and acoustics)."""
    path = PRESET_DIR / f"{name}.yaml"
    if not path.is_file():
        raise ConfigError(f"unknown preset {name!r}; known: {list_presets()}")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"preset {name}: top level must be a mapping")
    return data


def _deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """`top` over `base`; nested mappings merge key by key (except `scenarios`, which replaces)."""
    out = dict(base)
    for k, v in top.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict) and k != "scenarios":
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def load_config(path: str | Path | None, overrides: dict[str, Any] | None = None,
                preset: str | None = None) -> RunConfig:
    """Resolve a config: preset (if any), then the YAML file over it, then CLI overrides.

    A file given with a preset only needs the fields it changes (e.g. the `timing:` that
    `duplexsynth fit-timing` writes); nested sections merge field by field.
    """
    data: dict[str, Any] = {}
    source = "defaults" if preset is None else f"preset {preset}"
    if preset is not None:
        data = load_preset(preset)
    if path is not None:
        source = str(path) if preset is None else f"preset {preset} + {path}"
        try:
            file_data = yaml.safe_load(Path(path).read_text()) or {}
        except FileNotFoundError:
            raise ConfigError(f"config file not found: {path}") from None
        except yaml.YAMLError as err:
            raise ConfigError(f"invalid YAML in {path}: {err}") from None
        if not isinstance(file_data, dict):
            raise ConfigError(f"invalid config ({path}): top level must be a mapping")
        data = _deep_merge(data, file_data)
    data = {**data, **{k: v for k, v in (overrides or {}).items() if v is not None}}
    return parse_config(data, source)


def dump_config(cfg: RunConfig) -> str:
    """The YAML file form of a resolved config."""
    return yaml.safe_dump(cfg.model_dump(mode="json"), sort_keys=False)
