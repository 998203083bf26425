"""`duplexsynth export DIR --format minicpm-o --out OUT`: rows as the MiniCPM-o protocol SDK's training data.

Each row becomes one `O5DuplexTrainingData` (PyPI `minicpm-o5-sdk`), built with the SDK's own
classes, checked by the SDK (its schema and tool-contract validators, then `arrange()` and
`tokenize()` with the MiniCPM-o 4.5 tokenizer) and written with its `dump_structure()`, laid out as
the SDK's own guidebook cases are:

    OUT/cases/<id>.json               the row's O5DuplexTrainingData structure dump
    OUT/media/<id>/user_audio.flac    the microphone channel (16 kHz mono, what the SDK reads)
    OUT/media/<id>/ai_spoken_<n>.flac one assistant speech run: the audio its speech decoder learns
    OUT/media/<id>/frame_<k>.jpg      Omni rows: the frame of unit k (the row's JPEG bytes, copied)

Audio paths in a case are relative to `OUT/cases` (`load_structure(case, data_root=OUT/"cases")`).
The mapping keeps our clock (DESIGN §2): the output of our unit k is the SDK's unit k.

- `user_audio`: one segment, the whole microphone channel, with the user's word alignment.
- `user_video` (Omni rows, those with `frames`): one segment per frame, starting at its unit and one
  unit long, so the SDK lays frame k as the `<image>` of unit k's video slot, before the audio
  slot, as our trainer puts it before the audio embeds; audio-only rows have no video track.
- `ai_spoken`: one segment per run of assistant turns that share output units, starting at the
  window where the run's first turn speaks (its leading silence included) and triggered at that
  turn's unit; text and word alignment are the run's voiced words. `spoken_prelook_sec` is 0, so
  the SDK's unit k carries exactly the words our unit k does.
- `ai_non_spoken`: each delegate request is a tool call at its unit (`tool_call_id` = task id,
  the harness tool by name, the request as its `request` argument), and the system block declares
  every harness tool.
- `input_event`: each backend result is the tool response of its call, at its `ready_s` (or when
  the call closes, if the SDK's decode of the call ends later); timers are standalone events in
  the unit whose input they are, with the text our trainer gives them (visual events are no text
  input: the frames in `user_video` are).
- `unit_policy`: no per-unit token cap (our request is written whole in the unit that issues it)
  and the SDK's default timing profile, which schemas/decode_budget.py holds.

The SDK differs by design from our trainer layout: slot markers, `<|no_action|>`, the tool-call
XML, `<|tool_started|>` after a call, a `<|spoken_turn_eos|>` at the end of every speech run (it
has no cut-off turn yet), and speech handed to a separate TTS decoder instead of speech tokens.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from jobs.export_common import (
    ASSISTANT_CHANNEL,
    USER_CHANNEL,
    RowFailed,
    new_name,
    resample,
    session_audio,
    words_by_event,
)
from model.protocol import render_input_event
from schemas.attrs import parse_attrs
from schemas.config import DEFAULT_TOOLS
from schemas.decode_budget import DECODE_PREFILL_S, DECODE_TTS_S, row_ms_per_step
from schemas.language import language
from schemas.protocol import (
    MODEL_AUDIO_RATE as SAMPLE_RATE,  # the SDK's only audio rate
)
from schemas.vocab import EventKind, Role

FORMAT = "duplexsynth-minicpm-o-v1"
CASES_DIR, MEDIA_DIR = "cases", "media"
FRAME_STEM = "frame"            # OUT/media/<id>/frame_00007.jpg: the row's frame of unit 7, as generated
CANCEL_TOOL = "cancel"          # the control request of the cancel family (schemas/script.py Delegation)
REQUEST_ARG = "request"
PLAYBACK_DELAY_S = 0.2          # the SDK's default ai_spoken_playback_delay_sec
SYSTEM_PROMPT = ("You are a full-duplex voice assistant. You listen and speak at the same time. Hand work to the "
                 "tools below with a plain-language request; their results arrive as tool responses.")
TOOL_DESCRIPTIONS: dict[str, str] = {
    "calculator": "Do arithmetic stated in plain language and return the result.",
    "unit_convert": "Convert a quantity between units.",
    "datetime": "Answer questions about dates, times and time zones.",
    "timer": "Set a timer that fires after a duration.",
    "weather": "Get the current weather or a forecast for a place.",
    "lookup": "Look up a fact (a height, a population, a date) in a reference.",
    "search": "Search the web or local listings and summarise what was found.",
    "calendar": "Read the user's calendar.",
    CANCEL_TOOL: "Cancel an earlier request that is still running, or drop its result if it has come in.",
}
TOKENIZER_ID = "o45_fc"         # MiniCPM-o 4.5, the tokenizer our trainer export uses by default


def tool_definitions() -> list[dict[str, Any]]:
    """The harness tools as OpenAI function definitions, each taking the plain-language request."""
    return [{"type": "function", "function": {
        "name": name, "description": TOOL_DESCRIPTIONS[name],
        "parameters": {"type": "object", "required": [REQUEST_ARG], "properties": {
            REQUEST_ARG: {"type": "string", "description": "what to do, in plain language"}}}}}
        for name in (*DEFAULT_TOOLS, CANCEL_TOOL)]


def _alignment(words: list[dict[str, Any]], origin_s: float, duration_s: float, sep: str) -> list[dict[str, Any]]:
    """Word intervals relative to `origin_s`, monotonic, the separator inside each word but the first."""
    out: list[dict[str, Any]] = []
    for i, w in enumerate(words):
        start = min(max(0.0, w["start_s"] - origin_s), duration_s)
        if out:
            start = max(start, out[-1]["end_sec"])
        end = min(max(start, w["end_s"] - origin_s), duration_s)
        if i + 1 < len(words):
            end = max(start, min(end, words[i + 1]["start_s"] - origin_s))
        out.append({"text": (sep if i else "") + w["word"], "start_sec": round(start, 6), "end_sec": round(end, 6)})
    return out


class MiniCPMOWriter:
    """Builds, checks (by the SDK) and writes one case per row."""

    def __init__(self, stage: Path):
        from minicpm_o5_sdk import O5TokenizerID, load_builtin_tokenizer

        self.root = stage
        (stage / CASES_DIR).mkdir()
        (stage / MEDIA_DIR).mkdir()
        self.tokenizer = load_builtin_tokenizer(O5TokenizerID(TOKENIZER_ID))
        self.names: list[str] = []

    def add(self, row: dict[str, Any]) -> None:
        name = new_name(row["id"], self.names)
        media = self.root / MEDIA_DIR / name
        media.mkdir()
        try:
            structure, ready = self._structure(row, name, media)
            data = self._checked(structure, ready)
        except RowFailed:
            shutil.rmtree(media)
            raise
        (self.root / CASES_DIR / f"{name}.json").write_text(
            json.dumps(data.dump_structure(), ensure_ascii=False), encoding="utf-8")
        self.names.append(name)

    def close(self) -> dict[str, Any]:
        from importlib.metadata import version

        sdk_version = version("minicpm-o5-sdk")
        return {"cases_dir": CASES_DIR, "media_dir": MEDIA_DIR, "cases": len(self.names),
                "data_root": CASES_DIR, "sample_rate": SAMPLE_RATE, "sdk": "minicpm-o5-sdk", "sdk_version": sdk_version,
                "tokenizer_id": TOKENIZER_ID, "load": "O5DuplexTrainingData.load_structure(case, data_root=OUT/cases)"}

    # ----------------------------------------------------------------------------- SDK checks

    def _checked(self, structure: dict[str, Any], ready: list[float | None]) -> Any:
        """The SDK's object, after its validators, its arrangement and its tokenization accept it.

        Tool responses are placed in two passes: the first arrangement says when each call closes
        in the SDK's timing, and a response may not precede its call's close.
        """
        data = self._sdk(lambda cls: cls.load_structure(structure, data_root=self.root / CASES_DIR))
        arrangement = self._sdk(lambda _: data.arrange(tokenizer=self.tokenizer))
        calls = arrangement.tracks.ai_non_spoken.segments
        moved = False
        for seg, ready_s in zip(structure["tracks"]["input_event"]["segments"], ready):
            ref = seg["start_trigger"]["refs"][0]
            if ready_s is not None:
                close_s = float(calls[ref["segment_index"]].timeline.timeline_end_sec)
                ref["offset_sec"] = round(max(0.0, ready_s - close_s), 6)
                moved = True
        if moved:
            data = self._sdk(lambda cls: cls.load_structure(structure, data_root=self.root / CASES_DIR))
        self._sdk(lambda _: data.tokenize(tokenizer=self.tokenizer))
        return data

    @staticmethod
    def _sdk(step: Any) -> Any:
        """Run one SDK step; what it refuses is the row's failure, in the SDK's words."""
        from minicpm_o5_sdk import O5DuplexTrainingData

        try:
            return step(O5DuplexTrainingData)
        except (ValueError, TypeError, AssertionError, NotImplementedError) as err:
            raise RowFailed(f"minicpm-o5-sdk refuses the row: {' '.join(str(err).split())}") from None

    # ----------------------------------------------------------------------------- mapping

    def _structure(self, row: dict[str, Any], name: str, media: Path) -> tuple[dict[str, Any], list[float | None]]:
        """The row as the SDK's structure, and when each input event is ready (None: not a tool response)."""
        channels, sr = session_audio(row)
        if sr != SAMPLE_RATE:
            channels = {ch: resample(x, sr, SAMPLE_RATE) for ch, x in channels.items()}
        unit_s = float(row["unit_s"])
        duration_s = len(channels[USER_CHANNEL]) / SAMPLE_RATE
        lang = language(row["language"])
        events = {e["id"]: e for e in row["events"]}
        try:
            attrs = {e["id"]: parse_attrs(e["kind"], e["attrs"]) for e in row["events"]}
        except ValueError as err:
            raise RowFailed(f"events: attrs do not parse ({' '.join(str(err).split())})") from None
        words = words_by_event(row, duration_s)
        user_words = sorted((w for ws in words.values() for w in ws if w["role"] == Role.USER),
                            key=lambda w: (w["start_s"], w["end_s"]))
        user_align = _alignment(user_words, 0.0, duration_s, lang.word_separator)
        user = {"audio": self._audio(media, "user_audio", channels[USER_CHANNEL]),
                "start_trigger": {"refs": [{"type": "global", "offset_sec": 0.0}], "mode": "immediate"},
                "transcript": "".join(w["text"] for w in user_align), "alignment": {"word_intervals": user_align}}
        spoken = self._spoken(channels[ASSISTANT_CHANNEL], unit_s, events, words, media, lang.word_separator)
        video = self._video(row, unit_s, media)
        calls, call_index = self._calls(row, events, attrs)
        inputs, ready = self._inputs(row, events, attrs, call_index, unit_s)
        return {
            "data_id": row["id"],
            "system": {"segments": [{"kind": "text", "text": SYSTEM_PROMPT}], "tools": tool_definitions()},
            "unit_policy": {
                "unit_sec": unit_s,
                "non_spoken_budgets_while_listening": [{"__class__": "O5NoBudgetLimit"}],
                "non_spoken_budgets_while_speaking": [{"__class__": "O5NoBudgetLimit"}],
                "prefill_second_per_unit": [DECODE_PREFILL_S], "ai_tts_second_per_unit": [DECODE_TTS_S],
                "decode_ms_per_step": [row_ms_per_step(row["meta"])], "ai_spoken_playback_delay_sec": PLAYBACK_DELAY_S,
                "spoken_prelook_sec": 0.0},
            "tracks": {"user_video": video,
                       "user_audio": {"segments": [user]},
                       "input_event": {"segments": inputs},
                       "ai_spoken": {"segments": spoken},
                       "ai_non_spoken": {"segments": calls}},
        }, ready

    def _audio(self, media: Path, stem: str, x: np.ndarray) -> dict[str, Any]:
        """Write one FLAC under the row's media folder; its LazyAudio structure, relative to cases/."""
        import soundfile as sf

        if len(x) == 0:
            raise RowFailed(f"{stem} has no samples")
        path = media / f"{stem}.flac"
        sf.write(path, np.clip(x, -1.0, 1.0), SAMPLE_RATE, subtype="PCM_16", format="FLAC")
        return {"__class__": "O5LazyAudio", "duration_sec": len(x) / SAMPLE_RATE, "shape": [len(x)],
                "file_path": f"../{MEDIA_DIR}/{media.name}/{path.name}"}

    @staticmethod
    def _video(row: dict[str, Any], unit_s: float, media: Path) -> dict[str, Any] | None:
        """Omni rows: one video segment per frame, the JPEG as written, covering exactly its unit's window.

        Frame k is input of unit k (DESIGN §2), so its segment starts at k * unit_s and lasts one unit:
        the SDK puts it in unit k's <user_video_slot> and nowhere else. Audio-only rows: no video track.
        """
        frames = row.get("frames") or []
        if not frames:
            return None
        if len(frames) != len(row["units"]):
            raise RowFailed(f"frames: {len(frames)} for {len(row['units'])} units (Omni rows need one per unit)")
        segments = []
        for k, jpeg in enumerate(frames):
            path = media / f"{FRAME_STEM}_{k:05d}.jpg"
            path.write_bytes(jpeg)
            segments.append({"video": {"__class__": "O5LazyVideo", "duration_sec": unit_s,
                                       "file_path": f"../{MEDIA_DIR}/{media.name}/{path.name}"},
                             "start_trigger": {"refs": [{"type": "global", "offset_sec": round(k * unit_s, 6)}],
                                               "mode": "immediate"}})
        return {"segments": segments}

    def _spoken(self, assistant: np.ndarray, unit_s: float, events: dict[str, Any],
                words: dict[str, list[dict[str, Any]]], media: Path, sep: str) -> list[dict[str, Any]]:
        """One segment per run of voiced assistant turns whose output units touch or overlap."""
        u = round(unit_s * SAMPLE_RATE)
        runs: list[dict[str, Any]] = []
        for ev in sorted((e for e in events.values() if e["kind"] == EventKind.ASSISTANT_TURN and words.get(e["id"])),
                         key=lambda e: e["start_s"]):
            start, end = round(ev["start_s"] * SAMPLE_RATE), round(ev["end_s"] * SAMPLE_RATE)
            first_unit, last_unit = start // u - 1, (max(end, start + 1) - 1) // u - 1
            if runs and first_unit <= runs[-1]["last_unit"]:
                run = runs[-1]
                run["last_unit"], run["end"] = max(run["last_unit"], last_unit), max(run["end"], end)
                run["words"] += words[ev["id"]]
            else:
                runs.append({"unit": first_unit, "last_unit": last_unit, "end": end, "words": list(words[ev["id"]])})
        out = []
        for n, run in enumerate(runs):
            origin = (run["unit"] + 1) * u
            clip = assistant[origin:run["end"]]
            align = _alignment(sorted(run["words"], key=lambda w: (w["start_s"], w["end_s"])),
                               origin / SAMPLE_RATE, len(clip) / SAMPLE_RATE, sep)
            out.append({"audio": self._audio(media, f"ai_spoken_{n}", clip),
                        "start_trigger": {"refs": [{"type": "global", "offset_sec": round(run["unit"] * unit_s, 6)}],
                                          "mode": "immediate"},
                        "text": "".join(w["text"] for w in align), "alignment": {"word_intervals": align}})
        return out

    @staticmethod
    def _calls(row: dict[str, Any], events: dict[str, Any], attrs: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, int]]:
        """Each unit's delegate request as a tool call at that unit; {task id: segment index}."""
        tools = {attrs[i].task_id: attrs[i].tool for i, e in events.items() if e["kind"] == EventKind.DELEGATE}
        calls: list[dict[str, Any]] = []
        index: dict[str, int] = {}
        for unit in row["units"]:
            if not unit.get("delegate"):
                continue
            task = unit.get("task_id")
            if task not in tools:
                raise RowFailed(f"unit {unit['index']}: delegate of task {task!r} has no delegate event")
            index[task] = len(calls)
            calls.append({"start_trigger": {"refs": [{"type": "global", "offset_sec": round(unit["index"] * float(row["unit_s"]), 6)}],
                                            "mode": "immediate"},
                          "content": {"kind": "tool_call", "tool_call_id": task, "name": tools[task],
                                      "arguments": {REQUEST_ARG: unit["delegate"]}}})
        return calls, index

    @staticmethod
    def _inputs(row: dict[str, Any], events: dict[str, Any], attrs: dict[str, Any], call_index: dict[str, int],
                unit_s: float) -> tuple[list[dict[str, Any]], list[float | None]]:
        """Backend results as tool responses of their calls; timers (and any other unit input event) as standalone events."""
        ready = {attrs[i].task_id: float(attrs[i].ready_s) for i, e in events.items() if e["kind"] == EventKind.BACKEND}
        out: list[dict[str, Any]] = []
        ready_at: list[float | None] = []
        for unit in row["units"]:
            for ie in unit.get("input_events") or []:
                if ie["kind"] == EventKind.BACKEND:
                    task = ie.get("task_id")
                    if task not in call_index:
                        raise RowFailed(f"unit {unit['index']}: backend result of task {task!r} has no delegate request")
                    out.append({"start_trigger": {"refs": [{"type": "text", "track": "ai_non_spoken",
                                                            "segment_index": call_index[task], "at": "end",
                                                            "offset_sec": 0.0}], "mode": "deferrable"},
                                "event": {"kind": "tool_response", "tool_call_id": task,
                                          "contents": [{"kind": "text", "text": ie.get("text") or ""}]}})
                    ready_at.append(ready.get(task, unit["index"] * unit_s))
                else:
                    out.append({"start_trigger": {"refs": [{"type": "global", "offset_sec": round(unit["index"] * unit_s, 6)}],
                                                  "mode": "deferrable"},
                                "event": {"kind": "standalone", "contents": [{"kind": "text", "text": render_input_event(
                                    ie["kind"], ie.get("task_id"), ie.get("text") or "")}]}})
                    ready_at.append(None)
        return out, ready_at
