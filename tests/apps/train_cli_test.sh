#!/usr/bin/env bash
# CLI tests for nmt-train: configuration errors, signals and resume. Usage: train_cli_test.sh BIN_DIR DATA_DIR
set -uo pipefail
bin=$1 data=$2
source "$(dirname "$0")/cli_lib.sh"

train=$bin/nmt-train
head -n 12 "$data/toy.es" >"$work/dev.es"
head -n 12 "$data/toy.en" >"$work/dev.en"
cat >"$work/toy.toml" <<TOML
run-dir = "$work/run"
device = "cpu"

[data]
train-source = "$data/toy.es"
train-target = "$data/toy.en"
dev-source = "$work/dev.es"
dev-target = "$work/dev.en"
source-spm = "$work/spm.model"
vocab-size = 300

[model]
embedding-size = 16
encoder-hidden-size = 16
decoder-hidden-size = 16
attention-size = 16

[train]
max-steps = 100000
max-tokens = 400
log-every = 10

[valid]
every = 0

[checkpoint]
every = 1000
TOML

expect 0 "" -- "$train" --help
grep -q -- "--train.max-steps" "$work/out" || fail "help lacks --train.max-steps"

# Training data from a pipe is read once: with a subword model to train (which reads it first) it is
# refused before anything is written; with one that exists, it trains.
expect_error 1 "data.train-source: /dev/fd/[0-9]+ is not a regular file \(a pipe\?\).*data.source-spm" -- \
  "$train" --config "$work/toy.toml" --run-dir "$work/piped" --data.train-source <(cat "$data/toy.es") \
  --train.max-steps 2
[[ ! -e $work/piped && ! -e $work/spm.model ]] && pass || fail "a refused pipe left a run directory or subword model"

# Configuration errors: one line naming the key, exit status 2 (usage) or 1.
printf '[train]\nmax-step = 5\n' >"$work/typo.toml"
expect 2 "unknown key 'train.max-step'" -- "$train" --config "$work/typo.toml"
printf '[optim]\nlr = "fast"\n' >"$work/badvalue.toml"
"$train" --config "$work/badvalue.toml" >/dev/null 2>"$work/err"; [[ $? -ne 0 ]] && grep -q "optim.lr" "$work/err" && pass ||
  fail "bad value: $(cat "$work/err")"
expect 1 "train.label-smoothing must be in \[0, 1\), got 1.5" -- "$train" --config "$work/toy.toml" --train.label-smoothing 1.5
expect 2 "unknown attention type 'cosine'" -- "$train" --config "$work/toy.toml" --model.attention cosine
expect 2 "valid.attention-maps: unknown image format 'gif'" -- "$train" --config "$work/toy.toml" \
  --valid.attention-maps gif --run-dir "$work/gif"
[[ ! -e $work/gif ]] && pass || fail "a refused option made a run directory"
# cuda:99 is refused with or without a GPU (no machine has 100).
expect 1 "device 'cuda:99'.*(CUDA is not available|CUDA device\(s\) visible)" -- "$train" --config "$work/toy.toml" --device cuda:99 --run-dir "$work/gpu"
expect 1 "optim.lr must be at most 1e38 x \\(1 - optim.beta1\\).*got 1e\\+?38" -- "$train" --config "$work/toy.toml" \
  --optim.lr 1e38 --run-dir "$work/huge-lr"
expect 1 "cannot open.*missing.es" -- "$train" --config "$work/toy.toml" --data.train-source "$work/missing.es" \
  --run-dir "$work/missing"

# Non-finite losses: skipped and counted; after train.max-bad-batches in a row, a clear stop.
expect 1 "3 batches in a row had a non-finite loss or gradient at step 2; lower optim.lr" -- \
  "$train" --config "$work/toy.toml" --run-dir "$work/nonfinite" --optim.lr 1e36 --train.clip-norm 0 --train.max-steps 50 \
  --train.max-bad-batches 3
[[ $(grep -c "non-finite loss or gradient norm" "$work/err") -eq 3 ]] && pass || fail "non-finite: skips not logged"

# SIGINT: a checkpoint, a message, exit status 130; --resume continues from it.
"$train" --config "$work/toy.toml" >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 100); do grep -q "step  *20 " "$work/err" 2>/dev/null && break; sleep 0.2; done
kill -INT "$pid"
wait "$pid"
status=$?
[[ $status -eq 130 ]] && pass || fail "SIGINT: exit status $status, expected 130: $(tail -n 2 "$work/err")"
grep -q "stopped by SIGINT at step" "$work/err" && pass || fail "SIGINT: no message"
stem=$(cat "$work/run/checkpoints/latest" 2>/dev/null)
[[ -f $work/run/checkpoints/$stem.pt && -f $work/run/checkpoints/$stem.state ]] && pass || fail "SIGINT: no checkpoint"
step=$((10#${stem#step-}))
expect 1 "already holds a training run" -- "$train" --config "$work/toy.toml" --train.max-steps 5
expect 0 "" -- "$train" --config "$work/toy.toml" --resume --train.max-steps $((step + 5))
grep -q "resumed from .*$stem.pt at step $step" "$work/err" && pass || fail "resume message: $(grep resumed "$work/err")"
# The subword model exists now: training data from pipes trains.
expect 0 "" -- "$train" --config "$work/toy.toml" --run-dir "$work/piped" --data.train-source <(cat "$data/toy.es") \
  --data.train-target <(cat "$data/toy.en") --train.max-steps 2
grep -q "training data: [0-9]* pairs kept of 319 " "$work/err" && [[ -f $work/piped/checkpoints/step-00000002.pt ]] && pass ||
  fail "training from pipes: $(grep -m 1 'training data' "$work/err")"
# Resuming a run that is already at its step limit takes no further step.
expect 0 "" -- "$train" --config "$work/toy.toml" --resume --train.max-steps $((step + 5))
grep -q "training ended (max steps) at step $((step + 5))" "$work/err" && pass || fail "resume at the limit stepped on"
[[ $(cat "$work/run/checkpoints/latest") == $(printf 'step-%08d' $((step + 5))) ]] && pass || fail "resume did not reach step $((step + 5))"
grep -q '^\[train\]' "$work/run/config.toml" && grep -q '^max-steps = ' "$work/run/config.toml" && pass ||
  fail "config.toml is not sectioned TOML: $(head -n 5 "$work/run/config.toml")"
# Every line a [section] or a plain key = value (CLI11 2.4 quotes dotted names; none may leak).
bad=$(grep -vE '^$|^\[[a-z]+\]$|^[a-z0-9-]+ = [^ ]' "$work/run/config.toml")
[[ -z $bad ]] && pass || fail "config.toml has malformed lines: $(head -n 3 <<<"$bad")"

finish
