"""Run configuration: one pydantic model tree, loadable from YAML, with errors that name the field."""
from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (BaseModel, ConfigDict, Discriminator, Field, SerializerFunctionWrapHandler, StrictFloat,
                      StrictInt, Tag, ValidationError, field_validator, model_serializer, model_validator)

from schemas.errors import UsageError
from schemas.language import LANGUAGES
from schemas.decode_budget import DECODE_MS_PER_STEP
from schemas.protocol import SPEECH_TOKENS_PER_SECOND
from schemas.scene import DEFAULT_FRAME_SIZE
from schemas.thresholds import (DEFAULT_SAMPLE_RATE, DEFAULT_UNIT_S, DETECT_MAX_S, DETECT_MIN_S, FADE_MAX_S, FADE_MIN_S,
                                MAX_UNIT_S, MIN_EOT_S, MIN_UNIT_S, SUPPORTED_SAMPLE_RATES)
from schemas.twins import TwinKind
from schemas.vocab import SCENARIOS, Scenario

# The families a config without `scenarios` draws from. `conversation` (long multi-exchange
# sessions, the `natural` preset) is opt-in, so default outputs stay what they were.
# The Omni families (frames, visual events) are opt-in too: audio-only defaults stay audio-only.
OMNI_SCENARIOS: tuple[str, ...] = (Scenario.VISUAL_QA, Scenario.VISUAL_WATCH, Scenario.VISUAL_CHANGE,
                                   Scenario.VISUAL_INTERRUPTION, Scenario.VISUAL_DELEGATION)
DEFAULT_SCENARIOS: tuple[str, ...] = tuple(s for s in SCENARIOS if s != Scenario.CONVERSATION and s not in OMNI_SCENARIOS)


# The languages with a `schemas.language.Language` (each has a bank in generators/banks/<code>/);
# `language` (or every key of `languages`) must be one of them.
SUPPORTED_LANGUAGES: tuple[str, ...] = tuple(LANGUAGES)
MIN_UNIT_S_LONG_BREAKS = 0.84
MAX_NUM = 100_000_000            # trajectories in one run
MAX_SEED = 2**63 - 1             # run seeds are stored as int64
MAX_DRAW_S = 60.0                # the longest silence any timing draw may make (Moshi: silent stretches to 30 s)
MAX_PER_MIN = 60.0               # rates per minute (seconds per minute of dialogue, backchannels per minute)
MAX_EXCHANGES = 40               # exchanges in one `conversation` session
MAX_ONSET_PARAM_S = 5.0          # |mu|, sigma, tau of backchannel_onset
SNR_DB_MIN, SNR_DB_MAX = -30.0, 60.0
GAIN_DB_MIN, GAIN_DB_MAX = -40.0, 40.0
DRR_DB_MIN, DRR_DB_MAX = -20.0, 40.0
_DB_BOUNDS: dict[str, tuple[float, float]] = {
    "snr_db": (SNR_DB_MIN, SNR_DB_MAX), "babble_snr_db": (SNR_DB_MIN, SNR_DB_MAX),
    "hum_snr_db": (SNR_DB_MIN, SNR_DB_MAX), "noise_file_snr_db": (SNR_DB_MIN, SNR_DB_MAX),
    "user_gain_db": (GAIN_DB_MIN, GAIN_DB_MAX), "drr_db": (DRR_DB_MIN, DRR_DB_MAX),
}
MAX_LATENCY_S = 120.0            # harness latencies and timeout: a simulated call longer than this is not a call
MAX_LATENCY_SIGMA = 5.0
MAX_SHARD_ATTEMPTS = 20
MAX_SCENARIO_WEIGHT = 1e6
MIN_FRAME_SIZE, MAX_FRAME_SIZE = 64, 1024   # pixels; SigLIP2 runs at 224..512

Num = StrictFloat   # a number: int or float, never a bool or a string
Int = StrictInt     # a whole number, never a bool, float or string


class ConfigError(UsageError, ValueError):
    """A config that cannot be used; the message names every bad field and why."""


class _Strict(BaseModel):
    # allow_inf_nan=False: NaN and +-inf pass every comparison-based bound and fail in the workers.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Range(_Strict):
    """A closed interval [lo, hi] to draw uniformly from."""

    lo: Num
    hi: Num

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
    mu: Num = 0.0
    sigma: Num = Field(0.0, ge=0.0)
    tau: Num = Field(0.0, ge=0.0)
    q: tuple[Num, ...] = ()
    lo: Num | None = None
    hi: Num | None = None

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


def _draw_kind(v: Any) -> str:
    """Which model a timing draw is: a mapping with `kind` is a Dist, anything else a Range."""
    if isinstance(v, (Range, Dist)):
        return "dist" if isinstance(v, Dist) else "range"
    return "dist" if isinstance(v, dict) and "kind" in v else "range"


# A timing draw: a plain [lo, hi] (uniform) or any Dist. The discriminator gives one error per bad
# field (the branch the value was meant for), not one per union member.
Draw = Annotated[Annotated[Range, Tag("range")] | Annotated[Dist, Tag("dist")], Discriminator(_draw_kind)]


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
    Every duration draw must lie within [its floor, MAX_DRAW_S] (an unbounded Dist needs `hi`), and
    every rate within [0, MAX_PER_MIN]: they size the audio of a trajectory.
    """

    eot_s: Draw = Range(lo=MIN_EOT_S, hi=0.6)    # silence needed to know the user finished (>= MIN_EOT_S)
    detect_s: Draw = Range(lo=DETECT_MIN_S, hi=DETECT_MAX_S)   # overlap heard before an interruption is acted on
    response_lead_s: Draw = Range(lo=0.0, hi=0.35)  # leading silence inside the first speaking window
    user_gap_s: Draw = Range(lo=0.15, hi=0.6)    # assistant end -> next user start (< 0: overlapping start)
    lead_in_s: Draw = Range(lo=0.3, hi=1.2)      # silence before the first user word
    tail_s: Draw = Range(lo=0.5, hi=1.5)         # silence after the last event
    pause_s: Draw = Range(lo=0.8, hi=2.0)        # hesitation pause inside a user turn
    fade_s: Range = Range(lo=FADE_MIN_S, hi=FADE_MAX_S)   # fade-out after an interruption cut (rule 3)
    backchannel_onset: tuple[Num, Num, Num] = (-0.32, 0.18, 0.20)  # ex-Gaussian mu, sigma, tau

    # Silent stretches (Moshi: up to 30 s): the user says nothing for a long while before a turn.
    silence_prob: Num = Field(0.0, ge=0.0, le=1.0)
    silence_s: Draw = Range(lo=3.0, hi=30.0)
    # Closed-loop controller (compose._place_user, generators/timing.py): each session draws targets
    # for gap, overlap and pause seconds per minute of dialogue (defaults: around Fisher's); before
    # each user turn the realised figures of the audio placed so far pull the drawn
    # assistant->user offset and hesitation length toward the targets, by `controller_gain` (0: off).
    controller_gain: Num = Field(0.0, ge=0.0, le=1.0)
    target_gap_per_min: Draw = Range(lo=3.8, hi=4.8)
    target_overlap_per_min: Draw = Range(lo=3.0, hi=3.9)
    target_pause_per_min: Draw = Range(lo=5.2, hi=6.7)
    # The `conversation` family: session length, backchannel rate, hesitations, interruptions.
    exchanges: tuple[Int, Int] = (5, 8)
    backchannel_per_min: Draw = Range(lo=4.0, hi=10.0)   # per minute of assistant speech
    hesitation_prob: Num = Field(0.3, ge=0.0, le=1.0)   # per user turn
    interrupt_prob: Num = Field(0.1, ge=0.0, le=1.0)    # per long assistant turn
    interrupt_at: Draw = Range(lo=0.15, hi=0.55)          # onset, fraction of the planned turn
    long_break_prob: Num = Field(0.4, ge=0.0, le=1.0)   # a sentence break voiced as a paragraph (longer) pause
    phrase_break_prob: Num = Field(0.0, ge=0.0, le=1.0)  # a comma voiced as a longer pause

    @field_validator("eot_s")
    @classmethod
    def _eot_floor(cls, v: Draw) -> Draw:
        if _support(v)[0] < MIN_EOT_S:
            raise ValueError(f"eot_s.lo must be >= {MIN_EOT_S} s (DESIGN §2 rule 2)")
        _within("eot_s", v, MIN_EOT_S, MAX_DRAW_S)
        return v

    @field_validator("detect_s")
    @classmethod
    def _detect(cls, v: Draw) -> Draw:
        _within("detect_s", v, DETECT_MIN_S, DETECT_MAX_S)   # DESIGN §2 rule 3
        return v

    @field_validator("response_lead_s", "lead_in_s", "tail_s", "pause_s", "silence_s")
    @classmethod
    def _duration(cls, v: Draw, info: Any) -> Draw:
        if _support(v)[0] < 0:
            raise ValueError("must not go below 0 s (give a Dist lo >= 0)")
        _within(info.field_name, v, 0.0, MAX_DRAW_S)
        return v

    @field_validator("target_gap_per_min", "target_overlap_per_min", "target_pause_per_min", "backchannel_per_min")
    @classmethod
    def _rate(cls, v: Draw, info: Any) -> Draw:
        if _support(v)[0] < 0:
            raise ValueError("must not go below 0 (give a Dist lo >= 0)")
        _within(info.field_name, v, 0.0, MAX_PER_MIN)
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
        _within("user_gap_s", v, -0.8, MAX_DRAW_S)
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
        if not 1 <= v[0] <= v[1] <= MAX_EXCHANGES:
            raise ValueError(f"exchanges must be [lo, hi] with 1 <= lo <= hi <= {MAX_EXCHANGES} "
                             f"(exchanges per session), got {list(v)}")
        return v

    @field_validator("backchannel_onset")
    @classmethod
    def _onset(cls, v: tuple[float, float, float]) -> tuple[float, float, float]:
        mu, sigma, tau = v
        m = MAX_ONSET_PARAM_S
        if not (abs(mu) <= m and 0 <= sigma <= m and 0 <= tau <= m):
            raise ValueError(f"backchannel_onset is [mu, sigma, tau] in seconds with |mu| <= {m}, "
                             f"0 <= sigma <= {m}, 0 <= tau <= {m}; got {list(v)}")
        return v

    @field_validator("fade_s")
    @classmethod
    def _fade(cls, v: Range) -> Range:
        if v.lo < FADE_MIN_S or v.hi > FADE_MAX_S:
            raise ValueError(f"fade_s must lie within [{FADE_MIN_S}, {FADE_MAX_S}] s (DESIGN §2 rule 3)")
        return v


class AcousticsConfig(_Strict):
    """User-channel acoustics (pipeline/scene.py). Every draw is recorded in the row's mic scene
    (meta["timeline"]["mic"], schemas/timeline.MicScene).

    The microphone hears gain * (room(user speech) + other talkers + echo + noises), scaled down as
    a whole if it would clip. Each noise component has its own SNR, measured over the user's own
    (reverberant) speech; validation regenerates every component from the scene and checks each one.
    The first block is what default outputs always had; everything after it is off (probability
    0) unless a config or preset (`natural`) switches it on. Moshi's ranges are in the comments.
    SNRs lie within [SNR_DB_MIN, SNR_DB_MAX] dB; whether noise_dir / rir_dir hold audio is checked
    by jobs.shards.preflight (it reads the folders, so not on every validation in a worker).
    """

    noise_prob: Num = Field(0.8, ge=0.0, le=1.0)
    snr_db: Range = Range(lo=5.0, hi=30.0)
    noise_colors: tuple[Literal["white", "pink", "brown"], ...] = ("white", "pink", "brown")
    user_gain_db: Range = Range(lo=-6.0, hi=3.0)

    gain_prob: Num = Field(1.0, ge=0.0, le=1.0)          # Moshi: -24..+15 dB with p=0.5
    babble_prob: Num = Field(0.0, ge=0.0, le=1.0)        # several background TTS talkers
    babble_snr_db: Range = Range(lo=5.0, hi=25.0)
    babble_talkers: tuple[Int, Int] = (3, 6)
    hum_prob: Num = Field(0.0, ge=0.0, le=1.0)           # mains hum, 50 or 60 Hz with harmonics
    hum_snr_db: Range = Range(lo=15.0, hi=40.0)
    noise_dir: Path | None = None                          # wav/flac files (MUSAN, DNS...), looped and cropped
    noise_file_prob: Num = Field(0.0, ge=0.0, le=1.0)
    noise_file_snr_db: Range = Range(lo=0.0, hi=25.0)
    reverb_prob: Num = Field(0.0, ge=0.0, le=1.0)        # the user's speech in a room
    reverb_kinds: tuple[Literal["exp", "shoebox", "file"], ...] = ("exp",)
    rt60_s: Range = Range(lo=0.2, hi=0.8)
    drr_db: Range = Range(lo=0.0, hi=12.0)                 # direct-to-reverberant ratio (exp rooms)
    rir_dir: Path | None = None                            # real RIRs (wav/flac) for reverb kind "file"
    echo_prob: Num = Field(0.0, ge=0.0, le=1.0)          # Moshi: x U[0, 0.2], U[100, 500] ms
    echo_gain: Range = Range(lo=0.0, hi=0.2)               # amplitude of the direct echo path
    echo_delay_s: Range = Range(lo=0.1, hi=0.5)

    @field_validator("snr_db", "babble_snr_db", "hum_snr_db", "noise_file_snr_db", "user_gain_db", "drr_db")
    @classmethod
    def _decibels(cls, v: Range, info: Any) -> Range:
        lo, hi = _DB_BOUNDS[info.field_name]
        if v.lo < lo or v.hi > hi:
            raise ValueError(f"{info.field_name} must lie within [{lo:g}, {hi:g}] dB (got [{v.lo:g}, {v.hi:g}])")
        return v

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
        if self.noise_prob > 0 and not self.noise_colors:
            raise ValueError("noise_colors is empty but noise_prob > 0: list at least one of white, pink, brown, "
                             "or set noise_prob: 0")
        if self.noise_file_prob > 0 and self.noise_dir is None:
            raise ValueError("noise_file_prob > 0 needs noise_dir")
        if self.reverb_prob > 0 and "file" in self.reverb_kinds and self.rir_dir is None:
            raise ValueError("reverb kind 'file' needs rir_dir")
        if self.reverb_prob > 0 and not self.reverb_kinds:
            raise ValueError("reverb_prob > 0 needs at least one reverb kind")
        return self


class ToolConfig(_Strict):
    """One harness capability: lognormal latency and failure probabilities."""

    latency_median_s: Num = Field(3.0, gt=0, le=MAX_LATENCY_S)
    latency_sigma: Num = Field(0.5, ge=0, le=MAX_LATENCY_SIGMA)
    latency_max_s: Num = Field(25.0, gt=0, le=MAX_LATENCY_S)
    p_error: Num = Field(0.05, ge=0, le=1)
    p_timeout: Num = Field(0.03, ge=0, le=1)
    p_partial: Num = Field(0.05, ge=0, le=1)

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
    timeout_s: Num = Field(12.0, gt=0, le=MAX_LATENCY_S)   # a call still running this long is reported as timed out

    @field_validator("tools")
    @classmethod
    def _known(cls, v: dict[str, ToolConfig]) -> dict[str, ToolConfig]:
        unknown = sorted(set(v) - set(DEFAULT_TOOLS))
        if unknown:
            raise ValueError(f"unknown tool(s) {unknown}; known: {sorted(DEFAULT_TOOLS)}")
        return v


class TTSConfig(_Strict):
    backend: Literal["espeak"] = "espeak"


# Casts of the voice bank (generators/voice_bank.yaml `casts:`) that code names: the default, and
# the espeak-ng formant voices (fast; what runs spoke with before the natural default, drawn as then).
DEFAULT_CAST = "natural"
ESPEAK_CAST = "espeak"
COSYVOICE_BATCH_SIZE = 16   # CosyVoice lines per actor call (one round trip; spread over the actors)


class CosyVoiceConfig(_Strict):
    """A local CosyVoice 2 model folder (never downloaded) whose `prompts/<speaker>.wav` + `.txt`
    join the voice bank as `cosyvoice:<speaker>` (zero-shot clones). `speed` 1.0 keeps the
    assistant's speech tokens native (the ones CosyVoice's LLM generated); another speed
    time-stretches the audio, so its tokens must be retokenized (`speech_tokenizer.onnx_path`).
    `actors`: long-lived model processes (one model load each; on a machine with fewer GPUs than
    actors they share them). `batch_size`: lines a shard task sends per actor call, gathered
    across its trajectories before composition (each line keeps its own seed, so the bytes do
    not depend on it: it is left out of the config hash, and out of the dump at its default).
    `instruct`: CosyVoice 2's instruct mode ("speak cheerfully"), for model folders that have it
    (checked before a run); None (left out of the dump) speaks zero-shot clones."""

    model_dir: Path
    speed: Num = Field(1.0, ge=0.5, le=2.0)
    actors: Int = Field(1, ge=1, le=64)
    batch_size: Int = Field(COSYVOICE_BATCH_SIZE, ge=1, le=1024)
    instruct: str | None = Field(None, min_length=1, max_length=500)

    @field_validator("model_dir")
    @classmethod
    def _has_prompts(cls, v: Path) -> Path:
        if not Path(v).is_dir():
            raise ValueError(f"folder not found: {v} (a CosyVoice model folder is never downloaded)")
        if not (Path(v) / "prompts").is_dir():
            raise ValueError(f"{v} has no prompts/ folder (prompts/<speaker>.wav + .txt are its voices)")
        return v

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if self.batch_size == COSYVOICE_BATCH_SIZE:
            out.pop("batch_size", None)
        if self.instruct is None:
            out.pop("instruct", None)
        return out


ALIGNER_FILES = ("config.json", "vocab.json")   # a transformers CTC model folder's config and characters
ALIGNER_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


class AlignerConfig(_Strict):
    """A local CTC model folder (wav2vec2 / MMS through transformers; never downloaded) that force-aligns
    CosyVoice lines for their word timings (recorded as the aligner's); engines that report their
    own phoneme or word events keep them."""

    kind: Literal["ctc"] = "ctc"
    model_dir: Path

    @field_validator("model_dir")
    @classmethod
    def _is_ctc_folder(cls, v: Path) -> Path:
        if not Path(v).is_dir():
            raise ValueError(f"folder not found: {v} (an aligner model folder is never downloaded)")
        missing = [f for f in ALIGNER_FILES if not (Path(v) / f).is_file()]
        if not any((Path(v) / f).is_file() for f in ALIGNER_WEIGHTS):
            missing.append(" or ".join(ALIGNER_WEIGHTS))
        if missing:
            raise ValueError(f"{v} lacks {', '.join(missing)} (a transformers Wav2Vec2ForCTC folder)")
        return v


class VoicesConfig(_Strict):
    """Which voices of the voice bank (generators/voice_bank.yaml; `duplexsynth voices`) speak a run.

    `cast`: a named choice of voices per language from the bank's `casts:` (`natural`, the default:
    recorded-speech English voices, espeak-ng `cmn` for Mandarin; `espeak`: espeak-ng formant voices
    only, hundreds of times faster). Ids are `VoiceSpec.name`s of the bank. `assistant`: the one
    voice the assistant keeps for the whole dataset in the languages it speaks (a deployed assistant
    has one voice); None keeps the cast's. `people`: {id: weight} for users, the people they talk to
    and background talkers, drawn from each trajectory's own seed; a language none of whose voices
    is named keeps the cast's people. `piper_dirs`: folders of Piper voices (`<name>.onnx` +
    `<name>.onnx.json`), which join the bank as `piper:<name>` (`#<speaker>` for multi-speaker models).
    `cosyvoice`: a local CosyVoice 2 model folder whose prompts join the bank as `cosyvoice:<speaker>`.
    `aligner`: a CTC model folder timing CosyVoice's words. A default `cast` and an unset
    `cosyvoice` or `aligner` are left out of the dump, so configs hash as before them.
    """

    cast: str = Field(DEFAULT_CAST, min_length=1)
    assistant: str | None = None
    people: dict[str, Annotated[Num, Field(ge=0.0, le=MAX_SCENARIO_WEIGHT)]] | None = None
    piper_dirs: list[Path] = Field(default_factory=list)
    cosyvoice: CosyVoiceConfig | None = None
    aligner: AlignerConfig | None = None

    @field_validator("cast")
    @classmethod
    def _cast_is_a_name(cls, v: str) -> str:
        from schemas.trajectory import safe_name

        return safe_name(v, "cast")

    @field_validator("people")
    @classmethod
    def _some_weight(cls, v: dict[str, float] | None) -> dict[str, float] | None:
        if v is not None and not any(w > 0 for w in v.values()):
            raise ValueError("at least one voice needs a positive weight")
        return v

    @field_validator("piper_dirs")
    @classmethod
    def _dirs_exist(cls, v: list[Path]) -> list[Path]:
        missing = [str(d) for d in v if not Path(d).is_dir()]
        if missing:
            raise ValueError(f"folder(s) not found: {', '.join(missing)}")
        return v

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if self.cast == DEFAULT_CAST:
            out.pop("cast", None)
        if self.cosyvoice is None:
            out.pop("cosyvoice", None)
        if self.aligner is None:
            out.pop("aligner", None)
        return out

    @model_validator(mode="after")
    def _aligner_needs_cosyvoice(self) -> "VoicesConfig":
        if self.aligner is not None and self.cosyvoice is None:
            raise ValueError("aligner times CosyVoice voices only (the other engines time words from their "
                             "own events): set voices.cosyvoice too, or drop voices.aligner")
        return self


class VisionConfig(_Strict):
    """Omni frames (pipeline/frames.py): square JPEGs of `frame_size` pixels, one per unit."""

    frame_size: Int = Field(DEFAULT_FRAME_SIZE, ge=MIN_FRAME_SIZE, le=MAX_FRAME_SIZE)


# Scene sources (issue #15 item 2): where an Omni trajectory's frames come from. `procedural` draws and
# renders a scene (generators/scenes/planner.py, pipeline/frames.py); `video` takes a segment of an
# annotated video file (generators/scenes/video.py) and decodes it at one frame per unit (pipeline/video.py).
VIDEO_KIND = "video"
SCENE_SOURCE_KINDS: tuple[str, ...] = ("procedural", VIDEO_KIND)
class SceneSourceConfig(_Strict):
    """`video`: `path` is a folder of video files and `annotations` a JSONL file of their visual events
    (README "Real video"). `videos_sha256` is the fingerprint of the annotations and of every video they
    name (generators/scenes/video.videos_fingerprint): `generate` pins it into the run's config, so into
    its hash, as it pins a corpus's `corpus_sha256`; given in a config, the files must still match it.
    The default (procedural) is left out of the dump, so configs hash as before the key existed."""

    kind: Literal["procedural", "video"] = "procedural"
    path: Path | None = None
    annotations: Path | None = None
    videos_sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")

    @field_validator("path")
    @classmethod
    def _folder(cls, v: Path | None) -> Path | None:
        if v is not None and not Path(v).is_dir():
            raise ValueError(f"video folder not found: {v}")
        return v

    @field_validator("annotations")
    @classmethod
    def _file(cls, v: Path | None) -> Path | None:
        if v is not None and not Path(v).is_file():
            raise ValueError(f"annotation file not found: {v}")
        return v

    @model_validator(mode="after")
    def _fields_of_kind(self) -> "SceneSourceConfig":
        given = [f for f in ("path", "annotations", "videos_sha256") if getattr(self, f) is not None]
        if self.kind == VIDEO_KIND:
            missing = [f for f in ("path", "annotations") if getattr(self, f) is None]
            if missing:
                raise ValueError(f"{missing[0]} is required with kind video")
        elif given:
            raise ValueError(f"{given[0]} is only for kind video (kind is {self.kind})")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        return {k: v for k, v in out.items() if v is not None}


class SpeechTokenizerConfig(_Strict):
    """Path to an official S3 tokenizer ONNX file (speech_tokenizer_v2.onnx / v3). None: no tokens."""

    onnx_path: Path | None = None

    @field_validator("onnx_path")
    @classmethod
    def _exists(cls, v: Path | None) -> Path | None:
        if v is not None and not Path(v).is_file():
            raise ValueError(f"file not found: {v}")
        return v


# Script sources (DESIGN §6, issue #14): where a trajectory's words come from. The procedural planners
# over the text banks are the default; `llm` asks an OpenAI-compatible chat-completions endpoint;
# `corpus` reads the exchanges of a local dialogue corpus (generators/corpus).
PROCEDURAL_KIND = "procedural"
LLM_KIND = "llm"
CORPUS_KIND = "corpus"
SCRIPT_SOURCE_KINDS: tuple[str, ...] = (PROCEDURAL_KIND, LLM_KIND, CORPUS_KIND)
# The fields only an `llm` source takes (a procedural source refuses them, so a typo is not ignored).
LLM_SOURCE_FIELDS: tuple[str, ...] = ("base_url", "model", "api_key_env", "temperature", "max_tokens", "timeout_s",
                                      "max_retries", "max_http_retries", "backoff_s", "structured_output",
                                      "max_concurrency")
# The fields only a `corpus` source takes (refused with any other kind, as the llm fields are).
CORPUS_SOURCE_FIELDS: tuple[str, ...] = ("path", "max_exchanges", "max_sentences", "corpus_sha256", "llm")
# Fields that decide no byte of the output: left out of the config hash, so a resume may change them.
UNHASHED_SOURCE_FIELDS: tuple[str, ...] = ("max_concurrency",)
MAX_LLM_TOKENS = 32_768
MAX_LLM_TIMEOUT_S = 600.0
MAX_LLM_RETRIES = 10
MAX_LLM_CONCURRENCY = 10_000
# Scripts one shard task writes at once (its LLM requests in flight): `max_concurrency` when it sets a
# job-wide bound (a single task may then use every permit), else LLM_SHARD_THREADS; never above
# MAX_LLM_SHARD_THREADS or the shard's trajectories. It decides no byte: scripts are taken in order.
LLM_SHARD_THREADS = 8
MAX_LLM_SHARD_THREADS = 32


class ScriptSourceConfig(_Strict):
    """Where scripts come from. `llm`: `base_url` (…/v1) and `model` of the endpoint; `api_key_env` names
    the environment variable holding the key (the key itself is read at call time and never stored in
    config, manifest, rows or cache). `max_retries`: re-asks after an invalid reply, the error fed back;
    `max_http_retries`: retries of a 429 / 5xx / timeout, with exponential backoff from `backoff_s`.
    `structured_output`: `auto` asks for response_format json_schema and falls back to parse-and-repair
    when the server refuses it; `json_schema` insists; `off` never asks for it.

    `max_concurrency`: LLM requests in flight at once across every shard task of a job (a Ray actor in
    jobs/ holds the permits; 0: no bound beyond LLM_SHARD_THREADS requests per running shard task). It decides no
    byte of the output, so it is left out of the config hash and a resume may change it.

    `corpus`: `path` is a .jsonl / .parquet file (OpenAI `messages` or ShareGPT `conversations` rows)
    or a folder saved by `datasets` (save_to_disk). At most `max_exchanges` user/assistant exchanges
    of a conversation and `max_sentences` sentences of an answer are spoken; an answer cut short
    ends the session there (the corpus's next user turn answered words never said). `corpus_sha256`
    is the corpus's content fingerprint (generators/corpus/read.corpus_fingerprint): `generate` pins
    it into the run's config (so into its hash), so a corpus changed at the same path is refused on
    resume instead of mixing old and new rows; given in a config, the corpus must still match it.

    `llm` (corpus only): an llm source (its fields as above; `kind: llm` may be left out) that writes
    what a corpus record lacks: the user's correction and the repaired answer of an
    `interruption_repair` over the record's first answer. Without it a corpus run refuses that family.

    `weight`: only in an entry of `RunConfig.script_sources`, the share of trajectories it writes."""

    kind: Literal["procedural", "llm", "corpus"] = "procedural"
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    temperature: Num = Field(0.7, ge=0.0, le=2.0)
    max_tokens: Int = Field(1024, ge=16, le=MAX_LLM_TOKENS)
    timeout_s: Num = Field(60.0, gt=0.0, le=MAX_LLM_TIMEOUT_S)
    max_retries: Int = Field(2, ge=0, le=MAX_LLM_RETRIES)
    max_http_retries: Int = Field(3, ge=0, le=MAX_LLM_RETRIES)
    backoff_s: Num = Field(1.0, ge=0.0, le=60.0)
    structured_output: Literal["auto", "json_schema", "off"] = "auto"
    max_concurrency: Int = Field(0, ge=0, le=MAX_LLM_CONCURRENCY)
    path: Path | None = None
    max_exchanges: Int = Field(3, ge=1, le=100)
    max_sentences: Int = Field(6, ge=1, le=100)
    corpus_sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")
    llm: "ScriptSourceConfig | None" = None
    weight: Num = Field(1.0, gt=0.0, le=MAX_SCENARIO_WEIGHT)

    @field_validator("path")
    @classmethod
    def _corpus_exists(cls, v: Path | None) -> Path | None:
        if v is not None and not Path(v).exists():
            raise ValueError(f"corpus not found: {v}")
        return v

    @field_validator("llm", mode="before")
    @classmethod
    def _llm_kind(cls, v: Any) -> Any:
        if isinstance(v, dict) and "kind" not in v:
            return {**v, "kind": LLM_KIND}
        return v

    @field_validator("llm")
    @classmethod
    def _llm_is_llm(cls, v: "ScriptSourceConfig | None") -> "ScriptSourceConfig | None":
        if v is not None and (v.kind != LLM_KIND or v.weight != 1.0):
            raise ValueError("must be an llm source (base_url, model, ...; no kind other than llm, no weight)")
        return v

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, v: str | None) -> str | None:
        if v is not None and not v.startswith(("http://", "https://")):
            raise ValueError(f"must be an http:// or https:// URL (the endpoint's /v1), got {v!r}")
        return v.rstrip("/") if v is not None else v

    @field_validator("model")
    @classmethod
    def _model_named(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError("must name the endpoint's model id")
        return v

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None) -> str | None:
        import re
        if v is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v):
            raise ValueError("must be the name of an environment variable (e.g. OPENAI_API_KEY), never the key itself")
        return v

    @model_validator(mode="after")
    def _fields_of_kind(self) -> "ScriptSourceConfig":
        if self.kind == "llm":
            missing = [f for f in ("base_url", "model") if getattr(self, f) is None]
            if missing:
                raise ValueError(f"{missing[0]} is required with kind llm")
        if self.kind == CORPUS_KIND and self.path is None:
            raise ValueError("path is required with kind corpus (a .jsonl / .parquet file or a saved datasets folder)")
        default = ScriptSourceConfig.model_construct()
        for owner, fields in (("llm", LLM_SOURCE_FIELDS), (CORPUS_KIND, CORPUS_SOURCE_FIELDS)):
            given = [f for f in fields if getattr(self, f) != getattr(default, f)]
            if given and self.kind != owner:
                raise ValueError(f"{given[0]} is only for kind {owner} (kind is {self.kind})")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Only the fields of its kind: an llm or procedural source dumps (and hashes) as before corpus
        fields existed, and a corpus source does not carry the llm defaults."""
        out: dict[str, Any] = handler(self)
        for owner, fields in (("llm", LLM_SOURCE_FIELDS), (CORPUS_KIND, CORPUS_SOURCE_FIELDS)):
            if self.kind != owner:
                for f in fields:
                    out.pop(f, None)
        for f, default in (("max_concurrency", 0), ("corpus_sha256", None), ("llm", None), ("weight", 1.0)):
            if out.get(f, default) == default:   # unset: dumps (and hashes) as before the field existed
                out.pop(f, None)
        return out


class TwinsConfig(_Strict):
    """Contrastive twins (schemas/twins.py): for a `share` of the trajectories whose family allows one of
    `kinds`, also render a partner that differs in one overlap. share 0 (the default): no twins, and the
    config dumps and hashes as before twins existed."""

    share: Num = Field(0.0, ge=0.0, le=1.0)
    kinds: list[TwinKind] = Field(default_factory=lambda: list(TwinKind), min_length=1)


class DecodeBudgetConfig(_Strict):
    """The model's decode rate a delegate request is budgeted at (schemas/decode_budget.py): a request
    too long to write beside a unit's speech at this rate is issued in a listening unit. The default
    (the MiniCPM-o SDK's 15 ms per step) is left out of the dump, so configs hash as before the key."""

    ms_per_step: Num = Field(DECODE_MS_PER_STEP, gt=0, le=1000)


class RunConfig(_Strict):
    """Everything that decides the bytes of a dataset. Its hash goes in the manifest.

    Checks that need files beyond an is-file / is-folder test (the tokenizer ONNX signature, audio
    inside noise_dir / rir_dir) are in jobs.shards.preflight, run once before any worker starts.
    """

    seed: Int = Field(0, ge=0, le=MAX_SEED)
    num: Int = Field(60, ge=1, le=MAX_NUM)
    shard_size: Int = Field(8, ge=1, le=10_000)
    language: str = "en"
    # a weighted mix of languages instead of `language`: each trajectory draws its own from its seed
    languages: dict[str, Annotated[Num, Field(ge=0.0, le=MAX_SCENARIO_WEIGHT)]] | None = None
    sample_rate: Int = DEFAULT_SAMPLE_RATE
    unit_s: Num = Field(DEFAULT_UNIT_S, le=MAX_UNIT_S)
    scenarios: dict[str, Annotated[Num, Field(ge=0.0, le=MAX_SCENARIO_WEIGHT)]] = Field(
        default_factory=lambda: {s: 1.0 for s in DEFAULT_SCENARIOS})
    timing: TimingConfig = TimingConfig()
    acoustics: AcousticsConfig = AcousticsConfig()
    tts: TTSConfig = TTSConfig()
    voices: VoicesConfig = VoicesConfig()
    harness: HarnessConfig = HarnessConfig()
    speech_tokenizer: SpeechTokenizerConfig = SpeechTokenizerConfig()
    script_source: ScriptSourceConfig = ScriptSourceConfig()
    # a weighted mix of script sources instead of `script_source`: each trajectory draws its own from its seed
    script_sources: list[ScriptSourceConfig] | None = Field(None, min_length=1, max_length=16)
    vision: VisionConfig = VisionConfig()
    scene_source: SceneSourceConfig = SceneSourceConfig()
    flac_compression: Int = Field(5, ge=0, le=8)
    max_shard_attempts: Int = Field(3, ge=1, le=MAX_SHARD_ATTEMPTS)
    twins: TwinsConfig = TwinsConfig()
    decode_budget: DecodeBudgetConfig = DecodeBudgetConfig()

    @model_validator(mode="before")
    @classmethod
    def _one_language_field(cls, data: Any) -> Any:
        if isinstance(data, dict) and "language" in data and data.get("languages") is not None:
            raise ValueError("language and languages: give one language (language: zh) or a weighted mix "
                             "(languages: {en: 0.5, zh: 0.5}), not both")
        if isinstance(data, dict) and "script_source" in data and data.get("script_sources") is not None:
            raise ValueError("script_source and script_sources: give one source (script_source: {kind: llm, ...}) "
                             "or a weighted mix (script_sources: [{kind: procedural, weight: 0.5}, "
                             "{kind: llm, weight: 0.5, ...}]), not both")
        return data

    @model_validator(mode="after")
    def _weights_in_a_mix(self) -> "RunConfig":
        if self.script_source.weight != 1.0:
            raise ValueError("script_source.weight: a weight is only for an entry of script_sources (a mix)")
        return self

    def source_entries(self) -> list[ScriptSourceConfig]:
        """The run's script sources: `script_sources` (a mix), or the one `script_source`."""
        return list(self.script_sources) if self.script_sources is not None else [self.script_source]

    @field_validator("language")
    @classmethod
    def _language(cls, v: str) -> str:
        if v not in SUPPORTED_LANGUAGES:
            raise ValueError(f"language {v!r} is not supported (the text banks are written in "
                             f"{list(SUPPORTED_LANGUAGES)}); supported: {list(SUPPORTED_LANGUAGES)}")
        return v

    @field_validator("languages")
    @classmethod
    def _languages(cls, v: dict[str, float] | None) -> dict[str, float] | None:
        if v is None:
            return v
        unknown = sorted(set(v) - set(SUPPORTED_LANGUAGES))
        if unknown:
            raise ValueError(f"language(s) {unknown} not supported (the text banks are written in "
                             f"{list(SUPPORTED_LANGUAGES)}); supported: {list(SUPPORTED_LANGUAGES)}")
        if not any(w > 0 for w in v.values()):
            raise ValueError("at least one language needs a positive weight")
        return v

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Only the language field in use: a run without a mix dumps (and hashes) as before `languages`
        existed, and a dumped mix loads again (both fields together are refused). Default `voices`
        are always written: the natural default must not hash as the espeak-ng default before it."""
        out: dict[str, Any] = handler(self)
        if self.script_source == ScriptSourceConfig():   # procedural, as before script sources existed
            out.pop("script_source", None)
        if self.vision == VisionConfig():   # default frames: configs hash as before Omni rows existed
            out.pop("vision", None)
        if self.scene_source == SceneSourceConfig():   # procedural scenes: as before video import existed
            out.pop("scene_source", None)
        if self.twins == TwinsConfig():   # no twins: as before twins existed
            out.pop("twins", None)
        if self.decode_budget == DecodeBudgetConfig():   # the SDK's rate: as before the key existed
            out.pop("decode_budget", None)
        if self.languages is None:
            out.pop("languages", None)
        else:
            out.pop("language", None)
        if self.script_sources is None:
            out.pop("script_sources", None)
        return out

    def language_weights(self) -> dict[str, float]:
        """{language: weight} of the run, positive weights only, in SUPPORTED_LANGUAGES order."""
        mix = self.languages if self.languages is not None else {self.language: 1.0}
        return {code: float(mix[code]) for code in SUPPORTED_LANGUAGES if mix.get(code, 0.0) > 0}

    @field_validator("sample_rate")
    @classmethod
    def _sample_rate(cls, v: int) -> int:
        if v not in SUPPORTED_SAMPLE_RATES:
            raise ValueError(f"sample_rate {v} Hz is not supported; supported: {list(SUPPORTED_SAMPLE_RATES)}")
        return v

    @field_validator("unit_s")
    @classmethod
    def _unit_floor(cls, v: float) -> float:
        if v < MIN_UNIT_S - 1e-9:
            raise ValueError(f"unit_s must be >= {MIN_UNIT_S} s: espeak pauses up to ~0.45 s inside an assistant "
                             "turn, and a shorter unit puts speak decisions over silent windows that `validate` "
                             "rejects")
        return v

    @model_validator(mode="after")
    def _unit_fits_long_breaks(self) -> "RunConfig":
        t = self.timing
        long_breaks = self.scenarios.get("conversation", 0.0) > 0 and (t.long_break_prob > 0 or t.phrase_break_prob > 0)
        if long_breaks and self.unit_s < MIN_UNIT_S_LONG_BREAKS - 1e-9:
            raise ValueError(f"unit_s: must be >= {MIN_UNIT_S_LONG_BREAKS} s with the conversation family and "
                             "timing.long_break_prob or phrase_break_prob > 0: those paragraph pauses last up to "
                             "~0.8 s, and a shorter unit puts speak decisions over silent windows that `validate` "
                             "rejects (or set both probabilities to 0)")
        return self

    @field_validator("scenarios")
    @classmethod
    def _known_scenarios(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(v) - set(SCENARIOS))
        if unknown:
            raise ValueError(f"unknown scenario(s) {unknown}; known: {list(SCENARIOS)}")
        if not any(w > 0 for w in v.values()):
            raise ValueError("at least one scenario needs a positive weight")
        return v

    @model_validator(mode="after")
    def _units_fit_tokens(self) -> "RunConfig":
        tps = SPEECH_TOKENS_PER_SECOND
        if abs(self.unit_s * tps - round(self.unit_s * tps)) > 1e-9:
            raise ValueError(f"unit_s: must be a multiple of {1 / tps} s so each unit holds whole {tps} Hz speech tokens")
        if abs(self.unit_s * self.sample_rate - round(self.unit_s * self.sample_rate)) > 1e-6:
            raise ValueError("unit_s: unit_s * sample_rate must be a whole number of samples")
        return self

    def config_hash(self) -> str:
        """Stable hash of everything that decides the output bytes."""
        import hashlib
        import json

        data = self.model_dump(mode="json")
        (data["voices"].get("cosyvoice") or {}).pop("batch_size", None)   # lines per actor call: same bytes
        for src in [data.get("script_source") or {}, *(data.get("script_sources") or [])]:
            for f in UNHASHED_SOURCE_FIELDS:
                src.pop(f, None)
                (src.get("llm") or {}).pop(f, None)   # a corpus's llm
        blob = json.dumps(data, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def _format_errors(err: ValidationError, source: str) -> str:
    """One line naming every bad field: `invalid config (src): timing.eot_s: ...; acoustics.snr_db: ...`."""
    parts = []
    for e in err.errors():
        path = ".".join(str(p) for p in e["loc"] if p not in ("range", "dist"))   # not the Draw tags
        msg = str(e["msg"]).removeprefix("Value error, ").replace("\n", " ")
        parts.append(f"{path}: {msg}" if path else msg)   # whole-config checks name their fields
    return f"invalid config ({source}): " + "; ".join(parts)


def parse_config(data: dict[str, Any], source: str = "<dict>") -> RunConfig:
    """Validate a mapping into a RunConfig, raising ConfigError that names each bad field."""
    if not isinstance(data, dict):
        raise ConfigError(f"invalid config ({source}): top level must be a mapping, got {type(data).__name__}")
    try:
        return RunConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_format_errors(err, source)) from None


PRESET_DIR = Path(__file__).with_name("presets")
MAX_CONFIG_BYTES = 16 * 2**20   # a config is a page of YAML; fit-timing's quantiles are a few KiB
MAX_YAML_DEPTH = 64             # nesting levels; a config needs four


class _ConfigLoader(yaml.SafeLoader):
    """yaml.SafeLoader that refuses duplicate mapping keys (the last silently won) and deep nesting
    (PyYAML's composer recurses once per level: 10,000 nested lists raised RecursionError)."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_YAML_DEPTH} levels",
                                                  self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"duplicate key {key!r} (first given at line {seen[key]})",
                            key_node.start_mark)
                    seen[key] = key_node.start_mark.line + 1
                except TypeError:   # an unhashable key: construct_mapping refuses it below
                    continue
        return super().construct_mapping(node, deep)


def _yaml_error(err: yaml.YAMLError, source: str) -> str:
    """A YAML error on one line: file, line and column, what is wrong."""
    mark = getattr(err, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    what = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    return f"invalid YAML in {source}: {where}{what}" + (f" ({context})" if context else "")


def read_yaml(path: str | Path, source: str | None = None) -> Any:
    """The YAML document of a file, or ConfigError naming the file and, where known, line and key."""
    source = source or str(path)
    p = Path(path)
    try:
        if p.is_dir():
            raise ConfigError(f"config {source} is a folder, not a YAML file")
        if p.exists() and not p.is_file():   # a FIFO would block the open, a device never end
            raise ConfigError(f"config {source} is not a regular file (a FIFO or a device?); give a YAML file")
        with open(p, "rb") as f:
            blob = f.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {source}") from None
    except PermissionError:
        raise ConfigError(f"config file {source} cannot be read: permission denied") from None
    except OSError as err:
        raise ConfigError(f"config file {source} cannot be read: {err.strerror or err}") from None
    if len(blob) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config file {source} is larger than {MAX_CONFIG_BYTES // 2**20} MiB; not a run config")
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"config file {source} is not UTF-8 text (byte {err.start} is 0x{blob[err.start]:02x}); "
                          "is it a binary file?") from None
    try:
        return yaml.load(text, Loader=_ConfigLoader)
    except yaml.YAMLError as err:
        raise ConfigError(_yaml_error(err, source)) from None
    except RecursionError:   # a structure the depth guard does not see (e.g. deep flow nesting in the parser)
        raise ConfigError(f"invalid YAML in {source}: nested too deeply") from None


def list_presets() -> list[str]:
    """Names of the bundled presets (schemas/presets/NAME.yaml)."""
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))


def load_preset(name: str) -> dict[str, Any]:
    """The mapping of a bundled preset, e.g. `natural` (realistic timing and acoustics)."""
    if name not in list_presets():   # a name, never a path: '../../ANY/base' would load any YAML file
        raise ConfigError(f"--preset: unknown preset {name!r}; known: {list_presets()}")
    path = PRESET_DIR / f"{name}.yaml"
    data = read_yaml(path, f"preset {name}") or {}
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
        file_data = read_yaml(path)
        if file_data is None:
            file_data = {}
        if not isinstance(file_data, dict):
            raise ConfigError(f"invalid config ({path}): top level must be a mapping, got {type(file_data).__name__}")
        data = _deep_merge(data, file_data)
    data = {**data, **{k: v for k, v in (overrides or {}).items() if v is not None}}
    return parse_config(data, source)


def dump_config(cfg: RunConfig) -> str:
    """The YAML file form of a resolved config."""
    return yaml.safe_dump(cfg.model_dump(mode="json"), sort_keys=False)
