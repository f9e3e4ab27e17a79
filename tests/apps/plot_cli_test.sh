#!/usr/bin/env bash
# CLI tests for nmt-plot and nmt-score --plot: pictures from attention output, training metrics
# and several hypothesis files; PNG signature and size, SVG that parses as XML with one cell per
# source x target position, and every error path: one line, non-zero exit, no image left behind.
# Usage: plot_cli_test.sh BIN_DIR
set -uo pipefail
bin=$1
source "$(dirname "$0")/cli_lib.sh"
plot=$bin/nmt-plot

# Two sentences of attention output (as nmt-translate --attention-output writes it: "index" counts
# from 0, pictures are named by line from 1) and an empty one.
cat >"$work/att.json" <<'JSON'
{"index":0,"source":["▁Y","▁dij","o",":","</s>"],"target":["▁And","▁sa","id","</s>"],"attention":[[0.7,0.1,0.1,0.05,0.05],[0.0,0.6,0.3,0.1,0.0],[0.1,0.2,0.5,0.2,0.0],[0,0,0,0.2,0.8]]}
{"index":1,"source":[],"target":[],"attention":[]}
{"index":2,"source":["▁luz","</s>"],"target":["▁light","</s>"],"attention":[[0.9,0.1],[0.2,0.8]]}
JSON

expect 0 "" -- "$plot" --help
expect 0 "" -- "$plot" attention --help
expect 0 "wrote 4 picture\(s\) of 2 sentence\(s\)" -- "$plot" attention "$work/att.json" -o "$work/maps"
for file in attention-0001.svg attention-0001.png attention-0003.svg attention-0003.png; do
  [[ -s $work/maps/$file ]] && pass || fail "$file not written"
done
[[ ! -e $work/maps/attention-0002.svg ]] && pass || fail "an empty translation got a picture"
[[ $(head -c 8 "$work/maps/attention-0001.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] && pass ||
  fail "attention-0001.png has no PNG signature"
# Width and height from the IHDR chunk: 2 pixels per point, and wider than 5 cells of 14 points.
width=$(od -An -tu1 -j16 -N4 "$work/maps/attention-0001.png" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}')
height=$(od -An -tu1 -j20 -N4 "$work/maps/attention-0001.png" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}')
[[ $width -gt 140 && $height -gt 112 ]] && pass || fail "attention-0001.png is ${width}x$height"

# SVG: well-formed XML (Python's parser) with one filled 14x14 square per position (4 x 5, and
# 3 x 3 words with --words, in points of --cell-size 10).
svg_cells() {  # FILE SIZE: prints the number of filled SIZE x SIZE squares, or fails to parse
  python3 - "$1" "$2" <<'PY'
import re, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
size, count = float(sys.argv[2]), 0
for element in root.iter():
    tag = element.tag.split('}')[-1]
    style = element.get('style', '')
    fill = element.get('fill', '')
    if 'fill:none' in style or fill == 'none' or ('fill:' not in style and not fill):
        continue
    if tag == 'rect':
        w, h = float(element.get('width', 0)), float(element.get('height', 0))
    elif tag == 'path':
        m = re.fullmatch(r'\s*M ([-\d.]+) ([-\d.]+) L ([-\d.]+) \2 L \3 ([-\d.]+) L \1 \4 Z( M \1 \2)?\s*', element.get('d', ''))
        if not m:
            continue
        w, h = abs(float(m[3]) - float(m[1])), abs(float(m[4]) - float(m[2]))
    else:
        continue
    count += abs(w - size) < 1e-3 and abs(h - size) < 1e-3
print(count)
PY
}
if command -v python3 >/dev/null; then
  [[ $(svg_cells "$work/maps/attention-0001.svg" 14) == 20 ]] && pass ||
    fail "attention-0001.svg: $(svg_cells "$work/maps/attention-0001.svg" 14) cells of 14 points, expected 20"
  expect 0 "" -- "$plot" attention "$work/att.json" -o "$work/words" --words -s 1 --cell-size 10 --format svg
  [[ $(svg_cells "$work/words/attention-0001.svg" 10) == 9 ]] && pass ||
    fail "words: $(svg_cells "$work/words/attention-0001.svg" 10) cells, expected 9"
  [[ $(ls "$work/words") == attention-0001.svg ]] && pass || fail "words: $(ls "$work/words")"
fi
expect 0 "" -- "$plot" attention "$work/att.json" -o "$work/pdf" -s 3 --format pdf
[[ $(head -c 4 "$work/pdf/attention-0003.pdf") == %PDF ]] && pass || fail "no PDF"

# Bad input: one line naming what is wrong, exit 1, and no picture.
printf '%s\n' '{"index":1,"source":["a","b"],"target":["x"],"attention":[[0.5,0.5]]}' \
  '{"index":2,"source":["a","b"],"target":["x","y"],"attention":[[0.5,0.5]]}' >"$work/short.json"
expect_error 1 "short.json line 2: 1 attention rows for 2 target tokens" -- "$plot" attention "$work/short.json" -o "$work/bad1"
printf 'hello\n' >"$work/text.json"
expect_error 1 "text.json line 1: not a JSON object" -- "$plot" attention "$work/text.json" -o "$work/bad2"
expect_error 1 "cannot open .*missing.json" -- "$plot" attention "$work/missing.json" -o "$work/bad3"
expect_error 1 "sentences: line 7 is not in" -- "$plot" attention "$work/att.json" -o "$work/bad4" -s 7
expect_error 1 "sentences: 'x' is not a line number" -- "$plot" attention "$work/att.json" -o "$work/bad5" -s 1,x
expect_error 1 "unknown image format 'gif'" -- "$plot" attention "$work/att.json" -o "$work/bad6" --format gif
: >"$work/file"
expect_error 1 "cannot make the output folder" -- "$plot" attention "$work/att.json" -o "$work/file"
# Issue 29: an empty selection is refused (it drew every sentence); a heat-map too large for cairo
# is refused naming the line (a 700,000-piece line gave a blank SVG and exit status 0).
expect_error 1 "sentences: no line given" -- "$plot" attention "$work/att.json" -o "$work/bad7" -s ''
/usr/bin/env python3 -c "
import json
n = 700000
print(json.dumps({'index': 0, 'source': ['a'] * n, 'target': ['x'], 'attention': [[1.0 / n] * n]}))
" >"$work/wide.json"
expect_error 1 "wide.json|line 1: 700000 source x 1 target tokens; a heat-map shows at most 1000 a side" -- \
  "$plot" attention "$work/wide.json" -o "$work/bad8"
/usr/bin/env python3 -c "
import json
print(json.dumps({'index': 0, 'source': ['a' * 20000, 'b'], 'target': ['x'], 'attention': [[0.5, 0.5]]}))
" >"$work/long-token.json"
expect_error 1 "line 1: the picture would be [0-9]+ x [0-9]+ points, more than the 30000" -- \
  "$plot" attention "$work/long-token.json" -o "$work/bad9"
for dir in bad1 bad2 bad3 bad4 bad5 bad6 bad7 bad8 bad9; do
  [[ ! -e $work/$dir ]] && pass || fail "a failed run left $dir"
done
if [[ $EUID -ne 0 ]]; then  # root writes anywhere
  mkdir "$work/locked" && chmod 500 "$work/locked"
  expect_error 1 "locked" -- "$plot" attention "$work/att.json" -o "$work/locked"
  [[ -z $(ls -A "$work/locked") ]] && pass || fail "an unwritable folder got files"
fi

# Training curves of a run directory (default outputs beside metrics.jsonl) and of two compared.
mkdir -p "$work/run"
printf '%s\n' '{"event":"train","step":100,"target_tokens":1000,"loss":5.0,"ppl":148.4}' \
  '{"event":"valid","step":100,"target_tokens":1000,"loss":4.5,"ppl":90.0,"bleu":3.5}' \
  '{"event":"train","step":200,"target_tokens":2000,"loss":4.0,"ppl":54.6}' >"$work/run/metrics.jsonl"
expect 0 "training curves of 1 run" -- "$plot" metrics "$work/run"
[[ -s $work/run/curves.svg && -s $work/run/curves.png ]] && pass || fail "curves.svg/png not written"
expect 0 "" -- "$plot" metrics "$work/run" "$work/run" --label a --label b -o "$work/two.png"
# A picture written through a symbolic link: the link stays, its target gets the picture.
ln -s "$work/real.svg" "$work/link.svg"
expect 0 "" -- "$plot" metrics "$work/run" -o "$work/link.svg"
[[ -L $work/link.svg && $(head -c 5 "$work/real.svg") == "<?xml" ]] && pass || fail "the link was replaced or its target not written"
expect_error 1 "name the image files \(-o\)" -- "$plot" metrics "$work/run" "$work/run"
expect_error 1 "cannot open .*metrics.jsonl" -- "$plot" metrics "$work/nothing" -o "$work/x.svg"
expect_error 1 "x.jpg: an image file must end in .svg, .png or .pdf" -- "$plot" metrics "$work/run" -o "$work/x.jpg"
[[ ! -e $work/x.svg && ! -e $work/x.jpg ]] && pass || fail "a failed metrics run left an image"

# nmt-score --by-length --plot: several systems on one picture.
score=$bin/nmt-score
printf '%s\n' "a b c" "a b c d e f g h i j k l" "x y" >"$work/ref.txt"
printf '%s\n' "a b c" "a b c d e f g h i j k" "x z" >"$work/h1.txt"
printf '%s\n' "a c" "a b c d" "x y" >"$work/h2.txt"
expect 0 "" -- "$score" "$work/ref.txt" -i "$work/h1.txt" -i "$work/h2.txt" --label one --label two --by-length \
  --length-edges 5 --plot "$work/length.png"
grep -q "BLEU one" "$work/out" && grep -q "BLEU two" "$work/out" && pass || fail "no column per system: $(cat "$work/out")"
[[ $(head -c 4 "$work/length.png" | od -An -tx1 | tr -d ' \n') == 89504e47 ]] && pass || fail "length.png is no PNG"
expect_error 1 "label: 'a' is given twice" -- "$plot" metrics "$work/run" "$work/run" --label a --label a -o "$work/dup.png"
[[ ! -e $work/dup.png ]] && pass || fail "duplicate labels drew a picture"
expect_error 1 "--label: 'one' is given twice" -- "$score" "$work/ref.txt" -i "$work/h1.txt" -i "$work/h2.txt" \
  --label one --label one --by-length
expect_error 1 "1 labels for 2" -- "$score" "$work/ref.txt" -i "$work/h1.txt" -i "$work/h2.txt" --label one --by-length
expect_error 1 "go with --by-length" -- "$score" "$work/ref.txt" -i "$work/h1.txt" -i "$work/h2.txt"
expect_error 1 "an image file must end" -- "$score" "$work/ref.txt" -i "$work/h1.txt" --by-length --plot "$work/l.bmp"
[[ ! -e $work/l.bmp ]] && pass || fail "a failed score run left an image"


# One sentence under two "models" side by side: both heat-maps' cells in one SVG; files that
# translated other sources, or lack the line, are one-line errors that draw nothing.
cp "$work/att.json" "$work/att2.json"
expect 0 "drew line 3 of 2 files" -- "$plot" compare-attention "$work/att.json" "$work/att2.json" --label soft \
  --label hard -s 3 -o "$work/compare.svg" -o "$work/compare.png"
[[ -s $work/compare.png ]] && pass || fail "compare.png not written"
if command -v python3 >/dev/null; then
  [[ $(svg_cells "$work/compare.svg" 14) == 8 ]] && pass || fail "compare.svg: not 2 x 2 x 2 cells"
fi
expect_error 1 "line 2 of .*att.json has an empty translation" -- "$plot" compare-attention "$work/att.json" \
  "$work/att2.json" -s 2 -o "$work/none.png"
expect_error 1 "line 9 is not in" -- "$plot" compare-attention "$work/att.json" "$work/att2.json" -s 9 -o "$work/none.png"
expect_error 1 "at least two attention files" -- "$plot" compare-attention "$work/att.json" -o "$work/none.png"
[[ ! -e $work/none.png ]] && pass || fail "a refused comparison left a picture"

finish
