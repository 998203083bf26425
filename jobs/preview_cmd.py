"""`duplexsynth preview`: write an HTML page (and/or a PNG timeline) to see and hear a trajectory.

    duplexsynth preview DIR [--id ID | --index N | --scenario NAME] --out FILE.html [--png FILE.png]
    duplexsynth preview DIR --gallery --out GALLERY/index.html

The page is self-contained (works from file://). With ``--audio beside`` the three audio files are
written next to the page instead of embedded. The gallery writes one page and one PNG thumbnail per
scenario family next to its index.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from jobs.dataset_reader import ALLOW_INCOMPLETE_HELP, DatasetError, DatasetReader, RowRef
from schemas.argtypes import MAX_PREVIEW_WIDTH, MIN_PREVIEW_WIDTH, whole_number

_PROG = "duplexsynth preview"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "preview", help="write an HTML page / PNG to see and hear trajectories",
        description=__doc__.strip().splitlines()[0],
        epilog="Default selection: the row at --index 0. Exit status: 0 written, 1 data error "
               "(unknown id/scenario, unreadable shard, incomplete or corrupt dataset), 2 usage error.")
    p.add_argument("dir", help="output folder of `duplexsynth generate` (manifest.json, shards/)")
    sel = p.add_mutually_exclusive_group()
    sel.add_argument("--id", help="trajectory id")
    sel.add_argument("--index", type=whole_number(0), help="global row index across shards (0-based)")
    sel.add_argument("--scenario", help="first trajectory of this scenario family")
    sel.add_argument("--gallery", action="store_true",
                     help="one sample per scenario family: index page plus one page each")
    p.add_argument("--out", help="HTML file to write (with --gallery: the index, e.g. DIR/index.html)")
    p.add_argument("--png", help="also write a static timeline figure (PNG) of the selected row")
    p.add_argument("--audio", choices=("embed", "beside"), default="embed",
                   help="embed audio as data URIs (default) or write FLAC files beside the page")
    p.add_argument("--width", type=whole_number(MIN_PREVIEW_WIDTH, MAX_PREVIEW_WIDTH), default=None,
                   help="PNG width in pixels (default 1800; gallery thumbnails 1200)")
    p.add_argument("--allow-incomplete", action="store_true", help=ALLOW_INCOMPLETE_HELP)
    p.set_defaults(func=run)


def _err(msg: str, code: int) -> int:
    print(f"{_PROG}: error: {msg}", file=sys.stderr)
    return code


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("._") or "row"


def _write_page(reader: DatasetReader, ref: RowRef, out: Path, audio: str,
                back_href: str | None = None) -> int:
    from pipeline.preview import audio_tracks, render_html

    row = reader.read_trajectory(ref)
    out.parent.mkdir(parents=True, exist_ok=True)
    audio_src = None
    if audio == "beside":
        audio_src = {}
        for name, (data, ext) in audio_tracks(row).items():
            path = out.with_name(f"{out.stem}.{name}.{ext}")
            path.write_bytes(data)
            audio_src[name] = path.name
    page = render_html(row, audio_src=audio_src, back_href=back_href)
    out.write_text(page, encoding="utf-8")
    return len(page.encode("utf-8"))


def _gallery(reader: DatasetReader, out: Path, audio: str, width: int) -> int:
    from pipeline.preview import GalleryEntry, event_kinds, render_gallery, render_png, script_source_label

    out.parent.mkdir(parents=True, exist_ok=True)
    entries = []
    used: set[str] = {out.stem}
    for scenario, refs in reader.scenarios().items():
        ref = refs[0]
        stem = _slug(scenario)
        while stem in used:
            stem += "_"
        used.add(stem)
        page = out.with_name(f"{stem}.html")
        _write_page(reader, ref, page, audio, back_href=out.name)
        row = reader.read_trajectory(ref)
        thumb = out.with_name(f"{stem}.png")
        thumb.write_bytes(render_png(row, width_px=width))
        entries.append(GalleryEntry(scenario=scenario, id=ref.id, href=page.name,
                                    duration_s=row.duration_s, num_units=len(row.units),
                                    kinds=event_kinds(row), rows_in_scenario=len(refs),
                                    thumb_href=thumb.name, source=script_source_label(row)))
        print(f"wrote {page} ({scenario}: {ref.id})")
    out.write_text(render_gallery(entries, subtitle=f"{reader.root} · {len(reader)} rows · "
                                  f"{len(entries)} scenario families"), encoding="utf-8")
    print(f"wrote {out} (gallery of {len(entries)} scenarios)")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.gallery:
        if not args.out:
            return _err("--gallery needs --out GALLERY/index.html", 2)
        if args.png:
            return _err("--png is for one row; the gallery writes a PNG per scenario itself", 2)
    elif not args.out and not args.png:
        return _err("nothing to write: give --out FILE.html and/or --png FILE.png", 2)
    out = Path(args.out) if args.out else None
    if out is not None and (out.is_dir() or args.out.endswith(("/", "\\"))):
        out = out / ("index.html" if args.gallery else "preview.html")
    try:
        reader = DatasetReader(args.dir, allow_incomplete=args.allow_incomplete)
        if not reader.check.complete:
            print(reader.check.skipped_line(), file=sys.stderr)
        if args.gallery:
            return _gallery(reader, out, args.audio, args.width or 1200)
        ref = reader.find(id=args.id, index=args.index, scenario=args.scenario)
        if out is not None:
            size = _write_page(reader, ref, out, args.audio)
            print(f"wrote {out} ({ref.scenario}: {ref.id}, {size / 1e6:.2f} MB)")
        if args.png:
            from pipeline.preview import render_png

            png = Path(args.png)
            png.parent.mkdir(parents=True, exist_ok=True)
            png.write_bytes(render_png(reader.read_trajectory(ref), width_px=args.width or 1800))
            print(f"wrote {png} ({ref.scenario}: {ref.id})")
    except DatasetError as err:
        return _err(str(err), 1)
    return 0
