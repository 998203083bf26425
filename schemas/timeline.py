"""The timeline as one serialisable description (Lhotse's MixedCut / MixTrack is the model).

Composition decides where every utterance goes and writes it down here: tracks, each a source
(text + voice, or an audio file) placed at a sample offset with a gain and an ordered list of
operations (a cut with its fade, the Full-Duplex-Bench filters), and the microphone scene (every
noise with its seed and SNR, the room, the echo, the clip guard). `pipeline/mixer.py` is the one
renderer that turns a description into the assistant channel, the user's stems and the mic;
render, validate and stats all go through it. Every row stores its description in
meta["timeline"], so any row can be re-rendered from it (with the TTS its meta names).

All positions and lengths are integer samples at `sample_rate`.
"""
from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from schemas.script import VoiceSpec
from schemas.vocab import EventKind


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Stem(StrEnum):
    """Where a track is mixed: the assistant's channel, the user's own voice (through the user's
    room), or other talkers heard by the user's mic (already filtered by their FD-Bench recipe)."""

    ASSISTANT = "assistant"
    USER = "user"
    OVERLAY = "overlay"


# ----------------------------------------------------------------------------- track sources

class SpeechSource(_M):
    """Text spoken by a voice: rendered by the TTS backend the row's meta["tts"] names."""

    kind: Literal["speech"] = "speech"
    text: str
    voice: VoiceSpec


class FileSource(_M):
    """A recorded utterance: mono samples of a wav/flac, resampled to the session rate.

    `sha256` is the 16-hex prefix `pipeline/rooms.load_audio` returns, so a changed file is noticed.
    """

    kind: Literal["file"] = "file"
    path: str
    sha256: str


Source = Annotated[Union[SpeechSource, FileSource], Field(discriminator="kind")]


# ----------------------------------------------------------------------------- track operations

# DESIGN §2 rule 8: a voiced word less than this fraction audible before the cut counts as not heard
# (rule 7's continuations re-say its sentence). Composition and validate both read it from here.
HEARD_FRACTION = 0.5


class Cut(_M):
    """An interruption cut: samples [0, at) unchanged, a raised-cosine fade over the `fade` samples
    from `at` on, nothing after. The fade lies after the cut (in the reaction window, played by the
    output of the unit that heard the detection), so no earlier output depends on the interruption."""

    op: Literal["cut"] = "cut"
    at: int = Field(ge=0)
    fade: int = Field(ge=0)


class HighShelf(_M):
    """RBJ-cookbook high-shelf biquad."""

    op: Literal["high_shelf"] = "high_shelf"
    freq_hz: float = Field(gt=0)
    gain_db: float
    q: float = Field(0.707, gt=0)


class LowPass(_M):
    """Butterworth low-pass (second-order sections)."""

    op: Literal["lowpass"] = "lowpass"
    cutoff_hz: float = Field(gt=0)
    order: int = Field(8, ge=1, le=16)


class Reflections(_M):
    """Direct path plus delayed copies, each (delay_s, gain_db); the track grows by the longest delay."""

    op: Literal["reflections"] = "reflections"
    taps: tuple[tuple[float, float], ...] = Field(min_length=1)


class Gain(_M):
    op: Literal["gain"] = "gain"
    db: float


Op = Annotated[Union[Cut, HighShelf, LowPass, Reflections, Gain], Field(discriminator="op")]

# Full-Duplex-Bench v1.5 recipes (DESIGN §1) as operation lists: what an overlay track of that
# kind goes through, in this order.
FD_BENCH_RECIPES: dict[EventKind, tuple[HighShelf | LowPass | Reflections | Gain, ...]] = {
    # the user turned away, talking to someone else: high-shelf -5 dB above 4 kHz, 45/120 ms reflections, -8 dB
    EventKind.OTHER_DIRECTED: (HighShelf(freq_hz=4000.0, gain_db=-5.0),
                               Reflections(taps=((0.045, -6.0), (0.120, -12.0))), Gain(db=-8.0)),
    # a distant talker: 3 kHz low-pass, an echo at 100 ms (-10 dB), -15 dB
    EventKind.BACKGROUND_SPEECH: (LowPass(cutoff_hz=3000.0), Reflections(taps=((0.100, -10.0),)), Gain(db=-15.0)),
}


class Track(_M):
    """One utterance placed on a stem: its event, where it starts, what it is and what is done to it."""

    event_id: str
    stem: Stem
    offset: int = Field(ge=0)
    source: Source
    ops: tuple[Op, ...] = ()
    gain_db: float = 0.0


# ----------------------------------------------------------------------------- the microphone scene

class _Noise(_M):
    """A noise is drawn at `snr_db` against the user's own speech as the mic hears it; `gain` (the
    amplitude on the unit-RMS signal) and `realised_snr_db` are set when the scene is levelled."""

    snr_db: float
    gain: float | None = None
    realised_snr_db: float | None = None


class ColourNoise(_Noise):
    """Stationary 1/f^alpha noise (white, pink, brown) from its seed."""

    kind: Literal["colour"] = "colour"
    color: Literal["white", "pink", "brown"]
    seed: int


class BabbleNoise(_Noise):
    """Several background talkers of the fixed babble bank, each looped from an offset at a level."""

    kind: Literal["babble"] = "babble"
    talkers: tuple[int, ...]
    offsets_s: tuple[float, ...]
    gains_db: tuple[float, ...]
    bank_version: int
    language: str = "en"   # the row's: its talkers read that language's sentences in its voices


class HumNoise(_Noise):
    """Mains hum with harmonics, drawn phases and levels from its seed."""

    kind: Literal["hum"] = "hum"
    f0_hz: float
    seed: int


class FileNoise(_Noise):
    """A noise recording under `root`, looped from `offset` (samples at the session rate)."""

    kind: Literal["file"] = "file"
    root: str
    path: str
    sha256: str
    offset: int


Noise = Annotated[Union[ColourNoise, BabbleNoise, HumNoise, FileNoise], Field(discriminator="kind")]


class ExpRoom(_M):
    """Synthetic room: a Gaussian tail decaying 60 dB in rt60_s, direct-to-reverberant ratio drr_db."""

    kind: Literal["exp"] = "exp"
    seed: int
    rt60_s: float
    drr_db: float


class ShoeboxRoom(_M):
    """pyroomacoustics image-source room drawn from `seed`; the geometry is recorded for audits."""

    kind: Literal["shoebox"] = "shoebox"
    seed: int
    rt60_s: float
    dims: tuple[float, float, float]
    source: tuple[float, float, float]
    mic: tuple[float, float, float]
    absorption: float
    max_order: int
    pyroomacoustics: str


class FileRoom(_M):
    """A measured impulse response under `root`."""

    kind: Literal["file"] = "file"
    root: str
    path: str
    sha256: str


Room = Annotated[Union[ExpRoom, ShoeboxRoom, FileRoom], Field(discriminator="kind")]


class Echo(_M):
    """The assistant's voice leaking back into the mic: the stored assistant channel, delayed and
    scaled, through `room` (another position in the user's room) if there is one."""

    gain: float
    delay_s: float
    room: Room | None = None


class MicScene(_M):
    """What the user's microphone hears besides the placed speech, and the whole-channel gain.

    mic = clip_guard_scale * amp(gain_db) * (room(user stem) + overlay stem + echo + noises).
    """

    gain_db: float
    gain_applied: bool = True
    noises: tuple[Noise, ...] = ()
    room: Room | None = None
    echo: Echo | None = None
    clip_guard_scale: float = 1.0


def noise_event_id(noise: ColourNoise | BabbleNoise | HumNoise | FileNoise) -> str:
    """The event (and component) name of a noise: "noise" for the coloured one, "noise.<kind>" else."""
    return EventKind.NOISE.value if noise.kind == "colour" else f"{EventKind.NOISE.value}.{noise.kind}"


META_KEY = "timeline"   # the row's meta key that holds its TimelineSpec
# A question the assistant asks and then, with no user speech in between, follows itself (a timer
# announcement, a relayed result) must leave at least this much silence to answer in (DESIGN §2 rule 7:
# a question leaves the user room to answer).
ANSWER_ROOM_S = 5.0


class TimelineSpec(_M):
    """Everything needed to re-render a row's audio: the tracks and the microphone scene."""

    sample_rate: int
    unit_samples: int
    num_units: int
    tracks: tuple[Track, ...]
    mic: MicScene | None = None

    @property
    def n_samples(self) -> int:
        return self.num_units * self.unit_samples

    @classmethod
    def from_meta(cls, meta: dict[str, object]) -> "TimelineSpec | None":
        """The description a row's parsed meta holds (None for a row written without one)."""
        raw = meta.get(META_KEY)
        return None if raw is None else cls.model_validate(raw)
