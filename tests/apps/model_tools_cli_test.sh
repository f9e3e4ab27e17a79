#!/usr/bin/env bash
# CLI tests for what comes after training: nmt-checkpoint average (files, --last, --best), ensembles
# in nmt-translate (-m a -m b, --ensemble-mode), nmt-train --init-from, train.ema-decay and
# valid.beam, with every refusal's one-line message and no file left behind. Trains three small
# models on the toy corpus first (~30 s).
# Usage: model_tools_cli_test.sh BIN_DIR DATA_DIR
set -uo pipefail
bin=$1 data=$2
source "$(dirname "$0")/cli_lib.sh"

train() {  # train RUN_DIR [options...]
  local run=$1; shift
  "$bin/nmt-train" --run-dir "$run" --device cpu --data.train-source "$data/toy.es" --data.train-target "$data/toy.en" \
    --data.dev-source "$data/toy.es" --data.dev-target "$data/toy.en" --valid.max-sentences 20 \
    --model.embedding-size 32 --model.encoder-hidden-size 32 --model.decoder-hidden-size 32 --model.attention-size 32 \
    --train.max-tokens 600 --optim.lr 0.005 --valid.attention-maps none "$@" >"$work/train.out" 2>"$work/train.err"
}
train "$work/a" --data.source-spm "$work/spm.model" --data.vocab-size 300 --train.max-steps 120 --valid.every 30 \
  --checkpoint.keep-last 3 --train.ema-decay 0.9 --valid.beam 3 ||
  { echo "training model a failed: $(tail -n 2 "$work/train.err")"; exit 1; }
grep -q "ema-decay = 0.9" "$work/a/config.toml" && grep -q "beam = 3" "$work/a/config.toml" && pass ||
  fail "config.toml lacks train.ema-decay or valid.beam"
[[ $(grep -c '"event":"valid"' "$work/a/metrics.jsonl") -eq 4 ]] && pass || fail "not four validations with beam 3"
train "$work/b" --data.source-spm "$work/spm.model" --train.max-steps 40 --model.attention dot --model.decoder-style luong \
  --seed 2 || { echo "training model b failed: $(tail -n 2 "$work/train.err")"; exit 1; }
train "$work/c" --data.source-spm "$work/spm200.model" --data.vocab-size 200 --train.max-steps 10 ||
  { echo "training model c failed: $(tail -n 2 "$work/train.err")"; exit 1; }
a=$work/a/checkpoints/step-00000120.pt b=$work/b/checkpoints/step-00000040.pt c=$work/c/checkpoints/step-00000010.pt
ckpt=$bin/nmt-checkpoint translate=$bin/nmt-translate
head -n 12 "$data/toy.es" >"$work/in.es"
head -n 12 "$data/toy.en" >"$work/in.en"

# Averaging: files, the last and the best N of a run; the same file twice gives it back.
expect 0 "" -- "$ckpt" average --help
expect 0 "averaged 2 checkpoint" -- "$ckpt" average "$a" "$a" -o "$work/twice.pt"
"$translate" -m "$a" --scores -i "$work/in.es" >"$work/a.out" 2>/dev/null
"$translate" -m "$work/twice.pt" --scores -i "$work/in.es" >"$work/twice.out" 2>/dev/null
cmp -s "$work/a.out" "$work/twice.out" && pass || fail "the average of a checkpoint with itself translates otherwise"
expect 0 "averaged 3 checkpoint" -- "$ckpt" average --last 3 "$work/a" -o "$work/last3.pt"
expect 0 "averaged 2 checkpoint" -- "$ckpt" average --best 2 --metric loss "$work/a" -o "$work/best2.pt"
expect 0 "translated 12 sentences" -- "$translate" -m "$work/last3.pt" -i "$work/in.es" -o "$work/last3.en"
"$translate" -m "$work/last3.pt" --scores -i "$work/in.es" >"$work/last3.out" 2>/dev/null
cmp -s "$work/last3.out" "$work/a.out" && fail "the average of three steps scores as the last step" || pass

# Two runs of one architecture average, with a warning: separate runs do not meet.
train "$work/a2" --data.source-spm "$work/spm.model" --data.vocab-size 300 --train.max-steps 10 --seed 7 ||
  { echo "training model a2 failed: $(tail -n 2 "$work/train.err")"; exit 1; }
expect 0 "averaged 2 checkpoint" -- "$ckpt" average "$a" "$work/a2/checkpoints/step-00000010.pt" -o "$work/runs.pt"
grep -qE "\[warning\] .* come from different training runs \(.*/a \(seed 1\) and .*/a2 \(seed 7\)\): separate runs" \
  "$work/err" && pass || fail "averaging two runs did not warn: $(cat "$work/err")"
grep -q "different training runs" "$work/out" && fail "the warning went to stdout" || pass
"$ckpt" average --last 3 "$work/a" -o "$work/last3-again.pt" 2>"$work/err" >/dev/null
grep -q "different training runs" "$work/err" && fail "the steps of one run warned as different runs" || pass

# Averaging refusals: one line, exit 1 or 2, no output file.
expect_error 1 "cannot average .*b/checkpoints/step-00000040.pt with .*: model.attention: bahdanau in .*, dot in" -- \
  "$ckpt" average "$a" "$b" -o "$work/x.pt"
expect_error 1 "model.source_vocab_size: 300 in .*, 200 in" -- "$ckpt" average "$a" "$c" -o "$work/x.pt"
[[ ! -e $work/x.pt ]] && pass || fail "a refused average left $work/x.pt"
expect_error 1 "cannot write .*twice.pt: it exists \(--force replaces it" -- "$ckpt" average "$a" -o "$work/twice.pt"
expect_error 1 "has 3 step checkpoints, fewer than 4" -- "$ckpt" average --last 4 "$work/a" -o "$work/x.pt"
expect_error 1 "take one run directory, got 2 inputs" -- "$ckpt" average --last 1 "$work/a" "$work/b" -o "$work/x.pt"
expect_error 1 "no checkpoints/ directory" -- "$ckpt" average --best 1 "$work" -o "$work/x.pt"
expect_error 1 "nowhere.pt" -- "$ckpt" average "$work/nowhere.pt" -o "$work/x.pt"
expect_error 2 "" -- "$ckpt" average --last 1 --best 1 "$work/a" -o "$work/x.pt"
[[ ! -e $work/x.pt ]] && pass || fail "a refused average left $work/x.pt"

# Ensembles: a model with itself (log-linear) is the model, scores included; with another
# architecture it translates; beam, n-best, attention and --score work; batch invariance holds.
"$translate" -m "$a" -m "$a" --scores -i "$work/in.es" >"$work/aa.out" 2>/dev/null
cmp -s "$work/a.out" "$work/aa.out" && pass || fail "-m a -m a differs from -m a: $(diff "$work/a.out" "$work/aa.out" | head -n 3)"
"$translate" -m "$a" --score -t "$work/in.en" -i "$work/in.es" >"$work/a.score" 2>/dev/null
"$translate" -m "$a" -m "$a" --score -t "$work/in.en" -i "$work/in.es" >"$work/aa.score" 2>/dev/null
cmp -s "$work/a.score" "$work/aa.score" && pass || fail "forced scores of -m a -m a differ from -m a"
for mode in log-linear linear; do
  expect 0 "translated 12 sentences" -- "$translate" -m "$a" -m "$b" --ensemble-mode $mode --n-best 2 --scores \
    --attention-output "$work/ab.$mode.json" -i "$work/in.es" -o "$work/ab.$mode"
  "$translate" -m "$a" -m "$b" --ensemble-mode $mode --n-best 2 --scores --batch-sentences 1 -i "$work/in.es" \
    >"$work/ab1.$mode" 2>/dev/null
  cmp -s "$work/ab.$mode" "$work/ab1.$mode" && pass || fail "$mode ensemble: one sentence per batch differs"
  [[ $(wc -l <"$work/ab.$mode.json") -eq 12 ]] && pass || fail "$mode ensemble: not 12 attention records"
done
cmp -s "$work/ab.log-linear" "$work/ab.linear" && fail "the two ensemble modes gave the same scores" || pass
expect 0 "" -- "$translate" -m "$a" -m "$b" --engine script -b 1 -i "$work/in.es" -o "$work/ab.script"
expect_error 1 "cannot ensemble .*c/checkpoints/step-00000010.pt with .*: their target subword models differ \(200 and 300" \
  -- "$translate" -m "$a" -m "$c" -i "$work/in.es" -o "$work/x.en"
[[ ! -e $work/x.en ]] && pass || fail "a refused ensemble left $work/x.en"
expect_error 2 "ensemble-mode" -- "$translate" -m "$a" -m "$b" --ensemble-mode mean -i "$work/in.es"

# Lexical shortlists: nmt-checkpoint shortlist builds one from the corpus; nmt-translate --shortlist
# translates every line with it, the same in any batch; --score ignores it; refusals name the file.
expect 0 "shortlist .*a.shortlist: 319 sentence pairs, [0-9]+ source pieces with a list" -- \
  "$ckpt" shortlist "$a" --source "$data/toy.es" --target "$data/toy.en" --top-k 8 --frequent 20 -o "$work/a.shortlist"
expect 0 "translated 12 sentences" -- "$translate" -m "$a" --shortlist "$work/a.shortlist" -b 3 --n-best 2 --scores \
  -i "$work/in.es" -o "$work/short.out"
"$translate" -m "$a" --shortlist "$work/a.shortlist" -b 3 --n-best 2 --scores --batch-sentences 1 -i "$work/in.es" \
  >"$work/short1.out" 2>/dev/null
cmp -s "$work/short.out" "$work/short1.out" && pass || fail "--shortlist: one sentence per batch differs"
[[ $(wc -l <"$work/short.out") -eq 24 ]] && pass || fail "--shortlist: not 12 x 2 n-best lines"
expect 0 "translated 12 sentences" -- "$translate" -m "$a" --shortlist "$work/a.shortlist" -b 1 -i "$work/in.es" -o "$work/short.greedy"
"$translate" -m "$a" --shortlist "$work/a.shortlist" -b 1 --scores -i "$work/in.es" 2>/dev/null | cut -f 2- >"$work/short.greedy2"
cmp -s "$work/short.greedy" "$work/short.greedy2" && pass || fail "--shortlist greedy: with --scores other translations"
"$translate" -m "$a" --shortlist "$work/a.shortlist" --score -t "$work/in.en" -i "$work/in.es" >"$work/short.score" 2>/dev/null
cmp -s "$work/a.score" "$work/short.score" && pass || fail "--score with --shortlist differs from --score"
expect_error 1 "cannot write .*a.shortlist: it exists" -- \
  "$ckpt" shortlist "$a" --source "$data/toy.es" --target "$data/toy.en" -o "$work/a.shortlist"
expect_error 1 "in.en ends after 12 lines, .*toy.es has more" -- \
  "$ckpt" shortlist "$a" --source "$data/toy.es" --target "$work/in.en" -o "$work/x.shortlist"
expect_error 2 "top-k" -- "$ckpt" shortlist "$a" --source "$data/toy.es" --target "$data/toy.en" --top-k 0x8 -o "$work/x.shortlist"
expect_error 1 "--top-k must be in \[1, 10000\], got 0" -- \
  "$ckpt" shortlist "$a" --source "$data/toy.es" --target "$data/toy.en" --top-k 0 -o "$work/x.shortlist"
expect_error 1 "--frequent must be in \\[0, 1000000\\], got 1000001" -- \
  "$ckpt" shortlist "$a" --source "$data/toy.es" --target "$data/toy.en" --frequent 1000001 -o "$work/x.shortlist"
[[ ! -e $work/x.shortlist ]] && pass || fail "a refused shortlist left $work/x.shortlist"
cp "$a" "$work/a-copy.pt"
expect_error 1 "--output .*a-copy.pt is the checkpoint .*a-copy.pt: a shortlist never replaces its inputs" -- \
  "$ckpt" shortlist "$work/a-copy.pt" --source "$data/toy.es" --target "$data/toy.en" -o "$work/a-copy.pt" --force
cmp -s "$a" "$work/a-copy.pt" && pass || fail "shortlist -o CHECKPOINT --force changed the checkpoint"
expect 0 "shortlist .*a.shortlist" -- \
  "$ckpt" shortlist "$a" --source "$data/toy.es" --target "$data/toy.en" --top-k 8 --frequent 20 -o "$work/a.shortlist" --force
expect_error 1 "shortlist .*a.shortlist was built for another source subword model than .*c/checkpoints/step-00000010.pt's \(200 pieces\)" \
  -- "$translate" -m "$c" --shortlist "$work/a.shortlist" -i "$work/in.es" -o "$work/x.en"
expect_error 1 "shortlist .*step-00000120.pt is not an nmt lexical shortlist" -- \
  "$translate" -m "$a" --shortlist "$a" -i "$work/in.es" -o "$work/x.en"
expect_error 1 "shortlist .*nowhere.shortlist" -- "$translate" -m "$a" --shortlist "$work/nowhere.shortlist" -i "$work/in.es" -o "$work/x.en"
expect_error 1 "shortlist .*nowhere.shortlist" -- "$translate" -m "$a" --shortlist "$work/nowhere.shortlist" --score \
  -t "$work/in.en" -i "$work/in.es" -o "$work/x.en"
python3 - "$work/a.shortlist" "$work/damaged.shortlist" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 0x10  # inside the table's stored ids (most of the file): the digests catch it
open(sys.argv[2], "wb").write(data)
PY
expect_error 1 "shortlist .*damaged.shortlist (is damaged|is not an nmt)" -- \
  "$translate" -m "$a" --shortlist "$work/damaged.shortlist" -i "$work/in.es" -o "$work/x.en"
[[ ! -e $work/x.en ]] && pass || fail "a refused shortlist left $work/x.en"

# Fine-tuning: the checkpoint's architecture comes with it; another one given is refused.
train "$work/tuned" --init-from "$a" --train.max-steps 10 && pass || fail "--init-from failed: $(tail -n 2 "$work/train.err")"
grep -q "initialised from $a" "$work/tuned/train.log" && pass || fail "the fine-tuning run does not say where it started"
grep -q 'attention = "bahdanau"' "$work/tuned/config.toml" && pass || fail "the fine-tuning run lost the architecture"
expect_error 1 "model.attention = dot conflicts with init-from .*step-00000120.pt, whose model has bahdanau" -- \
  "$bin/nmt-train" --run-dir "$work/bad" --device cpu --data.train-source "$data/toy.es" --data.train-target "$data/toy.en" \
  --data.dev-source "$data/toy.es" --data.dev-target "$data/toy.en" --init-from "$a" --model.attention dot
expect_error 1 "nowhere.pt" -- "$bin/nmt-train" --run-dir "$work/bad" --data.train-source "$data/toy.es" \
  --data.train-target "$data/toy.en" --data.dev-source "$data/toy.es" --data.dev-target "$data/toy.en" \
  --init-from "$work/nowhere.pt"
[[ ! -e $work/bad ]] && pass || fail "a refused fine-tuning run created its run directory"
expect_error 1 "train.ema-decay must be in \[0, 1\) \(0: off\), got 1" -- "$bin/nmt-train" --run-dir "$work/bad" \
  --train.ema-decay 1 --train.max-steps 1 --data.source-spm x \
  --data.train-source a --data.train-target b --data.dev-source c --data.dev-target d
finish
