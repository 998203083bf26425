"""Omni frames from a real video (scene_source kind video): one JPEG per unit, decoded with ffmpeg.

Frame k is the picture the file shows at `clip.start_s + k * unit_s`: ffmpeg seeks to the segment's
start (decoding from the keyframe before it, so the seek is exact) and its `fps` filter with
round=up keeps, for output time k * unit_s, the last input frame at or before it. The picture is
scaled so its short side is the frame size and centre-cropped to a square, with swscale's bit-exact
flags, so a row decodes to the same bytes on any machine with the same ffmpeg; Pillow encodes each
frame as JPEG at VIDEO_JPEG_QUALITY. A segment that runs past the video's end raises VideoError
naming the file: the trajectory becomes a failed record that says which video was too short.
"""
from __future__ import annotations

import io
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
from PIL import Image

from generators.scenes.video import ffmpeg_exe
from schemas.scene import VIDEO_JPEG_QUALITY, VideoClip

DECODE_TIMEOUT_S = 600


class VideoError(ValueError):
    """A video segment that cannot be decoded; the message names the file."""


def decode_rgb(path: Path, start_s: float, num_units: int, size: int, unit_s: float) -> np.ndarray:
    """[num_units, size, size, 3] uint8: frame k is the video at start_s + k * unit_s, scaled and cropped."""
    rate = Fraction(unit_s).limit_denominator(1000)
    vf = (f"fps=fps={rate.denominator}/{rate.numerator}:round=up,"
          f"scale={size}:{size}:force_original_aspect_ratio=increase"
          ":flags=bicubic+accurate_rnd+full_chroma_int+bitexact,"
          f"crop={size}:{size}")
    cmd = [ffmpeg_exe(), "-hide_banner", "-nostdin", "-loglevel", "error", "-ss", f"{start_s:.6f}", "-i", str(path),
           "-an", "-sn", "-vf", vf, "-frames:v", str(num_units), "-fflags", "+bitexact", "-flags:v", "+bitexact",
           "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
    try:
        res = subprocess.run(cmd, capture_output=True, timeout=DECODE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise VideoError(f"{path.name}: ffmpeg could not decode it ({err})") from None
    if res.returncode != 0:
        why = res.stderr.decode(errors="replace").strip().splitlines()
        raise VideoError(f"{path.name}: ffmpeg could not decode it ({why[-1] if why else f'exit {res.returncode}'})")
    per = size * size * 3
    return np.frombuffer(res.stdout, dtype=np.uint8)[: len(res.stdout) // per * per].reshape(-1, size, size, 3)


def decode_frames(clip: VideoClip, root: Path, num_units: int, size: int, unit_s: float) -> list[bytes]:
    """One JPEG per unit of the clip's segment (frame k is the input of unit k, DESIGN §2)."""
    path = Path(root) / clip.file
    rgb = decode_rgb(path, clip.start_s, num_units, size, unit_s)
    if len(rgb) < num_units:
        raise VideoError(f"{clip.file}: the trajectory needs {num_units} frames from {clip.start_s:g} s "
                         f"(to {clip.start_s + num_units * unit_s:g} s) and the video holds {clip.duration_s:g} s "
                         f"({len(rgb)} of them); use longer videos or annotate events earlier in them")
    out = []
    for frame in rgb:
        buf = io.BytesIO()
        Image.fromarray(frame, "RGB").save(buf, format="JPEG", quality=VIDEO_JPEG_QUALITY)
        out.append(buf.getvalue())
    return out
