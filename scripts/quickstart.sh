#!/usr/bin/env bash
# The main job, end to end on a fresh Debian 12 machine: set up, build the Spanish->English Bible
# corpus, train the joint subword model, report corpus statistics, train the tiny model
# (configs/tiny.toml) for a few minutes and report its validation BLEU, then translate a few
# sentences and the test books with it and print test BLEU and chrF. Steps whose outputs already
# exist are skipped (delete data/bible and runs/quickstart-tiny to start over).
#
# Usage: scripts/quickstart.sh [--data-dir DIR] [--minutes M]   (defaults: data/bible, 4)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=$root/data/bible
minutes=4
while [[ $# -gt 0 ]]; do
  case $1 in
    --data-dir) data=$(realpath -m "$2"); shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "quickstart.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
bin=$root/build/apps
step() { printf '\n== %s\n' "$*"; }
start=$SECONDS

step "1/6 set up and build"
"$root/scripts/setup.sh"

step "2/6 Bible corpus (RV1909 Spanish -> World English Bible) in $data"
if [[ -f $data/stats.json ]]; then
  echo "exists, skipped"
else
  python3 "$root/scripts/prepare_bible.py" --out "$data"
fi

step "3/6 joint SentencePiece model (unigram, 8000 pieces)"
if [[ -f $data/spm.model ]]; then
  echo "exists, skipped"
else
  "$bin/nmt-tokenizer" train -i "$data/train.es" -i "$data/train.en" -m "$data/spm.model" --vocab-size 8000
fi
echo "example: $(head -n 1 "$data/test.es")"
echo "pieces:  $(head -n 1 "$data/test.es" | "$bin/nmt-tokenizer" encode -m "$data/spm.model" --pieces)"

step "4/6 corpus statistics (subwords; batches of 2000 tokens)"
for split in train dev test; do
  echo "-- $split"
  "$bin/nmt-corpus-stats" -s "$data/$split.es" -t "$data/$split.en" --source-model "$data/spm.model" \
    --max-tokens 2000
done
step "5/6 train the tiny model (configs/tiny.toml) for $minutes minutes"
run=$root/runs/quickstart-tiny
if [[ -f $run/best.pt ]]; then
  echo "exists, skipped ($run)"
else
  # The tiny model has its own 2000-piece subword model, which nmt-train trains on first use.
  "$bin/nmt-train" --config "$root/configs/tiny.toml" --run-dir "$run" --train.max-minutes "$minutes" \
    --data.train-source "$data/train.es" --data.train-target "$data/train.en" \
    --data.dev-source "$data/dev.es" --data.dev-target "$data/dev.en" --data.source-spm "$data/spm2k.model"
fi
echo "validation (greedy, first 200 dev sentences), last and best:"
grep '"event":"valid"' "$run/metrics.jsonl" | tail -n 1
grep -h "validation at step" "$run/train.log" | tail -n 1 | sed 's/^.*validation at step/  step/'
echo "checkpoint: $run/best.pt"

step "6/6 translate with it: a few sentences, then the test books (beam 5), and score them"
printf '%s\n' "En el principio creó Dios los cielos y la tierra." "Y dijo Dios: Sea la luz: y fué la luz." \
  "Jehová es mi pastor; nada me faltará." | "$bin/nmt-translate" -m "$run/best.pt" --log-level warn
"$bin/nmt-translate" -m "$run/best.pt" -i "$data/test.es" -o "$run/test.beam5.en" --beam-size 5 --progress never
"$bin/nmt-score" "$data/test.en" -i "$run/test.beam5.en"

echo
echo "done in $((SECONDS - start)) s"
