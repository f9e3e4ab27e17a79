#!/usr/bin/env bash
# One model, two directions: nmt-train on [[data.corpus]] tables (Spanish -> English tagged <2en>,
# the same pairs reversed tagged <2es>), then nmt-translate asked by --tag for each direction (and
# by the default tag without one). A tiny model on 319 verse pairs learns at least which language
# to write: the test counts each output's most common words of either language. Also the errors
# of bad corpora, one line each, with nothing written, and scripts/translate.py's tags (with
# /usr/bin/python3's torch; skipped without). Usage: tagged_cli_test.sh BIN_DIR DATA_DIR
set -uo pipefail
bin=$1 data=$2
source "$(dirname "$0")/cli_lib.sh"

train=$bin/nmt-train translate=$bin/nmt-translate
head -n 12 "$data/toy.es" >"$work/dev.es"
head -n 12 "$data/toy.en" >"$work/dev.en"
cat >"$work/tagged.toml" <<TOML
run-dir = "$work/run"
device = "cpu"

[data]
dev-source = "$work/dev.es"
dev-target = "$work/dev.en"
source-spm = "$work/spm.model"
vocab-size = 400
default-tag = "<2en>"

[[data.corpus]]
source = "$data/toy.es"
target = "$data/toy.en"
tag = "<2en>"
reverse = true
reverse-tag = "<2es>"

[model]
embedding-size = 48
encoder-hidden-size = 48
decoder-hidden-size = 48
attention-size = 48
dropout = 0

[optim]
lr = 0.005

[train]
max-steps = 300
max-tokens = 1200
log-every = 100

[valid]
every = 0
attention-maps = "none"

[checkpoint]
every = 1000
TOML

# Bad corpora: one line naming the corpus and what is wrong, exit 1 or 2, no run directory.
bad() {  # bad STATUS PATTERN EXTRA-ARGS...
  local status=$1 pattern=$2; shift 2
  expect_error "$status" "$pattern" -- "$train" --config "$work/tagged.toml" --run-dir "$work/bad" "$@"
  [[ ! -e $work/bad ]] && pass || { fail "a refused corpus made a run directory ($*)"; rm -rf "$work/bad"; }
}
bad 2 "unknown key 'wieght'" --data.corpus "{source = 'a', target = 'b', wieght = 2}"
bad 1 "data.corpus\[1\] .*weight must be a number > 0, got 0" --data.corpus "{source = 'a', target = 'b', weight = 0}"
bad 1 "data.corpus and data.train-source/-target are both set" --data.train-source "$data/toy.es"
bad 1 "reverse-tag '<2en>' is also a forward tag" \
  --data.corpus "{source = '$data/toy.es', target = '$data/toy.en', tag = '<2en>', reverse = true, reverse-tag = '<2en>'}"
bad 1 "data.default-tag: '<2fr>' is not a tag of data.corpus" --data.default-tag "<2fr>"
printf '[[data.corpus]]\nsource = "a"\ntarget = 3\n' >"$work/typed.toml"
expect_error 2 "typed.toml:3: data.corpus.target must be a string, got '3'" -- "$train" --config "$work/typed.toml"
bad 1 "data.corpus\[1\] .*cannot open .*missing.es" \
  --data.corpus "{source = '$work/missing.es', target = '$data/toy.en', tag = '<2en>'}"
# Files that open but do not fit: refused before the subword model is trained, which would write it.
head -n 10 "$data/toy.en" >"$work/short.en"
bad 1 "data.corpus\[1\] .*differ in length: .*toy.es has 319 lines, .*short.en has 10" \
  --data.corpus "{source = '$data/toy.es', target = '$work/short.en', tag = '<2en>'}"
printf 'es\ten\nuno\tone\ndos\n' >"$work/ragged.tsv"
bad 1 "data.corpus\[1\] .*ragged.tsv:3: 1 columns, where the file's first line has 2" \
  --data.corpus "{tsv = '$work/ragged.tsv', source-column = 'es', target-column = 'en', tag = '<2en>'}"
[[ ! -e $work/spm.model ]] && pass || fail "a refused corpus left a subword model"

# Train the two-way model.
expect 0 "" -- "$train" --config "$work/tagged.toml"
grep -q '^\[\[data.corpus\]\]$' "$work/run/config.toml" && pass || fail "config.toml lacks its [[data.corpus]] table"
model=$work/run/checkpoints/step-00000300.pt

# words_of FILE: how many of the output's words are among the commonest of English and of Spanish.
words_of() {
  tr 'A-Z' 'a-z' <"$1" | tr -c 'a-z\n' ' ' | tr ' ' '\n' | awk '
    /^(the|and|of|to|he|in|that|his|it|was)$/ { en++ }
    /^(y|de|la|que|el|en|los|a|su|las)$/ { es++ }
    END { printf "%d %d\n", en, es }'
}
head -n 40 "$data/toy.en" | tail -n 28 >"$work/in.en"
head -n 40 "$data/toy.es" | tail -n 28 >"$work/in.es"
expect 0 "" -- "$translate" -m "$model" -i "$work/in.es" -o "$work/out.en" --tag "<2en>"
expect 0 "" -- "$translate" -m "$model" -i "$work/in.en" -o "$work/out.es" --tag "<2es>"
expect 0 "" -- "$translate" -m "$model" -i "$work/in.es" -o "$work/default.en"
read -r en_en en_es < <(words_of "$work/out.en")
read -r es_en es_es < <(words_of "$work/out.es")
[[ $en_en -gt $((2 * en_es)) && $en_en -ge 40 ]] && pass || fail "<2en> output is not English ($en_en en, $en_es es): $(head -n 2 "$work/out.en")"
[[ $es_es -gt $((2 * es_en)) && $es_es -ge 40 ]] && pass || fail "<2es> output is not Spanish ($es_en en, $es_es es): $(head -n 2 "$work/out.es")"
cmp -s "$work/out.en" "$work/default.en" && pass || fail "the default tag is not <2en>"
# A tag the model lacks: one line naming its tags, no output file.
expect_error 1 "tag '<2fr>': not a tag of the model \(its tags: <2en>, <2es>\)" -- \
  "$translate" -m "$model" -i "$work/in.es" -o "$work/fr.txt" --tag "<2fr>"
[[ ! -e $work/fr.txt ]] && pass || fail "a refused tag wrote an output"
# The scripted engine sees the tag as source ids: the same translations.
expect 0 "" -- "$translate" -m "$model" -i "$work/in.en" -o "$work/script.es" --tag "<2es>" --engine script
cmp -s "$work/out.es" "$work/script.es" && pass || fail "--engine script translates the tagged input otherwise"

# scripts/translate.py puts the tag as nmt-translate does: the default tag, --tag, and a tag the
# model lacks refused in one line.
python=/usr/bin/python3 translate_py=$(dirname "$0")/../../scripts/translate.py
if ! "$python" -c 'import torch, sentencepiece' 2>/dev/null; then
  echo "skipping the translate.py checks: $python cannot import torch and sentencepiece"
  finish; exit
fi
"$python" "$translate_py" "$model" -i "$work/in.es" -o "$work/py.en" 2>"$work/py.err" &&
  cmp -s "$work/py.en" "$work/default.en" && pass || fail "translate.py's default tag differs: $(cat "$work/py.err")"
"$python" "$translate_py" "$model" --tag "<2es>" -i "$work/in.en" -o "$work/py.es" 2>"$work/py.err" &&
  cmp -s "$work/py.es" "$work/out.es" && pass || fail "translate.py --tag '<2es>' differs: $(cat "$work/py.err")"
"$python" "$translate_py" "$model" --tag "<2fr>" -i "$work/in.es" -o "$work/py-fr.txt" 2>"$work/py.err"
[[ $? -eq 1 && $(wc -l <"$work/py.err") -eq 1 && ! -e $work/py-fr.txt ]] &&
  grep -q "not a tag of the model (its tags: <2en>, <2es>)" "$work/py.err" && pass ||
  fail "translate.py --tag '<2fr>': $(cat "$work/py.err")"
finish
