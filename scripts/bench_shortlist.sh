#!/usr/bin/env bash
# Decoding speed and quality with and without issue 30's speed-ups (docs/benchmarks.md, "Decoding
# with a lexical shortlist"): beam 5 and greedy on the test books, the full softmax against a
# lexical shortlist, and greedy with --scores (log-softmax) against greedy without (logits). Each
# configuration runs --repeat times, alternating, and the best sentences/s (nmt-translate's own
# figure: model load and tokenization excluded) is kept; BLEU and chrF by nmt-score.
#
# Usage: scripts/bench_shortlist.sh --model PT [--corpus-source F] [--corpus-target F] [--top-k K]
#                                   [--frequent N] [--source F] [--reference F] [--repeat R] [--out DIR]
#                                   [--capabilities "avx2 avx512"]
#   --model PT          the checkpoint
#   --corpus-source F   the corpus the shortlist is built from (default data/bible/train.es)
#   --corpus-target F   (default data/bible/train.en)
#   --top-k K, --frequent N   nmt-checkpoint shortlist's options (defaults 50 and 100)
#   --source F, --reference F the sentences and their references (default data/bible/test.es, .en)
#   --repeat R          runs of each configuration (default 2)
#   --out DIR           keep outputs here (default: a temporary directory, removed at the end)
#   --capabilities L    run every configuration under each NMT_CPU_CAPABILITY in L (alternating),
#                       e.g. "avx2 avx512" to measure the AVX-512 kernels against AVX2 (default:
#                       the CPU's own); the outputs of one configuration must be byte-identical
# Needs build/apps/nmt-translate, nmt-checkpoint and nmt-score. Run it on an otherwise idle machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
model="" corpus_source=$root/data/bible/train.es corpus_target=$root/data/bible/train.en top_k=50 frequent=100
source=$root/data/bible/test.es reference=$root/data/bible/test.en repeat=2 out="" capabilities=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --model) model=$(realpath -m "$2"); shift 2 ;;
    --corpus-source) corpus_source=$(realpath -m "$2"); shift 2 ;;
    --corpus-target) corpus_target=$(realpath -m "$2"); shift 2 ;;
    --top-k) top_k=$2; shift 2 ;;
    --frequent) frequent=$2; shift 2 ;;
    --source) source=$(realpath -m "$2"); shift 2 ;;
    --reference) reference=$(realpath -m "$2"); shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --capabilities) capabilities=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "bench_shortlist.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
fail() { echo "bench_shortlist.sh: $*" >&2; exit 1; }
[[ -n $model ]] || fail "give --model (see --help)"
for f in "$model" "$corpus_source" "$corpus_target" "$source" "$reference"; do [[ -f $f ]] || fail "missing $f"; done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || fail "--repeat must be a positive number, got '$repeat'"
bin=$root/build/apps
for p in nmt-translate nmt-checkpoint nmt-score; do [[ -x $bin/$p ]] || fail "missing $bin/$p: build the project first"; done
if [[ -z $out ]]; then
  out=$(mktemp -d -t bench_shortlist.XXXXXX)
  trap 'rm -rf "$out"' EXIT
else
  mkdir -p "$out"
fi

start=$(date +%s.%N)
"$bin/nmt-checkpoint" shortlist "$model" --source "$corpus_source" --target "$corpus_target" --top-k "$top_k" \
  --frequent "$frequent" -o "$out/model.shortlist" --force 2>"$out/shortlist.log"
echo "shortlist: $(tail -n 1 "$out/shortlist.log" | sed 's/^.*\] //') ($(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)") s)"

# name: options
configs=(
  "beam5|-b 5"
  "beam5-shortlist|-b 5 --shortlist $out/model.shortlist"
  "greedy-scores|-b 1 --scores"
  "greedy|-b 1"
  "greedy-shortlist|-b 1 --shortlist $out/model.shortlist"
)
for c in $capabilities; do
  [[ $c =~ ^(avx512|avx2|portable)$ ]] || fail "--capabilities: '$c' is not one of avx512, avx2, portable"
done
declare -A best
names=()
for ((r = 1; r <= repeat; r++)); do
  for config in "${configs[@]}"; do
    for capability in ${capabilities:-own}; do
      name=${config%%|*} options=${config#*|}
      [[ $capability == own ]] || name=$name@$capability
      ((r > 1)) || names+=("$name")
      # shellcheck disable=SC2086
      NMT_CPU_CAPABILITY=${capability#own} "$bin/nmt-translate" -m "$model" $options -i "$source" -o "$out/$name.out" \
        2>"$out/$name.log"
      rate=$(grep -oE '[0-9.]+ sentences/s' "$out/$name.log" | tail -n 1 | cut -d' ' -f1)
      [[ -n $rate ]] || fail "$name: no sentences/s in $out/$name.log"
      if [[ -z ${best[$name]:-} ]] || (($(echo "$rate > ${best[$name]}" | bc))); then best[$name]=$rate; fi
    done
  done
done
printf '| %-18s | %12s | %6s | %6s |\n' configuration "sentences/s" BLEU chrF
for name in "${names[@]}"; do
  [[ $name == greedy-scores* ]] && cut -f 2- "$out/$name.out" >"$out/$name.text" || cp "$out/$name.out" "$out/$name.text"
  scores=$("$bin/nmt-score" -i "$out/$name.text" "$reference" 2>/dev/null)
  bleu=$(echo "$scores" | grep -oE '^BLEU = [0-9.]+' | grep -oE '[0-9.]+$' || true)
  chrf=$(echo "$scores" | grep -oE '^chrF2 = [0-9.]+' | grep -oE '[0-9.]+$' || true)
  printf '| %-18s | %12s | %6.2f | %6.2f |\n' "$name" "${best[$name]}" "${bleu:-0}" "${chrf:-0}"
done
for config in "${configs[@]}"; do
  first=""
  for capability in $capabilities; do
    name=${config%%|*}@$capability
    if [[ -z $first ]]; then first=$name; continue; fi
    cmp -s "$out/$first.out" "$out/$name.out" && echo "$name: the same output as $first" ||
      echo "$name: $(diff "$out/$first.out" "$out/$name.out" | grep -c '^<') lines differ from $first"
  done
done
[[ -n $capabilities ]] && exit 0  # the names below are the CPU's own runs
cmp -s "$out/greedy.out" "$out/greedy-scores.text" && echo "greedy without scores: the same translations as with them" ||
  echo "greedy without scores: $(diff "$out/greedy.out" "$out/greedy-scores.text" | grep -c '^<') lines differ from greedy with scores"
