# Shared by the CLI test scripts (sourced): a work directory, counters and `expect`.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 passed=0
# The programs' tests check the CPU's arithmetic (batch invariance, outputs bit for bit, int8), and
# --device auto takes a GPU where LibTorch sees one: they see none. The CUDA paths have tests of their
# own (Device.*, TrainerOnCuda.*, DistTrain.*Cuda*: scripts/check-cuda.sh runs them).
export CUDA_VISIBLE_DEVICES=""

pass() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect STATUS PATTERN -- COMMAND...: runs COMMAND, checks its exit status and that the last line of
# its stderr matches PATTERN (grep -E; empty: no check). Output in $work/out and $work/err.
expect() {
  local status=$1 pattern=$2; shift 3
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [[ $got -ne $status ]]; then fail "$* exited $got, expected $status: $(tail -n 3 "$work/err")"; return 1; fi
  if [[ -n $pattern ]] && ! tail -n 1 "$work/err" | grep -qE -- "$pattern"; then
    fail "$*: last stderr line lacks /$pattern/: $(tail -n 1 "$work/err")"; return 1
  fi
  pass
}

# expect_error STATUS PATTERN -- COMMAND...: as expect, and the error is the only line on stderr.
expect_error() {
  expect "$@" || return 1
  if [[ $(wc -l <"$work/err") -ne 1 ]]; then
    passed=$((passed - 1))
    fail "${*:4}: error is not one line: $(cat "$work/err")"
  fi
}

finish() {
  echo "$passed passed, $failures failed"
  [[ $failures -eq 0 ]]
}
