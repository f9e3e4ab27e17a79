#!/usr/bin/env bash
# The main job, end to end on a fresh Debian 12 or 13 machine: set up, build the Spanish->English
# Bible corpus, train the joint subword model, report corpus statistics, train the quick-start
# model (configs/quickstart.toml) for a fixed number of steps, then translate a few sentences and
# the test books with it (beam 5) and print test BLEU and chrF.
#
# The step budget, not a clock, ends training: the same model comes out however busy the machine
# (training is deterministic), for a given LibTorch and the matrix kernels OpenBLAS picks for the
# CPU (OPENBLAS_CORETYPE=Haswell makes an AVX-512 Xeon train the AMD EPYC's model; README). Steps
# whose outputs already exist are skipped; an interrupted training run (Ctrl-C saves a checkpoint)
# continues where it stopped. Delete data/bible and runs/quickstart to start over.
#
# Usage: scripts/quickstart.sh [--data-dir DIR] [--steps N]   (defaults: data/bible, 1500)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=$root/data/bible
steps=1500
while [[ $# -gt 0 ]]; do
  case $1 in
    --data-dir) data=$(realpath -m "$2"); shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "quickstart.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $steps =~ ^[1-9][0-9]*$ ]] || { echo "quickstart.sh: --steps must be a positive integer, got '$steps'" >&2; exit 2; }
bin=$root/build/apps
config=$root/configs/quickstart.toml
spm=$data/spm4k.model
run=$root/runs/quickstart
step() { printf '\n== %s\n' "$*"; }
start=$SECONDS

step "1/6 set up and build the programs"
"$root/scripts/setup.sh" --programs

step "2/6 Bible corpus (RV1909 Spanish -> World English Bible) in $data"
if [[ -f $data/stats.json ]]; then
  echo "exists, skipped"
else
  python3 "$root/scripts/prepare_bible.py" --out "$data"
fi

step "3/6 joint SentencePiece model (unigram, 4000 pieces)"
if [[ -f $spm ]]; then
  echo "exists, skipped"
else
  "$bin/nmt-tokenizer" train -i "$data/train.es" -i "$data/train.en" -m "$spm" --vocab-size 4000
fi
echo "example: $(head -n 1 "$data/test.es")"
echo "pieces:  $(head -n 1 "$data/test.es" | "$bin/nmt-tokenizer" encode -m "$spm" --pieces)"

step "4/6 corpus statistics (subwords; batches of 2000 tokens)"
for split in train dev test; do
  echo "-- $split"
  "$bin/nmt-corpus-stats" -s "$data/$split.es" -t "$data/$split.en" --source-model "$spm" --max-tokens 2000
done

step "5/6 train the quick-start model (configs/quickstart.toml) for $steps steps"
# Measured on 2-core machines (docs/benchmarks.md, "The quick start's promises"): 0.33 s a step on
# an AMD EPYC, 0.51 s on a fresh one, 0.85 s on an Intel Xeon @ 2.50GHz (validations included).
echo "estimate: $(( (steps * 33 / 100 + 30) / 60 ))-$(( (steps * 85 / 100 + 30) / 60 )) minutes on an idle 2-core" \
  "machine, longer on a busy one (nmt-train prints its own eta every 100 steps)"
# The quick start has the machine to itself: a BLAS thread per core is the fastest one-process
# setting there (nmt-train's default, one, is the safe one on a shared machine; docs/distributed.md,
# "Threads"), and it is the setting its documented results were measured with.
train=("$bin/nmt-train" --config "$config" --run-dir "$run" --train.max-steps "$steps" --blas-threads "$(nproc)"
       --data.train-source "$data/train.es" --data.train-target "$data/train.en"
       --data.dev-source "$data/dev.es" --data.dev-target "$data/dev.en" --data.source-spm "$spm")
if [[ -f $run/checkpoints/latest ]]; then
  echo "continuing the run in $run"
  "${train[@]}" --resume
else
  "${train[@]}"
fi
echo "validation (greedy, first 500 dev sentences), last:"
grep -h "validation at step" "$run/train.log" | tail -n 1 | sed 's/^.*validation at step/  step/'
echo "checkpoint: $run/best.pt"

step "6/6 translate with it: three verses, then the test books (beam 5), score them, and draw the curves"
# Three verses of the test books (training never sees them) that a 1500-step model renders
# recognisably; most of the test books come out rougher (BLEU below).
printf '%s\n' "Y le respondió: Haré todo lo que tú me mandares." "Los Judíos tuvieron luz y alegría, y gozo y honra." \
  "Yo soy el hombre que ha visto aflicción en la vara de su enojo." |
  "$bin/nmt-translate" -m "$run/best.pt" --log-level warn
"$bin/nmt-translate" -m "$run/best.pt" -i "$data/test.es" -o "$run/test.beam5.en" --beam-size 5 --progress never
"$bin/nmt-score" "$data/test.en" -i "$run/test.beam5.en"
# Pictures (docs/attention.md): the training curves, and the attention of the last validation's examples.
"$bin/nmt-plot" metrics "$run" --log-level warn
echo "pictures: $run/curves.svg (.png)$([[ -d $run/attention ]] && echo ", the examples' attention in $run/attention/")"

echo
echo "done in $((SECONDS - start)) s"
