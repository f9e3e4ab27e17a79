#!/usr/bin/env bash
# Training throughput of the reference configuration, C++ (build/bench/bench_train) against the same
# model, initial weights, batches and update rule in PyTorch (scripts/reference/train_reference.py),
# one after the other in one invocation, then a comparison: per-step losses side by side with their
# largest difference, the median target tokens/s of each side and their ratio (C++ / Python).
# Dropout is 0 on both sides, so the loss curves must agree to floating-point noise; the script
# exits 1 when they differ by more than --tolerance. Results go to docs/benchmarks.md.
#
# Usage: scripts/bench_train.sh [--steps N] [--warmup K] [--max-tokens T] [--seed S]
#                               [--data-dir DIR] [--out DIR] [--tolerance X] [--profile]
#   --steps N       optimizer steps on the first N batches of epoch 0 (default 30)
#   --warmup K      leading steps excluded from the timing, not from the loss curve (default 2)
#   --max-tokens T  batch budget, padding included (default 2000, as configs/bible-es-en-bahdanau.toml)
#   --seed S        initial weights and batch order (default 1)
#   --data-dir DIR  the Bible corpus with train.es, train.en, spm.model (default data/bible; the
#                   corpus from scripts/quickstart.sh, spm.model the reference model's 8000 pieces)
#   --out DIR       keep the checkpoint, batches and per-step TSVs here (default: a temporary
#                   directory, removed at the end)
#   --tolerance X   largest allowed |loss difference| per step (default 1e-4)
#   --profile       also print each side's step sections and operator profile
#   --device D      cpu (default), cuda or cuda:N, for both sides
#   --build-dir B   the build with bench/bench_train (default build)
# Needs build/bench/bench_train (cmake --build build) and /usr/bin/python3 with PyTorch
# (Debian's python3-torch; another interpreter: BENCH_PYTHON=/path/to/python3 scripts/bench_train.sh).
# Both sides use one intra-op thread (see /work/shared/PLATFORM.md);
# run it on an otherwise idle machine: the two sides run one after the other, not side by side.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
steps=30 warmup=2 max_tokens=2000 seed=1 data=$root/data/bible out="" tolerance=1e-4 profile=() device=cpu build=$root/build
while [[ $# -gt 0 ]]; do
  case $1 in
    --steps) steps=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --max-tokens) max_tokens=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --data-dir) data=$(realpath -m "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --tolerance) tolerance=$2; shift 2 ;;
    --profile) profile=(--profile); shift ;;
    --device) device=$2; shift 2 ;;
    --build-dir) build=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "bench_train.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

fail() { echo "bench_train.sh: $*" >&2; exit 1; }
python=${BENCH_PYTHON:-/usr/bin/python3}  # the interpreter with PyTorch (the first python3 on PATH has none)
bench=$build/bench/bench_train
for f in train.es train.en spm.model; do
  [[ -f $data/$f ]] || fail "missing $data/$f: build the corpus (scripts/quickstart.sh) and the reference subword model (build/apps/nmt-tokenizer train -i $data/train.es -i $data/train.en -m $data/spm.model --vocab-size 8000), or pass --data-dir"
done
[[ -x $python ]] || fail "missing $python (the benchmark's Python side needs Debian's python3 with python3-torch)"
torch_version=$("$python" -c 'import torch; print(torch.__version__)' 2>/dev/null) ||
  fail "$python cannot import torch: install python3-torch (apt-get install python3-torch)"
[[ -x $bench ]] || fail "missing $bench: build the project first (cmake --build build)"

if [[ -z $out ]]; then
  out=$(mktemp -d -t bench_train.XXXXXX)
  trap 'rm -rf "$out"' EXIT
else
  mkdir -p "$out"
fi

echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "== C++: build/bench/bench_train ($steps steps, $warmup warm-up, $max_tokens-token batches, seed $seed)"
"$bench" "$data/train.es" "$data/train.en" "$data/spm.model" --steps "$steps" --warmup "$warmup" \
  --max-tokens "$max_tokens" --seed "$seed" --checkpoint "$out/initial.pt" --batches "$out/batches.pt" \
  --results "$out/cpp.tsv" --device "$device" "${profile[@]}"
echo
echo "== Python: scripts/reference/train_reference.py (torch $torch_version, same weights and batches)"
"$python" "$root/scripts/reference/train_reference.py" "$out/initial.pt" "$out/batches.pt" --steps "$steps" \
  --warmup "$warmup" --results "$out/python.tsv" --device "$device" "${profile[@]}"
echo
echo "== comparison (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
"$python" - "$out/cpp.tsv" "$out/python.tsv" "$tolerance" <<'EOF'
import csv, statistics, sys

def read(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))

cpp, py, tolerance = read(sys.argv[1]), read(sys.argv[2]), float(sys.argv[3])
if len(cpp) != len(py):
    sys.exit(f"the two sides trained {len(cpp)} and {len(py)} steps")
print(f"{'step':>4} {'tokens':>6} {'C++ loss':>11} {'Python loss':>11} {'|diff|':>9} {'C++ ms':>8} {'Python ms':>9}")
worst_loss = worst_norm = 0.0
for c, p in zip(cpp, py):
    if c["tokens"] != p["tokens"]:
        sys.exit(f"step {c['step']}: {c['tokens']} target tokens in C++, {p['tokens']} in Python: not the same batch")
    diff = abs(float(c["loss"]) - float(p["loss"]))
    worst_loss = max(worst_loss, diff)
    worst_norm = max(worst_norm, abs(float(c["grad_norm"]) - float(p["grad_norm"])))
    note = "  (warm-up)" if c["warmup"] == "1" else ""
    print(f"{c['step']:>4} {c['tokens']:>6} {float(c['loss']):11.7f} {float(p['loss']):11.7f} {diff:9.2e} "
          f"{1000 * float(c['seconds']):8.1f} {1000 * float(p['seconds']):9.1f}{note}")

def rate(rows):
    timed = [r for r in rows if r["warmup"] == "0"]
    return (statistics.median(int(r["tokens"]) / float(r["seconds"]) for r in timed),
            sum(int(r["tokens"]) for r in timed) / sum(float(r["seconds"]) for r in timed), len(timed))

(cm, ct, n), (pm, pt, _) = rate(cpp), rate(py)
print(f"max |loss difference| {worst_loss:.3g} over {len(cpp)} steps; max |grad norm difference| {worst_norm:.3g}")
print(f"target tokens/s, median of {n} timed steps: C++ {cm:.0f}, Python {pm:.0f}; "
      f"ratio C++/Python {cm / pm:.3f} (overall: {ct:.0f} vs {pt:.0f}, {ct / pt:.3f})")
if worst_loss > tolerance:
    sys.exit(f"loss curves differ by {worst_loss:.3g} > tolerance {tolerance:g}: not the same training")
EOF
