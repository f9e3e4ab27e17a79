#!/usr/bin/env bash
# The quality study of issue 46 (its numbers go to docs/benchmarks.md as variants finish): the reference
# recipe (configs/bible-es-en.toml: two ranks, EMA, plateau schedule) at an equal step budget with
# more views of the same meaning, each variant the recipe with its data given as data.corpus tables
# (and a subword model of its own, trained with its tags, beside the corpus):
#   recipe    the recipe as it is
#   kjv       + the KJV's side of the training books as a second target, tagged (<2web>, <2kjv>;
#               the dev set and the test translations ask for <2web>)
#   reverse   + the same pairs reversed, English -> Spanish, tagged (<2en>, <2es>)
#   both      kjv and reverse together (<2web>, <2kjv>; WEB -> Spanish tagged <2es>)
#   wd        the best of them (--best NAME) with word dropout 0.1
#   ensemble  no training: the --best variant's run and its second seed's (BEST and BEST-seed2, both
#             trained to --steps) translate the test books together (nmt-translate -m A -m B)
# --seed N trains the variant with seed N (the config's is 1) in its own run, VARIANT-seedN.
# --checkpoint last (the default) translates the run's checkpoint at --steps; --checkpoint best its
# best.pt (the best dev BLEU up to there: what training keeps to ship), in a row named VARIANT:best
# (its translation: OUT/VARIANT-STEPS-best.test.out).
# The dev column is the evaluated checkpoint's own validation (for an ensemble: '-').
# Each variant: train (resumable: an interrupted run continues, a finished one is kept), then the
# test books with beam 5 and the recipe's length alpha 1.0, scored by nmt-score against the WEB
# (BLEU, chrF2) and against WEB and KJV together (BLEU), and the dev BLEU of the checkpoint translated.
# One line per variant and step count goes to OUT/results.tsv (replaced when that pair is run again);
# `--steps` above a finished run's continues it (the plateau schedule reads only validations, so the
# continued run is the longer run), and its test translation goes to OUT/VARIANT-STEPS.test.out. A
# variant takes about 40 minutes at 3000 steps on two idle cores: run them one at a time.
#
# Usage: scripts/quality_study.sh VARIANT [--steps N] [--seed N] [--checkpoint last|best] [--out DIR]
#                                 [--best NAME] [--build DIR] [--data DIR]
#   (defaults: 3000 steps, seed 1, last, runs/quality-study, build, data/bible)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
steps=3000 seed=1 checkpoint=last out=$root/runs/quality-study build=$root/build data=$root/data/bible best="" variant=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --steps) steps=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --checkpoint) checkpoint=$2; shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --best) best=$2; shift 2 ;;
    --build) build=$(realpath -m "$2"); shift 2 ;;
    --data) data=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    -*) echo "quality_study.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    *) variant=$1; shift ;;
  esac
done
die() { echo "quality_study.sh: $*" >&2; exit 1; }
[[ $steps =~ ^[1-9][0-9]*$ ]] || die "--steps must be a positive integer, got '$steps'"
[[ $seed =~ ^[1-9][0-9]*$ ]] || die "--seed must be a positive integer, got '$seed'"
[[ $checkpoint =~ ^(last|best)$ ]] || die "--checkpoint must be last or best, got '$checkpoint'"
options=()
add_data_of() {  # add_data_of VARIANT: the variant's data options, appended to `options`
  local es=$data/train.es web=$data/train.en kjv=$data/train.kjv.en
  [[ $1 == recipe ]] && return
  options+=(--data.train-source "" --data.train-target "" --data.source-spm "$data/spm4k-$1.model")
  case $1 in
    kjv) options+=(--data.corpus "{source = '$es', target = '$web', tag = '<2web>'}"
                   --data.corpus "{source = '$es', target = '$kjv', tag = '<2kjv>'}" --data.default-tag '<2web>') ;;
    reverse) options+=(--data.corpus "{source = '$es', target = '$web', tag = '<2en>', reverse = true, reverse-tag = '<2es>'}"
                       --data.default-tag '<2en>') ;;
    both) options+=(--data.corpus "{source = '$es', target = '$web', tag = '<2web>', reverse = true, reverse-tag = '<2es>'}"
                    --data.corpus "{source = '$es', target = '$kjv', tag = '<2kjv>'}" --data.default-tag '<2web>') ;;
  esac
}
case $variant in
  recipe|kjv|reverse|both) add_data_of "$variant" ;;
  wd) [[ $best =~ ^(recipe|kjv|reverse|both)$ ]] || die "wd needs --best recipe|kjv|reverse|both"
      add_data_of "$best"
      options+=(--train.word-dropout 0.1) ;;
  ensemble) [[ $best =~ ^(recipe|kjv|reverse|both|wd)$ ]] || die "ensemble needs --best recipe|kjv|reverse|both|wd"
            [[ $seed == 1 ]] || die "ensemble trains nothing: --seed is for the runs it joins" ;;
  *) die "give a variant: recipe, kjv, reverse, both, wd or ensemble (see --help)" ;;
esac
config=$root/configs/bible-es-en.toml
bin=$build/apps
for program in nmt-train nmt-translate nmt-score; do [[ -x $bin/$program ]] || die "$bin/$program is missing: build first"; done
for file in train.es train.en train.kjv.en dev.es dev.en test.es test.en test.kjv.en; do
  [[ -f $data/$file ]] || die "$data/$file is missing (scripts/prepare_bible.py)"
done
name=$variant
if ((seed != 1)); then
  name=$variant-seed$seed
  options+=(--seed "$seed")
fi
[[ $variant == ensemble ]] && name=ensemble-$best
run=$out/$name
# The row's name and the translation's file: VARIANT (the checkpoint at --steps) or VARIANT:best.
row=$name output=$run-$steps.test.out
if [[ $checkpoint == best ]]; then
  row=$name:best output=$run-$steps-best.test.out
fi
mkdir -p "$out"

# Paths in the configurations are relative to the repository root.
cd "$root"
checkpoint_name=step-$(printf '%08d' "$steps")
latest_of() { [[ -f $1/checkpoints/latest ]] && cat "$1/checkpoints/latest" || echo none; }
# A run's best.pt is its best over every step it has trained: it answers for --steps N only when
# the run stopped at N.
require_best_at() {
  [[ $(latest_of "$1") == "$checkpoint_name" ]] ||
    die "--checkpoint best: $1 has trained to $(latest_of "$1"), not $checkpoint_name, so its best.pt is not the best up to $steps steps"
}
add_model() {  # add_model RUN: the run's checkpoint that --checkpoint names, appended to `models`
  if [[ $checkpoint == best ]]; then
    require_best_at "$1"
    models+=(-m "$1/best.pt")
  else
    models+=(-m "$1/checkpoints/$checkpoint_name.pt")
  fi
}
models=()
if [[ $variant == ensemble ]]; then
  for member in "$out/$best" "$out/$best-seed2"; do
    [[ -f $member/checkpoints/$checkpoint_name.pt ]] ||
      die "ensemble: no $member/checkpoints/$checkpoint_name.pt: train $(basename "$member") to $steps steps first"
    add_model "$member"
  done
  echo "== $name: $best and $best-seed2 at $steps steps ($checkpoint checkpoints), together"
else
  latest=$(latest_of "$run")
  [[ $latest == none || $latest =~ ^step-[0-9]+$ ]] || die "$run/checkpoints/latest holds '$latest', not a checkpoint name"
  if [[ $latest == "$checkpoint_name" ]]; then
    echo "== $name: trained ($steps steps), kept"
  elif [[ $latest != none && $((10#${latest#step-})) -gt $steps ]]; then
    [[ -f $run/checkpoints/$checkpoint_name.pt ]] || die "$name has trained past $steps steps ($latest) and kept no $checkpoint_name.pt"
    echo "== $name: trained past $steps steps ($latest); its $checkpoint_name checkpoint"
  else
    resume=()
    [[ $latest != none ]] && resume=(--resume)
    echo "== $name: training $steps steps -> $run"
    # Appended: a resumed run keeps the log of its earlier parts.
    "$bin/nmt-train" --config "$config" --run-dir "$run" --train.max-steps "$steps" "${options[@]}" "${resume[@]}" \
      >>"$run.train.log" 2>&1 || die "$name: nmt-train failed: $(tail -n 2 "$run.train.log")"
  fi
  add_model "$run"
fi

echo "== $row: test books, beam 5, length alpha 1.0"
"$bin/nmt-translate" "${models[@]}" -b 5 --length-alpha 1.0 -i "$data/test.es" -o "$output" --progress never \
  2>"$run.translate.err" || die "$name: nmt-translate failed: $(tail -n 1 "$run.translate.err")"
score() { "$bin/nmt-score" "$@" -i "$output" --json; }
web=$(score "$data/test.en") both_refs=$(score "$data/test.en" "$data/test.kjv.en" --metrics bleu)
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]]["score"])' "$1" "$2"; }
# Dev: the evaluated checkpoint's validation (the one at --steps; with --checkpoint best, the best up
# to there). Training time: the trainer's own clock (elapsed_s of the last step's record up to
# --steps), which spans every resume of the run and leaves out start-ups and the closing
# validation. An ensemble trains nothing and is not validated: '-' for both.
read -r dev seconds < <(python3 - "$run/metrics.jsonl" "$steps" "$checkpoint" <<'PY'
import json, os, sys
path, steps, checkpoint = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if not os.path.exists(path):
    print("- -")
    sys.exit()
records = []
for line in open(path):
    try:  # a line cut short by a killed run is skipped, as the trainer's reader skips it
        records.append(json.loads(line))
    except ValueError:
        pass
# The last validation of each step (a resumed part may repeat one), with a number for BLEU.
valid = {r["step"]: r["bleu"] for r in records
         if r.get("event") == "valid" and isinstance(r.get("step"), int) and r["step"] <= steps
         and isinstance(r.get("bleu"), (int, float))}
if checkpoint == "best":
    dev = max(valid.values(), default=None)
else:
    dev = valid.get(steps)
elapsed = max((r.get("elapsed_s", 0) for r in records if r.get("event") == "train" and r.get("step", 0) <= steps),
              default=0)
print(f"{'-' if dev is None else f'{dev:.2f}'} {elapsed:.0f}")
PY
)
line=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s' "$row" "$steps" "$dev" "$(field "$web" bleu)" \
  "$(field "$both_refs" bleu)" "$(field "$web" chrf)" "$seconds")
results=$out/results.tsv
[[ -f $results ]] || printf 'variant\tsteps\tdev_bleu\ttest_bleu_web\ttest_bleu_web_kjv\ttest_chrf2_web\ttrain_seconds\n' >"$results"
# One row per variant and step count: a run continued to more steps adds a row.
grep -v "^$row	$steps	" "$results" >"$results.tmp" || true
echo "$line" >>"$results.tmp"
mv "$results.tmp" "$results"
echo "$line"
