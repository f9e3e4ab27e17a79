#!/usr/bin/env bash
# Data-parallel training throughput on this machine: nmt-train with the reference configuration
# (configs/bible-es-en-bahdanau.toml, dropout and all) as one process and as a group of ranks (the
# gradient sum overlapped with backward, the default, and after it: --dist.overlap false), alternating
# in one sitting, then the same single-process settings with one other busy process on the machine
# (the load experiment of docs/distributed.md, "Threads"). The single process accumulates as many
# batches per step as the group has ranks, so every column trains on the same batches with the same
# updates (the plan depends on the batches per step: BatchingOptions::step_batches) and only the
# speed differs. Throughput is target tokens per second between batch --warmup and the last batch,
# read from each run's metrics.jsonl (start-up and the final validation are not counted). Results
# go to docs/benchmarks.md.
#
# Usage: scripts/bench_dist.sh [--batches N] [--warmup K] [--rounds R] [--ranks W] [--no-load] [--out DIR]
#   --batches N  batches each run trains on, in N/W steps of W batches (default 96)
#   --warmup K   leading batches not timed (default 16)
#   --rounds R   rounds of the idle comparison (default 3)
#   --ranks W    ranks of the group, one thread and one BLAS thread each (default: the cores, nproc)
#   --no-load    skip the load experiment
#   --out DIR    keep the runs here (default: a temporary directory, removed at the end)
# Needs build/apps/nmt-train and the corpus with its subword model (scripts/quickstart.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
batches=96 warmup=16 rounds=3 ranks=$(nproc) load=1 out=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --batches) batches=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --no-load) load=0; shift ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "bench_dist.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
fail() { echo "bench_dist.sh: $*" >&2; exit 1; }
train=$root/build/apps/nmt-train
data=$root/data/bible
[[ -x $train ]] || fail "missing $train: build the project first (cmake --build build)"
for f in train.es train.en dev.es dev.en spm.model; do
  [[ -f $data/$f ]] || fail "missing $data/$f: build the corpus and its subword model (scripts/quickstart.sh)"
done
(( batches % ranks == 0 && warmup % ranks == 0 && warmup < batches )) ||
  fail "--batches and --warmup must be multiples of --ranks ($ranks), warmup < batches"
if [[ -z $out ]]; then
  out=$(mktemp -d -t bench_dist.XXXXXX)
  trap 'rm -rf "$out"; [[ -n ${spinner:-} ]] && kill "$spinner" 2>/dev/null; true' EXIT
else
  mkdir -p "$out"
fi
head -n 1 "$data/dev.es" >"$out/dev.es"  # the run's closing validation: one sentence, not timed anyway
head -n 1 "$data/dev.en" >"$out/dev.en"

# run NAME STEPS [OPTIONS...]: one training run; prints target tokens/s after the warm-up.
run() {
  local name=$1 steps=$2 first_timed=$3
  shift 3
  rm -rf "$out/$name"
  "$train" --config "$root/configs/bible-es-en-bahdanau.toml" --run-dir "$out/$name" --data.dev-source "$out/dev.es" \
    --data.dev-target "$out/dev.en" --train.max-steps "$steps" --train.log-every 1 --valid.every 0 \
    --checkpoint.every 0 --log-level warn "$@" 2>"$out/$name.err" || { cat "$out/$name.err" >&2; fail "$name failed"; }
  python3 - "$out/$name/metrics.jsonl" "$first_timed" <<'EOF'
import json, statistics, sys
events = [json.loads(l) for l in open(sys.argv[1]) if '"train"' in l]
start = next(e for e in events if e["step"] == int(sys.argv[2]))
end = events[-1]
rate = f'{(end["target_tokens"] - start["target_tokens"]) / (end["elapsed_s"] - start["elapsed_s"]):.0f}'
timed = [e for e in events if e["step"] > start["step"]]
if "sync_s" in timed[0]:  # a group: rank 0's median time per step waiting for the gradient sum, in ms
    rate += f'/{1000 * statistics.median(e["sync_s"] for e in timed):.0f}ms'
print(rate)
EOF
}

cores=$(nproc)
steps=$((batches / ranks)) warm=$((warmup / ranks))
echo "== machine: $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load average" \
  "$(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "== reference configuration, $batches batches per run ($warmup not timed), target tokens/s"
echo "   (a group: target tokens/s / rank 0's median wait per step for the gradient sum)"
printf '%-6s %22s %22s %22s %22s\n' round "1 process, BLAS $cores" "1 process, BLAS 1" "$ranks ranks, overlapped" \
  "$ranks ranks, sum after"
declare -a a b c d
for ((r = 1; r <= rounds; r++)); do
  a[r]=$(run "default-$r" "$steps" "$warm" --blas-threads "$cores" --train.accumulate "$ranks")
  b[r]=$(run "single-$r" "$steps" "$warm" --blas-threads 1 --train.accumulate "$ranks")
  c[r]=$(run "group-$r" "$steps" "$warm" --dist.nproc-per-node "$ranks" --threads 1 --blas-threads 1)
  d[r]=$(run "serial-$r" "$steps" "$warm" --dist.nproc-per-node "$ranks" --threads 1 --blas-threads 1 \
    --dist.overlap false)
  printf '%-6s %22s %22s %22s %22s\n' "$r" "${a[r]}" "${b[r]}" "${c[r]}" "${d[r]}"
done
python3 - "${a[*]}" "${b[*]}" "${c[*]}" "${d[*]}" <<'EOF'
import statistics, sys
a, b, c, d = ([float(x.split("/")[0]) for x in s.split()] for s in sys.argv[1:5])
ma, mb, mc, md = (statistics.median(x) for x in (a, b, c, d))
print(f"median  {ma:22.0f} {mb:22.0f} {mc:22.0f} {md:22.0f}")
print(f"group / one process with one BLAS thread: {mc / mb:.2f}x (sum after backward: {md / mb:.2f}x);"
      f" group / one process with a BLAS thread per core: {mc / ma:.2f}x")
EOF

if [[ $load -eq 1 ]]; then
  echo "== with one other busy process (a spinning loop on one core): one process, target tokens/s"
  python3 -c 'while True: pass' &
  spinner=$!
  printf '%-6s %22s %22s\n' round "BLAS $cores" "BLAS 1"
  for r in 1 2; do
    x=$(run "load-default-$r" "$steps" "$warm" --blas-threads "$cores" --train.accumulate "$ranks")
    y=$(run "load-single-$r" "$steps" "$warm" --blas-threads 1 --train.accumulate "$ranks")
    printf '%-6s %22s %22s\n' "$r" "$x" "$y"
  done
  kill "$spinner"
  spinner=""
fi
