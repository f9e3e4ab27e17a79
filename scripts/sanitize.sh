#!/usr/bin/env bash
# Build the test suite with AddressSanitizer (+ LeakSanitizer) and UndefinedBehaviorSanitizer in a
# build directory of its own and run it (docs/sanitizers.md). Exits non-zero on any test failure
# and on any sanitizer report, including one from a program that a test expected to fail anyway.
#
# The build is RelWithDebInfo at -O1 with assertions on, without the benchmarks, under nice -n 10.
# Suppressions (each commented with its reason) are in tests/sanitizers/; reports are written to
# BUILD_DIR/sanitizer-reports/ and printed at the end. LibTorch itself is not instrumented.
# Tests not run (ctest -LE), because nothing instrumented runs in them or they cannot work here:
#   install  installs the instrumented library and links a plain consumer and .deb packages
#            against it: that checks packaging, and a consumer without ASan cannot load it
#   scripts  the Python corpus builder and search baseline: pure Python, no code of ours
# Needs the packages scripts/setup.sh installs (run it once); fetches SentencePiece if missing.
#
# Usage: scripts/sanitize.sh [--build-dir DIR] [--sanitizers LIST] [--jobs N] [-- ctest args]
#   --build-dir DIR    default: build-asan
#   --sanitizers LIST  NMT_SANITIZE value (default: address,undefined)
#   --jobs N           compile and test jobs (default: nproc)
#   ctest args         e.g. -R Trainer, or -L unit
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$root/build-asan
sanitizers=address,undefined
jobs=$(nproc)
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build_dir=$(realpath -m "$2"); shift 2 ;;
    --sanitizers) sanitizers=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) break ;;  # the rest goes to ctest
    *) echo "sanitize.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "sanitize.sh: --jobs must be a positive integer, got '$jobs'" >&2; exit 2; }
supp=$root/tests/sanitizers
reports=$build_dir/sanitizer-reports

# The same options for the build (gtest_discover_tests runs each test program to list its tests)
# and the tests. Reports go to files (log_path, one per process): a test that expects a program to
# fail cannot then pass over a sanitizer's exit, and the programs' own stderr stays as tested.
#   detect_stack_use_after_return  catches references to a returned function's locals
#   check_initialization_order     static initialisers that read another file's globals too early
#   allocator_may_return_null      an allocation too large to serve fails as it does without
#                                  ASan (LibTorch then throws; the tests of a model too large to
#                                  allocate check that message) instead of aborting the program
#   halt_on_error (UBSan)          the first unsuppressed report ends the program (exit 1)
export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:allocator_may_return_null=1:suppressions=$supp/asan.supp:log_path=$reports/asan"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:report_error_type=1:suppressions=$supp/ubsan.supp:log_path=$reports/ubsan"

say() { printf '== sanitize: %s\n' "$*"; }
fail_on_reports() {  # $1: what ran
  shopt -s nullglob
  local files=("$reports"/*)
  shopt -u nullglob
  [[ ${#files[@]} -eq 0 ]] && return 0
  local file
  for file in "${files[@]:0:5}"; do  # the first few in full; often one bug reported many times
    printf '\n---- %s\n' "$file" >&2
    cat "$file" >&2
  done
  [[ ${#files[@]} -gt 5 ]] && printf 'and %d more: %s\n' $((${#files[@]} - 5)) "${files[*]:5}" >&2
  echo "sanitize.sh: ${#files[@]} sanitizer report(s) during $1 (above; kept in $reports)" >&2
  return 1
}

"$root/scripts/fetch_sentencepiece.sh"
rm -rf "$reports"
mkdir -p "$reports"

start=$SECONDS
if [[ ! -f $build_dir/build.ninja ]]; then
  say "configuring $build_dir (NMT_SANITIZE=$sanitizers)"
  cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" -DNMT_BUILD_BENCH=OFF "-DNMT_SANITIZE=$sanitizers" >/dev/null
else
  cmake "$build_dir" "-DNMT_SANITIZE=$sanitizers" >/dev/null  # the same directory, maybe a new list
fi
say "building (nice -n 10, $jobs jobs)"
build_status=0
nice -n 10 cmake --build "$build_dir" -j "$jobs" || build_status=$?
build_time=$((SECONDS - start))
say "build took $((build_time / 60)) min $((build_time % 60)) s"
fail_on_reports "the build (test discovery)" || exit 1
[[ $build_status -eq 0 ]] || exit "$build_status"

start=$SECONDS
say "testing (ctest -LE 'install|scripts' $*)"
test_status=0
nice -n 10 ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" -LE 'install|scripts' "$@" ||
  test_status=$?
test_time=$((SECONDS - start))
say "tests took $((test_time / 60)) min $((test_time % 60)) s"
report_status=0
fail_on_reports "the tests" || report_status=1
# Defence in depth: a report that reached a test's output instead of a file (a sanitizer that could
# not open its log, a runtime that ignores log_path) still fails the run.
if grep -En '==[0-9]+==ERROR: [A-Za-z]+Sanitizer|: runtime error: ' \
     "$build_dir/Testing/Temporary/LastTest.log" >&2; then
  echo "sanitize.sh: sanitizer output in the tests' output (above; $build_dir/Testing/Temporary/LastTest.log)" >&2
  report_status=1
fi
if [[ $test_status -ne 0 || $report_status -ne 0 ]]; then
  echo "sanitize.sh: FAILED (ctest status $test_status, reports: $report_status)" >&2
  exit 1
fi
say "clean: every test passed and no sanitizer reported anything"
