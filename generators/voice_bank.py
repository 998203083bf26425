"""The voice bank: every voice a run may speak with, across TTS engines (DESIGN §6).

The voices are data (``generators/voice_bank.yaml``), validated here on load; a run config adds
folders of Piper voices (``voices.piper_dirs``), read from each model's own ``.onnx.json``. A voice's
``id`` is the ``VoiceSpec.name`` a script carries, and that name says which engine speaks it:
espeak-ng names are bare (``"en-us+f3"``, as they always were), every other engine's are
``"<engine>:<voice>"`` (``"piper:en_US-joe-medium"``, ``"piper:en_US-libritts-high#12"`` for
speaker 12 of a multi-speaker model, ``"flite:slt"``, ``"rhvoice:clb"``). ``engine_of`` is the one place that rule is read.

Which voices a run speaks with is a *cast* (``casts:`` in the yaml): per language, the assistant (one
voice for the dataset, or a list drawn per trajectory) and the people (a list drawn uniformly, or
weights). ``natural`` is the default; ``espeak`` is the formant voices alone, drawn as before casts.
"""
from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from schemas.config import DEFAULT_CAST, SUPPORTED_LANGUAGES, ConfigError, RunConfig, VoicesConfig
from schemas.language import LANGUAGES

BANK_FILE = Path(__file__).with_name("voice_bank.yaml")
ESPEAK = "espeak-ng"
PIPER = "piper"
FLITE = "flite"
RHVOICE = "rhvoice"
COSYVOICE = "cosyvoice"
ENGINES: tuple[str, ...] = (ESPEAK, PIPER, FLITE, RHVOICE, COSYVOICE)
COSYVOICE_RATE = 24000   # CosyVoice 2's native sample rate


class BankVoice(BaseModel):
    """One voice of the bank: who it is and what its audio and licence are."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)      # the VoiceSpec.name; engine_of(id) == engine
    engine: Literal["espeak-ng", "piper", "flite", "rhvoice", "cosyvoice"]
    language: str                      # a code of SUPPORTED_LANGUAGES
    gender: Literal["female", "male", "unknown"]
    licence: str                       # SPDX id where there is one
    sample_rate: int = Field(gt=0)     # the engine's native rate (rows are resampled to the run's)
    rate: int = Field(170, ge=80, le=450)   # base speaking rate, words per minute
    pitch: int = Field(50, ge=0, le=99)     # base pitch (espeak-ng only)
    source: str = ""                   # where its model comes from: a wheel, or a folder

    @property
    def natural(self) -> bool:
        """A recorded-speech (neural) voice rather than espeak-ng formant synthesis."""
        return self.engine != ESPEAK


def engine_of(name: str) -> str:
    """The engine that speaks the voice named `name`: the part before ':' ("piper"), else espeak-ng."""
    engine, sep, _ = name.partition(":")
    return engine if sep else ESPEAK


def piper_voice_of(name: str) -> tuple[str, int | None]:
    """(model name, speaker id or None) of a Piper voice name "piper:<model>[#<speaker>]"."""
    _, _, rest = name.partition(":")
    model, sep, speaker = rest.partition("#")
    return model, (int(speaker) if sep else None)


class LanguageCast(BaseModel):
    """One language's voices in a cast. `assistant`: one id (the dataset's one voice, unjittered) or a
    list drawn per trajectory; `people`: a list drawn uniformly or {id: weight}. Order is data: the
    draws index it (generators/voices.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    assistant: str | list[str] = Field(min_length=1)
    people: list[str] | dict[str, float] = Field(min_length=1)

    def ids(self) -> list[str]:
        return ([self.assistant] if isinstance(self.assistant, str) else list(self.assistant)) + list(self.people)


class _BankFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[2]
    voices: list[BankVoice]
    casts: dict[str, dict[str, LanguageCast]]


@functools.cache
def _load() -> _BankFile:
    data = yaml.safe_load(BANK_FILE.read_text(encoding="utf-8"))
    try:
        file = _BankFile.model_validate(data)
    except ValidationError as err:
        raise ValueError(f"{BANK_FILE}: {err}") from None
    _lint(file.voices, str(BANK_FILE))
    _lint_casts(file, str(BANK_FILE))
    return file


def _builtin() -> tuple[BankVoice, ...]:
    return tuple(_load().voices)


def _lint(voices: Iterable[BankVoice], where: str) -> None:
    seen: set[str] = set()
    for v in voices:
        if v.id in seen:
            raise ValueError(f"{where}: voice {v.id!r} is listed twice")
        seen.add(v.id)
        if engine_of(v.id) != v.engine:
            raise ValueError(f"{where}: voice {v.id!r} names engine {engine_of(v.id)!r} but says engine {v.engine!r}")
        if v.language not in SUPPORTED_LANGUAGES:
            raise ValueError(f"{where}: voice {v.id!r} has language {v.language!r}, not one of {list(SUPPORTED_LANGUAGES)}")


def _lint_casts(file: _BankFile, where: str) -> None:
    """Every cast speaks every language, with voices of the bank in that language, and the default exists."""
    voices = {v.id: v for v in file.voices}
    if DEFAULT_CAST not in file.casts:
        raise ValueError(f"{where}: no cast {DEFAULT_CAST!r} (the default)")
    for name, langs in file.casts.items():
        if sorted(langs) != sorted(SUPPORTED_LANGUAGES):
            raise ValueError(f"{where}: cast {name!r} covers {sorted(langs)}, not every language {list(SUPPORTED_LANGUAGES)}")
        for code, lc in langs.items():
            for vid in lc.ids():
                if vid not in voices or voices[vid].language != code:
                    raise ValueError(f"{where}: cast {name!r} {code}: {vid!r} is no {code} voice of the bank")
            if isinstance(lc.people, dict) and not all(w > 0 for w in lc.people.values()):
                raise ValueError(f"{where}: cast {name!r} {code}: people weights must be positive")


def piper_folder_voices(folder: Path) -> tuple[BankVoice, ...]:
    """The Piper voices of a folder: each ``<name>.onnx`` with its ``<name>.onnx.json`` config."""
    return _folder_voices(str(Path(folder).resolve()))


@functools.lru_cache(maxsize=32)   # read once per process: every trajectory's cast draw asks
def _folder_voices(folder: str) -> tuple[BankVoice, ...]:
    out: list[BankVoice] = []
    for model in sorted(Path(folder).glob("*.onnx")):
        cfg_path = model.with_name(model.name + ".json")
        if not cfg_path.is_file():
            continue
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        code = str((cfg.get("language") or {}).get("family") or cfg.get("espeak", {}).get("voice", "")).split("-")[0].split("_")[0]
        if code != "en":   # the Piper backend tokenises by whitespace (pipeline/tts/piper.py): English only for now
            continue
        common = dict(engine=PIPER, language=code, gender="unknown", licence="see model card",
                      sample_rate=int(cfg["audio"]["sample_rate"]), source=str(folder))
        speakers = int(cfg.get("num_speakers", 1))
        if speakers > 1:
            out += [BankVoice(id=f"piper:{model.stem}#{sid}", **common) for sid in range(speakers)]
        else:
            out.append(BankVoice(id=f"piper:{model.stem}", **common))
    return tuple(out)


def prompt_language(text: str) -> str:
    """The language of a prompt transcript: the first language whose script test it passes
    (Mandarin when it holds a Han character), else English."""
    return next((lang.code for lang in LANGUAGES.values() if lang.script is not None and lang.script(text)), "en")


def cosyvoice_folder_voices(folder: Path) -> tuple[BankVoice, ...]:
    """The zero-shot voices of a CosyVoice model folder: each ``prompts/<speaker>.wav``, in the
    language its ``.txt`` transcript is written in (a missing transcript is refused by preflight)."""
    return _cosyvoice_voices(str(Path(folder).resolve()))


@functools.lru_cache(maxsize=8)
def _cosyvoice_voices(folder: str) -> tuple[BankVoice, ...]:
    out: list[BankVoice] = []
    for wav in sorted((Path(folder) / "prompts").glob("*.wav")):
        txt = wav.with_suffix(".txt")
        text = txt.read_text(encoding="utf-8") if txt.is_file() else ""
        out.append(BankVoice(id=f"{COSYVOICE}:{wav.stem}", engine=COSYVOICE, language=prompt_language(text),
                             gender="unknown", licence="see model card", sample_rate=COSYVOICE_RATE,
                             source=str(folder)))
    return tuple(out)


def bank(cfg: VoicesConfig | None = None) -> tuple[BankVoice, ...]:
    """The bank a run sees: the built-in voices, then those of its Piper folders and its CosyVoice
    model's prompts (first listing wins)."""
    voices = list(_builtin())
    ids = {v.id for v in voices}
    extra = [v for folder in (cfg.piper_dirs if cfg is not None else ()) for v in piper_folder_voices(folder)]
    if cfg is not None and cfg.cosyvoice is not None:
        extra += cosyvoice_folder_voices(cfg.cosyvoice.model_dir)
    for v in extra:
        if v.id not in ids:
            voices.append(v)
            ids.add(v.id)
    return tuple(voices)


def by_id(cfg: VoicesConfig | None = None) -> dict[str, BankVoice]:
    return {v.id: v for v in bank(cfg)}


def cast_names() -> tuple[str, ...]:
    return tuple(_load().casts)


def cast_for(name: str, code: str) -> LanguageCast:
    """The voices of cast `name` for language `code` (check_config refuses unknown casts up front)."""
    casts = _load().casts
    if name not in casts:
        raise ValueError(f"no cast {name!r} in the voice bank (casts: {', '.join(casts)})")
    return casts[name][code]


def default_use(voice_id: str) -> str:
    """How the default cast uses a voice: "assistant", "people 23%" (its share of people draws), or ""."""
    voice = by_id().get(voice_id)
    if voice is None:
        return ""
    lc = cast_for(DEFAULT_CAST, voice.language)
    if voice_id == lc.assistant or (isinstance(lc.assistant, list) and voice_id in lc.assistant):
        return "assistant"
    weights = lc.people if isinstance(lc.people, dict) else {v: 1.0 for v in lc.people}
    if voice_id not in weights:
        return ""
    return f"people {100 * weights[voice_id] / sum(weights.values()):.0f}%"


def voices_used(cfg: VoicesConfig, languages: Iterable[str] = SUPPORTED_LANGUAGES) -> list[str]:
    """The ids a run's voices config can draw in `languages`: per language, the configured assistant
    or people where they speak it, else the cast's (the same choice generators/voices.draw_cast makes)."""
    known = by_id(cfg) if cfg.assistant or cfg.people else {}
    out: list[str] = []
    for code in languages:
        lc = cast_for(cfg.cast, code)
        mine = cfg.assistant if cfg.assistant in known and known[cfg.assistant].language == code else None
        out += [mine] if mine else ([lc.assistant] if isinstance(lc.assistant, str) else lc.assistant)
        named = [i for i, w in (cfg.people or {}).items() if w > 0 and i in known and known[i].language == code]
        out += named or list(lc.people)
    return list(dict.fromkeys(out))


def engines_used(cfg: VoicesConfig) -> set[str]:
    """The engines a run's voices config can draw in any language (espeak-ng always: babble speaks with it)."""
    return {ESPEAK} | {engine_of(i) for i in voices_used(cfg)}


def check_config(cfg: RunConfig) -> None:
    """Refuse a voices config naming a cast or voice the bank lacks, or a voice no language of the run speaks."""
    v = cfg.voices
    if v.cast not in _load().casts:
        raise ConfigError(f"voices.cast: no cast {v.cast!r} in the voice bank (casts: {', '.join(_load().casts)})")
    known = by_id(v)
    langs = set(cfg.language_weights())
    named = ([("voices.assistant", v.assistant)] if v.assistant else []) + [("voices.people", k) for k in v.people or {}]
    for field, name in named:
        if name not in known:
            close = sorted(i for i in known if engine_of(i) == engine_of(name))[:8]
            raise ConfigError(f"{field}: no voice {name!r} in the voice bank (`duplexsynth voices` lists it; "
                              f"{engine_of(name)} voices: {', '.join(close) or 'none'})")
        if known[name].language not in langs:
            raise ConfigError(f"{field}: voice {name!r} speaks {known[name].language}, which this run "
                              f"(languages {', '.join(sorted(langs))}) does not")
