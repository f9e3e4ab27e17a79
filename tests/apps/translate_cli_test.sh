#!/usr/bin/env bash
# CLI tests for nmt-translate: outputs and their formats, order and batch invariance, forced
# decoding, and every error path. Trains a small model on the toy corpus first (~20 s).
# Usage: translate_cli_test.sh BIN_DIR DATA_DIR
set -uo pipefail
bin=$1 data=$2
source "$(dirname "$0")/cli_lib.sh"

translate=$bin/nmt-translate
"$bin/nmt-train" --run-dir "$work/run" --device cpu --data.train-source "$data/toy.es" \
  --data.train-target "$data/toy.en" --data.dev-source "$data/toy.es" --data.dev-target "$data/toy.en" --data.source-spm "$work/spm.model" --data.vocab-size 300 \
  --model.embedding-size 32 --model.encoder-hidden-size 32 --model.decoder-hidden-size 32 \
  --model.attention-size 32 --train.max-steps 150 --train.max-tokens 600 --optim.lr 0.005 --valid.every 0 \
  >/dev/null 2>"$work/train.err" || { echo "training the test model failed: $(tail -n 2 "$work/train.err")"; exit 1; }
model=$work/run/best.pt
[[ -f $model ]] || model=$(ls "$work"/run/checkpoints/*.pt | tail -n 1)
# The validation at the end drew the logged examples' attention (valid.attention-maps: png).
for n in 1 2 3; do
  [[ $(head -c 4 "$work/run/attention/step-00000150/attention-000$n.png" 2>/dev/null | od -An -tx1 | tr -d ' \n') == 89504e47 ]] &&
    pass || fail "no attention heat-map $n of the last validation: $(ls -R "$work/run/attention" 2>&1 | head -n 5)"
done

# Input: 12 lines with an empty and a blank one, so that order, empty lines and batching all matter.
{ head -n 5 "$data/toy.es"; echo; sed -n 6,9p "$data/toy.es"; echo "   "; sed -n 10,11p "$data/toy.es"; } >"$work/in.es"
lines=$(wc -l <"$work/in.es")

expect 0 "" -- "$translate" --help
expect 0 "translated $lines sentences" -- "$translate" -m "$model" -i "$work/in.es" -o "$work/beam.en"
[[ $(wc -l <"$work/beam.en") -eq $lines ]] && pass || fail "beam: $(wc -l <"$work/beam.en") lines out for $lines in"
[[ -z $(sed -n 6p "$work/beam.en") && -z $(sed -n 11p "$work/beam.en") ]] && pass || fail "empty lines not kept empty"
[[ -n $(sed -n 1p "$work/beam.en") ]] && pass || fail "first translation is empty"

# stdin/stdout, and the same output whatever the batch: one sentence per batch, or all in one.
"$translate" -m "$model" --scores <"$work/in.es" >"$work/scored.en" 2>/dev/null && pass || fail "stdin/stdout run failed"
"$translate" -m "$model" --scores --batch-sentences 1 -i "$work/in.es" >"$work/alone.en" 2>/dev/null
cmp -s "$work/scored.en" "$work/alone.en" && pass || fail "batch of 1 differs from batched: $(diff "$work/scored.en" "$work/alone.en" | head -n 4)"
cut -f 2- "$work/scored.en" | cmp -s - "$work/beam.en" && pass || fail "--scores changed the translations"
grep -qvP '^-?[0-9]+\.[0-9]{6}\t' "$work/scored.en" && fail "--scores line without a score" || pass

# Order restoration: reversed input gives reversed output.
tac "$work/in.es" | "$translate" -m "$model" 2>/dev/null | tac | cmp -s - "$work/beam.en" && pass ||
  fail "reversed input did not give reversed output"

# Greedy is beam 1; --n-best prints n Moses-style lines per input, sorted and distinct.
"$translate" -m "$model" -b 1 -i "$work/in.es" -o "$work/greedy.en" 2>/dev/null && pass || fail "greedy run failed"
"$translate" -m "$model" -b 4 --n-best 3 -i "$work/in.es" -o "$work/nbest.txt" 2>/dev/null && pass || fail "n-best run failed"
python3 - "$work/nbest.txt" "$lines" <<'PY' && pass || fail "n-best format"
import sys
rows = [line.rstrip("\n").split(" ||| ") for line in open(sys.argv[1], encoding="utf-8")]
lines = int(sys.argv[2])
assert all(len(r) == 4 for r in rows), rows[:2]
by_index = {}
for index, text, features, score in rows:
    assert features.startswith("log_prob=") and " finished=" in features, features
    by_index.setdefault(int(index), []).append((text, float(score)))
assert sorted(by_index) == list(range(lines)), sorted(by_index)
for index, hyps in by_index.items():
    scores = [s for _, s in hyps]
    assert scores == sorted(scores, reverse=True), (index, scores)
    texts = [t for t, _ in hyps]
    assert len(hyps) in (1, 3), (index, hyps)  # 1: the empty lines
    assert len(set(texts)) == len(texts) or len(hyps) == 1, (index, texts)
PY

# Attention as JSON lines: one object per input line, rows of real weights summing to 1;
# hard alignments: s-t pairs with indices inside the sentences' words.
"$translate" -m "$model" -i "$work/in.es" -o "$work/att.en" --attention-output "$work/att.jsonl" \
  --alignment-output "$work/align.txt" 2>/dev/null && pass || fail "attention run failed"
cmp -s "$work/att.en" "$work/beam.en" && pass || fail "keeping attention changed the translations"
# ... and nmt-plot draws it: one picture per translated line (the blank ones have none).
expect 0 "wrote 22 picture\(s\) of 11 sentence\(s\)" -- "$bin/nmt-plot" attention "$work/att.jsonl" -o "$work/maps" --words
[[ -s $work/maps/attention-0001.png && ! -e $work/maps/attention-0006.png ]] && pass || fail "pictures: $(ls "$work/maps")"
python3 - "$work/att.jsonl" "$work/align.txt" "$work/in.es" "$work/att.en" <<'PY' && pass || fail "attention/alignment format"
import json, sys
objects = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
alignments = [line.rstrip("\n") for line in open(sys.argv[2], encoding="utf-8")]
sources = [line.rstrip("\n") for line in open(sys.argv[3], encoding="utf-8")]
outputs = [line.rstrip("\n") for line in open(sys.argv[4], encoding="utf-8")]
assert len(objects) == len(alignments) == len(sources), (len(objects), len(alignments), len(sources))
for i, (o, a, s, t) in enumerate(zip(objects, alignments, sources, outputs)):
    assert o["index"] == i
    if not s.strip():
        assert o["source"] == [] and o["attention"] == [] and a == "", o
        continue
    assert o["source"][-1] == "</s>" and len(o["attention"]) == len(o["target"]), o
    for row in o["attention"]:
        assert len(row) == len(o["source"]) and abs(sum(row) - 1) < 1e-4, row
    for pair in a.split():
        src, tgt = map(int, pair.split("-"))
        assert 0 <= src < len(s.split()) and 0 <= tgt < len(t.split()), (pair, s, t)
PY

# Hard attention: every row one-hot (the numbers are checked in tests/translate/hard_attention_test.cc);
# the script engine runs the checkpoint's own methods, which cannot be hardened: refused, no output.
"$translate" -m "$model" -i "$work/in.es" -o "$work/hard.en" --hard-attention --attention-output "$work/hard.jsonl" \
  2>/dev/null && pass || fail "--hard-attention run failed"
python3 - "$work/hard.jsonl" <<'PY' && pass || fail "hard attention rows are not one-hot"
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    for row in json.loads(line)["attention"]:
        assert sorted(set(row)) == [0.0, 1.0] or row == [1.0], row
        assert row.count(1.0) == 1, row
PY
expect_error 1 "hard-attention needs the native engine" -- "$translate" -m "$model" --engine script --hard-attention \
  -i "$work/in.es" -o "$work/hard-script.en"
[[ ! -e $work/hard-script.en ]] && pass || fail "a refused --hard-attention run left an output file"

# Forced decoding (the numbers are checked in tests/translate/translator_test.cc): one
# "LOG_PROB<TAB>TOKENS" line per pair, and the same scores whatever the batching.
"$translate" -m "$model" --score -t "$work/greedy.en" -i "$work/in.es" -o "$work/forced.txt" 2>/dev/null && pass ||
  fail "--score run failed"
"$translate" -m "$model" --score -t "$work/greedy.en" -i "$work/in.es" --batch-sentences 1 2>/dev/null |
  cmp -s - "$work/forced.txt" && pass || fail "--score depends on the batching"
python3 - "$work/forced.txt" "$lines" <<'PY' && pass || fail "forced decoding format"
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1], encoding="utf-8")]
assert len(rows) == int(sys.argv[2]), len(rows)
assert all(len(r) == 2 and float(r[0]) < 0 and int(r[1]) >= 1 for r in rows), rows
PY

# Long inputs: truncated with a warning naming the line, or rejected.
expect 0 "" -- "$translate" -m "$model" -i "$work/in.es" --max-source-length 4
grep -q "input line 2: .* subwords, more than the maximum source length 4" "$work/err" && pass || fail "no truncation warning"
expect_error 1 "input line 1: .* subwords, more than the maximum source length 4 \(long-inputs reject\)" -- \
  "$translate" -m "$model" -i "$work/in.es" --max-source-length 4 --long-inputs reject -o "$work/rejected.en"
[[ ! -e $work/rejected.en ]] && pass || fail "a rejected run left an output file"

# Errors: one line naming the option or file, non-zero exit, no output file.
expect_error 1 "cannot open.*missing.pt" -- "$translate" -m "$work/missing.pt" -i "$work/in.es" -o "$work/x.en"
expect_error 1 "cannot open.*missing.es" -- "$translate" -m "$model" -i "$work/missing.es" -o "$work/x.en"
[[ ! -e $work/x.en ]] && pass || fail "a failed run left an output file"
expect_error 1 "beam-size must be >= 1, got 0" -- "$translate" -m "$model" -b 0
expect_error 1 "n-best" -- "$translate" -m "$model" -b 2 --n-best 3
expect_error 2 "length penalty" -- "$translate" -m "$model" --length-penalty longest
expect_error 2 "--progress: unknown progress mode 'sometimes' \(expected auto, always or never\)" -- \
  "$translate" -m "$model" --progress sometimes
expect_error 1 "--score and --targets go together" -- "$translate" -m "$model" --score
expect_error 1 "device 'cuda:99'.*(CUDA is not available|CUDA device\(s\) visible)" -- "$translate" -m "$model" --device cuda:99 -i "$work/in.es"
head -n 3 "$work/greedy.en" >"$work/short.en"
expect_error 1 "differ in length" -- "$translate" -m "$model" --score -t "$work/short.en" -i "$work/in.es" -o "$work/y.txt"
[[ ! -e $work/y.txt ]] && pass || fail "a failed scoring run left an output file"
state=$(ls "$work"/run/checkpoints/*.state | tail -n 1)
expect_error 1 "is a training state .*not a model: use the .pt file" -- "$translate" -m "$state" -i "$work/in.es"
printf 'not a checkpoint' >"$work/bad.pt"
expect_error 1 "bad.pt" -- "$translate" -m "$work/bad.pt" -i "$work/in.es"

# A model without attention (model.attention none) trains, translates and scores, and refuses every
# output that reads attention weights, before it writes anything.
"$bin/nmt-train" --run-dir "$work/plain" --device cpu --data.train-source "$data/toy.es" \
  --data.train-target "$data/toy.en" --data.dev-source "$data/toy.es" --data.dev-target "$data/toy.en" --data.source-spm "$work/spm.model" \
  --model.attention none --model.embedding-size 32 --model.encoder-hidden-size 32 --model.decoder-hidden-size 32 \
  --data.vocab-size 300 --train.max-steps 20 --train.max-tokens 600 --valid.every 10 --valid.max-sentences 4 \
  >/dev/null 2>"$work/plain.err" && pass || fail "training without attention failed: $(tail -n 2 "$work/plain.err")"
plain=$work/plain/best.pt
[[ ! -e $work/plain/attention ]] && pass || fail "a model without attention drew attention heat-maps"
expect 0 "translated $lines sentences" -- "$translate" -m "$plain" -i "$work/in.es" -o "$work/plain.en"
expect 0 "" -- "$translate" -m "$plain" -b 1 --score -t "$work/beam.en" -i "$work/in.es" -o "$work/plain-scores.txt"
for option in "--attention-output $work/a.json" "--alignment-output $work/a.txt" "--replace-unk" "--coverage-beta 0.2" \
  "--hard-attention"; do
  # shellcheck disable=SC2086
  expect_error 1 "(attention-output|replace-unk|coverage-beta|hard-attention).*attention = none" -- "$translate" -m "$plain" \
    -i "$work/in.es" -o "$work/plain-out.en" $option
done
[[ ! -e $work/plain-out.en && ! -e $work/a.json && ! -e $work/a.txt ]] && pass || fail "a refused run left an output file"


# --precision int8 (quantized products, docs/search.md "int8 decoding"): 200 toy lines, greedy and
# beam 5. The toy model (150 steps) scores near 0 BLEU against the references, so int8 is held to
# float32's own output instead: BLEU >= 50 with float32's translations as the reference (a trained
# model's BLEU within 1: Int8InferenceModel.ASmallTrainedModel...). Batch invariant in int8 too; bad
# values name the option before anything is loaded or written.
head -n 200 "$data/toy.es" >"$work/int8-in.es"
for beam in 1 5; do
  "$translate" -m "$model" -b "$beam" -i "$work/int8-in.es" -o "$work/float-$beam.en" 2>/dev/null
  expect 0 "translated 200 sentences" -- "$translate" -m "$model" -b "$beam" --precision int8 -i "$work/int8-in.es" \
    -o "$work/int8-$beam.en"
  agreement=$("$bin/nmt-score" "$work/float-$beam.en" -i "$work/int8-$beam.en" --metrics bleu --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["bleu"]["score"])')
  python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= 50 else 1)' "$agreement" && pass ||
    fail "beam $beam: int8's BLEU against float32's translations is $agreement (at least 50 expected)"
done
"$translate" -m "$model" --precision int8 --scores -i "$work/in.es" -o "$work/int8-scored.en" 2>/dev/null
"$translate" -m "$model" --precision int8 --scores --batch-sentences 1 -i "$work/in.es" -o "$work/int8-alone.en" 2>/dev/null
cmp -s "$work/int8-scored.en" "$work/int8-alone.en" && pass ||
  fail "int8: a batch of 1 differs from batched: $(diff "$work/int8-scored.en" "$work/int8-alone.en" | head -n 4)"
for groups in output decoder attention encoder "output,decoder" all; do
  expect 0 "" -- "$translate" -m "$model" --precision int8 --int8-products "$groups" -i "$work/in.es" -o "$work/int8-part.en"
done
expect_error 2 "--precision: unknown precision 'fp16' \(expected float32 or int8\)" -- "$translate" -m "$model" \
  --precision fp16 -i "$work/in.es" -o "$work/int8-bad.en"
expect_error 1 "int8-products needs precision int8" -- "$translate" -m "$model" --int8-products output \
  -i "$work/in.es" -o "$work/int8-bad.en"
expect_error 1 "int8-products: 'softmax' is not one of output, decoder, attention, encoder, memory, all, none" -- \
  "$translate" -m "$model" --precision int8 --int8-products output,softmax -i "$work/in.es" -o "$work/int8-bad.en"
expect_error 1 "precision int8 needs the native engine" -- "$translate" -m "$model" --engine script --precision int8 \
  -i "$work/in.es" -o "$work/int8-bad.en"
[[ ! -e $work/int8-bad.en ]] && pass || fail "a refused int8 run left an output file"

finish
