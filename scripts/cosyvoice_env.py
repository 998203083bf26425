"""Make (or refresh) the CosyVoice venv so that it sees what the interpreter running this sees.

`python -m venv --system-site-packages` gives a venv the *base* interpreter's site-packages: run
from inside a virtualenv, that is not the virtualenv's, so the CosyVoice venv could not import the
torch (and Ray, numpy, ...) that setup.sh had just installed there ("No module named 'torch'").
Instead the CosyVoice venv is isolated and a .pth file of its own adds the running interpreter's
site folders (`site.addsitedir`, so their own .pth files, editable installs included, work too)
after its own site-packages: its pinned packages win, everything else is ours.

    python scripts/cosyvoice_env.py VENV [--without-pip]

Run by scripts/setup.sh with the interpreter it installs into; safe to rerun (the link is rewritten
each time; the venv is rebuilt only when it is missing, broken, of another Python, or of the old
--system-site-packages kind).
"""
from __future__ import annotations

import argparse
import site
import subprocess
import sys
import venv
from pathlib import Path

LINK_NAME = "_duplexsynth_parent.pth"   # the file in the CosyVoice venv's site-packages


def parent_site_dirs() -> list[str]:
    """The site folders this interpreter imports from: its prefixes' (a venv's, plus the base's when
    it was made with --system-site-packages) and the user's when this interpreter reads it."""
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return [d for d in dict.fromkeys(dirs) if Path(d).is_dir()]


def _venv_python(env: Path) -> Path:
    return env / "bin" / "python"


def _usable(env: Path) -> bool:
    """A venv we made the current way, for this Python version, whose interpreter starts."""
    cfg = env / "pyvenv.cfg"
    py = _venv_python(env)
    if not cfg.is_file() or not py.exists():
        return False
    if "include-system-site-packages = true" in cfg.read_text(encoding="utf-8", errors="replace"):
        return False   # made by an older setup.sh: it would see the base's packages, not ours
    want = f"{sys.version_info[0]}.{sys.version_info[1]}"
    try:
        got = subprocess.run([str(py), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return False
    return got == want


def site_packages(env: Path) -> Path:
    """The venv's own site-packages folder."""
    return env / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


def link_text(dirs: list[str]) -> str:
    """One `import` line (a .pth runs lines that start with it) adding `dirs` in order."""
    return f"import site; list(map(site.addsitedir, {dirs!r}))\n"   # one statement: no comprehension scope


def make_env(env: Path, with_pip: bool = True) -> Path:
    """Build the venv when needed and (re)write its link to this interpreter's site folders."""
    if not _usable(env):
        venv.EnvBuilder(clear=env.exists(), with_pip=with_pip, symlinks=True).create(env)
    sp = site_packages(env)
    if not sp.is_dir():
        raise SystemExit(f"error: {sp} is missing after creating the venv {env}")
    tmp = sp / f".{LINK_NAME}.tmp"
    tmp.write_text(link_text(parent_site_dirs()), encoding="utf-8")
    tmp.replace(sp / LINK_NAME)
    return env


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("venv", type=Path)
    ap.add_argument("--without-pip", action="store_true", help="skip ensurepip (tests)")
    args = ap.parse_args(argv)
    make_env(args.venv, with_pip=not args.without_pip)
    return 0


if __name__ == "__main__":
    sys.exit(main())
