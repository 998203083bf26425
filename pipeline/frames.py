"""Omni frames: a `Scene` (schemas/scene.py) rendered with Pillow to one JPEG per unit (DESIGN §3 `frames`).

Frame k shows every object as it is at unit k: present from its `appears` to its `leaves` change,
at the box of its last move (an object in a motion state a step further along each frame), in its last state, its text legible only from its `text_readable`
change (before that a smudge) and, after a `text_changes` change, that change's text. The look (gradient wall, texture, surface, occluder) comes from
the scene's render draws; per-frame camera jitter, lighting flicker and sensor noise from the
stream [seed, FRAME_STREAM, k]. The bytes are a function of (scene, k, size, seed) alone.
"""
from __future__ import annotations

import functools
import io
import math

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from schemas.scene import FRAME_STREAM, RGB, Box, Scene, SceneObject, Shape, VisualChange

REFERENCE_SIZE = 448   # the render draws' pixel amounts (jitter, blur) are at this size
_SMUDGE: RGB = (120, 120, 120)
MIN_BLUR_PX = 0.3     # a blur radius below this changes nothing visible: not applied
MIN_LIGHT = 0.2       # the darkest lighting gain


def visible_at(obj: SceneObject, k: int) -> bool:
    """Whether frame k shows the object (from its appearance until it leaves)."""
    return obj.at(k).visible


def _state_at(obj: SceneObject, k: int) -> tuple[Box, str | None, RGB | None, bool, str | None]:
    """(box, state, state colour, text readable, text) of the object in frame k (the box where
    `SceneObject.at` puts it: a moving object a step further along each frame)."""
    box, state, rgb, readable, text = obj.at(k).box, obj.state, None, False, obj.text
    for c in obj.timeline:
        if c.unit > k:
            break
        if c.change == VisualChange.CHANGES_STATE:
            state, rgb = c.state, c.rgb
        elif c.change == VisualChange.TEXT_READABLE:
            readable = True
        elif c.change == VisualChange.TEXT_CHANGES and c.text is not None:
            text = c.text
    return box, state, rgb, readable, text


def _px(b: Box, size: int, margin: int) -> tuple[int, int, int, int]:
    x0, y0 = margin + round(b.x * size), margin + round(b.y * size)
    return x0, y0, x0 + max(2, round(b.w * size)), y0 + max(2, round(b.h * size))


def _ink(rgb: RGB) -> RGB:
    """Black or white, whichever reads on `rgb`."""
    return (20, 20, 20) if 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] > 140 else (245, 245, 245)


def _dark(rgb: RGB, f: float = 0.6) -> RGB:
    return (int(rgb[0] * f), int(rgb[1] * f), int(rgb[2] * f))


@functools.lru_cache(maxsize=64)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at `px` pixels (loading it decodes the font each time: keep a few)."""
    return ImageFont.load_default(size=px)


def _text(d: ImageDraw.ImageDraw, xy: tuple[int, int, int, int], text: str, fill: RGB, readable: bool) -> None:
    """The object's text centred in `xy`, or (not yet readable) grey strokes where it will be."""
    x0, y0, x1, y1 = xy
    w, h = x1 - x0, y1 - y0
    if not readable:
        for i in range(2):
            yy = y0 + h * (0.38 + 0.26 * i)
            d.line([(x0 + w * 0.15, yy), (x1 - w * (0.15 + 0.2 * i), yy)], fill=_SMUDGE, width=max(2, h // 10))
        return
    px = max(8, int(h * 0.42))
    font = _font(px)
    while px > 8 and d.textlength(text, font=font) > w * 0.9:
        px -= 2
        font = _font(px)
    d.text(((x0 + x1) / 2, (y0 + y1) / 2), text, fill=fill, font=font, anchor="mm")


def _draw_object(d: ImageDraw.ImageDraw, obj: SceneObject, k: int, size: int, margin: int) -> None:
    box, state, state_rgb, readable, text = _state_at(obj, k)
    x0, y0, x1, y1 = _px(box, size, margin)
    w, h = x1 - x0, y1 - y0
    fill, edge = obj.rgb, _dark(obj.rgb)
    line = max(1, size // 150)
    if obj.shape == Shape.ROUND:
        d.ellipse((x0, y0, x1, y1), fill=fill, outline=edge, width=line)
    elif obj.shape == Shape.MUG:
        d.arc((x1 - w * 0.25, y0 + h * 0.2, x1 + w * 0.25, y0 + h * 0.7), -90, 90, fill=edge, width=max(2, w // 8))
        d.rectangle((x0, y0, x1 - w * 0.1, y1), fill=fill, outline=edge, width=line)
    elif obj.shape == Shape.BOTTLE:
        d.rectangle((x0 + w * 0.32, y0, x1 - w * 0.32, y0 + h * 0.3), fill=edge)
        d.rounded_rectangle((x0, y0 + h * 0.25, x1, y1), radius=max(1, w // 4), fill=fill, outline=edge, width=line)
    elif obj.shape == Shape.WINDOW:
        d.rectangle((x0, y0, x1, y1), fill=fill, outline=edge, width=line)
        d.rectangle((x0, y0, x1, y0 + h * 0.18), fill=edge)
    elif obj.shape == Shape.SIGN:
        d.rectangle((x0, y0, x1, y1), fill=fill, outline=edge, width=max(2, line * 2))
    else:
        d.rectangle((x0, y0, x1, y1), fill=fill, outline=edge, width=line)
    if text is not None:
        top = y0 + h * 0.18 if obj.shape == Shape.WINDOW else y0
        _text(d, (x0, int(top), x1, y1), text, _ink(fill), readable)
    if state is not None:   # an indicator light in the state's colour, steam when something boils
        r = max(3, min(w, h) // 8)
        d.ellipse((x1 - 2 * r - line, y0 + line, x1 - line, y0 + 2 * r + line),
                  fill=state_rgb or _dark(fill, 0.35), outline=(0, 0, 0))
        if state_rgb is not None and state_rgb == (250, 250, 250):
            for i in range(3):
                sx = x0 + w * (0.3 + 0.2 * i)
                d.line([(sx, y0 - h * 0.05), (sx + w * 0.05, y0 - h * 0.25), (sx, y0 - h * 0.45)],
                       fill=(235, 235, 235), width=max(2, line * 2))


def _background(scene: Scene, full: int, margin: int, size: int) -> Image.Image:
    r = scene.render
    assert r is not None, "a video scene is decoded (pipeline/video.py), not drawn"
    top, bottom = np.array(r.background, dtype=np.float32), np.array(r.background2, dtype=np.float32)
    t = np.linspace(0.0, 1.0, full, dtype=np.float32)[:, None]
    rows = top * (1 - t) + bottom * t
    img = np.repeat(rows[:, None, :], full, axis=1)
    horizon = margin + round(r.horizon * size)
    img[horizon:] = np.array(r.surface, dtype=np.float32)
    out = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8), "RGB")
    d = ImageDraw.Draw(out)
    step = max(8, size // 14)
    if r.texture == 1:
        for x in range(0, full, step):
            d.line([(x, 0), (x, horizon)], fill=r.texture_rgb, width=max(1, step // 5))
    elif r.texture == 2:
        for y in range(step // 2, horizon, step):
            for x in range(step // 2, full, step):
                d.ellipse((x - 2, y - 2, x + 2, y + 2), fill=r.texture_rgb)
    elif r.texture == 3:
        for y in range(0, horizon, step):
            for x in range((y // step) % 2 * step, full, 2 * step):
                d.rectangle((x, y, x + step - 1, min(horizon, y + step - 1)), fill=r.texture_rgb)
    return out


def _frame(scene: Scene, background: Image.Image, k: int, size: int, seed: int) -> bytes:
    """Frame k drawn over the scene's `background` (the same for every frame, so drawn once)."""
    r = scene.render
    assert r is not None, "a video scene is decoded (pipeline/video.py), not drawn"
    rng = np.random.default_rng([seed, FRAME_STREAM, k])
    scale = size / REFERENCE_SIZE
    margin = (background.width - size) // 2
    img = background.copy()
    d = ImageDraw.Draw(img)
    for obj in scene.objects:
        if visible_at(obj, k):
            _draw_object(d, obj, k, size, margin)
    if r.occluder is not None:
        d.rectangle(_px(r.occluder.box, size, margin), fill=r.occluder.rgb)
    dx, dy = (int(round(v)) for v in rng.uniform(-r.jitter_px * scale, r.jitter_px * scale, 2))
    img = img.crop((margin + dx, margin + dy, margin + dx + size, margin + dy + size))
    radius = r.blur * scale * float(rng.uniform(0.5, 1.0))
    if radius >= MIN_BLUR_PX:   # defocus: one box pass is a third of a gaussian's cost and looks alike
        img = img.filter(ImageFilter.BoxBlur(radius=radius))
    gain = max(MIN_LIGHT, r.light[0] + r.light[1] * k + r.flicker * float(rng.standard_normal()))
    img = img.point([min(255, int(i * gain)) for i in range(256)] * 3)   # lighting, as a lookup table
    if r.noise > 0:   # sensor noise
        px = np.asarray(img, dtype=np.int16) + (rng.standard_normal((size, size, 3), dtype=np.float32)
                                                 * np.float32(r.noise)).astype(np.int16)
        img = Image.fromarray(np.clip(px, 0, 255).astype(np.uint8), "RGB")
    out = io.BytesIO()
    img.save(out, format="JPEG", quality=r.jpeg_quality)
    return out.getvalue()


def _canvas(scene: Scene, size: int) -> Image.Image:
    """The background with room around it for the camera jitter."""
    assert scene.render is not None, "a video scene is decoded (pipeline/video.py), not drawn"
    margin = int(math.ceil(scene.render.jitter_px * size / REFERENCE_SIZE)) + 1
    return _background(scene, size + 2 * margin, margin, size)


def render_frame(scene: Scene, k: int, size: int, seed: int) -> bytes:
    """Frame k of the scene as JPEG bytes, `size` x `size` pixels."""
    return _frame(scene, _canvas(scene, size), k, size, seed)


def render_frames(scene: Scene, num_units: int, size: int, seed: int) -> list[bytes]:
    """One JPEG per unit: frame k is the input of unit k (DESIGN §2). Equal to render_frame of each k."""
    background = _canvas(scene, size)
    return [_frame(scene, background, k, size, seed) for k in range(num_units)]
