#!/usr/bin/env bash
# Load benchmark of nmt-serve: throughput and latency over HTTP at several numbers of concurrent
# clients, against nmt-translate's Translator on the same sentences (build/bench/bench_translate,
# model load and tokenizer set-up not timed). Prints Markdown tables for docs/benchmarks.md, the
# commands it ran and the machine; then the issue's two targets, PASS or FAIL.
#
# Usage: scripts/bench_serve.sh [--model PT] [--source FILE] [--duration S] [--clients "1 4 16"]
#                               [--beam K] [--latency-sample M] [--warmup W] [--out DIR]
#                               [--port-wait S] [--client-timeout S] [--server-args "ARGS"]
#   --model PT           checkpoint (default runs/bible-es-en/best.pt, the reference run)
#   --source FILE        sentences (default data/bible/test.es); its non-empty lines, cut into
#                        sentences as the server cuts them, are what the clients send
#   --duration S         seconds each concurrency level sends requests (default 30)
#   --clients "N ..."    the concurrency levels, one run each (default "1 4 16")
#   --beam K             beam size, server and baselines (default 5)
#   --latency-sample M   requests of the single-client latency test (default 200)
#   --warmup W           unmeasured requests before it (default 20)
#   --out DIR            keep raw results here (default: a temporary directory, removed at the end)
#   --port-wait S        how long the server may take to load and answer /health (default 300)
#   --client-timeout S   a request without an answer after S seconds is lost (default 120)
#   --server-args "..."  more nmt-serve options, e.g. "--search-workers 1 --batch-wait-ms 2"
#                        (--http-threads defaults to max(32, largest N + 4))
# Needs build/apps/nmt-serve and build/bench/bench_translate (cmake --build build) and python3
# (standard library only; another interpreter: BENCH_PYTHON=/path/to/python3).
# Exits 1 when a request was lost (no answer within --client-timeout, or a connection error) or got
# a status other than 200 and 503, or when the server does not exit 0 within 30 s of SIGTERM; the
# two targets print PASS or FAIL without changing the exit status. Run it on an otherwise idle
# machine: the load generator shares the CPU with the server (its CPU seconds are printed).
#
# What it does, in order:
#  1. Starts `nmt-serve -m PT --port 0 -b K`, reads the port from its log ("listening on
#     http://HOST:PORT/"), waits for GET /health to answer 200. Cuts the source into the server's
#     sentences (bench_serve_client.py split: one cheap request per 32 lines, greedy, one target
#     subword, keeping each answer's sentences[].source), so that every benchmark request holds
#     exactly one sentence, as the issue asks, and the baselines translate exactly those sentences.
#  2. Single-client latency: W warm-up requests, then M requests in turn (one client, sentences
#     evenly spaced through the file). /metrics before and after gives the server's own search
#     time of those requests (nmt_serve_batch_duration_seconds sum / count: the Translator's work on
#     a batch, tokenization included; every batch holds one sentence here, which is checked).
#  3. For each N of --clients: N client threads, one keep-alive connection each, for S seconds,
#     each cycling through the sentences from its own offset. Per request: status and latency.
#  4. SIGTERM to the server; it must exit 0 within 30 s (a trap kills it on any early exit).
#  5. Baselines with bench_translate, the server stopped:
#     a. all the source's sentences as one file, one worker per core as nmt-translate;
#     b. the sentences answered 200 in the run that the throughput target uses (N = 16 when it is
#        in --clients, else the largest N), as one file: "the same sentences as one file";
#     c. the latency sample with --batch-tokens 1 --workers 1: every sentence is a batch of its
#        own, searched one after another in one process with the model loaded once, which is what
#        nmt-translate does with a one-line file minus the model load. bench_translate prints only
#        the total, so "translating the sentence alone" is a mean over the M sentences, and the
#        latency target compares the mean client latency with it (same sentences, so the means
#        are a paired comparison; loading the model M times to get a per-sentence median would
#        time the load, not the search). The median client latency is printed beside the mean.
# Targets (from the issue): sentences/s with 16 clients >= 80 % of baseline b; single-client mean
# latency <= 110 % of baseline c. The overhead is also given against the server's own search time
# (step 2), which separates HTTP + JSON + queueing (incl. --batch-wait-ms) from the search.
# Latency percentiles are nearest-rank, over the requests answered 200 (503s are rejections, not
# translations, and are counted apart). The server's peak RSS is VmHWM from /proc/PID/status after
# each run: cumulative over the server's life (load, split, earlier runs included).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
invocation="scripts/bench_serve.sh $*"
model=$root/runs/bible-es-en/best.pt source=$root/data/bible/test.es duration=30 clients="1 4 16" beam=5
sample=200 warmup=20 out="" port_wait=300 client_timeout=120 server_args=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --model) model=$(realpath -m "$2"); shift 2 ;;
    --source) source=$(realpath -m "$2"); shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --beam) beam=$2; shift 2 ;;
    --latency-sample) sample=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --port-wait) port_wait=$2; shift 2 ;;
    --client-timeout) client_timeout=$2; shift 2 ;;
    --server-args) server_args=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "bench_serve.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

fail() { echo "bench_serve.sh: $*" >&2; exit 1; }
python=${BENCH_PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
[[ -n $python ]] || fail "no python3 (set BENCH_PYTHON)"
client=$root/scripts/bench_serve_client.py
serve=$root/build/apps/nmt-serve bench=$root/build/bench/bench_translate
for f in "$model" "$source" "$client"; do [[ -f $f ]] || fail "missing $f (see --help)"; done
for p in "$serve" "$bench"; do [[ -x $p ]] || fail "missing $p: build the project first (cmake --build build)"; done
if ! [[ $duration =~ ^[0-9]+([.][0-9]+)?$ ]] || ! awk -v d="$duration" 'BEGIN { exit !(d > 0) }'; then
  fail "--duration must be a positive number of seconds, got '$duration'"
fi
[[ $beam =~ ^[1-9][0-9]*$ ]] || fail "--beam must be a positive number, got '$beam'"
[[ $sample =~ ^[1-9][0-9]*$ ]] || fail "--latency-sample must be a positive number, got '$sample'"
[[ $warmup =~ ^[0-9]+$ ]] || fail "--warmup must be a number, got '$warmup'"
[[ $port_wait =~ ^[1-9][0-9]*$ ]] || fail "--port-wait must be a positive number of seconds, got '$port_wait'"
[[ $client_timeout =~ ^[0-9]+([.][0-9]+)?$ ]] || fail "--client-timeout must be a number, got '$client_timeout'"
read -r -a levels <<<"$clients"
[[ ${#levels[@]} -gt 0 ]] || fail "--clients is empty"
max_clients=0
for n in "${levels[@]}"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || fail "--clients: want positive numbers, got '$n'"
  if ((n > max_clients)); then max_clients=$n; fi
done
target_n=$max_clients  # the run the throughput target uses: 16 clients, else the most
if [[ " ${levels[*]} " == *" 16 "* ]]; then target_n=16; fi
read -r -a extra <<<"$server_args"

server_pid=""
cleanup() {
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  [[ -n ${tmp_out:-} ]] && rm -rf "$tmp_out"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [[ -z $out ]]; then
  out=$(mktemp -d -t bench_serve.XXXXXX)
  tmp_out=$out
else
  mkdir -p "$out"
fi

commands=()  # what the report shows: the commands that measured something
logged() { commands+=("$*"); }
value() { awk -v k="$2" '$1 == k { print $2; found = 1 } END { exit !found }' "$1"; }
mib() { awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$server_pid/status"; }
bench_rate() { awk '{ for (i = 2; i <= NF; ++i) if ($i ~ /^sentences\/s/) { print $(i - 1); exit } } END { if (!NR) print "nan" }' <<<"$1"; }
bench_seconds() { awk '{ for (i = 1; i < NF; ++i) if ($i == "in" && $(i + 2) == "s") { print $(i + 1); exit } }' <<<"$1"; }

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
load_before=$(cut -d' ' -f1-3 /proc/loadavg) started=$(date -u '+%Y-%m-%d %H:%M UTC')
echo "== machine: $(nproc) cores, $cpu; load average $load_before; $started"
echo "== checkpoint $model, source $source, beam $beam, $duration s per level, clients: ${levels[*]}"

# 1. Server up; the source cut into the server's sentences.
server_cmd=("$serve" -m "$model" --port 0 -b "$beam")
[[ " ${extra[*]} " == *" --http-threads"* ]] || server_cmd+=(--http-threads "$((max_clients + 4 > 32 ? max_clients + 4 : 32))")
server_cmd+=("${extra[@]}")
commands+=("${server_cmd[*]} 2>$out/server.log &")
"${server_cmd[@]}" 2>"$out/server.log" &
server_pid=$!
url=""
for _ in $(seq $((port_wait * 5))); do
  url=$(grep -oE 'listening on http://[^ ]+/' "$out/server.log" | head -n 1 | cut -d' ' -f3 || true)
  [[ -n $url ]] && break
  kill -0 "$server_pid" 2>/dev/null || { tail -n 20 "$out/server.log" >&2; fail "nmt-serve ended before listening"; }
  sleep 0.2
done
[[ -n $url ]] || { tail -n 20 "$out/server.log" >&2; fail "nmt-serve did not log its address within $port_wait s"; }
"$python" "$client" wait "$url" --timeout "$port_wait" --pid "$server_pid"
echo "== nmt-serve pid $server_pid at $url; after load: VmHWM $(mib) MiB"
"$python" "$client" metrics "$url" >"$out/metrics.start"
workers=$(value "$out/metrics.start" search_workers | cut -d. -f1)
logged "$python" "$client" split "$url" "$source" "$out/sentences.txt"
split=$("$python" "$client" split "$url" "$source" "$out/sentences.txt")
echo "== source: $split (the server's sentence splitter); $workers search workers"

server_alive() {
  kill -0 "$server_pid" 2>/dev/null && return 0
  tail -n 20 "$out/server.log" >&2
  wait "$server_pid" || echo "nmt-serve exited with status $?" >&2
  server_pid=""
  fail "nmt-serve ended $1 (its log: server.log in the --out directory)"
}
lost_total=0
check_summary() {  # summary file, label: count what must never happen
  local lost other
  lost=$(value "$1" lost) other=$(value "$1" other)
  if ((lost + other > 0)); then
    echo "!! $2: $lost lost, $other answered neither 200 nor 503:" >&2
    grep '^error ' "$1" >&2 || true
    lost_total=$((lost_total + lost + other))
  fi
  if [[ $(value "$1" multi_sentence) != 0 ]]; then
    echo "!! $2: $(value "$1" multi_sentence) answers held more than one sentence" >&2
  fi
}

# 2. Single-client latency.
if ((warmup > 0)); then
  "$python" "$client" load "$url" "$out/sentences.txt" --sample "$warmup" --timeout "$client_timeout" \
    --summary "$out/warmup.summary"
  check_summary "$out/warmup.summary" "warm-up"
fi
"$python" "$client" metrics "$url" >"$out/metrics.before_latency"
latency_cmd=("$python" "$client" load "$url" "$out/sentences.txt" --sample "$sample" --timeout "$client_timeout"
  --raw "$out/latency.tsv" --sent "$out/latency.sent.txt" --summary "$out/latency.summary")
logged "${latency_cmd[@]}"
"${latency_cmd[@]}"
server_alive "during the single-client latency test"
"$python" "$client" metrics "$url" >"$out/metrics.after_latency"
check_summary "$out/latency.summary" "single-client latency"
delta() { awk -v a="$(value "$1" "$3")" -v b="$(value "$2" "$3")" 'BEGIN { print b - a }'; }
lat_batches=$(delta "$out/metrics.before_latency" "$out/metrics.after_latency" batch_count)
lat_batch_s=$(delta "$out/metrics.before_latency" "$out/metrics.after_latency" batch_seconds)
lat_ones=$(delta "$out/metrics.before_latency" "$out/metrics.after_latency" batches_of_1)
[[ $lat_batches == "$lat_ones" ]] || echo "!! single-client latency: $lat_ones of $lat_batches batches held one sentence" >&2

# 3. Concurrency levels.
declare -A row_batch_sentences row_hwm
for n in "${levels[@]}"; do
  "$python" "$client" metrics "$url" >"$out/metrics.before.$n"
  load_cmd=("$python" "$client" load "$url" "$out/sentences.txt" --clients "$n" --duration "$duration"
    --timeout "$client_timeout" --raw "$out/clients$n.tsv" --sent "$out/clients$n.sent.txt"
    --summary "$out/clients$n.summary")
  logged "${load_cmd[@]}"
  "${load_cmd[@]}"
  server_alive "during the run with $n clients"
  "$python" "$client" metrics "$url" >"$out/metrics.after.$n"
  check_summary "$out/clients$n.summary" "$n clients"
  b=$(delta "$out/metrics.before.$n" "$out/metrics.after.$n" batch_count)
  s=$(delta "$out/metrics.before.$n" "$out/metrics.after.$n" batch_sentences)
  row_batch_sentences[$n]=$(awk -v s="$s" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", s / b; else print "-" }')
  row_hwm[$n]=$(mib)
  echo "   $n clients: $(value "$out/clients$n.summary" ok) answered 200 in $(value "$out/clients$n.summary" elapsed_s) s"
done

# 4. SIGTERM; exit 0 within 30 s.
final_hwm=$(mib)
kill -TERM "$server_pid"
term_at=$(date +%s.%N) stopped=""
while awk -v t="$term_at" -v now="$(date +%s.%N)" 'BEGIN { exit !(now - t < 30) }'; do
  kill -0 "$server_pid" 2>/dev/null || { stopped=1; break; }
  sleep 0.1
done
server_rc=0
if [[ -n $stopped ]]; then
  wait "$server_pid" || server_rc=$?
  server_pid=""
  echo "== nmt-serve exited with status $server_rc $(awk -v t="$term_at" -v now="$(date +%s.%N)" 'BEGIN { printf "%.1f", now - t }') s after SIGTERM"
else
  echo "!! nmt-serve still running 30 s after SIGTERM: killed" >&2
  kill -KILL "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid="" server_rc="none (killed)"
fi

# 5. Baselines, the server stopped.
bench_all=("$bench" "$model" "$out/sentences.txt" --beam "$beam")
bench_same=("$bench" "$model" "$out/clients$target_n.sent.txt" --beam "$beam")
bench_alone=("$bench" "$model" "$out/latency.sent.txt" --beam "$beam" --batch-tokens 1 --workers 1)
logged "${bench_all[@]}"
logged "${bench_same[@]}"
logged "${bench_alone[@]}"
# bench_translate on a file of no lines (nothing answered 200) would print 0 sentences/s: skip it.
baseline() { if [[ -s $3 ]]; then "$@"; else echo "bench_translate not run (no sentences) in nan s: nan sentences/s"; fi; }
base_all=$(baseline "${bench_all[@]}")
echo "$base_all"
base_same=$(baseline "${bench_same[@]}")
echo "$base_same"
base_alone=$(baseline "${bench_alone[@]}")
echo "$base_alone"

# Report.
f2() { awk -v x="$1" 'BEGIN { printf "%.2f", x }'; }
f1() { awk -v x="$1" 'BEGIN { printf "%.1f", x }'; }
echo
echo "## nmt-serve under load ($(date -u '+%Y-%m-%d'))"
echo
echo '```sh'
echo "$invocation    # ran these (OUT: its --out directory):"
for c in "${commands[@]}"; do c=${c//$out\//OUT/}; echo "${c//$root\//}"; done
echo '```'
echo
echo "Machine: \`nproc\` $(nproc), $cpu; load average $load_before at the start ($started). Checkpoint"
echo "\`${model//$root\//}\`, beam $beam, $workers search workers; source \`${source//$root\//}\`: $split."
echo "One sentence per request (POST /v1/translate {\"text\": ...}), one keep-alive connection per client,"
echo "$duration s per level. Latencies over the answers with status 200; peak RSS is the server's VmHWM"
echo "after the level (cumulative)."
echo
echo "| clients | requests | 200 | 503 | lost / other | requests/s | sentences/s | p50 ms | p95 ms | p99 ms | sentences per batch | server peak RSS MiB |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for n in "${levels[@]}"; do
  sm=$out/clients$n.summary
  echo "| $n | $(value "$sm" requests) | $(value "$sm" ok) | $(value "$sm" s503) | $(value "$sm" lost) / $(value "$sm" other) |" \
    "$(f1 "$(value "$sm" requests_per_s)") | $(f1 "$(value "$sm" sentences_per_s)") | $(f1 "$(value "$sm" p50_ms)") |" \
    "$(f1 "$(value "$sm" p95_ms)") | $(f1 "$(value "$sm" p99_ms)") | ${row_batch_sentences[$n]} | ${row_hwm[$n]} |"
done
echo
rate_all=$(bench_rate "$base_all") rate_same=$(bench_rate "$base_same")
echo "| nmt-translate's Translator (bench_translate, no model load) | sentences | seconds | sentences/s |"
echo "| --- | ---: | ---: | ---: |"
echo "| all the source's sentences as one file | $(wc -l <"$out/sentences.txt") | $(bench_seconds "$base_all") | $rate_all |"
echo "| the sentences answered 200 with $target_n clients, as one file | $(wc -l <"$out/clients$target_n.sent.txt") | $(bench_seconds "$base_same") | $rate_same |"
echo
lat_n=$(value "$out/latency.summary" ok)
lat_mean=$(value "$out/latency.summary" mean_ms) lat_median=$(value "$out/latency.summary" p50_ms)
search_mean=$(awk -v s="$lat_batch_s" -v b="$lat_batches" 'BEGIN { printf "%.3f", (b > 0 ? s / b * 1000 : 0) }')
alone_mean=$(awk -v s="$(bench_seconds "$base_alone")" -v n="$lat_n" 'BEGIN { printf "%.3f", s / n * 1000 }')
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f %%", (a / b - 1) * 100 }'; }
echo "Single client, $lat_n requests in turn (one sentence each, evenly spaced through the file, after $warmup warm-up requests):"
echo
echo "| | mean ms | median ms |"
echo "| --- | ---: | ---: |"
echo "| client latency (POST to the end of the answer) | $(f2 "$lat_mean") | $(f2 "$lat_median") |"
echo "| server's search per batch of 1 (/metrics nmt_serve_batch_duration_seconds, $lat_batches batches) | $(f2 "$search_mean") | |"
echo "| the sentence translated alone in-process (bench_translate --batch-tokens 1 --workers 1) | $(f2 "$alone_mean") | |"
echo
echo "Overhead of the client latency: $(f2 "$(awk -v a="$lat_mean" -v b="$search_mean" 'BEGIN { print a - b }')") ms" \
  "($(pct "$lat_mean" "$search_mean")) over the server's own search, $(f2 "$(awk -v a="$lat_mean" -v b="$alone_mean" 'BEGIN { print a - b }')") ms" \
  "($(pct "$lat_mean" "$alone_mean")) over translating alone."
echo "Load generator CPU: $(for n in "${levels[@]}"; do printf '%s s with %s clients; ' "$(f1 "$(value "$out/clients$n.summary" client_cpu_s)")" "$n"; done)server peak RSS at the end $final_hwm MiB."
echo
sps=$(value "$out/clients$target_n.summary" sentences_per_s)
throughput_ratio=$(awk -v a="$sps" -v b="$rate_same" 'BEGIN { printf "%.1f", a / b * 100 }')
latency_ratio=$(awk -v a="$lat_mean" -v b="$alone_mean" 'BEGIN { printf "%.1f", a / b * 100 }')
verdict() {
  awk -v r="$1" -v op="$2" -v t="$3" 'BEGIN {
    if (r !~ /^[0-9]+([.][0-9]+)?$/) { print "FAIL (nothing to compare)"; exit }
    ok = op == ">=" ? r + 0 >= t + 0 : r + 0 <= t + 0; print ok ? "PASS" : "FAIL" }'
}
[[ $target_n == 16 ]] || echo "(16 is not among --clients: the throughput target uses $target_n clients)"
echo "target: $target_n clients, sentences/s >= 80 % of the same sentences as one file: $(f1 "$sps") / $rate_same = $throughput_ratio % -> $(verdict "$throughput_ratio" ">=" 80)"
echo "target: 1 client, latency <= 110 % of translating the sentence alone (means): $(f2 "$lat_mean") / $(f2 "$alone_mean") ms = $latency_ratio % -> $(verdict "$latency_ratio" "<=" 110)"
echo "lost: $lost_total"
[[ $server_rc == 0 ]] || fail "nmt-serve did not exit 0 within 30 s of SIGTERM (status $server_rc)"
((lost_total == 0)) || fail "$lost_total requests lost or answered neither 200 nor 503 (raw results: --out DIR)"
[[ -n ${tmp_out:-} ]] || echo "raw results in $out"
