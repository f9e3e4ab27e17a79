#!/usr/bin/env bash
# The output gate of a refactoring: runs a fixed set of trainings, translations, scores and
# pictures with the programs of one build and keeps every output that must not change, so that two
# builds (before and after a change) can be compared file by file:
#
#   cmake --install build --prefix /tmp/before      # the programs before the change
#   scripts/output_gate.sh --build /tmp/before --out /tmp/gate/before
#   scripts/output_gate.sh --build build --out /tmp/gate/after
#   diff -r /tmp/gate/before /tmp/gate/after && echo identical
#
# What is kept: every checkpoint (.pt, byte for byte, and each archive entry's digest, which says
# in what two checkpoints differ: parameters, subword models or the effective configuration), each
# run's config.toml and metrics.jsonl (without the wall-clock fields elapsed_s, tokens_per_s,
# seconds and sync_s), the training states (.state) as the digests of their tensors (not their
# attributes: those hold the elapsed time), translations (greedy, beam, n-best, scores,
# attention, alignments, forced decoding), nmt-score's text and JSON, nmt-plot's SVGs, and the
# programs' --help texts. Trainings: five attention kinds, both decoder styles, two layers,
# accumulation, subword sampling, a resume, a two-rank group, and configs/quickstart.toml read as
# a file. Data: the first lines of the Bible corpus (scripts/prepare_bible.py); everything runs in
# one fixed work directory so that the paths stored in checkpoints are the same for both builds.
# About 2 minutes on 2 cores.
#
# Usage: scripts/output_gate.sh --build DIR --out DIR [--data DIR] [--work DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build data=$root/data/bible out="" work=/tmp/nmt-output-gate-work
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$(realpath -m "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --data) data=$(realpath -m "$2"); shift 2 ;;
    --work) work=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "output_gate.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n $out ]] || { echo "output_gate.sh: --out DIR is required" >&2; exit 2; }
[[ -f $data/train.es ]] || { echo "output_gate.sh: no corpus in $data (run scripts/prepare_bible.py)" >&2; exit 2; }
bin=$build/apps  # a build tree, or an installed tree (cmake --install build --prefix DIR)
[[ -x $bin/nmt-train ]] || bin=$build/bin
[[ -x $bin/nmt-train ]] || { echo "output_gate.sh: no programs in $bin" >&2; exit 2; }
if [[ -e $out ]]; then echo "output_gate.sh: $out exists; choose a new directory" >&2; exit 2; fi

rm -rf "$work"
mkdir -p "$work/data" "$out"
cd "$work"
head -n 3000 "$data/train.es" > data/train.es
head -n 3000 "$data/train.en" > data/train.en
head -n 60 "$data/dev.es" > data/dev.es
head -n 60 "$data/dev.en" > data/dev.en
head -n 150 "$data/test.es" > data/test.es
head -n 150 "$data/test.en" > data/test.en
export OPENBLAS_NUM_THREADS=1

for program in nmt-train nmt-translate nmt-score nmt-plot nmt-tokenizer nmt-corpus-stats; do
  "$bin/$program" --help | sed "s#$bin/##" > "$out/help-$program.txt"
done

common=(--data.train-source data/train.es --data.train-target data/train.en --data.dev-source data/dev.es
        --data.dev-target data/dev.en --data.source-spm data/spm.model --data.vocab-size 1000
        --model.embedding-size 32 --model.encoder-hidden-size 32 --model.decoder-hidden-size 32
        --model.attention-size 24 --train.max-tokens 600 --train.log-every 5 --valid.examples 2
        --checkpoint.keep-last 2 --log-level warn)
train() { "$bin/nmt-train" "${common[@]}" "$@"; }

# Bahdanau attention and style, two layers each side, pictures in two formats; then a resume.
train --run-dir runs/bahdanau --model.encoder-layers 2 --model.decoder-layers 2 --train.max-steps 30 \
  --valid.every 15 --checkpoint.every 10 --valid.attention-maps svg,png
train --run-dir runs/bahdanau --model.encoder-layers 2 --model.decoder-layers 2 --train.max-steps 40 \
  --valid.every 15 --checkpoint.every 10 --valid.attention-maps svg,png --resume
# Luong style with each score, accumulation, subword sampling, a zero bridge, ties.
train --run-dir runs/general --model.attention general --model.decoder-style luong --train.max-steps 20 \
  --train.accumulate 2 --train.sampling-alpha 0.3 --valid.every 10 --valid.attention-maps svg
train --run-dir runs/dot --model.attention dot --model.decoder-style luong --model.bridge zero \
  --model.tie-output-embedding true --train.max-steps 15 --valid.every 15 --valid.attention-maps none \
  --optim.optimizer adamw --optim.weight-decay 0.01 --schedule.type warmup --schedule.warmup-steps 5
train --run-dir runs/concat --model.attention concat --train.max-steps 15 --valid.every 15 \
  --valid.metric loss --schedule.type plateau --train.label-smoothing 0
train --run-dir runs/none --model.attention none --train.max-steps 15 --valid.every 15
# Two ranks on this machine.
train --run-dir runs/dist --model.attention bahdanau --train.max-steps 10 --valid.every 10 \
  --dist.nproc-per-node 2 --blas-threads 1
# The quick start's configuration file (values as users type them), made small.
"$bin/nmt-train" --config "$root/configs/quickstart.toml" --run-dir runs/quickstart-config "${common[@]}" \
  --train.max-steps 10 --valid.every 10 --valid.max-sentences 20

for run in runs/*; do
  name=$(basename "$run")
  mkdir -p "$out/$name"
  cp "$run/config.toml" "$out/$name/"
  for f in "$run"/checkpoints/*.pt "$run"/best.pt; do
    cp "$f" "$out/$name/"
    # Each archive entry by digest: where two checkpoints differ, this says in what.
    /usr/bin/python3 - "$f" > "$out/$name/$(basename "$f").entries" <<'EOF'
import hashlib, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in sorted(z.namelist()):
        print(name.split("/", 1)[-1], hashlib.sha256(z.read(name)).hexdigest())
EOF
  done
  for f in "$run"/checkpoints/*.state; do
    # A training state's tensors by digest, as a sorted list: the optimizer's moments are stored
    # under names in hash-map order, and the attributes hold the elapsed seconds (wall clock).
    /usr/bin/python3 - "$f" > "$out/$name/$(basename "$f").tensors" <<'EOF'
import hashlib, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    names = [n for n in z.namelist() if "/data/" in n]
    for digest in sorted(hashlib.sha256(z.read(n)).hexdigest() for n in names):
        print(digest)
EOF
  done
  cp "$run/checkpoints/latest" "$out/$name/latest"
  sed -E 's/, *"(elapsed_s|tokens_per_s|seconds|sync_s)": *[-0-9.eE+]+//g; s/"(elapsed_s|tokens_per_s|seconds|sync_s)": *[-0-9.eE+]+, *//g' \
    "$run/metrics.jsonl" > "$out/$name/metrics.jsonl"
  if [[ -d $run/attention ]]; then
    (cd "$run" && find attention -name '*.svg' | sort | while read -r f; do echo "$f $(sha256sum < "$f" | cut -c1-64)"; done) \
      > "$out/$name/attention-maps.txt"
  fi
done

# Translations with every model and every output.
for run in runs/*; do
  name=$(basename "$run") model=$run/best.pt o=$out/$name
  tr() { "$bin/nmt-translate" -m "$model" -i data/test.es --progress never --log-level warn "$@"; }
  tr -o "$o/greedy.en" --scores
  tr -o "$o/beam5.en" -b 5 --scores
  tr -o "$o/nbest.en" -b 5 --n-best 3 --length-penalty average
  tr -o "$o/score.txt" --score -t data/test.en
  if [[ $name != none ]]; then
    tr -o "$o/beam5-unk.en" -b 5 --replace-unk --coverage-beta 0.2 --attention-output "$o/attention.jsonl" \
      --alignment-output "$o/alignment.txt"
    "$bin/nmt-plot" attention "$o/attention.jsonl" -o "$work/maps-$name" --format svg -s 1,3 --words --log-level warn
    for f in "$work/maps-$name"/*.svg; do cp "$f" "$o/words-$(basename "$f")"; done
  fi
  "$bin/nmt-score" data/test.en -i "$o/beam5.en" > "$o/score-text.txt" 2>&1 || true
  cut -f2- "$o/beam5.en" > "$work/beam5-plain.en"
  cut -f2- "$o/greedy.en" > "$work/greedy-plain.en"
  "$bin/nmt-score" data/test.en -i "$work/beam5-plain.en" --metrics bleu,chrf --json > "$o/score.json"
  "$bin/nmt-score" data/test.en -i "$work/beam5-plain.en" -i "$work/greedy-plain.en" --label beam --label greedy \
    --by-length --json > "$o/by-length.json"
done
"$bin/nmt-plot" metrics runs/bahdanau runs/general -o "$work/curves.svg" --log-level warn
cp "$work/curves.svg" "$out/curves.svg"
echo "output gate: $(find "$out" -type f | wc -l) files in $out"
