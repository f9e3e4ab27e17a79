#!/usr/bin/env bash
# CLI tests for nmt-corpus prepare: the toy corpus prepared (files, counts, the JSON report), a TSV
# with named columns and a key, outputs that exist refused unless --force, and bad input as one line
# with nothing written. The numbers are checked in tests/data/corpus_preparation_test.cc.
# Usage: corpus_cli_test.sh BIN_DIR DATA_DIR
set -uo pipefail
bin=$1 data=$2
source "$(dirname "$0")/cli_lib.sh"
corpus=$bin/nmt-corpus
lines=$(wc -l <"$data/toy.es")

expect 0 "" -- "$corpus" prepare --help
expect 0 "" -- "$corpus" prepare -s "$data/toy.es" -t "$data/toy.en" -o "$work/toy" --source-suffix es \
  --target-suffix en --dev-size 20 --test-size 20 --json "$work/toy.json"
grep -q "^read $lines pairs" "$work/out" && pass || fail "the report does not say $lines pairs read: $(head -n 1 "$work/out")"
python3 - "$work/toy.json" "$work/toy" <<'PY' && pass || fail "JSON report and files disagree"
import json, os, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
assert report["split"]["dev"] == 20 and report["split"]["test"] == 20, report["split"]
assert report["kept"] == sum(report["split"].values()), report
for part in ("train", "dev", "test"):
    es = open(os.path.join(sys.argv[2], part + ".es"), encoding="utf-8").read().splitlines()
    en = open(os.path.join(sys.argv[2], part + ".en"), encoding="utf-8").read().splitlines()
    assert len(es) == len(en) == report["split"][part], (part, len(es), len(en))
PY
# Run again: the outputs exist; refused (untouched) unless --force.
before=$(md5sum <"$work/toy/train.es")
expect_error 1 "train.es: it exists" -- "$corpus" prepare -s "$data/toy.es" -t "$data/toy.en" -o "$work/toy" \
  --source-suffix es --target-suffix en --dev-size 20 --test-size 20 --seed 2
[[ $(md5sum <"$work/toy/train.es") == "$before" ]] && pass || fail "a refused run changed train.es"
expect 0 "" -- "$corpus" prepare -s "$data/toy.es" -t "$data/toy.en" -o "$work/toy" --source-suffix es \
  --target-suffix en --dev-size 20 --test-size 20 --seed 2 --force
[[ $(md5sum <"$work/toy/train.es") != "$before" ]] && pass || fail "--force with another seed kept the same split"

# A TSV with a header, its columns named, grouped by a key.
printf 'doc\tes\ten\n' >"$work/c.tsv"
paste <(awk '{print "d" int((NR - 1) / 5)}' "$data/toy.es") "$data/toy.es" "$data/toy.en" >>"$work/c.tsv"
expect 0 "" -- "$corpus" prepare --tsv "$work/c.tsv" --source-column es --target-column en --key-column doc \
  -o "$work/tsv" --dev-size 10 --test-size 10
grep -qE "^split [0-9]+ group\(s\)" "$work/out" && pass || fail "no split line: $(cat "$work/out")"

# Bad input: one line naming the file and what is wrong, exit 1, nothing written.
head -n 3 "$data/toy.en" >"$work/short.en"
expect_error 1 "not line-parallel: .*toy.es has $lines, .*short.en has 3 lines" -- "$corpus" prepare \
  -s "$data/toy.es" -t "$work/short.en" -o "$work/bad"
printf 'es\ten\nhola\thello\nadios\n' >"$work/ragged.tsv"
expect_error 1 "ragged.tsv:3: 1 columns, where the file's first line has 2" -- "$corpus" prepare \
  --tsv "$work/ragged.tsv" --source-column es --target-column en -o "$work/bad"
expect_error 1 "no column 'fr'" -- "$corpus" prepare --tsv "$work/ragged.tsv" --source-column fr \
  --target-column en -o "$work/bad"
expect_error 1 "give --source and --target, or --tsv" -- "$corpus" prepare -o "$work/bad"
expect_error 1 "--max-ratio must be 0 or >= 1, got 0.5" -- "$corpus" prepare -s "$data/toy.es" -t "$data/toy.en" \
  -o "$work/bad" --max-ratio 0.5
[[ ! -e $work/bad ]] && pass || fail "a refused run made $work/bad"

finish
