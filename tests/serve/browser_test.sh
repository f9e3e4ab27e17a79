#!/usr/bin/env bash
# The web page in a real browser: trains a small model (~10 s), starts nmt-serve on a free loopback
# port and runs browser_test.py (headless Chromium through chromedriver: type, click Translate,
# check the translation and the heat-maps, hover, screenshot); then the same with a tagged two-way
# model (<2en>, <2es>), choosing <2es> in the page's direction selector. Exit 77 (ctest: skipped)
# without chromium, chromedriver or /usr/bin/python3. The screenshots stay at SCREENSHOT (and
# SCREENSHOT's name with -tagged) for people to see.
# Usage: browser_test.sh BIN_DIR DATA_DIR SCREENSHOT
set -uo pipefail
bin=$1 data=$2 screenshot=$3
here=$(cd "$(dirname "$0")" && pwd)
for tool in /usr/bin/python3 chromium chromedriver; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/setup.sh --test-packages installs it)"; exit 77; }
done
work=$(mktemp -d)
server_pid=""
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

serve_and_test() {  # serve_and_test MODEL SCREENSHOT BROWSER-TEST-ARGS...: one server, one browser run
  local model=$1 shot=$2; shift 2
  "$bin/nmt-serve" -m "$model" --port 0 --source-language es --target-language en 2>"$work/serve.log" &
  server_pid=$!
  local port=""
  for _ in $(seq 300); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$work/serve.log")
    [[ -n $port ]] && break
    kill -0 "$server_pid" 2>/dev/null || { echo "nmt-serve did not start: $(tail -n 2 "$work/serve.log")"; exit 1; }
    sleep 0.1
  done
  [[ -n $port ]] || { echo "nmt-serve did not start within 30 s"; exit 1; }
  mkdir -p "$(dirname "$shot")"
  /usr/bin/python3 "$here/browser_test.py" --url "http://127.0.0.1:$port/" --screenshot "$shot" --timeout 90 "$@"
  local status=$?
  kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  server_pid=""
  return $status
}

small_model=(--device cpu --data.vocab-size 300 --model.embedding-size 32 --model.encoder-hidden-size 32
             --model.decoder-hidden-size 32 --model.attention-size 32 --train.max-tokens 600
             --optim.lr 0.005 --valid.every 0)
"$bin/nmt-train" --run-dir "$work/run" --data.train-source "$data/toy.es" --data.train-target "$data/toy.en" \
  --data.dev-source "$data/toy.es" --data.dev-target "$data/toy.en" --data.source-spm "$work/spm.model" \
  "${small_model[@]}" --train.max-steps 60 >/dev/null 2>"$work/train.err" \
  || { echo "training the test model failed: $(tail -n 2 "$work/train.err")"; exit 1; }
serve_and_test "$work/run/best.pt" "$screenshot" || exit

# A tagged model: Spanish -> English (<2en>, the default) and the pairs reversed (<2es>).
"$bin/nmt-train" --run-dir "$work/tagged" --data.dev-source "$data/toy.es" --data.dev-target "$data/toy.en" \
  --data.corpus "{source = '$data/toy.es', target = '$data/toy.en', tag = '<2en>', reverse = true, reverse-tag = '<2es>'}" \
  --data.default-tag '<2en>' --data.source-spm "$work/tagged-spm.model" "${small_model[@]}" --train.max-steps 300 \
  >/dev/null 2>"$work/train.err" || { echo "training the tagged test model failed: $(tail -n 2 "$work/train.err")"; exit 1; }
serve_and_test "$work/tagged/best.pt" "${screenshot%.png}-tagged.png" --tag '<2es>'
