#!/usr/bin/env bash
# CLI tests for nmt-score: sacreBLEU's published values through files and stdin, one and several
# references, the options, and every error path's exit status and message. Usage: score_cli_test.sh BIN_DIR
set -uo pipefail
bin=$1
source "$(dirname "$0")/cli_lib.sh"

score=$bin/nmt-score
version=$("$score" --version | sed 's/^nmt /nmt-/')

# expect_output TEXT: stdout of the last `expect` is exactly TEXT (plus a final newline).
expect_output() {
  if [[ $(cat "$work/out") == "$1" ]]; then pass; else fail "output: $(cat "$work/out") -- expected: $1"; fi
}

# mjpost/sacrebleu README.md, "Using SacreBLEU from Python".
printf '%s\n' "The dog bit the man." "It wasn't surprising." "The man had just bitten him." >"$work/hyps.txt"
printf '%s\n' "The dog bit the man." "It was not unexpected." "The man bit him first." >"$work/ref1.txt"
printf '%s\n' "The dog had bit the man." "No one was surprised." "The man had bitten the dog." >"$work/ref2.txt"
readme_bleu="BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)"

# Help and version.
expect 0 "" -- "$score" --help
grep -q -- "--metrics" "$work/out" || fail "help lists no --metrics"
[[ $version =~ ^nmt-[0-9]+\.[0-9]+\.[0-9]+$ ]] && pass || fail "version: $version"

# Two references, from a file and from stdin: the README's BLEU and chrF, with the signatures.
expect 0 "" -- "$score" "$work/ref1.txt" "$work/ref2.txt" -i "$work/hyps.txt"
expect_output "$readme_bleu  nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:$version
chrF2 = 59.73  nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:$version"
[[ ! -s $work/err ]] && pass || fail "stderr not empty: $(cat "$work/err")"
"$score" "$work/ref1.txt" "$work/ref2.txt" <"$work/hyps.txt" >"$work/stdin.out" 2>"$work/err" &&
  cmp -s "$work/out" "$work/stdin.out" && pass || fail "stdin gives other output: $(cat "$work/stdin.out" "$work/err")"
"$score" "$work/ref1.txt" "$work/ref2.txt" -i - <"$work/hyps.txt" >"$work/stdin.out" 2>&1 &&
  cmp -s "$work/out" "$work/stdin.out" && pass || fail "-i - differs from stdin"

# README "Variable Number of References": an empty line in one reference leaves that reference out.
{ echo; tail -n 2 "$work/ref1.txt"; } >"$work/ref1_hole.txt"
expect 0 "" -- "$score" "$work/ref1_hole.txt" "$work/ref2.txt" -i "$work/hyps.txt" --metrics bleu
expect_output "BLEU = 29.44 82.4/42.9/27.3/12.5 (BP = 0.889 ratio = 0.895 hyp_len = 17 ref_len = 19)  nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:$version"

# sacreBLEU test_bleu.py: tokenize none gives 49.1919566; -w sets the decimals.
expect 0 "" -- "$score" "$work/ref1.txt" "$work/ref2.txt" -i "$work/hyps.txt" --metrics bleu --tokenize none -w 5
grep -qE '^BLEU = 49\.19196 .*\|tok:none\|' "$work/out" && pass || fail "tok none: $(cat "$work/out")"
expect 0 "" -- "$score" "$work/ref1.txt" "$work/ref2.txt" -i "$work/hyps.txt" -w 1
grep -q "^BLEU = 48.5 82.4/" "$work/out" && grep -q "^chrF2 = 59.7  " "$work/out" && pass || fail "-w 1: $(cat "$work/out")"
expect 0 "" -- "$score" "$work/ref1.txt" "$work/ref2.txt" -i "$work/hyps.txt" --metrics chrf,bleu
[[ $(head -c 5 "$work/out") == "chrF2" && $(wc -l <"$work/out") -eq 2 ]] && pass || fail "metric order: $(cat "$work/out")"

# --by-length: one line per bucket; ref1's sentences (5, 4 and 5 words) with edges 5 and 10 fall
# into 0-4 (one) and 5-9 (two), and 10+ is empty; by source length too.
expect 0 "" -- "$score" "$work/ref1.txt" -i "$work/hyps.txt" --by-length --length-edges 5,10 --metrics bleu
[[ $(wc -l <"$work/out") -eq 4 ]] && grep -qE '^0-4 +1 ' "$work/out" && grep -qE '^5-9 +2 ' "$work/out" &&
  grep -qE '^10\+ +0 +-$' "$work/out" && pass || fail "by length: $(cat "$work/out")"
expect 0 "" -- "$score" "$work/ref1.txt" -i "$work/hyps.txt" --by-length --length-of source --source "$work/hyps.txt" --json
grep -q '"length_of":"source"' "$work/out" && pass || fail "by source length: $(cat "$work/out")"
expect_error 1 "--length-of source needs --source" -- "$score" "$work/ref1.txt" -i "$work/hyps.txt" --by-length --length-of source
expect_error 1 "length-edges must be increasing" -- "$score" "$work/ref1.txt" -i "$work/hyps.txt" --by-length --length-edges 20,10
expect_error 1 "--source goes with --by-length" -- "$score" "$work/ref1.txt" -i "$work/hyps.txt" --source "$work/hyps.txt"

# --lowercase: upper-cased hypotheses score as the originals do (both lowercased), signatures say case:lc.
tr '[:lower:]' '[:upper:]' <"$work/hyps.txt" >"$work/upper.txt"
expect 0 "" -- "$score" "$work/ref1.txt" "$work/ref2.txt" -i "$work/hyps.txt" --lowercase
cp "$work/out" "$work/lower.out"
grep -qF "$readme_bleu  nrefs:2|case:lc|eff:no|" "$work/out" && grep -q "^chrF2 = 60.02  nrefs:2|case:lc|eff:yes|" "$work/out" &&
  pass || fail "lowercase: $(cat "$work/out")"
expect 0 "" -- "$score" "$work/ref1.txt" "$work/ref2.txt" -i "$work/upper.txt" --lowercase
cmp -s "$work/out" "$work/lower.out" && pass || fail "upper-case hypotheses with --lowercase: $(cat "$work/out")"

# huggingface/datasets metric cards (values computed by sacreBLEU): BLEU 39.76353643835252 with two
# references, chrF 84.64214891738334 with one.
printf '%s\n' "hello there general kenobi" "on our way to ankh morpork" >"$work/hf_hyps.txt"
printf '%s\n' "hello there general kenobi" "goodbye ankh morpork" >"$work/hf_ref1.txt"
printf '%s\n' "hello there !" "ankh morpork" >"$work/hf_ref2.txt"
expect 0 "" -- "$score" "$work/hf_ref1.txt" "$work/hf_ref2.txt" -i "$work/hf_hyps.txt" --metrics bleu -w 8
grep -q "^BLEU = 39.76353644 .*hyp_len = 10 ref_len = 7)" "$work/out" && pass || fail "HF BLEU: $(cat "$work/out")"
printf '%s\n' "The relationship between cats and dogs is not exactly friendly." \
  "a good bookshop is just a genteel black hole that knows how to read." >"$work/hf_chrf_hyps.txt"
printf '%s\n' "The relationship between dogs and cats is not exactly friendly." \
  "A good bookshop is just a genteel Black Hole that knows how to read." >"$work/hf_chrf_ref.txt"
expect 0 "" -- "$score" "$work/hf_chrf_ref.txt" --metrics chrf -w 8 <"$work/hf_chrf_hyps.txt"
expect_output "chrF2 = 84.64214892  nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:$version"

# Trailing whitespace and CRLF line ends are stripped as sacreBLEU's reader does.
sed 's/$/ \t\r/' "$work/hyps.txt" >"$work/hyps_crlf.txt"
expect 0 "" -- "$score" "$work/ref1.txt" "$work/ref2.txt" -i "$work/hyps_crlf.txt" --metrics bleu
grep -qF "$readme_bleu" "$work/out" && pass || fail "trailing whitespace changed the score: $(cat "$work/out")"

# JSON: one object, sacreBLEU's fields per metric.
expect 0 "" -- "$score" "$work/ref1.txt" "$work/ref2.txt" -i "$work/hyps.txt" --json
[[ $(wc -l <"$work/out") -eq 1 ]] && pass || fail "JSON is not one line"
for field in '"bleu":{"name":"BLEU","score":48.53,' "\"signature\":\"nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:$version\"" \
  '"verbose_score":"82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)"' \
  '"sys_len":17,"ref_len":18' '"chrf":{"name":"chrF2","score":59.73,' '"nc":"6"'; do
  grep -qF -- "$field" "$work/out" && pass || fail "JSON lacks $field: $(cat "$work/out")"
done
if command -v python3 >/dev/null; then
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert set(d) == {"bleu", "chrf"}' "$work/out" &&
    pass || fail "JSON does not parse: $(cat "$work/out")"
fi

# Empty hypothesis lines are scored; empty files give 0.
printf '\n\n\n' >"$work/blank.txt"
expect 0 "" -- "$score" "$work/ref1.txt" -i "$work/blank.txt" --metrics bleu
grep -q "^BLEU = 0.00 .*hyp_len = 0 " "$work/out" && pass || fail "empty hypotheses: $(cat "$work/out")"
: >"$work/empty.txt"
expect 0 "" -- "$score" "$work/empty.txt" -i "$work/empty.txt"
grep -q "^chrF2 = 0.00  nrefs:1" "$work/out" && pass || fail "empty files: $(cat "$work/out")"

# Errors: one line naming the file or option, exit status 1, nothing on stdout.
expect_no_output() { [[ ! -s $work/out ]] && pass || fail "an error printed output: $(cat "$work/out")"; }
head -n 2 "$work/ref2.txt" >"$work/short.txt"
expect_error 1 "line count mismatch: hypotheses .*hyps.txt have 3 lines, reference .*short.txt has 2" -- \
  "$score" "$work/ref1.txt" "$work/short.txt" -i "$work/hyps.txt"
expect_no_output
expect_error 1 "line count mismatch: hypotheses <stdin> have 3 lines, reference .*short.txt has 2" -- \
  "$score" "$work/short.txt" <"$work/hyps.txt"
expect_error 1 "cannot open .*absent.txt" -- "$score" "$work/ref1.txt" "$work/absent.txt" -i "$work/hyps.txt"
expect_no_output
expect_error 1 "cannot open .*absent_hyps.txt" -- "$score" "$work/ref1.txt" -i "$work/absent_hyps.txt"
expect_error 1 "cannot read .*: is a directory" -- "$score" "$work" -i "$work/hyps.txt"
printf 'a\n \nc\n' >"$work/hole_a.txt"
printf 'a\n\nc\n' >"$work/hole_b.txt"
expect_error 1 "hole_a.txt:2: empty reference" -- "$score" "$work/hole_a.txt" -i "$work/hyps.txt"
expect_error 1 "line 2: every reference is empty \(.*hole_a.txt, .*hole_b.txt\)" -- \
  "$score" "$work/hole_a.txt" "$work/hole_b.txt" -i "$work/hyps.txt"
printf 'ok\nbroken \xff\nok\n' >"$work/bad.txt"
expect_error 1 "bad.txt:2: invalid UTF-8 at byte 8" -- "$score" "$work/ref1.txt" -i "$work/bad.txt"
expect_error 1 "standard input \('-'\) can be read once" -- "$score" - <"$work/hyps.txt"
expect_error 1 "metrics: unknown metric 'ter'" -- "$score" "$work/ref1.txt" -i "$work/hyps.txt" --metrics bleu,ter
expect_error 1 "metrics: 'chrf' is listed twice" -- "$score" "$work/ref1.txt" -i "$work/hyps.txt" --metrics chrf,chrf
expect_error 1 "metrics: none given" -- "$score" "$work/ref1.txt" -i "$work/hyps.txt" --metrics ,
expect_error 2 "unknown BLEU tokenizer 'intl'" -- "$score" "$work/ref1.txt" -i "$work/hyps.txt" --tokenize intl
expect_error 1 "width must be between 0 and 20 decimals, got 21" -- "$score" "$work/ref1.txt" -i "$work/hyps.txt" -w 21
expect_no_output
# Option errors come before reading: a bad option with a missing file names the option.
expect_error 1 "width must be" -- "$score" "$work/absent.txt" -w -1
# Usage errors (CLI11): non-zero with a message.
"$score" -i "$work/hyps.txt" >/dev/null 2>"$work/err"; [[ $? -ne 0 ]] && grep -q "references is required" "$work/err" &&
  pass || fail "no reference: $(cat "$work/err")"
"$score" "$work/ref1.txt" -w x >/dev/null 2>"$work/err"; [[ $? -ne 0 ]] && grep -q "width" "$work/err" && pass ||
  fail "non-numeric width: $(cat "$work/err")"

finish
