#!/usr/bin/env bash
# CLI tests for nmt-tokenizer and nmt-corpus-stats, and which programs load LibTorch. Usage: cli_test.sh BIN_DIR DATA_DIR
set -uo pipefail
bin=$1 data=$2
source "$(dirname "$0")/cli_lib.sh"

tok=$bin/nmt-tokenizer
stats=$bin/nmt-corpus-stats

# Help and version.
expect 0 "" -- "$tok" --help
grep -q "encode" "$work/out" || fail "help lists no subcommands"
expect 0 "" -- "$tok" --version
grep -qE '^nmt [0-9]+\.[0-9]+\.[0-9]+$' "$work/out" || fail "version output: $(cat "$work/out")"
expect 0 "" -- "$stats" --help

# The programs of text, corpora, metrics and pictures do not load LibTorch (nor libnmt, which needs
# it): a start costs them milliseconds (apps/CMakeLists.txt). The model programs do.
for program in nmt-tokenizer nmt-corpus nmt-corpus-stats nmt-score nmt-plot; do
  needed=$(readelf -d "$bin/$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  [[ -n $needed && ! $needed =~ (libtorch|libc10|libnmt) ]] && pass || fail "$program needs: $needed"
done
needed=$(readelf -d "$bin/nmt-translate" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
[[ $needed =~ libnmt && $needed =~ libtorch ]] && pass || fail "nmt-translate needs: $needed"

# Train, encode, decode: the round trip gives back the input, line for line (empty lines too).
# The model's folder must exist: a missing one is a typo to report, not a folder to create.
expect_error 1 "cannot write .*m/joint.model: folder .*/m does not exist" -- "$tok" train -i "$data/toy.es" \
  -m "$work/m/joint.model" --vocab-size 400 --log-level warn
mkdir "$work/m"
expect 0 "" -- "$tok" train -i "$data/toy.es" -i "$data/toy.en" -m "$work/m/joint.model" --vocab-size 400 \
  --log-level warn
[[ -f $work/m/joint.model && -f $work/m/joint.vocab ]] || fail "train wrote no model/vocab"
{ head -n 20 "$data/toy.es"; echo; head -n 5 "$data/toy.en"; } >"$work/in.txt"
expect 0 "" -- "$tok" encode -m "$work/m/joint.model" -i "$work/in.txt" -o "$work/ids.txt"
[[ $(wc -l <"$work/ids.txt") -eq 26 ]] || fail "encode: $(wc -l <"$work/ids.txt") lines for 26"
grep -qvE '^[0-9 ]*$' "$work/ids.txt" && fail "encode printed something other than ids"
expect 0 "" -- "$tok" decode -m "$work/m/joint.model" -i "$work/ids.txt" -o "$work/back.txt"
cmp -s "$work/in.txt" "$work/back.txt" || fail "ids round trip changed the text"
"$tok" encode -m "$work/m/joint.model" --pieces <"$work/in.txt" | "$tok" decode -m "$work/m/joint.model" --pieces \
  >"$work/back2.txt" && cmp -s "$work/in.txt" "$work/back2.txt" && pass || fail "pieces round trip through pipes"
"$tok" encode -m "$work/m/joint.model" --sample --alpha 0.2 --seed 3 <"$work/in.txt" >"$work/s1" &&
  "$tok" encode -m "$work/m/joint.model" --sample --alpha 0.2 --seed 3 <"$work/in.txt" >"$work/s2" &&
  cmp -s "$work/s1" "$work/s2" && ! cmp -s "$work/s1" "$work/ids.txt" && pass || fail "seeded sampling"

# Corpus statistics.
expect 0 "" -- "$stats" -s "$data/toy.es" -t "$data/toy.en" --source-model "$work/m/joint.model" --json
grep -q '"pairs_kept":319' "$work/out" || fail "stats: $(cat "$work/out")"

# Errors: one line naming the file or option, non-zero exit, no partial output.
expect_error 1 "absent.model" -- "$tok" encode -m "$work/absent.model" -i "$work/in.txt"
expect_error 1 "not a SentencePiece model" -- "$tok" encode -m "$data/toy.es" -i "$work/in.txt"
printf 'ok\nbroken \xff\n' >"$work/bad.txt"
expect_error 1 "bad.txt:2: invalid UTF-8" -- "$tok" encode -m "$work/m/joint.model" -i "$work/bad.txt" -o "$work/never.txt"
[[ -e $work/never.txt ]] && fail "a failed encode left an output file"
ls "$work" | grep -q 'never.txt.tmp' && fail "a failed encode left a temporary file"
printf '12 13\n12 x 13\n' >"$work/badids.txt"
expect_error 1 "badids.txt:2: 'x' is not a token id" -- "$tok" decode -m "$work/m/joint.model" -i "$work/badids.txt" \
  -o "$work/never.txt"
[[ -e $work/never.txt ]] && fail "a failed decode left an output file"
expect_error 1 "cannot decode id 99999" -- "$tok" decode -m "$work/m/joint.model" <<<"99999"
expect_error 2 "unknown subword model type 'wordpiece'" -- "$tok" train -i "$data/toy.es" -m "$work/x.model" --type wordpiece
expect_error 2 "unknown log level 'loud'" -- "$tok" --log-level loud encode -m "$work/m/joint.model"
expect_error 1 "alpha must be in" -- "$tok" encode -m "$work/m/joint.model" --sample --alpha 2 <<<"hola"
head -n 10 "$data/toy.en" >"$work/short.en"
expect_error 1 "has 319 lines, .*short.en has 10" -- "$stats" -s "$data/toy.es" -t "$work/short.en" \
  --source-model "$work/m/joint.model"
expect_error 1 "max tokens 5 is smaller than the sentence pair on line" -- "$stats" -s "$data/toy.es" -t "$data/toy.en" \
  --source-model "$work/m/joint.model" --max-tokens 5
# Usage errors (CLI11): exit status 105-ish codes are CLI11's; any non-zero with a message will do.
"$tok" encode >/dev/null 2>"$work/err"; [[ $? -ne 0 ]] && grep -q -- "--model is required" "$work/err" && pass ||
  fail "missing required option"
"$tok" train -i "$work/nothing.txt" -m "$work/x.model" >/dev/null 2>"$work/err"; [[ $? -ne 0 ]] &&
  grep -q "nothing.txt" "$work/err" && pass || fail "missing training input"
"$stats" --max-tokens abc -s a -t b --source-model c >/dev/null 2>"$work/err"; [[ $? -ne 0 ]] &&
  grep -q "max-tokens" "$work/err" && pass || fail "non-numeric option value"

finish
