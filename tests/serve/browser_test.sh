#!/usr/bin/env bash
# The web page in a real browser: trains a small model (~10 s), starts nmt-serve on a free loopback
# port and runs browser_test.py (headless Chromium through chromedriver: type, click Translate,
# check the translation and the heat-maps, hover, screenshot). Exit 77 (ctest: skipped) without
# chromium, chromedriver or /usr/bin/python3. The screenshot stays at SCREENSHOT for people to see.
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

"$bin/nmt-train" --run-dir "$work/run" --device cpu --data.train-source "$data/toy.es" \
  --data.train-target "$data/toy.en" --data.dev-source "$data/toy.es" --data.dev-target "$data/toy.en" \
  --data.source-spm "$work/spm.model" --data.vocab-size 300 --model.embedding-size 32 \
  --model.encoder-hidden-size 32 --model.decoder-hidden-size 32 --model.attention-size 32 \
  --train.max-steps 60 --train.max-tokens 600 --optim.lr 0.005 --valid.every 0 \
  >/dev/null 2>"$work/train.err" || { echo "training the test model failed: $(tail -n 2 "$work/train.err")"; exit 1; }

"$bin/nmt-serve" -m "$work/run/best.pt" --port 0 --source-language es --target-language en 2>"$work/serve.log" &
server_pid=$!
port=""
for _ in $(seq 300); do
  port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$work/serve.log")
  [[ -n $port ]] && break
  kill -0 "$server_pid" 2>/dev/null || { echo "nmt-serve did not start: $(tail -n 2 "$work/serve.log")"; exit 1; }
  sleep 0.1
done
[[ -n $port ]] || { echo "nmt-serve did not start within 30 s"; exit 1; }
mkdir -p "$(dirname "$screenshot")"
/usr/bin/python3 "$here/browser_test.py" --url "http://127.0.0.1:$port/" --screenshot "$screenshot" --timeout 90
