#!/usr/bin/env bash
# The GPU check (docs/benchmarks.md, "On a GPU"): on a machine with an NVIDIA GPU and PyTorch 2.x
# for CUDA, build the project against PyTorch's LibTorch, run the CUDA tests, measure training and
# translation on the GPU, then run the whole test suite in the time left. GPU time is scarce, so
# every stage has a time limit taken from one budget, and every result is a file in OUT.
#
# Usage: scripts/check-cuda.sh OUT [--deps DIR] [--budget SECONDS] [--python PYTHON]
#   OUT          folder for logs and results (made if missing)
#   --deps DIR   the Debian libraries ../shared/gpu/debian-deps.sh unpacked (default .deps): CLI11,
#                spdlog, fmt, GoogleTest, protobuf and protoc, nlohmann-json, zlib, cairo, pkgconf
#   --budget S   seconds for the whole check (default 560): the build, the CUDA tests and the
#                benchmarks first, the test suite last with what is left
#   --python P   the interpreter with PyTorch for CUDA (default python3)
#   --no-build   use build-cuda as it is (a second run on the same machine)
#   --reserve S  seconds kept for the GPU stages when the first build starts (default 150)
#   --std 17|20  the C++ standard, without probing LibTorch's headers for it (saves ~30 s)
#   --targets T  the targets built before the GPU stages (space-separated; default: the programs,
#                the CUDA tests, bench_train and the int8 stage's); everything else is built after them
#   --stages S   which stages run, in this order whatever the order given (default all):
#                cuda-tests bench-train int8 train translate rest suite. A session with two calls
#                runs the first ones in one and `--no-build --stages "rest suite"` in the next
#   --bench-tokens "T..."  bench_train's batch sizes in target tokens (default "2000 8000")
#   --int8-model PT  the model of the int8 stage (issue 47: the host CPU's int8 kernels, alone and
#                against float32 with scripts/bench_int8.sh; default .gpu/int8-model.pt); the stage
#                is skipped without it
#   --int8-shortlist FILE  that model's shortlist (nmt-checkpoint shortlist; default
#                .gpu/int8-shortlist.txt): where it exists, the native run adds the shortlist's rows
#                (greedy and beam 5 with --shortlist, in the same sitting)
# Needs nvcc, cmake, ninja and g++; data/bible with train/dev/test and spm.model (the reference
# model's 8000 pieces: see scripts/bench_train.sh). Builds into build-cuda.
#
# Preparing DIR here (Debian 12): scripts/prepare-gpu-carry.sh unpacks the Debian packages into
# .deps/root (../shared/gpu/debian-deps.sh, trimmed) and packs them with SentencePiece's source,
# data/bible and the int8 stage's model into .gpu/carry.tar.xz, under the device's 64 MiB; its
# --help gives the two device calls. This script mends what does not travel as unpacked: cairo.pc's
# and glib-2.0.pc's private requirements (their .pc files are not there) and libz.so's absolute link.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out="" deps=$root/.deps budget=560 python=python3 build=1 std="" reserve=150
targets="nmt-train nmt-translate nmt-score test_model test_dist_group test_train test_dist_train bench_train
         test_kernels bench_translate bench_linear"
stages="cuda-tests bench-train int8 train translate rest suite" bench_tokens="2000 8000"
int8_model=$root/.gpu/int8-model.pt int8_shortlist=$root/.gpu/int8-shortlist.txt
while [[ $# -gt 0 ]]; do
  case $1 in
    --deps) deps=$(realpath -m "$2"); shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --std) std=$2; shift 2 ;;
    --reserve) reserve=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --stages) stages=$2; shift 2 ;;
    --bench-tokens) bench_tokens=$2; shift 2 ;;
    --int8-model) int8_model=$(realpath -m "$2"); shift 2 ;;
    --int8-shortlist) int8_shortlist=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
    -*) echo "check-cuda.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[[ -n $out ]] || { echo "check-cuda.sh: give the output folder (see --help)" >&2; exit 2; }
for stage in $stages; do
  [[ " cuda-tests bench-train int8 train translate rest suite " == *" $stage "* ]] ||
    { echo "check-cuda.sh: --stages: unknown stage '$stage' (see --help)" >&2; exit 2; }
done
want() { [[ " $stages " == *" $1 "* ]]; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
summary=$out/summary.txt
note() { echo "[$(printf '%4d' "$SECONDS") s] $*" | tee -a "$summary"; }
left() { echo $((budget - SECONDS)); }
# run_for LIMIT LOG COMMAND...: at most LIMIT seconds, and never past the budget (SIGTERM, then
# SIGKILL 15 s later).
run_for() {
  local limit=$1 log=$2; shift 2
  (($(left) - 20 < limit)) && limit=$(($(left) - 20))
  if ((limit < 5)); then note "skipped (no time left): $*"; return 124; fi
  timeout -k 15 "$limit" "$@" >"$log" 2>&1
  local rc=$?
  ((rc == 124)) && note "stopped after ${limit} s: $*"
  return $rc
}

lib=$deps/root/usr/lib/x86_64-linux-gnu
[[ -d $lib ]] || { echo "check-cuda.sh: no $lib: prepare --deps first (see --help)" >&2; exit 2; }
sed -i '/^Requires/d' "$lib/pkgconfig/cairo.pc" "$lib/pkgconfig/glib-2.0.pc" 2>/dev/null
[[ -e $lib/libz.so ]] || ln -sfn /lib/x86_64-linux-gnu/libz.so.1 "$lib/libz.so"
export LD_LIBRARY_PATH=$lib:$deps/root/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export PATH=$deps/root/usr/bin:/usr/local/cuda/bin:$PATH
export PKG_CONFIG_PATH=$lib/pkgconfig
# Fonts for the pictures the tests draw (DejaVu, from the carried fonts-dejavu-core).
mkdir -p /tmp/nmt-fontconfig
cat >/tmp/nmt-fontconfig/fonts.conf <<EOF
<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$deps/root/usr/share/fonts</dir><dir>/usr/share/fonts</dir>
<cachedir>/tmp/nmt-fontconfig/cache</cachedir></fontconfig>
EOF
export FONTCONFIG_FILE=/tmp/nmt-fontconfig/fonts.conf

# --- the machine and the versions
{
  date -u '+%Y-%m-%d %H:%M UTC'
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  "$python" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, "cuDNN",
    torch.backends.cudnn.version(), "NCCL", torch.cuda.nccl.version() if torch.cuda.is_available() else None,
    torch.cuda.get_device_name(0), "cxx11 ABI", torch._C._GLIBCXX_USE_CXX11_ABI)'
  g++ --version | head -n 1
  cmake --version | head -n 1
  nvcc --version | tail -n 2 | head -n 1
  echo "$(nproc) CPU cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
} >"$out/env.txt" 2>&1
note "machine: $(tr '\n' ';' <"$out/env.txt")"
torch_prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')

if ((build)); then
# --- C++17 where LibTorch's headers allow it, else C++20
torch_includes=$("$python" -c 'import torch.utils.cpp_extension as c; print(" ".join("-I" + p for p in c.include_paths()))')
printf '#include <torch/torch.h>\nint main() { return 0; }\n' >/tmp/nmt-probe.cc
# shellcheck disable=SC2086
if [[ -n $std ]]; then :
elif g++ -std=c++17 -fsyntax-only $torch_includes /tmp/nmt-probe.cc >"$out/probe-cxx17.log" 2>&1; then std=17; else std=20; fi
note "LibTorch's headers compile as C++17: $([[ $std == 17 ]] && echo yes || echo no); building as C++$std"

# --- configure, then build what the GPU stages need (the rest is built before ctest, so a slow
# build still leaves the GPU figures). No nmt-serve: cpp-httplib is not among the carried
# libraries, and the server has no code of its own for the GPU.
pkgconf=()
command -v pkg-config >/dev/null || pkgconf=(-DPKG_CONFIG_EXECUTABLE="$deps/root/usr/bin/pkgconf")
if ! run_for 120 "$out/configure.log" cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DNMT_CXX_STANDARD=$std -DNMT_BUILD_SERVER=OFF -DCMAKE_PREFIX_PATH="$torch_prefix;$deps/root/usr" \
    -DCMAKE_LIBRARY_PATH="$lib" "${pkgconf[@]}"; then
  note "configure FAILED: $(grep -m3 -A3 'Error' "$out/configure.log" | tr '\n' ' ')"
  exit 1
fi
start=$SECONDS
# shellcheck disable=SC2086
run_for $(($(left) - reserve)) "$out/build.log" ninja -C build-cuda -k 0 -j "$(nproc)" $targets
rc=$?
note "build of the GPU stages' targets: $((SECONDS - start)) s, exit $rc; failed: $(grep -c '^FAILED' "$out/build.log")"
grep -A12 '^FAILED' "$out/build.log" | head -n 60 >"$out/build-errors.txt"
fi

# --- the CUDA tests
t=build-cuda/tests
if want cuda-tests; then
for spec in "test_model Device.*" "test_dist_group Communicator.*Cuda*:Communicator.Nccl*" \
            "test_train TrainerOnCuda.*" "test_dist_train DistTrain.*Cuda*"; do
  read -r program filter <<<"$spec"
  [[ -x $t/$program ]] || { note "cuda tests: $program was not built"; continue; }
  run_for 120 "$out/cuda-$program.log" "$t/$program" --gtest_filter="$filter"
  rc=$?
  note "cuda tests $program ($filter): exit $rc: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \] [A-Za-z]' "$out/cuda-$program.log" | tr '\n' ' ')"
done
fi

# --- training speed: C++ against the same model in PyTorch, on the GPU, at each batch size
if want bench-train; then
for tokens in $bench_tokens; do
  BENCH_PYTHON=$(command -v "$python") run_for 90 "$out/bench-train-$tokens.log" scripts/bench_train.sh \
    --device cuda --build-dir build-cuda --steps 40 --warmup 8 --max-tokens "$tokens" --tolerance 0.05
  rc=$?
  note "bench_train --max-tokens $tokens: exit $rc: $(grep -E 'max \|loss|target tokens/s' "$out/bench-train-$tokens.log" | tr '\n' ' ')"
done
fi

# --- int8 decoding on the host CPU (issue 47): which int8 kernels it has, each kernel against the
# scalar reference (test_kernels under every capability), then float32 against int8 on the test
# books (scripts/bench_int8.sh: alternating, medians), and once more capped at AVX2
if want int8; then
  flags=$(grep -m1 '^flags' /proc/cpuinfo)
  has=""
  for f in avx2 avx512f avx512bw avx512_vnni avx_vnni amx_int8; do [[ " $flags " == *" $f "* ]] && has+="$f "; done
  note "host CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); has: $has"
  for cap in "" avx512bw avx2 portable; do
    NMT_CPU_CAPABILITY=$cap run_for 60 "$out/kernels-${cap:-native}.log" "$t/test_kernels"
    rc=$?
    note "test_kernels (NMT_CPU_CAPABILITY=${cap:-unset}): exit $rc: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/kernels-${cap:-native}.log" | tr '\n' ' ')"
  done
  run_for 40 "$out/bench-linear.log" build-cuda/bench/bench_linear 60
  note "bench_linear (exit $?): $(head -n 3 "$out/bench-linear.log" | tr '\n' ' ')"
  if [[ -f $int8_model ]]; then
    # The native run takes the shortlist's rows too where one travelled (twice the runs: 160 s).
    shortlisted=()
    [[ -f $int8_shortlist ]] && shortlisted=(--shortlist "$int8_shortlist")
    for spec in "native 2 $((${#shortlisted[@]} ? 160 : 100))" "avx2 1 100"; do
      read -r cap rounds limit <<<"$spec"
      list=()
      [[ $cap == native ]] && list=("${shortlisted[@]}")
      rm -rf "/tmp/nmt-int8-$cap"
      NMT_CPU_CAPABILITY=${cap/native/} run_for "$limit" "$out/int8-$cap.log" scripts/bench_int8.sh \
        --model "$int8_model" --rounds "$rounds" --build build-cuda --out "/tmp/nmt-int8-$cap" "${list[@]}"
      rc=$?
      note "bench_int8 ($cap, $rounds rounds${list[*]:+, with the shortlist}): exit $rc"
      sed -n '/^run /,$p' "$out/int8-$cap.log" | tee -a "$summary"
    done
  else
    note "int8: no model at $int8_model: bench_int8 skipped"
  fi
fi

# --- nmt-train, the reference configuration, on the GPU: 8000-token batches with the rate scaled
# as the batch (x4: 2e-3 for the recipe's 5e-4), against the 2000-token run of the first figures
# (docs/benchmarks.md: dev BLEU 5.02 after ~0.94 M target tokens, 7.91 after ~1.41 M)
train() {  # NAME LIMIT OPTIONS...
  local name=$1 limit=$2; shift 2
  rm -rf "/tmp/nmt-runs/$name"
  run_for "$limit" "$out/train-$name.log" build-cuda/apps/nmt-train --config configs/bible-es-en-bahdanau.toml --device cuda \
    --run-dir "/tmp/nmt-runs/$name" --valid.attention-maps none "$@"
  local rc=$?
  note "nmt-train $name: exit $rc"
  cp "/tmp/nmt-runs/$name/metrics.jsonl" "$out/metrics-$name.jsonl" 2>/dev/null
  grep -h '"valid"' "/tmp/nmt-runs/$name/metrics.jsonl" 2>/dev/null | tail -n 4 | tee -a "$summary"
  grep -h '"train"' "/tmp/nmt-runs/$name/metrics.jsonl" 2>/dev/null | tail -n 1 | tee -a "$summary"
}
model=/tmp/nmt-runs/ref-8000-lr4x/best.pt
if want train; then
  train ref-8000-lr4x 60 --train.max-steps 240 --train.max-tokens 8000 --optim.lr 0.002 --valid.every 60 \
    --checkpoint.every 60
fi

# --- translation of the test books with that run's best model, GPU and CPU
if want translate && [[ -f $model ]]; then
  translate() {  # NAME OPTIONS...
    local name=$1; shift
    run_for 40 "$out/translate-$name.log" build-cuda/apps/nmt-translate -m "$model" -i data/bible/test.es \
      -o "/tmp/nmt-runs/$name.en" --progress never "$@"
    local rc=$?
    local bleu
    bleu=$(build-cuda/apps/nmt-score -i "/tmp/nmt-runs/$name.en" data/bible/test.en 2>&1 | tr '\n' ' ')
    note "translate $name: exit $rc: $(grep -o '[0-9]* sentences in .*' "$out/translate-$name.log" | tail -n 1) | $bleu"
  }
  translate cuda-greedy --device cuda -b 1
  translate cuda-beam5 --device cuda -b 5
  translate cpu-beam5 --device cpu -b 5 --workers 0
fi

# --- everything else, then the whole test suite with the time left
if want rest; then
  start=$SECONDS
  run_for $(($(left) - 60)) "$out/build-rest.log" ninja -C build-cuda -k 0 -j "$(nproc)"
  rc=$?
  note "build of the rest: $((SECONDS - start)) s, exit $rc; failed: $(grep -c '^FAILED' "$out/build-rest.log")"
  grep -A12 '^FAILED' "$out/build-rest.log" | head -n 60 >>"$out/build-errors.txt"
fi
if want suite; then
  # Two intra-op threads a test, as on CI's two cores: with LibTorch's default (a thread a core) and a
  # test a core, 16 tests ran 256 threads on 16 cores and 8 long suites ran past 240 s (2026-11-29).
  jobs=$(($(nproc) / 2)); ((jobs > 0)) || jobs=1
  OMP_NUM_THREADS=2 MKL_NUM_THREADS=2 run_for $(($(left) - 5)) "$out/ctest.log" \
    ctest --test-dir build-cuda -j "$jobs" --timeout 240 --output-on-failure
  rc=$?
  note "ctest: exit $rc: $(grep -E 'tests passed|tests failed' "$out/ctest.log")"
  grep -E '^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess|Not Run)' "$out/ctest.log" | head -n 40 | tee -a "$summary"
fi
note "done"
