#!/usr/bin/env bash
# The main job, end to end on a fresh Debian 12 machine: set up, build the Spanish->English Bible
# corpus, train the joint subword model, and report corpus statistics. Steps whose outputs already
# exist are skipped (delete data/bible to start over).
#
# Usage: scripts/quickstart.sh [--data-dir DIR]   (default: data/bible)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=$root/data/bible
while [[ $# -gt 0 ]]; do
  case $1 in
    --data-dir) data=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "quickstart.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
bin=$root/build/apps
step() { printf '\n== %s\n' "$*"; }
start=$SECONDS

step "1/4 set up and build"
"$root/scripts/setup.sh"

step "2/4 Bible corpus (RV1909 Spanish -> World English Bible) in $data"
if [[ -f $data/stats.json ]]; then
  echo "exists, skipped"
else
  python3 "$root/scripts/prepare_bible.py" --out "$data"
fi

step "3/4 joint SentencePiece model (unigram, 8000 pieces)"
if [[ -f $data/spm.model ]]; then
  echo "exists, skipped"
else
  "$bin/nmt-tokenizer" train -i "$data/train.es" -i "$data/train.en" -m "$data/spm.model" --vocab-size 8000
fi
echo "example: $(head -n 1 "$data/test.es")"
echo "pieces:  $(head -n 1 "$data/test.es" | "$bin/nmt-tokenizer" encode -m "$data/spm.model" --pieces)"

step "4/4 corpus statistics (subwords; batches of 2000 tokens)"
for split in train dev test; do
  echo "-- $split"
  "$bin/nmt-corpus-stats" -s "$data/$split.es" -t "$data/$split.en" --source-model "$data/spm.model" \
    --max-tokens 2000
done
echo
echo "done in $((SECONDS - start)) s"
