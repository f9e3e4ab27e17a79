#!/usr/bin/env bash
# Build the libFuzzer targets of tests/fuzz with clang, ASan and UBSan (build-fuzz/) and run each
# for a set time (docs/fuzzing.md). Prints per target the executions, exec/s and libFuzzer's
# coverage (cov: edges, ft: features); new interesting inputs go to a work corpus outside the
# repository; a crash, sanitizer report, leak or timeout is copied to
# tests/fuzz/regressions/TARGET/ (replayed by ctest -L fuzz from then on) and the script exits 1.
# Installs clang and its sanitizer/libFuzzer runtime (Debian: clang, libclang-rt-dev) if missing.
# The build runs under nice -n 10 and takes a while the first time (libnmt with LibTorch headers).
#
# Usage: scripts/fuzz.sh [options] [TARGET...]   (default: every target)
#   --time SECONDS     fuzzing time per target (default: 60)
#   --build-dir DIR    default: build-fuzz
#   --work-dir DIR     work corpora, logs, crash artifacts (default: ~/.cache/nmt-fuzz)
#   --jobs N           compile jobs (default: nproc)
#   --no-build         run what is built
#   --merge-seeds      afterwards add the work corpus's inputs that bring new coverage to the
#                      committed seeds (tests/fuzz/corpus/TARGET), to commit by hand
#   --replay           only replay seeds and regressions through the fuzz build (no fuzzing)
#   --keep-going       go on after a crash (libFuzzer -fork=1 -ignore_crashes=1 ...): every crash
#                      input is kept; for targets that hit third-party crashes (LibTorch). Its
#                      cov/ft numbers are counted differently from the default mode's
# Targets: text tokenizer tokenizer_model config checkpoint score attention
# Extra libFuzzer flags: NMT_FUZZ_FLAGS="-jobs=2 -workers=2" scripts/fuzz.sh ...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$root/build-fuzz
work_dir=${XDG_CACHE_HOME:-$HOME/.cache}/nmt-fuzz
seconds=60
jobs=$(nproc)
build=1
merge_seeds=0
replay=0
keep_going=0
all_targets=(text tokenizer tokenizer_model config checkpoint score attention)
targets=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --time) seconds=$2; shift 2 ;;
    --build-dir) build_dir=$(realpath -m "$2"); shift 2 ;;
    --work-dir) work_dir=$(realpath -m "$2"); shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --merge-seeds) merge_seeds=1; shift ;;
    --replay) replay=1; shift ;;
    --keep-going) keep_going=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/p}' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *)
      [[ " ${all_targets[*]} " == *" $1 "* ]] || { echo "fuzz.sh: unknown target '$1' (${all_targets[*]})" >&2; exit 2; }
      targets+=("$1"); shift ;;
  esac
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --time must be a positive number of seconds, got '$seconds'" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --jobs must be a positive integer, got '$jobs'" >&2; exit 2; }
[[ ${#targets[@]} -gt 0 ]] || targets=("${all_targets[@]}")

say() { printf '== fuzz: %s\n' "$*"; }

# Per target: longest input (bytes) and per-input time limit (seconds). Checkpoint seeds are ~23 KB.
declare -A max_len=([text]=4096 [tokenizer]=1024 [tokenizer_model]=8192 [config]=2048 [checkpoint]=65536 [score]=4096 [attention]=4096)
declare -A timeout=([text]=10 [tokenizer]=10 [tokenizer_model]=10 [config]=10 [checkpoint]=30 [score]=10 [attention]=10)

if [[ $build -eq 1 ]]; then
  # clang with its libFuzzer and sanitizer runtimes (Debian 12: clang-14 + libclang-rt-14-dev; the
  # runtime is in libclang-rt, libfuzzer-*-dev is only needed to link libFuzzer without clang).
  runtime=$(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null || true)
  if ! command -v clang++ >/dev/null || [[ $runtime != /* ]]; then
    command -v apt-get >/dev/null || { echo "fuzz.sh: install clang with its libFuzzer runtime" >&2; exit 1; }
    say "installing clang libclang-rt-dev"
    sudo=()
    if [[ $EUID -ne 0 ]]; then
      command -v sudo >/dev/null || { echo "fuzz.sh: need root (or sudo) to install clang libclang-rt-dev" >&2; exit 1; }
      sudo=(sudo)
    fi
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq clang libclang-rt-dev >/dev/null
  fi
  "$root/scripts/fetch_sentencepiece.sh"
  if [[ ! -f $build_dir/build.ninja ]]; then
    # -O1 with line tables: the usual fuzzing trade-off (fast enough, symbolized stacks); no
    # -DNDEBUG, so assertions count as findings. Only the fuzz targets and what they need are built.
    cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
      -DNMT_BUILD_FUZZERS=ON -DNMT_BUILD_TESTS=OFF -DNMT_BUILD_BENCH=OFF >/dev/null
  fi
  say "building (nice -n 10, $jobs jobs)"
  nice -n 10 cmake --build "$build_dir" --target fuzzers -j "$jobs"
fi

# Reports that name their origin; leaks count (libFuzzer checks them per input).
export ASAN_OPTIONS="${ASAN_OPTIONS:-allocator_may_return_null=0:detect_stack_use_after_return=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:report_error_type=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0}"

summary=()
findings=0
for target in "${targets[@]}"; do
  binary=$build_dir/tests/fuzz/fuzz_$target
  [[ -x $binary ]] || { echo "fuzz.sh: $binary not built (the config target needs NMT_BUILD_APPS)" >&2; exit 1; }
  seeds=$root/tests/fuzz/corpus/$target
  regressions=$root/tests/fuzz/regressions/$target
  corpus=$work_dir/corpus/$target
  artifacts=$work_dir/artifacts/$target
  log=$work_dir/logs/$target.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  inputs=("$corpus" "$seeds")
  [[ -d $regressions ]] && inputs+=("$regressions")
  dict=()
  [[ -f $root/tests/fuzz/$target.dict ]] && dict=("-dict=$root/tests/fuzz/$target.dict")

  if [[ $replay -eq 1 ]]; then
    say "$target: replaying seeds and regressions"
    shopt -s nullglob
    files=("$seeds"/* "$regressions"/*)
    shopt -u nullglob
    status=0
    "$binary" -runs=1 "${files[@]}" >"$log" 2>&1 || status=$?
    if [[ $status -ne 0 ]]; then
      findings=$((findings + 1)); tail -40 "$log" >&2
      summary+=("$(printf '%-16s replay FAILED (log: %s)' "$target" "$log")")
    else
      summary+=("$(printf '%-16s replayed %d inputs' "$target" "${#files[@]}")")
    fi
    continue
  fi

  say "$target: ${seconds}s (max_len ${max_len[$target]}, timeout ${timeout[$target]}s); log: $log"
  # This run's findings only (earlier ones were copied to tests/fuzz/regressions/ when found).
  rm -f "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-* "$artifacts"/slow-unit-*
  status=0
  mode=()
  [[ $keep_going -eq 1 ]] && mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  # shellcheck disable=SC2086  # NMT_FUZZ_FLAGS: words on purpose
  "$binary" -max_total_time="$seconds" -max_len="${max_len[$target]}" -timeout="${timeout[$target]}" \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict[@]}" "${mode[@]}" \
    ${NMT_FUZZ_FLAGS:-} "${inputs[@]}" >"$log" 2>&1 || status=$?

  # The last status line ("#N  pulse/NEW/REDUCE/DONE  cov: C ft: F corp: ..."; with --keep-going
  # "#N: cov: C ft: F corp: K exec/s R ...") and the final stats.
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -nE 's/.* corp: ([0-9]+(\/[0-9]+[a-zA-Z]+)?).*/\1/p' <<<"$last")
  execs=$(sed -nE 's/^stat::number_of_executed_units:\s+([0-9]+)/\1/p' "$log" | tail -1)
  rate=$(sed -nE 's/^stat::average_exec_per_sec:\s+([0-9]+)/\1/p' "$log" | tail -1)
  added=$(sed -nE 's/^stat::new_units_added:\s+([0-9]+)/\1/p' "$log" | tail -1)
  rss=$(sed -nE 's/^stat::peak_rss_mb:\s+([0-9]+)/\1/p' "$log" | tail -1)
  if [[ $keep_going -eq 1 ]]; then
    execs=$(sed -nE 's/^#([0-9]+):.*/\1/p' <<<"$last")
    [[ -n $execs ]] && rate=$((execs / seconds))  # fork mode prints the last job's rate only
  fi
  result=ok
  shopt -s nullglob
  found=("$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-*)
  shopt -u nullglob
  if [[ $status -ne 0 || ${#found[@]} -gt 0 ]]; then
    findings=$((findings + 1))
    result="FINDING (exit $status)"
    mkdir -p "$regressions"
    for file in "${found[@]}"; do
      cp "$file" "$regressions/"
      echo "fuzz.sh: $target: FINDING saved as tests/fuzz/regressions/$target/$(basename "$file")" >&2
      echo "         reproduce: $binary $regressions/$(basename "$file")" >&2
    done
    [[ ${#found[@]} -gt 0 ]] || echo "fuzz.sh: $target exited $status without an artifact; see $log" >&2
    grep -nE 'ERROR: |fuzz finding|runtime error|SUMMARY' "$log" | head -5 >&2 || true
  fi
  summary+=("$(printf '%-16s execs %-10s exec/s %-7s cov %-6s ft %-7s corpus %-14s new %-6s rss %sMB  %s' \
    "$target" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "${added:-?}" "${rss:-?}" "$result")")

  if [[ $merge_seeds -eq 1 ]]; then
    say "$target: merging work corpus inputs with new coverage into tests/fuzz/corpus/$target"
    "$binary" -merge=1 -max_len="${max_len[$target]}" -timeout="${timeout[$target]}" -rss_limit_mb=4096 \
      "$seeds" "$corpus" >>"$log" 2>&1 || echo "fuzz.sh: $target: merge failed; see $log" >&2
  fi
done

echo
what="${seconds}s per target"
[[ $replay -eq 1 ]] && what="replay"
say "summary ($(date -u +%Y-%m-%dT%H:%MZ), $what, $(nproc) CPUs: $(sed -nE 's/^model name\s*: //p' /proc/cpuinfo | head -1))"
printf '  %s\n' "${summary[@]}"
if [[ $findings -gt 0 ]]; then
  echo "fuzz.sh: $findings target(s) with findings: fix them, keep the inputs in tests/fuzz/regressions/ (ctest -L fuzz)" >&2
  exit 1
fi
