#!/usr/bin/env bash
# Translation speed of a checkpoint, C++ (build/bench/bench_translate: the Translator that
# nmt-translate runs) against the same search written in Python over the same model in PyTorch
# (scripts/reference/translate_reference.py), greedy and beam 5, one after the other on the same
# sentences; then how many outputs agree and the BLEU of each side. Model load and tokenization
# are not timed on either side. Results go to docs/benchmarks.md.
#
# Usage: scripts/bench_translate.sh [--model PT] [--spm MODEL] [--source FILE] [--reference FILE]
#                                   [--lines N] [--beam K] [--out DIR]
#   --model PT        checkpoint (default runs/bible-es-en-bahdanau/best.pt, configs/bible-es-en-bahdanau.toml)
#   --spm MODEL       its SentencePiece model, for the Python side's ids (default data/bible/spm.model)
#   --source FILE     sentences to translate (default data/bible/test.es)
#   --reference FILE  their reference translations, for BLEU (default data/bible/test.en)
#   --lines N         only the first N lines (default: all)
#   --beam K          the beam size of the beam runs (default 5)
#   --out DIR         keep outputs here (default: a temporary directory, removed at the end)
# Needs build/bench/bench_translate, build/apps/nmt-tokenizer and nmt-score (cmake --build build)
# and /usr/bin/python3 with PyTorch (another interpreter: BENCH_PYTHON=/path/to/python3).
# Run it on an otherwise idle machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
model=$root/runs/bible-es-en-bahdanau/best.pt spm=$root/data/bible/spm.model
source=$root/data/bible/test.es reference=$root/data/bible/test.en lines=0 beam=5 out=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --model) model=$(realpath -m "$2"); shift 2 ;;
    --spm) spm=$(realpath -m "$2"); shift 2 ;;
    --source) source=$(realpath -m "$2"); shift 2 ;;
    --reference) reference=$(realpath -m "$2"); shift 2 ;;
    --lines) lines=$2; shift 2 ;;
    --beam) beam=$2; shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "bench_translate.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

fail() { echo "bench_translate.sh: $*" >&2; exit 1; }
python=${BENCH_PYTHON:-/usr/bin/python3}
bin=$root/build
for f in "$model" "$spm" "$source" "$reference"; do [[ -f $f ]] || fail "missing $f (see --help)"; done
for p in bench/bench_translate apps/nmt-tokenizer apps/nmt-score; do
  [[ -x $bin/$p ]] || fail "missing $bin/$p: build the project first (cmake --build build)"
done
"$python" -c 'import torch' 2>/dev/null || fail "$python cannot import torch: install python3-torch"
[[ $lines =~ ^[0-9]+$ ]] || fail "--lines must be a number, got '$lines'"
[[ $beam =~ ^[1-9][0-9]*$ ]] || fail "--beam must be a positive number, got '$beam'"

if [[ -z $out ]]; then
  out=$(mktemp -d -t bench_translate.XXXXXX)
  trap 'rm -rf "$out"' EXIT
else
  mkdir -p "$out"
fi
if [[ $lines -gt 0 ]]; then
  head -n "$lines" "$source" >"$out/source.txt"
  head -n "$lines" "$reference" >"$out/reference.txt"
else
  cp "$source" "$out/source.txt"
  cp "$reference" "$out/reference.txt"
fi
"$bin/apps/nmt-tokenizer" encode -m "$spm" -i "$out/source.txt" >"$out/source.ids"

echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "== $(wc -l <"$out/source.txt") sentences of $source, checkpoint $model"
summary=()
for search in greedy beam; do
  if [[ $search == greedy ]]; then k=1 py_search=(--greedy --max-tokens 4000); else k=$beam py_search=(--beam-size "$beam" --batch-size 32); fi
  for workers in 1 0; do
    line=$("$bin/bench/bench_translate" "$model" "$out/source.txt" --beam "$k" --workers "$workers" \
      --output "$out/cpp.$search.$workers.txt")
    echo "$line"
    summary+=("C++ $search, workers $([[ $workers == 0 ]] && echo "1 per core" || echo 1): $(grep -oE '[0-9.]+ sentences/s, [0-9.]+ target tokens/s' <<<"$line")")
  done
  cmp -s "$out/cpp.$search.1.txt" "$out/cpp.$search.0.txt" || fail "C++ $search: outputs differ between 1 worker and several"
  # Python's fastest batching for each search (measured: --max-tokens 4000 greedy, --batch-size 32 beam).
  line=$("$python" "$root/scripts/reference/translate_reference.py" "$model" "$out/source.ids" "${py_search[@]}" \
    --timing 2>&1 >"$out/python.$search.ids" | tail -n 1)
  echo "$line"
  summary+=("Python $search: $(grep -oE '[0-9.]+ sentences/s, [0-9.]+ target tokens/s' <<<"$line")")
  "$bin/apps/nmt-tokenizer" decode -m "$spm" -i "$out/python.$search.ids" >"$out/python.$search.txt"
  same=$(paste -d '\n' "$out/cpp.$search.0.txt" "$out/python.$search.txt" | awk 'NR % 2 { a = $0; next } $0 == a { n++ } END { print n + 0 }')
  summary+=("  $search outputs identical in C++ and Python: $same of $(wc -l <"$out/source.txt") sentences")
  for side in cpp.$search.0 python.$search; do
    summary+=("  BLEU $side: $("$bin/apps/nmt-score" "$out/reference.txt" -i "$out/$side.txt" | head -n 1)")
  done
done
echo
echo "== summary (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%s\n' "${summary[@]}"
