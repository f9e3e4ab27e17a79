#!/usr/bin/env bash
# What the TorchScript methods of format 3 checkpoints cost and give (docs/checkpoints.md):
#  1. load times in one process (build/bench/bench_checkpoint_load): the native reader, the same
#     model in format 2, torch::jit::load with its methods compiled, the script engine's load;
#  2. the first translation, whole program, one sentence (median of 7 runs): nmt-translate on the
#     format 3 file (native and --engine script), and, with --before DIR, an older nmt's
#     nmt-translate (DIR/nmt-translate, e.g. `cmake --install` of an earlier commit) on a format 2
#     copy of the same model;
#  3. sentences/s on the test books, beam 5 and greedy, one worker and one thread everywhere:
#     nmt-translate (native, --engine script) and scripts/translate.py (/usr/bin/python3 with
#     torch and sentencepiece; OMP_NUM_THREADS=1), from each program's wall time, model load
#     included; and whether their outputs equal nmt-translate's.
# Run it on an otherwise idle machine. Results go to docs/benchmarks.md.
#
# Usage: scripts/bench_script_engine.sh CHECKPOINT [--before DIR] [--source FILE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
checkpoint="" before="" source=$root/data/bible/test.es
while [[ $# -gt 0 ]]; do
  case $1 in
    --before) before=$(realpath -m "$2"); shift 2 ;;
    --source) source=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "bench_script_engine.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    *) checkpoint=$(realpath -m "$1"); shift ;;
  esac
done
fail() { echo "bench_script_engine.sh: $*" >&2; exit 1; }
[[ -f $checkpoint ]] || fail "give a format 3 checkpoint (see --help)"
[[ -f $source ]] || fail "missing $source (python3 scripts/prepare_bible.py --out data/bible)"
bin=$root/build/apps
[[ -x $bin/nmt-translate && -x $root/build/bench/bench_checkpoint_load ]] || fail "build the project first"
[[ -z $before || -x $before/nmt-translate ]] || fail "no nmt-translate in $before"
python=/usr/bin/python3
"$python" -c 'import torch, sentencepiece' 2>/dev/null || fail "$python needs python3-torch and python3-sentencepiece"
work=$(mktemp -d -t bench_script_engine.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "== load times"
"$root/build/bench/bench_checkpoint_load" "$checkpoint" --write-format2 "$work/format2.pt"

echo "== first translation (one sentence, whole program, median of 7)"
head -n 1 "$source" >"$work/one.txt"
first() {  # LABEL COMMAND...
  local label=$1; shift
  local times=()
  for _ in 1 2 3 4 5 6 7; do
    local start end
    start=$(date +%s.%N)
    "$@" -i "$work/one.txt" -o /dev/null --log-level warn
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  printf '  %-58s %6.3f s\n' "$label" "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 4p)"
}
first "nmt-translate, format 3, native" "$bin/nmt-translate" -m "$checkpoint"
first "nmt-translate, format 2 copy, native" "$bin/nmt-translate" -m "$work/format2.pt"
first "nmt-translate, format 3, --engine script" "$bin/nmt-translate" -m "$checkpoint" --engine script
[[ -n $before ]] && first "before: $before/nmt-translate, format 2 copy" "$before/nmt-translate" -m "$work/format2.pt"

echo "== sentences/s on $(basename "$source") ($(wc -l <"$source") lines), one worker, one thread"
rate() {  # LABEL OUT COMMAND...: wall time of the whole program
  local label=$1 output=$2; shift 2
  local start end
  start=$(date +%s.%N)
  "$@" >"$output" 2>/dev/null
  end=$(date +%s.%N)
  printf '  %-58s %7.1f sentences/s (%.1f s)\n' "$label" "$(echo "$(wc -l <"$source") / ($end - $start)" | bc -l)" \
    "$(echo "$end - $start" | bc)"
}
for beam in 5 1; do
  rate "nmt-translate -b $beam" "$work/native-$beam.txt" \
    "$bin/nmt-translate" -m "$checkpoint" -b "$beam" --workers 1 -i "$source"
  rate "nmt-translate -b $beam --engine script" "$work/script-$beam.txt" \
    "$bin/nmt-translate" -m "$checkpoint" -b "$beam" --workers 1 --engine script -i "$source"
  rate "scripts/translate.py --beam $beam" "$work/python-$beam.txt" \
    env OMP_NUM_THREADS=1 "$python" "$root/scripts/translate.py" "$checkpoint" --beam "$beam" -i "$source"
  for side in script python; do
    echo "    $side, beam $beam: $(diff "$work/native-$beam.txt" "$work/$side-$beam.txt" | grep -c '^>' || true) lines differ from nmt-translate's"
  done
done
