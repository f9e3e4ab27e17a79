#!/usr/bin/env bash
# CLI tests of runnable checkpoints (docs/checkpoints.md, "Methods"): nmt-translate --engine script
# translates as the native engine does; nmt-checkpoint upgrade and its refusals; from Python
# (/usr/bin/python3 with torch and sentencepiece; skipped without), scripts/translate.py prints
# nmt-translate's translations, and a model written in Python (an LSTM, not nmt's architecture) is
# translated by nmt-translate exactly as by its own greedy search. Trains a small model first (~20 s).
# Usage: scripted_cli_test.sh BIN_DIR DATA_DIR SOURCE_DIR
set -uo pipefail
bin=$1 data=$2 source_dir=$3
source "$(dirname "$0")/cli_lib.sh"

translate=$bin/nmt-translate checkpoint=$bin/nmt-checkpoint
"$bin/nmt-train" --run-dir "$work/run" --device cpu --data.train-source "$data/toy.es" \
  --data.train-target "$data/toy.en" --data.dev-source "$data/toy.es" --data.dev-target "$data/toy.en" \
  --data.source-spm "$work/spm.model" --data.vocab-size 300 --model.embedding-size 32 \
  --model.encoder-hidden-size 32 --model.decoder-hidden-size 32 --model.attention-size 32 \
  --train.max-steps 150 --train.max-tokens 600 --optim.lr 0.005 --valid.every 0 \
  >/dev/null 2>"$work/train.err" || { echo "training the test model failed: $(tail -n 2 "$work/train.err")"; exit 1; }
model=$work/run/best.pt
{ head -n 30 "$data/toy.es"; echo; echo "   "; } >"$work/in.es"
lines=$(wc -l <"$work/in.es")

# The script engine runs the checkpoint's TorchScript methods through the same search: the same
# translations (n-best lines compared without their numbers, which differ in the last digits).
without_numbers() { sed -E 's/ \|\|\| log_prob=.*//' "$1"; }
for args in "-b 5" "-b 1" "-b 4 --n-best 3" "-b 3 --coverage-beta 0.2 --length-penalty average"; do
  # shellcheck disable=SC2086
  "$translate" -m "$model" $args -i "$work/in.es" -o "$work/native.en" 2>/dev/null &&
    "$translate" -m "$model" --engine script $args -i "$work/in.es" -o "$work/script.en" 2>/dev/null &&
    cmp -s <(without_numbers "$work/native.en") <(without_numbers "$work/script.en") && pass ||
    fail "--engine script $args differs from native: $(diff "$work/native.en" "$work/script.en" | head -n 4)"
done
# Batch invariance: search's half holds for any model; the scripted arithmetic is torch's, whose
# products may change a row's last bits with its batch (docs/search.md), so the translations are
# compared here (they were identical with --scores too on Debian 12).
"$translate" -m "$model" --engine script --batch-sentences 1 -i "$work/in.es" -o "$work/alone.en" 2>/dev/null &&
  "$translate" -m "$model" --engine script -i "$work/in.es" -o "$work/batched.en" 2>/dev/null &&
  cmp -s "$work/alone.en" "$work/batched.en" && pass || fail "--engine script: one sentence per batch differs"
expect 0 "translated $lines sentences" -- "$translate" -m "$model" --engine script -i "$work/in.es" \
  --attention-output "$work/att.jsonl" --alignment-output "$work/align.txt" -o "$work/script.en"
[[ $(wc -l <"$work/att.jsonl") -eq $lines && $(wc -l <"$work/align.txt") -eq $lines ]] && pass ||
  fail "--engine script: attention or alignment lines missing"
"$translate" -m "$model" --engine script --score -t "$work/script.en" -i "$work/in.es" -o "$work/forced.txt" 2>/dev/null &&
  [[ $(wc -l <"$work/forced.txt") -eq $lines ]] && pass || fail "--engine script --score"
expect_error 2 "engine" -- "$translate" -m "$model" --engine python -i "$work/in.es"
expect_error 1 "not.pt" -- "$translate" -m "$work/not.pt" --engine script -i "$work/in.es"
expect_error 1 "toy.es.*not a zip file" -- "$translate" -m "$data/toy.es" --engine script -i "$work/in.es"

# nmt-checkpoint upgrade: a current file again (same parameters, methods included); refusals.
expect 0 "" -- "$checkpoint" upgrade "$model" "$work/upgraded.pt"
"$translate" -m "$work/upgraded.pt" --engine script -i "$work/in.es" -o "$work/upgraded.en" 2>/dev/null &&
  cmp -s "$work/upgraded.en" "$work/script.en" && pass || fail "the upgraded checkpoint translates differently"
expect_error 1 "upgraded.pt: it exists" -- "$checkpoint" upgrade "$model" "$work/upgraded.pt"
expect 0 "" -- "$checkpoint" upgrade "$work/upgraded.pt" "$work/upgraded.pt" --force
expect_error 1 "absent.pt" -- "$checkpoint" upgrade "$work/absent.pt" "$work/new.pt"
[[ ! -e $work/new.pt ]] && pass || fail "a failed upgrade left a file"
expect_error 1 "training state" -- "$checkpoint" upgrade "$(ls "$work"/run/checkpoints/*.state | head -n 1)" "$work/new.pt"
expect 2 "" -- "$checkpoint"
expect 0 "" -- "$checkpoint" upgrade --help

python=/usr/bin/python3
if ! "$python" -c 'import torch, sentencepiece' 2>/dev/null; then
  echo "skipping the Python checks: $python cannot import torch and sentencepiece (python3-torch, python3-sentencepiece)"
  finish; exit
fi

# scripts/translate.py: nmt-translate's translations, beam 5 and greedy, with torch alone.
"$translate" -m "$model" -i "$work/in.es" -o "$work/beam.en" 2>/dev/null
"$python" "$source_dir/scripts/translate.py" "$model" <"$work/in.es" >"$work/py-beam.en" 2>"$work/py.err" &&
  cmp -s "$work/beam.en" "$work/py-beam.en" && pass ||
  fail "translate.py beam 5 differs: $(cat "$work/py.err"; diff "$work/beam.en" "$work/py-beam.en" | head -n 4)"
"$translate" -m "$model" -b 1 -i "$work/in.es" -o "$work/greedy.en" 2>/dev/null
"$python" "$source_dir/scripts/translate.py" "$model" --greedy -i "$work/in.es" -o "$work/py-greedy.en" 2>"$work/py.err" &&
  cmp -s "$work/greedy.en" "$work/py-greedy.en" && pass ||
  fail "translate.py --greedy differs: $(cat "$work/py.err"; diff "$work/greedy.en" "$work/py-greedy.en" | head -n 4)"
"$python" "$source_dir/scripts/translate.py" "$work/absent.pt" <"$work/in.es" >/dev/null 2>"$work/py.err"
[[ $? -eq 1 && $(wc -l <"$work/py.err") -eq 1 ]] && grep -q "absent.pt" "$work/py.err" && pass ||
  fail "translate.py on a missing file: $(cat "$work/py.err")"

# Without torch at all (TorchScript is deprecated upstream): the values read with zipfile, pickle
# and numpy, every digest (code included) checked.
mkdir -p "$work/notorch/torch" && echo 'raise ImportError("no torch in this test")' >"$work/notorch/torch/__init__.py"
PYTHONPATH=$work/notorch "$python" "$source_dir/scripts/reference/checkpoint_values.py" "$model" >"$work/values.txt" 2>&1 &&
  grep -q "format 3, bahdanau attention.*verified" "$work/values.txt" && pass ||
  fail "checkpoint_values.py without torch: $(tail -n 2 "$work/values.txt")"

# A model that is not nmt's, scripted in Python: nmt-translate searches it through the contract.
head -n 50 "$data/toy.en" >"$work/in50.en"
"$python" "$(dirname "$0")/foreign_scripted_model.py" "$work/spm.model" "$work/in50.en" "$work/lstm.pt" \
  "$work/lstm-expected.es" 2>"$work/py.err" && pass || fail "writing the LSTM model failed: $(tail -n 3 "$work/py.err")"
"$translate" -m "$work/lstm.pt" --engine script -b 1 --batch-sentences 1 -i "$work/in50.en" -o "$work/lstm.es" \
  2>"$work/lstm.err" && cmp -s "$work/lstm-expected.es" "$work/lstm.es" && pass ||
  fail "the LSTM model's greedy and nmt-translate's differ: $(tail -n 1 "$work/lstm.err"; diff "$work/lstm-expected.es" "$work/lstm.es" | head -n 4)"
"$translate" -m "$work/lstm.pt" --engine script -b 5 --n-best 2 --attention-output "$work/lstm.jsonl" \
  -i "$work/in50.en" -o "$work/lstm-nbest.es" 2>/dev/null && [[ $(wc -l <"$work/lstm.jsonl") -eq 50 ]] && pass ||
  fail "beam search with n-best and attention over the LSTM model"
expect_error 1 "lstm.pt has no format_version" -- "$translate" -m "$work/lstm.pt" -i "$work/in50.en"
finish
