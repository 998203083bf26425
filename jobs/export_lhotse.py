"""`duplexsynth export DIR --format lhotse --out OUT`: a Lhotse Shar CutSet plus a NeMo manifest.

    OUT/shar/cuts.000000.jsonl.gz, OUT/shar/recording.000000.tar, ...   Lhotse Shar (lhotse's own SharWriter)
    OUT/nemo/manifest.jsonl                                             NeMo JSON-lines manifest, one line per turn
    OUT/nemo/audio/<id>.assistant.flac, <id>.user.flac                  the row's own FLAC bytes, one file per channel

**Shar.** One `MultiCut` per session over a two-channel recording at the row's sample rate
(channel 0 the assistant, channel 1 the microphone, as the moshi export). One supervision per
voiced event (user and assistant turns, the user's interruption, backchannels, other-directed and
background speech): `speaker` is the role, `channel` where it is heard, `text` the words actually
voiced (an interrupted turn's unspoken rest is in its event attrs), `language`, and the word
timings as `alignment["word"]` (lhotse `AlignmentItem`s, times from the start of the recording).
`cut.custom` holds `scenario`, `language`, `seed`, `events` (every event, attrs parsed from their
JSON) and `units` (the per-unit record of DESIGN §3), so the harness (delegate requests, backend
results, timers) travels with the cut as data: no lhotse field carries it.
An Omni row's frames are files, one JPEG per unit, in ``OUT/frames/<id>/000000.jpg, ...`` (the
row's bytes); `cut.custom["frames"]` says where: `{"dir": "frames/<id>", "files": [...], "unit_s"}`,
relative to OUT (lhotse's video support wants a video file and its own decoder; a frame per unit
as the model reads it is what Omni training needs). The NeMo lines carry the same `frames_dir`.

**NeMo.** NeMo reads manifest audio as single-channel, so each channel is its own file (the FLAC
bytes of the row, copied). A line is one supervision: `audio_filepath` (relative to the manifest,
which NeMo resolves), `offset`, `duration`, `text`, `lang`, plus `speaker`, `channel`,
`session_id`, `turn_id`, `kind` and `scenario`, which NeMo's Lhotse adapter keeps as `cut.custom`.
Harness events have no audio and no line. No `sampling_rate`: given it, NeMo's adapter
(`LazyNeMoIterator`) skips opening the file and takes the recording to be exactly `duration` long,
then cuts at `offset`, so a turn that does not start at 0 of a whole-session file fails or loads a
truncated slice; without it the adapter reads the file's real length (soundfile.info) and cuts right.

**NeMo duplex S2S** (`--format nemo-s2s`, `NemoS2SWriter`): the cuts NeMo's speechlm2
`DuplexS2SDataset` trains on, as Lhotse Shar (NeMo reads Shar through its Lhotse dataloader).

    OUT/nemo_s2s/cuts.000000.jsonl.gz, recording.000000.tar, target_audio.000000.tar

One `MonoCut` per session whose recording is the USER channel (the microphone: the model's input)
and whose `custom["target_audio"]` is a Recording of the assistant channel (what the model says),
which the dataset loads with `recording_field="target_audio"`. The recording keeps the row's rate
(the dataset resamples it to its `source_sample_rate`); the target is resampled here (soxr VHQ,
exactly round(duration * rate) samples) to `--target-sample-rate`, default 22050 Hz, the codec
rate of NeMo's duplex recipe: the dataset resamples only the recording and collates `target_audio`
at the rate it is stored, so a 16 kHz target would reach a 22.05 kHz codec 1.38x too fast. Times
stay in seconds. Supervisions as above, all on the one channel, with the speaker roles the dataset
selects by: `user` (its input role: the user's turns, interruptions and backchannels), `agent` (its
output role: the assistant's voiced turns); the people the user talks to and background talkers
keep their own role, which the dataset leaves out of both text channels. `text` is the words
actually voiced, `end` where the voicing stopped, so an interrupted turn's end-of-text lands at its
cut. `custom` also carries the session record, and an Omni row's frames as above
(``OUT/frames/<id>/``: DuplexS2SDataset reads no video, a trainer extending it finds them there).
"""
from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from jobs.export_common import (
    ASSISTANT_CHANNEL,
    AUDIO_COLUMNS,
    FRAMES_DIR,
    USER_CHANNEL,
    RowFailed,
    channel_of,
    frame_names,
    new_name,
    resample,
    session_audio,
    words_by_event,
    write_frames,
)
from schemas.language import language
from schemas.vocab import Role

FORMAT = "duplexsynth-lhotse-v1"
SHAR_DIR, NEMO_DIR, NEMO_MANIFEST = "shar", "nemo", "manifest.jsonl"
CHANNEL_FILES = {ASSISTANT_CHANNEL: "assistant", USER_CHANNEL: "user"}
# NeMo speechlm2 DuplexS2SDataset: its cut field for the output audio and its default roles
NEMO_S2S_FORMAT, NEMO_S2S_DIR = "duplexsynth-nemo-s2s-v1", "nemo_s2s"
NEMO_TARGET_AUDIO = "target_audio"
NEMO_INPUT_ROLE, NEMO_OUTPUT_ROLE = str(Role.USER), "agent"   # NeMo's default roles; its "user" is ours
NEMO_S2S_FIELDS = {"recording": "flac", NEMO_TARGET_AUDIO: "flac"}


def _recording(recording_id: str, x: np.ndarray, sr: int) -> Any:
    """An in-memory lhotse Recording (16-bit FLAC bytes) of `x`: samples, or (samples, channels)."""
    import soundfile as sf
    from lhotse import Recording

    buf = io.BytesIO()
    sf.write(buf, x, sr, format="FLAC", subtype="PCM_16")
    return Recording.from_bytes(buf.getvalue(), recording_id=recording_id)


def _stereo_recording(row_id: str, channels: dict[int, np.ndarray], sr: int) -> Any:
    """The session as one two-channel Recording, channels in ASSISTANT_CHANNEL, USER_CHANNEL order."""
    return _recording(row_id, np.stack([channels[ASSISTANT_CHANNEL], channels[USER_CHANNEL]], axis=1), sr)


def _shar_files(shar: Any, root: Path) -> dict[str, list[str]]:
    """The files a closed SharWriter wrote, per field, relative to the export root (for the manifest)."""
    return {k: [str(Path(p).relative_to(root)) for p in v] for k, v in shar.output_paths.items()}


def _flac_bytes(blob: bytes, x: np.ndarray, sr: int) -> bytes:
    """The row's own bytes when they are FLAC (the generator's), else `x` encoded as FLAC."""
    import soundfile as sf

    if sf.info(io.BytesIO(blob)).format == "FLAC":
        return blob
    buf = io.BytesIO()
    sf.write(buf, x, sr, format="FLAC", subtype="PCM_16")
    return buf.getvalue()


def supervisions(row: dict[str, Any], duration_s: float) -> list[Any]:
    """One SupervisionSegment per event that has voiced words, in time order."""
    from lhotse import SupervisionSegment
    from lhotse.supervision import AlignmentItem

    try:
        lang = language(row["language"])
    except ValueError as err:
        raise RowFailed(str(err)) from None
    events = {e["id"]: e for e in row["events"]}
    out = []
    for event_id, words in words_by_event(row, duration_s).items():
        ev = events.get(event_id)
        if ev is None:
            raise RowFailed(f"word {words[0]['word']!r} names event {event_id!r}, which the row does not have")
        start = max(0.0, min(ev["start_s"], words[0]["start_s"]))
        end = min(duration_s, max(ev["end_s"], words[-1]["end_s"]))
        out.append(SupervisionSegment(
            id=f"{row['id']}-{event_id}", recording_id=row["id"], start=round(start, 6),
            duration=round(end - start, 6), channel=channel_of(ev["role"]), text=lang.join([w["word"] for w in words]),
            language=row["language"], speaker=ev["role"],
            alignment={"word": [AlignmentItem(symbol=w["word"], start=round(w["start_s"], 6),
                                              duration=round(w["end_s"] - w["start_s"], 6)) for w in words]},
            custom={"kind": ev["kind"], "event_id": event_id}))
    out.sort(key=lambda s: (s.start, s.id))
    return out


def _custom(row: dict[str, Any]) -> dict[str, Any]:
    """The session record as JSON-safe data: scenario, language, seed, events (attrs parsed), units."""
    events = []
    for e in row["events"]:
        try:
            attrs = json.loads(e["attrs"] or "{}")
        except json.JSONDecodeError as err:
            raise RowFailed(f"event {e['id']} attrs are not JSON ({err.msg})") from None
        events.append({**e, "attrs": attrs})
    return {"scenario": row["scenario"], "language": row["language"], "seed": row["seed"],
            "unit_s": float(row["unit_s"]), "events": events, "units": row["units"]}


def _frames_entry(name: str, row: dict[str, Any]) -> dict[str, Any]:
    """The custom entry saying where an Omni row's frames are written ({} for an audio-only row)."""
    if not row.get("frames"):
        return {}
    return {"frames": {"dir": f"{FRAMES_DIR}/{name}", "files": frame_names(len(row["frames"])),
                       "unit_s": float(row["unit_s"])}}


def _write_frames(root: Path, entry: dict[str, Any], row: dict[str, Any]) -> None:
    if entry:
        write_frames(root / entry["frames"]["dir"], row["frames"])


class LhotseWriter:
    """Feeds lhotse's SharWriter one MultiCut per row and collects the NeMo manifest lines."""

    def __init__(self, stage: Path, shard_size: int):
        from lhotse.shar import SharWriter

        self.root = stage
        (stage / SHAR_DIR).mkdir()
        (stage / NEMO_DIR / "audio").mkdir(parents=True)
        self.shar = SharWriter(str(stage / SHAR_DIR), fields={"recording": "flac"}, shard_size=shard_size)
        self.shar.__enter__()
        self.nemo = open(stage / NEMO_DIR / NEMO_MANIFEST, "w", encoding="utf-8")
        self.names: set[str] = set()

    def add(self, row: dict[str, Any]) -> None:
        name = new_name(row["id"], self.names)
        channels, sr = session_audio(row)
        duration_s = len(channels[ASSISTANT_CHANNEL]) / sr
        sups = supervisions(row, duration_s)
        cut = _stereo_recording(row["id"], channels, sr).to_cut()
        cut.supervisions = sups
        frames = _frames_entry(name, row)
        cut.custom = {**_custom(row), **frames}
        frames_at = frames["frames"]["dir"] if frames else None
        files = {ch: f"audio/{name}.{CHANNEL_FILES[ch]}.flac" for ch in CHANNEL_FILES}
        lines = [{"audio_filepath": files[s.channel], "offset": s.start, "duration": s.duration, "text": s.text,
                  "lang": s.language, "speaker": s.speaker, "channel": s.channel,
                  "session_id": row["id"], "turn_id": s.custom["event_id"], "kind": s.custom["kind"],
                  "scenario": row["scenario"], **({"frames_dir": frames_at} if frames_at else {})} for s in sups]
        self.shar.write(cut)     # past this point a failure is the export's, not the row's
        self.names.add(name)
        _write_frames(self.root, frames, row)
        for ch, rel in files.items():
            (self.root / NEMO_DIR / rel).write_bytes(_flac_bytes(row[AUDIO_COLUMNS[ch]]["bytes"], channels[ch], sr))
        for line in lines:
            self.nemo.write(json.dumps(line, ensure_ascii=False) + "\n")

    def close(self) -> dict[str, Any]:
        self.shar.close()
        self.nemo.close()
        return {"shar": SHAR_DIR, "shar_fields": {"recording": "flac"},
                "shar_files": _shar_files(self.shar, self.root),
                "nemo_manifest": f"{NEMO_DIR}/{NEMO_MANIFEST}", "nemo_audio": {str(k): v for k, v in CHANNEL_FILES.items()}}


class NemoS2SWriter:
    """Feeds lhotse's SharWriter one NeMo duplex S2S cut per row (module docstring): the user channel
    as the recording, the assistant channel at `target_rate` Hz as custom["target_audio"], speakers user / agent."""

    def __init__(self, stage: Path, shard_size: int, target_rate: int):
        from lhotse.shar import SharWriter

        self.root = stage
        self.target_rate = target_rate
        (stage / NEMO_S2S_DIR).mkdir()
        self.shar = SharWriter(str(stage / NEMO_S2S_DIR), fields=dict(NEMO_S2S_FIELDS), shard_size=shard_size)
        self.shar.__enter__()
        self.names: set[str] = set()

    def add(self, row: dict[str, Any]) -> None:
        name = new_name(row["id"], self.names)
        channels, sr = session_audio(row)
        duration_s = len(channels[USER_CHANNEL]) / sr
        sups = [replace(sup, channel=0, speaker=NEMO_OUTPUT_ROLE if sup.speaker == Role.ASSISTANT else sup.speaker)
                for sup in supervisions(row, duration_s)]   # one channel: the cut is mono
        cut = _recording(row["id"], channels[USER_CHANNEL], sr).to_cut()
        cut.supervisions = sups
        frames = _frames_entry(name, row)
        target = np.clip(resample(channels[ASSISTANT_CHANNEL], sr, self.target_rate), -1.0, 1.0)
        cut.custom = {**_custom(row), **frames,
                      NEMO_TARGET_AUDIO: _recording(f"{row['id']}.{CHANNEL_FILES[ASSISTANT_CHANNEL]}",
                                                    target, self.target_rate)}
        self.shar.write(cut)     # past this point a failure is the export's, not the row's
        self.names.add(name)
        _write_frames(self.root, frames, row)

    def close(self) -> dict[str, Any]:
        self.shar.close()
        return {"shar": NEMO_S2S_DIR, "shar_fields": dict(NEMO_S2S_FIELDS),
                "shar_files": _shar_files(self.shar, self.root),
                "roles": {"input": [NEMO_INPUT_ROLE], "output": [NEMO_OUTPUT_ROLE]},
                "target_audio": NEMO_TARGET_AUDIO, "target_sample_rate": self.target_rate}
