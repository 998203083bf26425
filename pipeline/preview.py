"""Preview of trajectory rows: a self-contained HTML page to see and hear one session, a gallery
page linking several, and a static PNG timeline of the same lanes.

Pure functions of rows (a :class:`schemas.trajectory.TrajectoryRow` or the plain dict pyarrow
reads back); they return strings / bytes and never touch the file system or Ray.

- :func:`render_html` -- one page: three audio sources (user microphone, assistant channel, their
  mix) on one playhead, one lane per event kind present, word-level text, the interrupted part of
  an assistant turn struck through, delegate -> backend arrows, and the per-unit strip where the
  output of unit k is drawn under window k+1, where it plays (DESIGN §2).
- :func:`audio_tracks` -- the three audio files of a row (for writing them beside a page).
- :func:`render_gallery` -- an index page with one card per scenario family.
- :func:`render_png` -- the same lanes as a matplotlib figure (Agg, no pyplot state).

The page works from ``file://`` with no server and no network: CSS, script, data and (by default)
the audio, as base64 data URIs, are inlined.
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from pipeline.preview_assets import GALLERY_CSS, PAGE_CSS, PAGE_JS
from schemas.attrs import AssistantTurnAttrs, parse_attrs
from schemas.config import CORPUS_KIND, LLM_KIND, PROCEDURAL_KIND
from schemas.provenance import SOURCE_META_KEY
from schemas.vocab import Decision, EventKind, Label, Role, TaskStatus

__all__ = [
    "KIND_STYLE", "LANE_ORDER", "event_kinds", "audio_tracks", "render_html", "render_gallery",
    "render_png", "GalleryEntry", "script_source_label",
]


@dataclass(frozen=True)
class KindStyle:
    color: str
    label: str
    speech: bool = False     # lane shows word-level text


# One colour per event kind, shared by the page, the gallery and the PNG.
K = EventKind
KIND_STYLE: dict[str, KindStyle] = {
    K.USER_TURN: KindStyle("#2b6cb0", "User speech", True),
    K.PAUSE: KindStyle("#718096", "Hesitation pause"),
    K.INTERRUPTION: KindStyle("#e53e3e", "Interruption", True),
    K.BACKCHANNEL: KindStyle("#38a169", "Backchannel", True),
    K.OTHER_DIRECTED: KindStyle("#d69e2e", "Other-directed", True),
    K.BACKGROUND_SPEECH: KindStyle("#805ad5", "Background speech", True),
    K.NOISE: KindStyle("#4a5568", "Noise"),
    K.ASSISTANT_TURN: KindStyle("#2c7a7b", "Assistant speech", True),
    K.DELEGATE: KindStyle("#d53f8c", "Delegate"),
    K.BACKEND: KindStyle("#b7791f", "Backend result"),
    K.TIMER: KindStyle("#dd6b20", "Timer"),
    K.VISUAL: KindStyle("#00a3c4", "Visual event"),
}
_OTHER_STYLE = KindStyle("#718096", "Other")
# Lanes top to bottom; groups are separated by a rule. Unknown kinds go at the end.
LANE_ORDER: tuple[str, ...] = (
    K.USER_TURN, K.PAUSE, K.INTERRUPTION, K.BACKCHANNEL, K.OTHER_DIRECTED, K.BACKGROUND_SPEECH,
    K.NOISE, K.ASSISTANT_TURN, K.DELEGATE, K.BACKEND, K.TIMER, K.VISUAL,
)
_USER_GROUP = LANE_ORDER[:7]
_ROLE_LANE = {Role.USER: K.USER_TURN, Role.ASSISTANT: K.ASSISTANT_TURN, Role.OTHER: K.OTHER_DIRECTED,
              Role.BACKGROUND: K.BACKGROUND_SPEECH}
# The lane whose colour a label chip takes (a label not listed is grey).
_LABEL_KIND = {
    Label.USER_SPEECH: K.USER_TURN, Label.HESITATION_PAUSE: K.PAUSE, Label.BACKCHANNEL: K.BACKCHANNEL,
    Label.OTHER_DIRECTED: K.OTHER_DIRECTED, Label.BACKGROUND_SPEECH: K.BACKGROUND_SPEECH,
    Label.INTERRUPTION_ONSET: K.INTERRUPTION, Label.STOP_DISCARD: K.INTERRUPTION, Label.STOP_REPAIR: K.INTERRUPTION,
    Label.STOP_PARK: K.INTERRUPTION, Label.RESPOND: K.ASSISTANT_TURN, Label.RELAY: K.BACKEND,
    Label.PROACTIVE: K.TIMER, Label.DELEGATE: K.DELEGATE, Label.BACKEND_RESULT: K.BACKEND,
    Label.TIMER_FIRED: K.TIMER, Label.TURN_EOS: K.ASSISTANT_TURN, Label.VISUAL_EVENT: K.VISUAL,
}
_WAVE_BINS_PER_S = 50
_MAX_WAVE_BINS = 30_000
_UNSPOKEN_S_PER_WORD = 0.33


def _style(kind: str) -> KindStyle:
    return KIND_STYLE.get(kind, _OTHER_STYLE)


# ---------------------------------------------------------------------------------------------
# The view: a row normalised into lanes, items, arrows and units (shared by HTML and PNG).
# ---------------------------------------------------------------------------------------------

@dataclass
class _Ev:
    id: str
    kind: str
    role: str
    start: float
    end: float
    text: str
    attrs: dict[str, Any]     # as stored, for display (whatever it holds)
    typed: Any = None         # the kind's typed attrs (schemas.attrs), None when they do not parse
    words: list[dict[str, Any]] = field(default_factory=list)

    @property
    def interrupted(self) -> bool:
        return isinstance(self.typed, AssistantTurnAttrs) and self.typed.interrupted

    @property
    def cut(self) -> float:
        cut_s = self.typed.cut_s if isinstance(self.typed, AssistantTurnAttrs) else None
        return float(self.end if cut_s is None else cut_s)


@dataclass
class _Arrow:
    task_id: str
    tool: str
    issued_s: float      # the page's arrow data carries these fields as they are (dataclasses.asdict)
    ready_s: float
    latency_s: float

    @property
    def label(self) -> str:
        return f"{self.task_id} · {self.tool or '?'} · {self.latency_s:.2f} s"


@dataclass
class _View:
    row: dict[str, Any]
    unit_s: float
    duration: float
    end: float
    num_units: int
    events: list[_Ev]
    lanes: list[str]
    orphan_words: dict[str, list[dict[str, Any]]]
    arrows: list[_Arrow]
    units: list[dict[str, Any]]
    ghosts: dict[str, tuple[float, float]]   # event id -> unspoken span drawn after the cut


def _as_dict(row: Any) -> dict[str, Any]:
    if hasattr(row, "model_dump"):
        return row.model_dump()
    if isinstance(row, Mapping):
        return dict(row)
    raise TypeError(f"expected a TrajectoryRow or a row dict, got {type(row).__name__}")


def _attrs(raw: Any) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        return dict(raw)
    if not raw:
        return {}
    try:
        val = json.loads(raw)
    except (TypeError, ValueError):
        return {"attrs (not JSON)": raw}
    return val if isinstance(val, dict) else {"attrs": val}


def _typed(kind: str, raw: Any) -> Any:
    """The typed attrs of an event, or None for an unknown kind or attrs that do not fit it."""
    try:
        return parse_attrs(kind, raw if isinstance(raw, (str, dict)) else None)
    except ValueError:   # pydantic's ValidationError and json's JSONDecodeError are ValueErrors
        return None


def _f(x: Any, default: float = 0.0) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return default


def _build_view(row: Any) -> _View:
    d = _as_dict(row)
    unit_s = _f(d.get("unit_s"), 1.0) or 1.0
    units = sorted(d.get("units") or [], key=lambda u: u.get("index", 0))
    num_units = len(units)
    duration = _f(d.get("duration_s")) or num_units * unit_s
    num_units = num_units or int(math.ceil(duration / unit_s))
    events = [
        _Ev(id=str(e.get("id", "")), kind=str(e.get("kind", "")), role=str(e.get("role", "")),
            start=_f(e.get("start_s")), end=max(_f(e.get("start_s")), _f(e.get("end_s"))),
            text=e.get("text") or "", attrs=_attrs(e.get("attrs")), typed=_typed(str(e.get("kind", "")), e.get("attrs")))
        for e in d.get("events") or []
    ]
    events.sort(key=lambda e: (e.start, e.id))
    by_id = {e.id: e for e in events}
    orphans: dict[str, list[dict[str, Any]]] = {}
    for w in d.get("words") or []:
        ev = by_id.get(w.get("event_id"))
        if ev is not None:
            ev.words.append(w)
        else:
            orphans.setdefault(_ROLE_LANE.get(w.get("role"), K.USER_TURN), []).append(w)
    present = {e.kind for e in events} | set(orphans)
    lanes = [k for k in LANE_ORDER if k in present] + sorted(present - set(LANE_ORDER))

    end = max([duration + unit_s] + [e.end for e in events])
    ghosts: dict[str, tuple[float, float]] = {}
    for e in events:
        unspoken = e.typed.unspoken_text if e.interrupted else ""
        if unspoken:
            # Drawn after the cut, about a third of a second per word, but never over the next
            # event of the same lane: the hover card has the full text.
            g_end = e.cut + max(0.6, _UNSPOKEN_S_PER_WORD * len(unspoken.split()))
            nxt = [o.start for o in events if o.kind == e.kind and o.start > e.cut]
            if nxt:
                g_end = min(g_end, max(min(nxt) - 0.05, e.cut + 0.3))
            ghosts[e.id] = (e.cut, min(g_end, end))

    arrows = []
    delegates = [e for e in events if e.kind == K.DELEGATE and e.typed is not None]
    for b in (e for e in events if e.kind == K.BACKEND and e.typed is not None):
        a = b.typed
        dl = [e for e in delegates if e.typed.task_id == a.task_id and e.start <= b.start]
        tool = a.tool or (dl[-1].typed.tool if dl else "")
        arrows.append(_Arrow(a.task_id, tool, a.issued_s, a.ready_s, a.latency_s))
    return _View(d, unit_s, duration, end, num_units, events, lanes, orphans, arrows, units, ghosts)


def event_kinds(row: Any) -> list[str]:
    """The event kinds present in ``row``, in lane order."""
    return _build_view(row).lanes


# ---------------------------------------------------------------------------------------------
# Audio
# ---------------------------------------------------------------------------------------------

def _mime(data: bytes) -> str:
    if data[:4] == b"fLaC":
        return "audio/flac"
    if data[:4] == b"RIFF":
        return "audio/wav"
    if data[:4] == b"OggS":
        return "audio/ogg"
    if data[:3] == b"ID3" or data[:2] == b"\xff\xfb":
        return "audio/mpeg"
    return "application/octet-stream"


_EXT = {"audio/flac": "flac", "audio/wav": "wav", "audio/ogg": "ogg", "audio/mpeg": "mp3"}


def _blob_bytes(blob: Any) -> bytes:
    if blob is None:
        return b""
    if isinstance(blob, (bytes, bytearray)):
        return bytes(blob)
    if hasattr(blob, "bytes"):
        return bytes(blob.bytes or b"")
    if isinstance(blob, Mapping):
        return bytes(blob.get("bytes") or b"")
    return b""


def _decode(data: bytes) -> tuple[np.ndarray, int] | None:
    if not data:
        return None
    import soundfile as sf
    try:
        x, sr = sf.read(io.BytesIO(data), dtype="float32", always_2d=True)
    except (RuntimeError, sf.LibsndfileError, ValueError):
        return None
    return x.mean(axis=1), int(sr)


def _encode_flac(x: np.ndarray, sr: int) -> bytes:
    import soundfile as sf
    buf = io.BytesIO()
    sf.write(buf, np.clip(x, -1.0, 1.0), sr, format="FLAC", subtype="PCM_16")
    return buf.getvalue()


@dataclass
class _Audio:
    files: dict[str, tuple[bytes, str]]            # name -> (encoded bytes, mime)
    signals: dict[str, tuple[np.ndarray, int]]     # name -> (samples, rate), decodable ones only


def _load_audio(d: dict[str, Any]) -> _Audio:
    files: dict[str, tuple[bytes, str]] = {}
    signals: dict[str, tuple[np.ndarray, int]] = {}
    for name, col in (("user", "user_audio"), ("assistant", "assistant_audio")):
        data = _blob_bytes(d.get(col))
        if data:
            files[name] = (data, _mime(data))
            sig = _decode(data)
            if sig is not None:
                signals[name] = sig
    if "user" in signals and "assistant" in signals and signals["user"][1] == signals["assistant"][1]:
        (u, sr), (a, _) = signals["user"], signals["assistant"]
        n = max(len(u), len(a))
        mix = np.zeros(n, np.float32)
        mix[:len(u)] += u
        mix[:len(a)] += a
        signals["mix"] = (mix, sr)
        files["mix"] = (_encode_flac(mix, sr), "audio/flac")
    return _Audio(files, signals)


def audio_tracks(row: Any) -> dict[str, tuple[bytes, str]]:
    """``{"user"|"assistant"|"mix": (file bytes, file extension)}`` of a row.

    The user and assistant files are the stored bytes unchanged; the mix (user + assistant,
    clipped) is encoded as 16-bit FLAC. A channel that is absent or undecodable is left out.
    """
    return {k: (b, _EXT.get(m, "bin")) for k, (b, m) in _load_audio(_as_dict(row)).files.items()}


def _envelope(x: np.ndarray, sr: int, duration: float) -> tuple[np.ndarray, float]:
    """Peak level per bin mapped from -60..0 dBFS to 0..1, and the bins per second."""
    per_s = _WAVE_BINS_PER_S
    if duration * per_s > _MAX_WAVE_BINS:
        per_s = max(1, int(_MAX_WAVE_BINS / duration))
    hop = max(1, int(round(sr / per_s)))
    nb = len(x) // hop
    peaks = np.abs(x[:nb * hop]).reshape(nb, hop).max(axis=1) if nb else np.zeros(0)
    duration = nb * hop / sr
    level = np.clip((20 * np.log10(np.maximum(peaks, 1e-6)) + 60) / 60, 0, 1)
    return level, len(level) / max(duration, 1e-9)


# ---------------------------------------------------------------------------------------------
# HTML page
# ---------------------------------------------------------------------------------------------

def _e(s: Any) -> str:
    return html.escape(str(s), quote=True)


def _n(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".") if x == x else "0"


def _info(title: str, rows: Sequence[tuple[str, Any]]) -> str:
    def val(v: Any) -> str:
        if isinstance(v, float):
            return _n(v)
        if isinstance(v, (dict, list, bool)) or v is None:
            return json.dumps(v, ensure_ascii=False)
        return str(v)
    return _e(json.dumps({"title": title, "rows": [[k, val(v)] for k, v in rows]}, ensure_ascii=False))


def _event_info(e: _Ev) -> str:
    rows: list[tuple[str, Any]] = [("id", e.id), ("role", e.role), ("start_s", e.start),
                                   ("end_s", e.end), ("duration", f"{e.end - e.start:.3f} s")]
    if e.text:
        rows.append(("text", e.text))
    if e.words:
        rows.append(("words", len(e.words)))
    rows += [(f"attrs.{k}", v) for k, v in e.attrs.items()]
    return _info(f"{e.kind} {e.id}", rows)


def _pos(s: float, e: float | None = None, c: str | None = None) -> str:
    out = f"--s:{_n(s)}"
    if e is not None:
        out += f";--e:{_n(e)}"
    if c:
        out += f";--c:{c}"
    return out


def _words_html(words: list[dict[str, Any]], origin: float) -> str:
    """Word chips, alternating between two rows; each is at most as wide as the gap to the next
    word of its row (``--w``), so crowded words are shortened with an ellipsis, never overlap."""
    ws = sorted(words, key=lambda w: _f(w.get("start_s")))
    parts = []
    for i, w in enumerate(ws):
        start = _f(w.get("start_s"))
        room = (_f(ws[i + 2].get("start_s")) - start) if i + 2 < len(ws) else 3.0
        cls = "word r1" if i % 2 else "word"
        parts.append(f'<span class="{cls}" style="--s:{_n(start)};--es:{_n(origin)};--w:{_n(room)}">'
                     f'{_e(w.get("word", ""))}</span>')
    return "".join(parts)


def _item_label(e: _Ev) -> str:
    a = e.typed
    if e.kind == K.DELEGATE and a is not None:
        return f"✉ {a.task_id} · {a.tool}"
    if e.kind == K.BACKEND and a is not None:
        return f"⬇ {a.task_id} result" + (f" ({a.status})" if a.status != TaskStatus.OK else "")
    if e.kind == K.TIMER and a is not None:
        return f"◷ {a.label or e.text} ({_n(a.seconds)} s) · fires {e.end:.2f} s"
    if e.kind == K.VISUAL:
        return f"◉ {e.text}"
    if e.kind == K.PAUSE:
        return f"{K.PAUSE} {e.end - e.start:.2f} s"
    if e.kind == K.NOISE:
        return f"≈ {e.text or K.NOISE}"
    return e.text


def _lane_html(v: _View, kind: str) -> str:
    st = _style(kind)
    evs = [e for e in v.events if e.kind == kind]
    speech = st.speech
    out = []
    for e in evs:
        point = e.end - e.start < 1e-6
        cls = ["item", e.kind]
        if point:
            cls.append("point")
        if e.interrupted:
            cls.append("interrupted")
        inner = ""
        if e.words:
            inner = _words_html(e.words, e.start)
        elif not speech or e.text:
            inner = f'<span class="txt">{_e(_item_label(e))}</span>'
        if e.kind == K.INTERRUPTION:
            action = e.typed.action if e.typed is not None else ""
            inner += (f'<span class="txt" style="left:calc(100% + 6px)">'
                      f'<span class="tag">⚡ {_e(action)}</span></span>')
        out.append(f'<div class="{" ".join(cls)}" style="{_pos(e.start, e.end, st.color)}" '
                   f'data-id="{_e(e.id)}" data-seek="{_n(e.start)}" data-info="{_event_info(e)}">'
                   f'{inner}</div>')
        if e.id in v.ghosts:
            g0, g1 = v.ghosts[e.id]
            unspoken = e.typed.unspoken_text
            info = _info(f"unspoken part of {e.id}", [
                ("unspoken", unspoken), ("cut at", f"{e.cut:.3f} s"),
                ("note", "planned but never voiced: not in words, not in any spoken_text")])
            out.append(f'<div class="unspoken" style="{_pos(g0, g1)}" data-seek="{_n(g0)}" '
                       f'data-info="{info}"><span class="txt">{_e(unspoken)}</span></div>')
            out.append(f'<div class="cut" style="{_pos(e.cut)}"><span>✂ cut {e.cut:.2f} s</span></div>')
    if kind in v.orphan_words:
        out.append(f'<div style="--c:{st.color}">{_words_html(v.orphan_words[kind], 0.0)}</div>')
    lane_cls = "lane speech" if speech else "lane"
    return (f'<div class="{lane_cls}" data-kind="{_e(kind)}" data-count="{len(evs)}">'
            f'{"".join(out)}</div>')


def _row_html(label: str, sub: str, lane: str, color: str | None = None, group: bool = False) -> str:
    sw = f'<span class="sw" style="--c:{color}"></span>' if color else ""
    sub_html = f"<small>{_e(sub)}</small>" if sub else ""
    cls = "row group-start" if group else "row"
    return f'<div class="{cls}"><div class="row-label">{sw}<div>{_e(label)}{sub_html}</div></div>{lane}</div>'


def _wave_html(v: _View, audio: _Audio, name: str, color: str) -> str:
    sig = audio.signals.get(name)
    if sig is None:
        return '<div class="lane wave"><span class="audio-missing">no decodable audio</span></div>'
    x, sr = sig
    level, per_s = _envelope(x, sr, len(x) / sr)
    w = v.end * per_s
    top = " ".join(f"{i},{0.5 - lv / 2:.3f}" for i, lv in enumerate(level))
    bot = " ".join(f"{i},{0.5 + lv / 2:.3f}" for i, lv in reversed(list(enumerate(level))))
    path = f"M{top} L{bot} Z" if len(level) else ""
    return (f'<div class="lane wave" style="--c:{color}"><svg viewBox="0 0 {w:.2f} 1" '
            f'preserveAspectRatio="none"><path d="{path}"/></svg></div>')


def _unit_rows(v: _View) -> str:
    u = v.unit_s
    ins, outs, labs = [], [], []
    outs.append(f'<div class="unit-out none" style="{_pos(0)}">no output yet</div>')
    max_labels = 1
    speak_color = KIND_STYLE[K.ASSISTANT_TURN].color
    for unit in v.units:
        k = int(unit.get("index", 0))
        t0, t1 = k * u, (k + 1) * u
        inputs = unit.get("input_events") or []
        chips = "".join(
            f'<span class="chip" style="--c:{_style(str(ie.get("kind"))).color}">'
            f'{"⬇" if ie.get("kind") == K.BACKEND else "◷" if ie.get("kind") == K.TIMER else "•"} '
            f'{_e(ie.get("task_id") or ie.get("kind"))}</span>' for ie in inputs)
        labels = list(unit.get("labels") or [])
        max_labels = max(max_labels, len(labels))
        decision = str(unit.get("decision", Decision.LISTEN))
        spoken = unit.get("spoken_text") or ""
        tokens = len(unit.get("speech_tokens") or [])
        info = _info(f"unit {k}", [
            ("reads", f"window {k}: {t0:.2f}–{t1:.2f} s"),
            ("user_text", unit.get("user_text") or ""),
            ("input_events", "; ".join(f"{ie.get('kind')} {ie.get('task_id') or ''}: {ie.get('text') or ''}"
                                       for ie in inputs) or "none"),
            ("decision", decision), ("plays in", f"window {k + 1}: {t1:.2f}–{t1 + u:.2f} s"),
            ("spoken_text", spoken), ("speech_tokens", tokens), ("turn_eos", bool(unit.get("turn_eos"))),
            ("delegate", unit.get("delegate")), ("task_id", unit.get("task_id")),
            ("labels", ", ".join(labels) or "none"),
        ])
        ins.append(f'<div class="unit" data-index="{k}" data-seek="{_n(t0)}" style="{_pos(t0)}" '
                   f'data-info="{info}"><span class="k">{k}</span> {chips}'
                   f'<span class="ut">{_e(unit.get("user_text") or "")}</span></div>')
        badges = ""
        if unit.get("turn_eos"):
            badges += f'<span class="chip" style="--c:{speak_color}">EOS</span>'
        if unit.get("delegate"):
            badges += (f'<span class="chip" style="--c:{KIND_STYLE[K.DELEGATE].color}">'
                       f'✉ {_e(unit.get("task_id") or K.DELEGATE)}</span>')
        outs.append(f'<div class="unit-out {Decision.SPEAK if decision == Decision.SPEAK else Decision.LISTEN}" data-index="{k}" '
                    f'data-seek="{_n(t1)}" style="{_pos(t1)};--speak:{speak_color}" data-info="{info}">'
                    f'<span class="dec"><span class="from">u{k}→</span> {_e(decision.upper())}</span> {badges}'
                    f'<span class="st">{_e(spoken)}</span></div>')
        lab = "".join(f'<span class="chip" style="--c:{_style(_LABEL_KIND.get(x, "")).color}" '
                      f'title="{_e(x)}">{_e(x)}</span>' for x in labels)
        labs.append(f'<div class="unit-labels" data-index="{k}" data-seek="{_n(t0)}" style="{_pos(t0)}" '
                    f'data-info="{info}">{lab}</div>')
    return (
        _row_html("Unit k: input", "reads window k", f'<div class="lane units-in">{"".join(ins)}</div>',
                  group=True)
        + _row_html("Unit k: output", "plays in window k+1",
                    f'<div class="lane units-out">{"".join(outs)}</div>')
        + _row_html("Unit k: labels", "derived from events",
                    f'<div class="lane units-labels" style="--nl:{max_labels}">{"".join(labs)}</div>')
    )


FRAME_LANE_PX = 96   # the height of the frame strip


def _frames_html(frames: Sequence[Any], unit_s: float) -> str:
    """Omni rows: frame k in window k, above the unit it is the input of ("" for an audio-only row)."""
    if not frames:
        return ""
    cells = "".join(
        f'<div class="unit" data-index="{k}" data-seek="{_n(k * unit_s)}" style="{_pos(k * unit_s)};padding:0">'
        f'<img alt="frame {k}" title="frame {k}: input of unit {k}" style="width:100%;height:100%;object-fit:contain" '
        f'src="data:image/jpeg;base64,{base64.b64encode(_blob_bytes(f)).decode("ascii")}"></div>'
        for k, f in enumerate(frames))
    return _row_html("Frames", "frame k: input of unit k",
                     f'<div class="lane frames" style="height:{FRAME_LANE_PX}px">{cells}</div>', group=True)


def _ruler(v: _View) -> str:
    ticks = []
    n = int(math.floor(v.end / v.unit_s + 1e-9))
    for k in range(n + 1):
        t = k * v.unit_s
        minor = " minor" if k % 5 else ""
        ticks.append(f'<div class="tick{minor}" style="{_pos(t)}"><span>{_n(t)}</span></div>')
    return _row_html("Time (s)", "click to seek", f'<div class="ruler">{"".join(ticks)}</div>')


def _pretty(s: Any) -> str:
    if not isinstance(s, str):
        return json.dumps(s, indent=2, ensure_ascii=False, default=str)
    try:
        return json.dumps(json.loads(s), indent=2, ensure_ascii=False)
    except ValueError:
        return s


def script_source_label(row: Any) -> str:
    """Where a row's words came from, in a few words: `procedural`, `llm · MODEL`, `corpus · FILE:LINE`
    (`+ llm · MODEL` when its llm wrote a repair) (the row's meta[SOURCE_META_KEY]; a procedural row
    of a single-source run carries none)."""
    meta = _attrs(_as_dict(row).get("meta"))
    src = meta.get(SOURCE_META_KEY)
    if not isinstance(src, Mapping):
        return PROCEDURAL_KIND
    kind = str(src.get("kind", "?"))
    if kind == LLM_KIND:
        return f"{kind} · {src.get('model')}"
    if kind == CORPUS_KIND:
        where = f":{src['line']}" if src.get("line") is not None else f" row {src.get('index')}"
        llm = src.get("llm")   # a repair the corpus source's llm wrote over the record
        by = f" + {LLM_KIND} · {llm.get('model')}" if isinstance(llm, Mapping) else ""
        return f"{kind} · {str(src.get('path', '')).replace(chr(92), '/').rsplit('/', 1)[-1]}{where}{by}"
    return kind


def _script_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")


def render_html(row: Any, *, audio_src: Mapping[str, str] | None = None,
                back_href: str | None = None, title: str | None = None) -> str:
    """One self-contained HTML page previewing ``row``.

    ``audio_src`` maps ``user`` / ``assistant`` / ``mix`` to URLs (e.g. files written beside the
    page from :func:`audio_tracks`); by default the audio is embedded as base64 data URIs.
    ``back_href`` adds a link back (to the gallery).
    """
    v = _build_view(row)
    d = v.row
    audio = _load_audio(d)
    srcs: dict[str, str] = {}
    for name, (data, mime) in audio.files.items():
        if audio_src is not None and name in audio_src:
            srcs[name] = audio_src[name]
        else:
            srcs[name] = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"

    rows_html = [_ruler(v)]
    rows_html.append(_row_html("User mic", "waveform, dB", _wave_html(v, audio, "user", KIND_STYLE[K.USER_TURN].color),
                               KIND_STYLE[K.USER_TURN].color, group=True))
    first_asst = True
    for kind in v.lanes:
        st = _style(kind)
        group = False
        if kind not in _USER_GROUP and first_asst:
            first_asst = False
            rows_html.append(_row_html("Assistant", "waveform, dB",
                                       _wave_html(v, audio, "assistant", KIND_STYLE[K.ASSISTANT_TURN].color),
                                       KIND_STYLE[K.ASSISTANT_TURN].color, group=True))
        n = sum(1 for e in v.events if e.kind == kind)
        rows_html.append(_row_html(st.label, f"{kind} · {n}", _lane_html(v, kind), st.color, group))
    if first_asst:
        rows_html.append(_row_html("Assistant", "waveform, dB",
                                   _wave_html(v, audio, "assistant", KIND_STYLE[K.ASSISTANT_TURN].color),
                                   KIND_STYLE[K.ASSISTANT_TURN].color, group=True))
    rows_html.append(_frames_html(d.get("frames") or [], v.unit_s))
    rows_html.append(_unit_rows(v))

    data = {
        "id": d.get("id"), "unit_s": v.unit_s, "duration_s": v.duration, "end_s": v.end,
        "num_units": v.num_units, "lanes": v.lanes, "arrow_lanes": [K.DELEGATE, K.BACKEND],
        "arrows": [{**asdict(a), "label": a.label, "color": KIND_STYLE[K.DELEGATE].color}
                   for a in v.arrows],
    }
    legend = "".join(f'<span><span class="sw" style="--c:{_style(k).color}"></span>{_e(_style(k).label)}</span>'
                     for k in v.lanes)
    n_words = sum(len(e.words) for e in v.events) + sum(len(w) for w in v.orphan_words.values())
    facts = [("duration", f"{v.duration:.2f} s"), ("units", f"{v.num_units} × {_n(v.unit_s)} s"),
             ("sample rate", f"{d.get('sample_rate')} Hz"), ("language", d.get("language")),
             ("seed", d.get("seed")), ("events", len(v.events)), ("words", n_words),
             ("frames", len(d.get("frames") or [])), ("script source", script_source_label(d))]
    audio_els = []
    for name in ("user", "assistant", "mix"):
        src = f' src="{_e(srcs[name])}"' if name in srcs else ""
        audio_els.append(f'<audio id="audio-{name}" preload="auto"{src}></audio>')
    missing = [n for n in ("user", "assistant", "mix") if n not in srcs]
    title = title or f"{d.get('id')} · {d.get('scenario')}"
    back = f'<a class="back" href="{_e(back_href)}">← gallery</a>' if back_href else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{_e(title)}</title>
<style>{PAGE_CSS}</style></head>
<body>
<header>{back}
<h1>{_e(d.get('id'))}<span class="scenario">{_e(d.get('scenario'))}</span></h1>
<div class="facts">{"".join(f"<span>{_e(k)} <b>{_e(val)}</b></span>" for k, val in facts)}</div>
<div class="legend">{legend}</div>
<div class="note">Time runs left to right; grid lines are unit boundaries. <b>Unit k reads window k and its
output plays in window k+1</b>: the output row is drawn one unit to the right of the unit that decided it
(<i>u3→</i> in window 4). Click any unit, event or the ruler to seek; hover for attributes; space plays.</div>
</header>
<div class="transport">
<button id="play" type="button">▶ Play</button>
<span class="clock" id="clock"></span>
<span class="toggles" role="group" aria-label="audio source">
<button id="tog-user" type="button" aria-pressed="false" title="hear the user microphone channel (what the assistant heard)">User mic</button>
<button id="tog-assistant" type="button" aria-pressed="false" title="hear the assistant channel (what it played)">Assistant</button>
<button id="tog-mix" type="button" aria-pressed="true" title="hear user + assistant together">Mix</button>
</span>
<label>zoom <input id="zoom" type="range" min="20" max="400" step="5" value="100"></label>
<label><input id="follow" type="checkbox" checked> follow playhead</label>
<span class="msg" id="msg">{"missing audio: " + ", ".join(missing) if missing else ""}</span>
{"".join(audio_els)}
</div>
<div class="timeline" id="timeline" style="--u:{_n(v.unit_s)};--end:{_n(v.end)};--dur:{_n(v.duration)}">
<div class="tracks">
{"".join(rows_html)}
<div class="beyond" title="after the end of the audio"></div>
<svg class="arrows"><defs><marker id="arrowhead" viewBox="0 0 10 10" refX="1" refY="5" markerWidth="7"
 markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{KIND_STYLE[K.DELEGATE].color}"/></marker></defs></svg>
<div class="playhead" id="playhead" data-t="0"></div>
</div></div>
<div id="tip"></div>
<details><summary>meta</summary><pre>{_e(_pretty(d.get('meta') or '{}'))}</pre></details>
<details><summary>script</summary><pre>{_e(_pretty(d.get('script') or ''))}</pre></details>
<script type="application/json" id="preview-data">{_script_json(data)}</script>
<script>{PAGE_JS}</script>
</body></html>
"""


# ---------------------------------------------------------------------------------------------
# Gallery
# ---------------------------------------------------------------------------------------------

@dataclass
class GalleryEntry:
    scenario: str
    id: str
    href: str                      # the page, relative to the gallery
    duration_s: float
    num_units: int
    kinds: list[str]
    rows_in_scenario: int = 1
    thumb_href: str | None = None  # a PNG from render_png, relative to the gallery
    source: str = ""               # script_source_label of the row


def render_gallery(entries: Sequence[GalleryEntry], *, title: str = "duplexsynth preview gallery",
                   subtitle: str = "") -> str:
    """An index page with one card per entry (one sample per scenario family)."""
    cards = []
    for g in entries:
        chips = "".join(f'<span class="chip"><i style="--c:{_style(k).color}"></i>{_e(k)}</span>'
                        for k in g.kinds)
        thumb = (f'<a class="thumb" href="{_e(g.href)}"><img src="{_e(g.thumb_href)}" '
                 f'alt="timeline of {_e(g.id)}" loading="lazy"></a>') if g.thumb_href else ""
        cards.append(
            f'<article class="card" data-scenario="{_e(g.scenario)}">{thumb}<div class="body">'
            f'<h2><a href="{_e(g.href)}">{_e(g.scenario)}</a></h2>'
            f'<div class="id">{_e(g.id)}</div>'
            f'<div class="facts">{g.duration_s:.1f} s · {g.num_units} units · '
            f'{g.rows_in_scenario} row{"s" if g.rows_in_scenario != 1 else ""} in this scenario'
            + (f' · script source <b class="source">{_e(g.source)}</b>' if g.source else "") + '</div>'
            f'<div class="chips">{chips}</div></div></article>')
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(title)}</title><style>{GALLERY_CSS}</style></head>
<body><header><h1>{_e(title)}</h1><p>{_e(subtitle)}</p></header>
<main>{"".join(cards)}</main></body></html>
"""


# ---------------------------------------------------------------------------------------------
# PNG
# ---------------------------------------------------------------------------------------------

def _fit(text: str, width_s: float, px_per_s: float, font_px: float) -> str:
    room = int(width_s * px_per_s / (font_px * 0.58))
    if room <= 1:
        return ""
    return text if len(text) <= room else text[: max(1, room - 1)] + "…"


def render_png(row: Any, *, width_px: int = 1800, dpi: int = 100) -> bytes:
    """A static timeline figure of ``row`` (same lanes as the page) as PNG bytes.

    The image is exactly ``width_px`` wide; its height grows with the number of lanes.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch, Rectangle

    v = _build_view(row)
    d = v.row
    audio = _load_audio(d)
    rows: list[tuple[str, str, str]] = [("wave:user", "User mic", KIND_STYLE[K.USER_TURN].color)]
    for kind in v.lanes:
        if kind not in _USER_GROUP and not any(r[0] == "wave:assistant" for r in rows):
            rows.append(("wave:assistant", "Assistant audio", KIND_STYLE[K.ASSISTANT_TURN].color))
        rows.append((kind, _style(kind).label, _style(kind).color))
    if not any(r[0] == "wave:assistant" for r in rows):
        rows.append(("wave:assistant", "Assistant audio", KIND_STYLE[K.ASSISTANT_TURN].color))
    rows += [("units:in", "unit k input", "#2d3748"), ("units:out", "unit k output (k+1)", "#2d3748")]
    n = len(rows)
    height_px = int(round((0.9 + 0.42 * n) * dpi))
    fig = Figure(figsize=(width_px / dpi, height_px / dpi), dpi=dpi, facecolor="white")
    FigureCanvasAgg(fig)
    left = 150 / width_px
    ax = fig.add_axes((left, 0.35 * dpi / height_px, 1 - left - 12 / width_px,
                       1 - 0.85 * dpi / height_px))
    ax.set_xlim(0, v.end)
    ax.set_ylim(n, 0)
    plot_w_px = width_px * (1 - left - 12 / width_px)
    pxs = plot_w_px / v.end
    font = 7.5
    font_px = font * dpi / 72
    y_of = {key: i for i, (key, _, _) in enumerate(rows)}

    for i in range(n):
        if i % 2:
            ax.axhspan(i, i + 1, color="#f7fafc", zorder=0, lw=0)
    for k in range(int(v.end / v.unit_s) + 1):
        ax.axvline(k * v.unit_s, color="#e2e8f0", lw=0.6, zorder=0.5)
    ax.axvspan(v.duration, v.end, zorder=0.6, lw=0, hatch="///", fill=False,
               edgecolor="#cbd5e0")

    for name, key in (("user", "wave:user"), ("assistant", "wave:assistant")):
        sig = audio.signals.get(name)
        if sig is None:
            continue
        x, sr = sig
        level, per_s = _envelope(x, sr, len(x) / sr)
        t = (np.arange(len(level)) + 0.5) / per_s
        y = y_of[key] + 0.5
        color = KIND_STYLE[K.USER_TURN if name == "user" else K.ASSISTANT_TURN].color
        ax.fill_between(t, y - 0.42 * level, y + 0.42 * level, color=color, alpha=0.6, lw=0, zorder=2)

    for e in v.events:
        st = _style(e.kind)
        y = y_of.get(e.kind, 0)
        if e.end - e.start < 1e-6:
            ax.plot([e.start], [y + 0.5], marker="D", ms=6, color=st.color, zorder=4)
            ax.text(e.start + 5 / pxs, y + 0.5, _item_label(e).replace("✉", "").replace("⬇", "").strip(),
                    fontsize=font, va="center", color=st.color, zorder=5, clip_on=True)
            continue
        ax.add_patch(Rectangle((e.start, y + 0.15), e.end - e.start, 0.7, facecolor=st.color, alpha=0.22,
                               edgecolor=st.color, lw=0.8, zorder=3))
        ax.add_patch(Rectangle((e.start, y + 0.15), min(3 / pxs, e.end - e.start), 0.7, facecolor=st.color,
                               lw=0, zorder=3.5))
        crowded = bool(e.words) and (e.end - e.start) * pxs / len(e.words) < 40
        if crowded:       # too small for word-level text: the turn's text, on one line
            ax.text(e.start + 5 / pxs, y + 0.5, _fit(e.text or " ".join(str(w.get("word", "")) for w in e.words),
                                                    e.end - e.start, pxs, font_px * 0.9),
                    fontsize=font * 0.9, va="center", color=st.color, zorder=5, clip_on=True)
        elif e.words:
            for j, w in enumerate(sorted(e.words, key=lambda w: _f(w.get("start_s")))):
                ws = _f(w.get("start_s"))
                nxt = e.words[j + 1] if j + 1 < len(e.words) else None
                room = (_f(nxt.get("start_s")) if nxt else e.end + 1.0) - ws
                ax.text(ws + (5 if j == 0 else 1.5) / pxs, y + (0.38 if j % 2 == 0 else 0.68),
                        _fit(str(w.get("word", "")), room * 2, pxs, font_px * 0.9),
                        fontsize=font * 0.9, va="center", color=st.color, zorder=5, clip_on=True)
        else:
            label = _item_label(e).lstrip("◷◉≈ ")
            ax.text(e.start + 5 / pxs, y + 0.5, _fit(label, max(e.end - e.start, 1.5), pxs, font_px),
                    fontsize=font, va="center", color=st.color, zorder=5, clip_on=True)
        if e.kind == K.INTERRUPTION:
            ax.text(e.end + 4 / pxs, y + 0.5, str(e.typed.action if e.typed is not None else "").upper(), fontsize=font,
                    va="center", color="white", fontweight="bold", zorder=6, clip_on=True,
                    bbox=dict(boxstyle="round,pad=0.2", fc=st.color, ec="none"))
        if e.id in v.ghosts:
            g0, g1 = v.ghosts[e.id]
            ax.add_patch(Rectangle((g0, y + 0.15), g1 - g0, 0.7, facecolor="#fff5f5", edgecolor="#e53e3e",
                                   ls="--", lw=0.8, hatch="///", zorder=3))
            txt = _fit(e.typed.unspoken_text, g1 - g0, pxs, font_px * 0.9)
            if txt:
                ax.text(g0 + 4 / pxs, y + 0.5, txt, fontsize=font * 0.9, va="center", color="#c53030",
                        style="italic", zorder=5, clip_on=True,
                        bbox=dict(boxstyle="square,pad=0.1", fc="#fff5f5", ec="none"))
                # strike-through
                ax.plot([g0 + 4 / pxs, g0 + (4 + len(txt) * font_px * 0.9 * 0.55) / pxs], [y + 0.5, y + 0.5],
                        color="#c53030", lw=0.9, zorder=5.5)
            ax.plot([e.cut, e.cut], [y, y + 1], color="#e53e3e", ls="--", lw=1.2, zorder=6)
            ax.text(e.cut + 2 / pxs, y + 0.12, f"cut {e.cut:.2f} s", fontsize=font * 0.85, color="#c53030",
                    va="center", zorder=6, clip_on=True)

    if K.DELEGATE in y_of and K.BACKEND in y_of:
        for a in v.arrows:
            y1, y2 = y_of[K.DELEGATE] + 0.62, y_of[K.BACKEND] + 0.5
            ax.add_patch(FancyArrowPatch((a.issued_s, y1), (a.ready_s, y2), arrowstyle="-|>", mutation_scale=10,
                                         color=KIND_STYLE[K.DELEGATE].color, lw=1.3,
                                         connectionstyle="arc3,rad=0.15", zorder=7))
            ax.text((a.issued_s + a.ready_s) / 2, y2 - 0.05, a.label, fontsize=font, ha="center", va="bottom",
                    color=KIND_STYLE[K.DELEGATE].color, fontweight="bold", zorder=8,
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))

    speak_c = KIND_STYLE[K.ASSISTANT_TURN].color
    yi, yo = y_of["units:in"], y_of["units:out"]
    for unit in v.units:
        k = int(unit.get("index", 0))
        t0 = k * v.unit_s
        inputs = unit.get("input_events") or []
        ax.add_patch(Rectangle((t0, yi + 0.12), v.unit_s, 0.76, facecolor="#fbfdff", edgecolor="#a0aec0",
                               lw=0.5, zorder=2))
        label = str(k) + ("  " + " ".join(str(ie.get("task_id") or ie.get("kind")) for ie in inputs)
                          if inputs else "")
        ax.text(t0 + 3 / pxs, yi + 0.5, _fit(label, v.unit_s, pxs, font_px), fontsize=font, va="center",
                color="#b7791f" if inputs else "#2d3748", zorder=5, clip_on=True)
        speak = unit.get("decision") == Decision.SPEAK
        ax.add_patch(Rectangle((t0 + v.unit_s, yo + 0.12), v.unit_s, 0.76,
                               facecolor=speak_c if speak else "#edf2f7", alpha=0.35 if speak else 1,
                               edgecolor="#a0aec0", lw=0.5, zorder=2))
        tag = ("S" if speak else "L") + (" eos" if unit.get("turn_eos") else "") + (
            " dlg" if unit.get("delegate") else "")
        ax.text(t0 + v.unit_s + 3 / pxs, yo + 0.5, _fit(f"u{k} {tag}", v.unit_s, pxs, font_px), fontsize=font,
                va="center", color="#1a202c", zorder=5, clip_on=True)

    ax.set_yticks([i + 0.5 for i in range(n)])
    ax.set_yticklabels([label for _, label, _ in rows], fontsize=8)
    for tick, (_, _, color) in zip(ax.get_yticklabels(), rows):
        tick.set_color(color)
        tick.set_fontweight("bold")
    ax.tick_params(axis="y", length=0)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_xlabel("time (s) — grid = unit boundaries; unit k output is drawn in window k+1", fontsize=8)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    fig.suptitle(f"{d.get('id')} · {d.get('scenario')} · {v.duration:.1f} s", fontsize=10,
                 x=left, ha="left", y=1 - 0.12 * dpi / height_px, va="top")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()
