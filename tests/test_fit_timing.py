"""`duplexsynth fit-timing`: read RTTM / CTM / JSON, fit distributions, reproduce the data's gaps and overlaps."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from generators.intervals import dialogue_figures, ipus_from_segments, transitions
from generators.timing import fit as tm
from generators.timing import sampling
from schemas.config import Dist, load_config

# A hand-made two-party conversation: turns alternate A/B. Each turn: the floor-transfer offset
# from the previous turn's end (negative = overlapping start), then its IPUs as (duration, pause
# after) pairs; some turns carry a backchannel by the other speaker at (offset into turn, length).
TURNS = [
    (0.00, [(2.1, 0.45), (1.6, 0.0)], None), (0.18, [(3.2, 0.0)], (1.4, 0.35)),
    (-0.22, [(1.2, 0.0)], None), (0.35, [(2.6, 0.6), (2.0, 0.3), (1.1, 0.0)], (2.0, 0.4)),
    (0.05, [(1.15, 0.0)], None), (-0.40, [(4.1, 0.0)], (1.9, 0.3)), (0.62, [(1.8, 0.5), (0.8, 0.0)], None),
    (0.21, [(2.4, 0.0)], None), (-0.12, [(3.0, 0.8), (1.5, 0.0)], (1.1, 0.45)), (0.28, [(1.3, 0.0)], None),
    (0.95, [(2.2, 0.35), (2.9, 0.0)], (3.0, 0.3)), (-0.30, [(1.2, 0.0)], None), (0.14, [(3.6, 0.0)], (2.2, 0.5)),
    (0.40, [(1.7, 0.25), (1.2, 0.0)], None), (-0.08, [(2.8, 0.0)], None), (0.22, [(1.1, 0.0)], None),
    (0.50, [(2.5, 0.7), (1.9, 0.0)], (1.5, 0.35)), (-0.55, [(1.4, 0.0)], None), (0.10, [(3.3, 0.4), (1.0, 0.0)], None),
    (0.31, [(2.0, 0.0)], (0.9, 0.4)), (0.02, [(1.6, 0.0)], None), (-0.18, [(2.7, 0.3), (2.2, 0.0)], (2.4, 0.3)),
    (0.75, [(1.1, 0.0)], None), (0.16, [(3.9, 0.0)], (1.7, 0.35)), (-0.25, [(1.5, 0.5), (0.9, 0.0)], None),
    (0.26, [(2.3, 0.0)], None), (0.08, [(1.9, 0.6), (1.4, 0.0)], (1.2, 0.3)), (-0.35, [(1.2, 0.0)], None),
    (0.44, [(3.1, 0.0)], None), (0.19, [(2.0, 0.0)], None),
]


def build(turns, offsets=None):
    """Segments by speaker of the scripted conversation, optionally with other floor-transfer offsets."""
    segs: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
    t = 1.0
    for k, (fto, ipus, bc) in enumerate(turns):
        spk, other = ("A", "B") if k % 2 == 0 else ("B", "A")
        if k:
            t += offsets[k] if offsets is not None else fto
        start = t
        for dur, pause in ipus:
            segs[spk].append((round(t, 4), round(t + dur, 4)))
            t += dur + pause
        t -= ipus[-1][1]
        if bc is not None:
            segs[other].append((round(start + bc[0], 4), round(start + bc[0] + bc[1], 4)))
    return segs


def as_rttm(segs):
    return "".join(f"SPEAKER conv1 1 {a:.3f} {b - a:.3f} <NA> <NA> {spk} <NA> <NA>\n"
                   for spk, iv in segs.items() for a, b in sorted(iv))


def as_ctm(segs):
    """Word-level: each segment split into 0.3 s words (the channel is the speaker)."""
    lines = []
    for spk, iv in segs.items():
        for a, b in iv:
            n = max(1, int(round((b - a) / 0.3)))
            w = (b - a) / n
            lines += [f"conv1 {spk} {a + i * w:.4f} {w:.4f} word{i}\n" for i in range(n)]
    return "".join(lines)


def file_stats(segs):
    ipus = ipus_from_segments(segs)
    f = dialogue_figures(ipus)
    fto = np.array([x["fto_s"] for x in transitions(ipus)])
    return f, fto


def test_reads_all_three_formats_alike(tmp_path):
    segs = build(TURNS)
    (tmp_path / "c.rttm").write_text(as_rttm(segs))
    (tmp_path / "c.ctm").write_text(as_ctm(segs))
    (tmp_path / "c.json").write_text(json.dumps([{"speaker": s, "start": a, "end": b} for s, iv in segs.items()
                                                 for a, b in iv]))
    fits = [tm.fit_timing(tm.read_segments(tmp_path / f"c.{ext}")) for ext in ("rttm", "ctm", "json")]
    for f in fits[1:]:
        assert f["report"]["transitions"] == fits[0]["report"]["transitions"]
        assert f["report"]["fto_mean_s"] == pytest.approx(fits[0]["report"]["fto_mean_s"], abs=0.01)
    with pytest.raises(ValueError, match="not an RTTM or CTM line"):
        (tmp_path / "bad.ctm").write_text("conv1 A notanumber 0.3 hello\n")
        tm.read_segments(tmp_path / "bad.ctm")


def test_transitions_found_are_the_scripted_ones():
    _, fto = file_stats(build(TURNS))
    assert np.allclose(fto, [t[0] for t in TURNS[1:]], atol=1e-3)


def test_fitted_distribution_reproduces_gap_and_overlap_statistics():
    segs = build(TURNS)
    fig, fto = file_stats(segs)
    fit = tm.fit_timing({"c": [tm.Segment(s, a, b) for s, iv in segs.items() for a, b in iv]})
    d = Dist(**fit["timing"]["user_gap_s"])
    rng = np.random.default_rng(0)
    draws = np.array([sampling.sample(rng, d) for _ in range(40000)])
    want, got = tm.transition_stats(fto), tm.transition_stats(draws)
    for k in ("gap_mean_s", "overlap_mean_s", "overlap_share", "mean_s"):
        assert got[k] == pytest.approx(want[k], rel=0.10), k
    # and conversations rebuilt with offsets drawn from the fit have the file's gap and overlap per minute
    per_min = {"gap_s": [], "overlap_s": []}
    for _ in range(300):
        offs = [0.0] + [sampling.sample(rng, d) for _ in TURNS[1:]]
        f = dialogue_figures(ipus_from_segments(build(TURNS, offs)))
        for k in per_min:
            per_min[k].append(f[k] / f["minutes"])
    for k in per_min:
        assert np.mean(per_min[k]) == pytest.approx(fig[k] / fig["minutes"], rel=0.10), k
    # pauses and backchannels come out too
    assert fit["report"]["pauses"] == sum(len(t[1]) - 1 for t in TURNS)
    assert fit["report"]["backchannels"] == sum(1 for t in TURNS if t[2])
    assert fit["timing"]["backchannel_onset"][1] > 0 and len(fit["timing"]["backchannel_per_min"]) == 2


def test_parametric_fit_keeps_the_mean(tmp_path):
    segs = build(TURNS)
    _, fto = file_stats(segs)
    fit = tm.fit_timing({"c": [tm.Segment(s, a, b) for s, iv in segs.items() for a, b in iv]}, family="parametric")
    d = Dist(**fit["timing"]["user_gap_s"])
    assert d.kind == "exgauss" and fit["timing"]["pause_s"]["kind"] == "lognormal"
    rng = np.random.default_rng(1)
    x = np.array([sampling.sample(rng, d) for _ in range(40000)])
    assert x.mean() == pytest.approx(fto.mean(), abs=0.03)


def test_cli_writes_a_timing_file_the_natural_preset_accepts(tmp_path):
    (tmp_path / "conv.rttm").write_text(as_rttm(build(TURNS)))
    out = tmp_path / "timing.yaml"
    proc = subprocess.run([sys.executable, "-m", "jobs.cli", "fit-timing", str(tmp_path / "conv.rttm"), "--out", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "speaker changes" in proc.stdout and out.exists()
    cfg = load_config(out, preset="natural")
    assert cfg.timing.user_gap_s.kind == "empirical" and cfg.timing.controller_gain > 0   # merged over the preset
    assert cfg.scenarios == {"conversation": 1.0}
    bad = subprocess.run([sys.executable, "-m", "jobs.cli", "fit-timing", str(tmp_path / "missing.rttm"), "--out",
                          str(out)], capture_output=True, text=True)
    assert bad.returncode == 2 and "error" in bad.stderr


def test_cli_header_escapes_file_names_that_would_inject_yaml(tmp_path):
    """A newline (or YAML's NEL / U+2028 line breaks, or a control character) in a file name stays in the comment."""
    import json as _json

    import yaml

    names = ["a\nseed: 99\n.rttm", "b\x85num: 7\u2028c\x01.rttm"]
    for name in names:
        (tmp_path / name).write_text(as_rttm(build(TURNS)))
    out = tmp_path / "timing.yaml"
    proc = subprocess.run([sys.executable, "-m", "jobs.cli", "fit-timing", *(str(tmp_path / n) for n in names),
                           "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert list(yaml.safe_load(text)) == ["timing"]                 # no `seed` / `num` key got in
    first = text.splitlines()[0]
    assert first == "# duplexsynth fit-timing: " + " ".join(_json.dumps(n) for n in names)   # readable, unambiguous
    cfg = load_config(out, preset="natural")
    assert cfg.seed != 99 and cfg.timing.user_gap_s.kind == "empirical"
    (tmp_path / "bad\nname.rttm").write_text("not rttm\n")
    bad = subprocess.run([sys.executable, "-m", "jobs.cli", "fit-timing", str(tmp_path / "bad\nname.rttm"), "--out",
                          str(tmp_path / "t2.yaml")], capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert "bad\\nname.rttm: no segments found" in bad.stderr
