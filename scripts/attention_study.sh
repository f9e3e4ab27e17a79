#!/usr/bin/env bash
# The attention study (issue 45, docs/attention.md "The attention study"): every kind of attention
# trained on the same data, seed and step budget with the reference recipe (configs/bible-es-en.toml,
# two ranks), each translating the test books greedy and with beam 5, and one report folder:
#   OUT/report/summary.md      the table and what to read in it
#   OUT/report/table.json      the same numbers
#   OUT/report/by-length.png   BLEU and chrF by source length, a line per kind (and .svg)
#   OUT/report/heatmaps.png    one long verse's attention under every kind side by side (and .svg)
# Kinds: none; bahdanau (Bahdanau score and decoder); dot, general, concat (Luong decoder); local-m,
# local-p and local-p-offset, sparsemax and entmax15, and trained hard attention, each with
# general/Luong; and the
# best soft kind decoded with --hard-attention. dot runs with H = 128 a direction, so that 2H = D and
# its score is Luong's parameter-free s_t^T h_j: with the recipe's 2H = 512 != D = 256 it needs the
# projection P [D, 2H], and dot with P is general's model, parameter for parameter (docs/model.md).
#
# Resumable: each kind's run, translations and scores are files under OUT, made once; a run stopped
# part-way continues from its last checkpoint (nmt-train --resume). Run it again to go on.
#
# Usage: scripts/attention_study.sh [--steps N] [--out DIR] [--kinds a,b,...] [--build DIR] [--data DIR]
#   --steps N   optimizer steps per kind (default 600: the eleven kinds and their translations in
#               about 95 minutes on 2 idle cores); a smaller N gives a quicker look
#   --kinds     a subset, comma-separated (default: all eleven)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
steps=600 out=$root/runs/attention-study build=$root/build data=$root/data/bible
kinds="none,bahdanau,dot,general,concat,local-m,local-p,local-p-offset,sparsemax,entmax15,hard"
die() { echo "attention_study.sh: $*" >&2; exit 1; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --steps) steps=$2; shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --kinds) kinds=$2; shift 2 ;;
    --build) build=$(realpath -m "$2"); shift 2 ;;
    --data) data=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ $steps =~ ^[1-9][0-9]*$ ]] || die "--steps must be a positive integer, got '$steps'"
for program in nmt-train nmt-translate nmt-score nmt-plot; do
  [[ -x $build/apps/$program ]] || die "$build/apps/$program is missing: build first (README)"
done
for file in train.es train.en dev.es dev.en test.es test.en; do
  [[ -s $data/$file ]] || die "$data/$file is missing: python3 scripts/prepare_bible.py (README)"
done

# The flags that make each kind; the rest is the recipe.
flags_of() {
  local luong="--model.attention general --model.decoder-style luong"
  case $1 in
    none) echo "--model.attention none --model.decoder-style bahdanau" ;;
    bahdanau) echo "--model.attention bahdanau --model.decoder-style bahdanau" ;;
    dot) echo "--model.attention dot --model.decoder-style luong --model.encoder-hidden-size 128" ;;
    general|concat) echo "--model.attention $1 --model.decoder-style luong" ;;
    local-m|local-p|local-p-offset) echo "$luong --model.attention-window $1" ;;
    sparsemax|entmax15|hard) echo "$luong --model.attention-normaliser $1" ;;
    *) die "--kinds: unknown kind '$1' (none, bahdanau, dot, general, concat, local-m, local-p, local-p-offset, sparsemax, entmax15, hard)" ;;
  esac
}
IFS=, read -r -a chosen <<<"$kinds"
for kind in "${chosen[@]}"; do flags_of "$kind" >/dev/null; done
mkdir -p "$out/runs" "$out/translations" "$out/report"
spm=$out/spm4k.model  # one subword model for every kind, trained by the first run
every=$(( steps >= 4 ? steps / 4 : steps ))  # a stop loses at most a quarter of a run

train_kind() {
  local kind=$1 dir=$out/runs/$1
  [[ -e $dir/.done ]] && return 0
  local resume=()
  if compgen -G "$dir/checkpoints/step-*.pt" >/dev/null; then
    resume=(--resume)
  elif [[ -e $dir ]]; then
    # Stopped before its first checkpoint: nothing to keep but the log; start it again beside it.
    mv "$dir" "$dir.stopped-$(date +%Y%m%d-%H%M%S)"
  fi
  echo "== $kind: training $steps steps -> $dir"
  # shellcheck disable=SC2046
  "$build/apps/nmt-train" --config "$root/configs/bible-es-en.toml" --run-dir "$dir" "${resume[@]}" \
    --data.train-source "$data/train.es" --data.train-target "$data/train.en" \
    --data.dev-source "$data/dev.es" --data.dev-target "$data/dev.en" --data.source-spm "$spm" \
    --train.max-steps "$steps" --valid.every "$steps" --checkpoint.every "$every" \
    $(flags_of "$kind") >"$dir.log" 2>&1 || die "$kind: training failed (the last lines of $dir.log follow)
$(tail -n 5 "$dir.log")"
  touch "$dir/.done"
}

# Translates the test books with `model` into translations/NAME.{greedy,beam5}.en, timing each and
# keeping beam 5's attention; each output is written under a temporary name and then moved.
translate_kind() {
  local name=$1 model=$2; shift 2
  local base=$out/translations/$name
  for search in greedy beam5; do
    [[ -s $base.$search.en ]] && continue
    local beam=1 extra=()
    [[ $search == beam5 ]] && beam=5
    [[ $search == beam5 && $name != none ]] && extra=(--attention-output "$base.attention.part")
    "$build/apps/nmt-translate" -m "$model" -i "$data/test.es" -o "$base.$search.part" -b "$beam" \
      --length-alpha 1.0 "${extra[@]}" "$@" 2>"$base.$search.log" || die "$name: translation failed ($base.$search.log)"
    grep -o '[0-9.]* sentences/s' "$base.$search.log" | tail -n 1 | cut -d' ' -f1 >"$base.$search.speed"
    [[ ${#extra[@]} -gt 0 ]] && mv "$base.attention.part" "$base.attention.jsonl"
    mv "$base.$search.part" "$base.$search.en"
  done
}

for kind in "${chosen[@]}"; do
  train_kind "$kind"
  translate_kind "$kind" "$out/runs/$kind/best.pt"
done

# The best soft kind, decoded with hard attention: the drop that hardening costs a soft model.
best_soft=$(python3 "$root/scripts/attention_study_report.py" best-soft --out "$out" --data "$data" --build "$build" \
  --kinds "$kinds")
if [[ -n $best_soft ]]; then
  translate_kind "$best_soft-hardened" "$out/runs/$best_soft/best.pt" --hard-attention
fi
python3 "$root/scripts/attention_study_report.py" report --out "$out" --data "$data" --build "$build" \
  --kinds "$kinds" --steps "$steps" ${best_soft:+--hardened "$best_soft-hardened"}
echo "report: $out/report/summary.md"
