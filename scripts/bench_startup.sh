#!/usr/bin/env bash
# What a program costs before it does anything: each nmt program's `--version`, run ROUNDS times in
# turn (the programs alternate, so a busy moment touches all of them), median wall and CPU
# (user + system) milliseconds per start. The model programs load LibTorch; the others do not
# (docs/architecture.md, "Build notes"). With --compare DIR, the same for DIR's programs (an
# older build or an installed tree) in the same rounds, for a before/after.
#
# Usage: scripts/bench_startup.sh [--bin DIR] [--compare DIR] [--rounds N]
#   defaults: build/apps, no comparison, 20 rounds. Run it on an idle machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/apps compare="" rounds=20
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin) bin=$(realpath -m "$2"); shift 2 ;;
    --compare) compare=$(realpath -m "$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "bench_startup.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench_startup.sh: --rounds must be a positive integer, got '$rounds'" >&2; exit 2; }
programs=(nmt-tokenizer nmt-corpus nmt-corpus-stats nmt-score nmt-plot nmt-train nmt-translate nmt-checkpoint nmt-serve)
dirs=("$bin")
[[ -n $compare ]] && dirs+=("$compare")
for dir in "${dirs[@]}"; do
  for program in "${programs[@]}"; do
    [[ -x $dir/$program ]] || { echo "bench_startup.sh: $dir/$program is missing" >&2; exit 1; }
  done
done

python3 - "$rounds" "${programs[*]}" "${dirs[@]}" <<'PY'
import os, statistics, subprocess, sys, time
rounds, programs, dirs = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3:]
samples = {}  # (dir, program) -> [(wall, cpu)]
for _ in range(rounds):
    for d in dirs:
        for program in programs:
            begin = time.perf_counter()
            child = subprocess.Popen([os.path.join(d, program), "--version"], stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)  # the child's own CPU time, to the microsecond
            wall = time.perf_counter() - begin
            if status != 0:
                sys.exit(f"bench_startup.sh: {d}/{program} --version failed (status {status})")
            samples.setdefault((d, program), []).append((wall, usage.ru_utime + usage.ru_stime))
print("| program | " + " | ".join(f"wall ms ({d}) | CPU ms ({d})" for d in dirs) + " |")
print("| --- |" + " ---: | ---: |" * len(dirs))
for program in programs:
    cells = []
    for d in dirs:
        runs = samples[(d, program)]
        cells.append(f"{1000 * statistics.median(w for w, _ in runs):.1f} | {1000 * statistics.median(c for _, c in runs):.1f}")
    print(f"| {program} | " + " | ".join(cells) + " |")
PY
