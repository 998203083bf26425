#!/usr/bin/env bash
# Issue #28's "done when", rerunnable: generate rows of every family, validate them, read our minicpm-o
# export back with the MiniCPM-o SDK and compare it with the trainer layout, then break every row rule
# by its smallest step over those rows (benchmarks/validator_mutants.py --dir).
#
#   bash scripts/check_at_scale.sh OUT [EN_ZH_ROWS=1000] [OMNI_ROWS=300] [TWIN_BASES=200] [WORKERS=2] [CONFIG]
#
# CONFIG defaults to tests/fast_voices.yaml (espeak-ng: the checks are about timing, labels and text,
# which every engine is rendered and aligned the same way for; pass an empty string for the natural
# default cast). Each step's exit code and seconds go to OUT/times.txt and its output to OUT/NAME.log;
# the script exits non-zero if any step did.
set -u
out=${1:?usage: check_at_scale.sh OUT [EN_ZH_ROWS] [OMNI_ROWS] [TWIN_BASES] [WORKERS] [CONFIG]}
n=${2:-1000}; omni=${3:-300}; twins=${4:-200}; workers=${5:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
config=${6-$root/tests/fast_voices.yaml}
cd "$root"
mkdir -p "$out"; out=$(cd "$out" && pwd)
cfg=(); [ -n "$config" ] && cfg=(--config "$config")
twin_cfg="$out/twins.yaml"
{ [ -n "$config" ] && cat "$config"; echo "twins: {share: 1.0, kinds: [as_backchannel, as_other_directed, clean]}"; } > "$twin_cfg"
status=0
step() {
  local name=$1; shift; local s; s=$(date +%s)
  "$@" > "$out/$name.log" 2>&1; local rc=$?
  [ $rc -eq 0 ] || status=1
  echo "$name rc=$rc $(( $(date +%s) - s ))s" | tee -a "$out/times.txt"
}
gen=(python3 -m jobs.cli generate --no-progress --workers "$workers")
step gen-en    "${gen[@]}" "${cfg[@]}" --num "$n" --language en --out "$out/en"
step gen-zh    "${gen[@]}" "${cfg[@]}" --num "$n" --language zh --out "$out/zh"
step gen-omni  "${gen[@]}" "${cfg[@]}" --num "$omni" --out "$out/omni" \
               --scenario visual_qa visual_watch visual_change visual_interruption visual_delegation
step gen-twins "${gen[@]}" --config "$twin_cfg" --num "$twins" --out "$out/twins" \
               --scenario interruption_discard interruption_repair interruption_park backchannel other_directed background_speech
for f in en zh omni twins; do
  step "val-$f" python3 -m jobs.cli validate "$out/$f" --workers "$workers"
done
for f in en zh omni twins; do
  step "exp-$f"   python3 -m jobs.cli export "$out/$f" --format minicpm-o --out "$out/$f-mo" --overwrite
  step "agree-$f" python3 -m jobs.minicpmo_agreement "$out/$f" "$out/$f-mo"
done
step mutants python3 benchmarks/validator_mutants.py --dir "$out/en" "$out/zh" "$out/omni" "$out/twins" --cap 4
exit $status
