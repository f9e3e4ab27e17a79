#!/usr/bin/env bash
# What averaging, EMA and ensembles buy (docs/benchmarks.md, "More BLEU from the same training"):
# beam 5 BLEU and chrF2 on the test books (sacreBLEU defaults, nmt-score), and sentences/s of
# nmt-translate (whole program, model load included, one worker per core), for
#   last      the last step checkpoint of RUN (checkpoints/latest)
#   avg-N     nmt-checkpoint average --last N RUN
#   ema       the last step checkpoint of EMA_RUN (trained with train.ema-decay)
#   ens-2     nmt-translate -m RUN's last -m OTHER_RUN's last (log-linear; and linear)
#   ens-avg   the ensemble of both runs' averages
# Run it on an otherwise idle machine.
#
# Usage: scripts/bench_more_bleu.sh RUN [--ema EMA_RUN] [--other OTHER_RUN] [--average N]
#        [--source test.es --reference test.en] [--bin DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
run="" ema="" other="" average=5 bin=$root/build/apps
source=$root/data/bible/test.es reference=$root/data/bible/test.en
while [[ $# -gt 0 ]]; do
  case $1 in
    --ema) ema=$(realpath -m "$2"); shift 2 ;;
    --other) other=$(realpath -m "$2"); shift 2 ;;
    --average) average=$2; shift 2 ;;
    --source) source=$(realpath -m "$2"); shift 2 ;;
    --reference) reference=$(realpath -m "$2"); shift 2 ;;
    --bin) bin=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "bench_more_bleu.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    *) run=$(realpath -m "$1"); shift ;;
  esac
done
fail() { echo "bench_more_bleu.sh: $*" >&2; exit 1; }
last() { echo "$1/checkpoints/$(cat "$1/checkpoints/latest").pt"; }
[[ -f $run/checkpoints/latest ]] || fail "give a run directory (see --help)"
[[ -f $source && -f $reference ]] || fail "missing $source or $reference"
[[ -x $bin/nmt-translate ]] || fail "no nmt-translate in $bin"
work=$(mktemp -d -t bench_more_bleu.XXXXXX)
trap 'rm -rf "$work"' EXIT

# system NAME [nmt-translate model options...]: one line of the table.
system() {
  local name=$1; shift
  local start end
  start=$(date +%s.%N)
  "$bin/nmt-translate" "$@" -b 5 -i "$source" -o "$work/$name.out" --progress never 2>"$work/$name.err" ||
    fail "$name: $(tail -n 1 "$work/$name.err")"
  end=$(date +%s.%N)
  "$bin/nmt-score" "$reference" -i "$work/$name.out" --metrics bleu,chrf >"$work/$name.score" 2>"$work/$name.err" ||
    fail "$name: nmt-score: $(tail -n 1 "$work/$name.err")"
  local scores
  scores=$(awk '/^BLEU/ {b=$3} /^chrF2/ {c=$3} END {if (b == "" || c == "") exit 1; print b, c}' "$work/$name.score") ||
    fail "$name: no BLEU and chrF2 in nmt-score's output"
  printf '%-22s BLEU %6s  chrF2 %6s  %7.1f sentences/s\n' "$name" $scores \
    "$(echo "$(wc -l <"$source") / ($end - $start)" | bc -l)"
}

echo "== $(wc -l <"$source") sentences of $source, beam 5; $(nproc) cores; $(date -u +%F)"
system last -m "$(last "$run")"
"$bin/nmt-checkpoint" average --last "$average" "$run" -o "$work/avg.pt" 2>/dev/null ||
  fail "cannot average the last $average checkpoints of $run"
system "avg-$average" -m "$work/avg.pt"
[[ -z $ema ]] || system ema -m "$(last "$ema")"
if [[ -n $other ]]; then
  system other-last -m "$(last "$other")"
  system ens-2 -m "$(last "$run")" -m "$(last "$other")"
  system ens-2-linear -m "$(last "$run")" -m "$(last "$other")" --ensemble-mode linear
  "$bin/nmt-checkpoint" average --last "$average" "$other" -o "$work/other-avg.pt" 2>/dev/null ||
    fail "cannot average the last $average checkpoints of $other"
  system "ens-avg-$average" -m "$work/avg.pt" -m "$work/other-avg.pt"
fi
