#!/usr/bin/env bash
# Decoding speed of each kind of attention (issue 45's speed targets: local attention no slower
# than global, a sparse normaliser at most 15 % slower greedy): the attention study's models
# (scripts/attention_study.sh) translate the test books with nmt-translate, greedy and beam 5
# (length alpha 1.0, no attention output), ROUNDS rounds with the kinds alternating, and the median
# sentences/s of each (nmt-translate's own count: search, not model load) is printed as a Markdown
# table. Run it on an otherwise idle machine; results go to docs/benchmarks.md.
#
# Usage: scripts/bench_attention_speed.sh [--out DIR] [--kinds a,b,...] [--rounds N] [--build DIR] [--data DIR]
#   (defaults: runs/attention-study, the kinds with a model there, 3 rounds, build, data/bible)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/runs/attention-study kinds="" rounds=3 build=$root/build data=$root/data/bible
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --kinds) kinds=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --build) build=$(realpath -m "$2"); shift 2 ;;
    --data) data=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "bench_attention_speed.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
die() { echo "bench_attention_speed.sh: $*" >&2; exit 1; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive integer, got '$rounds'"
[[ -x $build/apps/nmt-translate ]] || die "$build/apps/nmt-translate is missing: build first"
[[ -f $data/test.es ]] || die "$data/test.es is missing (scripts/prepare_bible.py)"
if [[ -z $kinds ]]; then
  kinds=$(cd "$out/runs" 2>/dev/null && for d in */; do [[ -f $d/best.pt ]] && printf '%s,' "${d%/}"; done)
  kinds=${kinds%,}
fi
[[ -n $kinds ]] || die "no models in $out/runs (run scripts/attention_study.sh first)"
IFS=, read -r -a chosen <<<"$kinds"
for kind in "${chosen[@]}"; do [[ -f $out/runs/$kind/best.pt ]] || die "no model $out/runs/$kind/best.pt"; done
work=$(mktemp -d -t bench_attention_speed.XXXXXX)
trap 'rm -rf "$work"' EXIT

for round in $(seq "$rounds"); do
  for kind in "${chosen[@]}"; do
    for beam in 1 5; do
      "$build/apps/nmt-translate" -m "$out/runs/$kind/best.pt" -i "$data/test.es" -o "$work/out" -b "$beam" \
        --length-alpha 1.0 --progress never 2>"$work/log" || die "$kind: $(tail -n 1 "$work/log")"
      grep -o '[0-9.]* sentences/s' "$work/log" | tail -n 1 | cut -d' ' -f1 >>"$work/$kind.$beam"
    done
  done
done
median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "| kind | greedy sentences/s | beam 5 sentences/s |"
echo "| --- | ---: | ---: |"
for kind in "${chosen[@]}"; do echo "| $kind | $(median "$work/$kind.1") | $(median "$work/$kind.5") |"; done
echo
echo "(median of $rounds rounds, test books: $(wc -l <"$data/test.es") verses; $(nproc) cores, $(date -u +%F))"
