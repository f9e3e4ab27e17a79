#!/usr/bin/env bash
# CLI tests of nmt-serve as users start and stop it: help, option and start-up errors (one line,
# non-zero exit), a --config file, and SIGTERM / SIGINT with a request in flight (answered, then
# exit 0). Requests go through Debian's /usr/bin/python3 (urllib). Trains a small model (~10 s).
# Usage: serve_cli_test.sh BIN_DIR DATA_DIR
set -uo pipefail
bin=$1 data=$2
source "$(dirname "$0")/cli_lib.sh"
serve=$bin/nmt-serve
python=/usr/bin/python3

"$bin/nmt-train" --run-dir "$work/run" --device cpu --data.train-source "$data/toy.es" \
  --data.train-target "$data/toy.en" --data.dev-source "$data/toy.es" --data.dev-target "$data/toy.en" \
  --data.source-spm "$work/spm.model" --data.vocab-size 300 --model.embedding-size 32 \
  --model.encoder-hidden-size 32 --model.decoder-hidden-size 32 --model.attention-size 32 \
  --train.max-steps 40 --train.max-tokens 600 --optim.lr 0.005 --valid.every 0 \
  >/dev/null 2>"$work/train.err" || { echo "training the test model failed: $(tail -n 2 "$work/train.err")"; exit 1; }
model=$work/run/best.pt

expect 0 "" -- "$serve" --help
grep -q -- "--batch-wait-ms" "$work/out" && grep -q -- "--api-keys" "$work/out" && pass || fail "--help lacks options"
expect_error 2 "port.*0x10.*not a decimal integer" -- "$serve" -m "$model" --port 0x10
expect_error 1 "port must be in \[0, 65535\]" -- "$serve" -m "$model" --port 70000
expect_error 1 "max-alternatives" -- "$serve" -m "$model" --max-alternatives 16
expect_error 1 "absent.pt" -- "$serve" -m "$work/absent.pt" --port 0
expect_error 1 "api-keys: .*keys.txt" -- "$serve" -m "$model" --port 0 --api-keys "$work/keys.txt"
: >"$work/keys.txt"
expect_error 1 "api-keys: .*has no keys" -- "$serve" -m "$model" --port 0 --api-keys "$work/keys.txt"
expect_error 1 "cannot listen on 203.0.113.9:5000" -- "$serve" -m "$model" --host 203.0.113.9

# start_server LOG ARGS...: starts nmt-serve in the background ($server_pid) and waits for its port
# ($port) in the log; returns 1 if it does not come up within 30 s.
start_server() {
  local log=$1; shift
  "$serve" -m "$model" "$@" 2>"$log" &
  server_pid=$!
  port=""
  for _ in $(seq 300); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log")
    [[ -n $port ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
# request PATH [JSON]: prints "STATUS BODY" (GET without JSON, POST with).
request() {
  "$python" - "$port" "$1" "${2:-}" <<'EOF'
import sys, urllib.request, urllib.error
port, path, body = sys.argv[1], sys.argv[2], sys.argv[3]
req = urllib.request.Request("http://127.0.0.1:%s%s" % (port, path), data=body.encode() if body else None,
                             headers={"Content-Type": "application/json"})
try:
    with urllib.request.urlopen(req, timeout=60) as r:
        print(r.status, r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode())
EOF
}

if [[ ! -x $python ]]; then
  echo "SKIP (the rest): no $python"
  finish
  exit
fi

# A config file sets options as the command line does; the port in use is refused, one line.
printf 'port = 0\nbeam-size = 3\nmax-beam = 6\nsource-language = "es"\ntarget-language = "en"\n' >"$work/serve.toml"
if start_server "$work/serve.log" --config "$work/serve.toml" --batch-wait-ms 3000 --batch-wait-always; then
  pass
  [[ $(request /v1/model) == *'"beam":3'* && $(request /languages) == *'"code":"es"'* ]] && pass ||
    fail "--config: $(request /v1/model | head -c 300)"
  expect_error 1 "cannot listen on 127.0.0.1:$port" -- "$serve" -m "$model" --port "$port"
  # SIGTERM with a request in flight: it is answered, then the server exits 0.
  request /v1/translate '{"text": "Y dijo Dios: Sea la luz."}' >"$work/in_flight.out" &
  client=$!
  for _ in $(seq 100); do  # until the server holds it (it waits --batch-wait-ms for company)
    request /metrics | grep -q '^nmt_serve_queue_sentences 1$' && break
    sleep 0.05
  done
  kill -TERM "$server_pid"
  wait "$client"
  [[ $(cut -d' ' -f1 "$work/in_flight.out") == 200 ]] && pass || fail "request in flight at SIGTERM: $(cat "$work/in_flight.out")"
  wait "$server_pid"
  status=$?
  [[ $status -eq 0 ]] && pass || fail "SIGTERM: exit status $status: $(tail -n 2 "$work/serve.log")"
  grep -q "nmt-serve stopped" "$work/serve.log" && pass || fail "SIGTERM: no 'stopped' in the log"
else
  fail "nmt-serve did not start: $(tail -n 2 "$work/serve.log")"
fi

# SIGINT (Ctrl-C) the same; an answered request is in the access log.
if start_server "$work/serve2.log" --port 0; then
  [[ $(request /health) == '200 {"status":"ok"}' ]] && pass || fail "/health: $(request /health)"
  kill -INT "$server_pid"
  wait "$server_pid"
  status=$?
  [[ $status -eq 0 ]] && pass || fail "SIGINT: exit status $status"
  grep -q '"GET /health" 200' "$work/serve2.log" && pass || fail "no access log line for GET /health"
else
  fail "nmt-serve did not start: $(tail -n 2 "$work/serve2.log")"
fi
finish
