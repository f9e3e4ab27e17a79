#!/usr/bin/env bash
# int8 decoding against float32 (issue 47; docs/search.md, "int8 decoding"): bench_translate on the
# test books, float32 and int8 alternating in one sitting, greedy and beam 5 (and with a shortlist
# when given); then the BLEU and chrF2 of each configuration's translations (nmt-score, sacreBLEU's
# settings) and the peak resident memory of each run. Model load and tokenization are not timed.
# With --groups, one run per group of products in int8 (output, decoder, attention, encoder, memory, all):
# what each costs in BLEU and buys in speed.
#
# glibc's peak resident size moves by tens of MiB either way with where its heap happens to place
# a batch's blocks (docs/benchmarks.md, "Peak memory and the allocator"); --memory-preload LIB adds
# one untimed run of each configuration with LD_PRELOAD=LIB (e.g. jemalloc, which does not keep
# freed pages resident) and a column of its peaks: the memory the program itself needs.
#
# Usage: scripts/bench_int8.sh --model PT [--source FILE] [--reference FILE] [--rounds N]
#                              [--shortlist FILE] [--groups "output decoder ..."] [--workers N]
#                              [--memory-preload LIB] [--out DIR] [--build DIR]
#   defaults: data/bible/test.es, data/bible/test.en, 3 rounds, no shortlist, no per-group runs,
#   nmt-translate's workers, no preloaded run, a temporary directory (kept with --out), build/
# Prints one line per run and a summary table (medians of the rounds); run it on an idle machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
model="" source=$root/data/bible/test.es reference=$root/data/bible/test.en rounds=3 shortlist="" groups=""
out="" build=$root/build workers=-1 preload=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --model) model=$(realpath -m "$2"); shift 2 ;;
    --source) source=$(realpath -m "$2"); shift 2 ;;
    --reference) reference=$(realpath -m "$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --shortlist) shortlist=$(realpath -m "$2"); shift 2 ;;
    --groups) groups=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --memory-preload) preload=$(realpath -m "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --build) build=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "bench_int8.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
fail() { echo "bench_int8.sh: $*" >&2; exit 1; }
[[ -n $model ]] || fail "give --model PT (see --help)"
for f in "$model" "$source" "$reference" ${shortlist:+"$shortlist"}; do [[ -f $f ]] || fail "missing $f"; done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || fail "--rounds must be a positive number, got '$rounds'"
[[ $workers =~ ^(-1|[1-9][0-9]*)$ ]] || fail "--workers must be a positive number, got '$workers'"
[[ -z $preload || -f $preload ]] || fail "--memory-preload: no such library $preload"
bench=$build/bench/bench_translate score=$build/apps/nmt-score
[[ -x $bench && -x $score ]] || fail "missing $bench or $score: build first (cmake --build build)"
if [[ -z $out ]]; then
  out=$(mktemp -d -t bench_int8.XXXXXX)
  trap 'rm -rf "$out"' EXIT
else
  # A study's runs are appended to runs.txt: one left by an earlier study would mix into the medians.
  [[ ! -e $out/runs.txt ]] || fail "--out $out already holds a study's runs (runs.txt): give a new directory"
  mkdir -p "$out"
fi

# translate NAME BEAM INT8 SHORTLIST [PRELOAD]: bench_translate's log of one pass (translations in
# $out/NAME.new).
translate() {
  local name=$1 beam=$2 int8=$3 list=$4 with=${5:-}
  local extra=()
  [[ -n $list ]] && extra=(--shortlist "$list")
  LD_PRELOAD=$with "$bench" "$model" "$source" --beam "$beam" --int8 "$int8" --workers "$workers" \
    --output "$out/$name.new" "${extra[@]}" || fail "bench_translate failed ($name${with:+ with $with})"
}
peak_of() { sed -n 's/^peak resident memory \([0-9.]*\) MiB/\1/p' <<<"$1"; }

# run NAME BEAM INT8 [SHORTLIST]: one timed pass; appends "NAME sent/s MiB" to $out/runs.txt and
# keeps the first round's translations as $out/NAME.txt. With --memory-preload, the first round
# also appends "NAME MiB" of a run with the library to $out/preloaded.txt.
run() {
  local name=$1 beam=$2 int8=$3 list=${4:-} log
  log=$(translate "$name" "$beam" "$int8" "$list")
  [[ -f $out/$name.txt ]] || mv "$out/$name.new" "$out/$name.txt"
  rm -f "$out/$name.new"
  local speed memory
  speed=$(sed -n 's/.*: \([0-9.]*\) sentences\/s.*/\1/p' <<<"$log")
  memory=$(peak_of "$log")
  echo "$name $speed $memory" | tee -a "$out/runs.txt"
  if [[ -n $preload ]] && ! grep -q "^$name " "$out/preloaded.txt" 2>/dev/null; then
    log=$(translate "$name" "$beam" "$int8" "$list" "$preload")
    rm -f "$out/$name.new"
    echo "$name $(peak_of "$log")" | tee -a "$out/preloaded.txt"
  fi
}

configs=("greedy 1" "beam5 5")
for r in $(seq "$rounds"); do
  for c in "${configs[@]}"; do
    read -r label beam <<<"$c"
    for precision in float32 int8; do
      groups_of_run=none
      [[ $precision == int8 ]] && groups_of_run=default  # what --precision int8 runs
      run "$label-$precision" "$beam" "$groups_of_run"
      if [[ -n $shortlist ]]; then run "$label-$precision-shortlist" "$beam" "$groups_of_run" "$shortlist"; fi
    done
  done
done
for g in $groups; do
  run "greedy-int8-$g" 1 "$g"
  run "beam5-int8-$g" 5 "$g"
done

python3 - "$out" "$score" "$reference" <<'PY'
import json, statistics, subprocess, sys
out, score, reference = sys.argv[1:]
runs, preloaded = {}, {}
for line in open(f"{out}/runs.txt"):
    name, speed, memory = line.split()
    runs.setdefault(name, []).append((float(speed), float(memory)))
try:
    preloaded = {name: float(mib) for name, mib in (line.split() for line in open(f"{out}/preloaded.txt"))}
except FileNotFoundError:
    pass
print(f"{'run':34} {'rounds':>6} {'sent/s median':>13} {'(range)':>17} {'peak MiB':>9} {'BLEU':>6} {'chrF2':>6}"
      + (f" {'peak MiB, preloaded':>19}" if preloaded else ""))
for name, values in runs.items():
    speeds = [s for s, _ in values]
    result = json.loads(subprocess.run([score, reference, "-i", f"{out}/{name}.txt", "--json"], check=True,
                                       capture_output=True, text=True).stdout)
    print(f"{name:34} {len(values):6} {statistics.median(speeds):13.1f} {f'({min(speeds):.1f}-{max(speeds):.1f})':>17} "
          f"{max(m for _, m in values):9.1f} {result['bleu']['score']:6.2f} {result['chrf']['score']:6.2f}"
          + (f" {preloaded[name]:19.1f}" if preloaded else ""))
PY
