#!/usr/bin/env bash
# One-time (and idempotent) set-up on Debian 12 (bookworm) or 13 (trixie): install the packages the
# toolkit builds and runs with, fetch the SentencePiece source, and build in Release: everything,
# or with --programs only the library and the programs (what scripts/quickstart.sh needs).
# Re-running it on a ready machine only checks and takes seconds. Other systems: see the README
# ("Other systems"); this script installs nothing there and says so.
#
# Usage: scripts/setup.sh [--build-dir DIR] [--test-packages] [--programs]     (default: build)
#   --programs       build only the library and the programs in DIR/apps (not the tests, benchmarks
#                    and fuzz replays; scripts/test.sh builds those)
#   --test-packages  also Debian's python3-torch and python3-sentencepiece, which the tests use to
#                    load checkpoints from Python, and chromium with chromium-driver, in which a test
#                    uses nmt-serve's page (scripts/test.sh asks for them; the programs do not need them)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$root/build
test_packages=0 targets=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build_dir=$(realpath -m "$2"); shift 2 ;;
    --test-packages) test_packages=1; shift ;;
    --programs) targets=(--target nmt-tokenizer nmt-corpus nmt-corpus-stats nmt-train nmt-translate nmt-score nmt-plot
                         nmt-checkpoint); shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# The same package names on Debian 12 and 13 (LibTorch 1.13 there, 2.6 here; docs/architecture.md).
# shellcheck source=/dev/null
. /etc/os-release 2>/dev/null || true
case "${ID:-}:${VERSION_ID:-}" in
  debian:12|debian:13) ;;
  *)
    if ! command -v apt-get >/dev/null; then
      echo "setup: ${PRETTY_NAME:-this system} is not Debian: install LibTorch 2.x, protobuf, CLI11, spdlog," >&2
      echo "       nlohmann-json and GoogleTest yourself and build by hand (README, \"Other systems\")." >&2
      exit 1
    fi
    echo "setup: warning: ${PRETTY_NAME:-this system} is not Debian 12 or 13; trying Debian's package names." >&2 ;;
esac

packages=(
  build-essential cmake ninja-build pkg-config dpkg-dev file patch python3   # file: CPack's .deb dependencies
  libtorch-dev libopenblas0-pthread              # LibTorch (CPU) and a fast BLAS for it
  libprotobuf-dev protobuf-compiler              # SentencePiece is built against LibTorch's protobuf
  zlib1g-dev                                     # CRC-32 checks of checkpoint archives
  libgloo-dev                                    # Gloo headers: c10d's CPU process group (data-parallel training)
  libcairo2-dev fonts-dejavu-core                # the pictures (nmt-plot): cairo and the font it draws with
  libglib2.0-dev                                 # Unicode NFC for nmt-corpus prepare (cairo's -dev brings it too)
  libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libgtest-dev
  libcpp-httplib-dev                             # nmt-serve's HTTP server (and the tests' client)
  diatheke sword-text-sparv sword-text-web sword-text-kjv   # the Bible corpus
)
# Only the tests use these (checkpoints run from Python: PyTorch 1.13 on Debian 12, 2.6 on 13; the
# web page in a headless browser): a machine that cannot install them still builds and tests, and
# those tests skip.
test_only=()
if [[ $test_packages -eq 1 ]]; then
  for package in python3-torch python3-sentencepiece chromium chromium-driver; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || test_only+=("$package")
  done
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "setup: installing ${missing[*]}"
  sudo=()
  if [[ $EUID -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [[ ${#test_only[@]} -gt 0 ]]; then
  echo "setup: installing, for the tests, ${test_only[*]}"
  sudo=()
  [[ $EUID -ne 0 ]] && command -v sudo >/dev/null && sudo=(sudo)
  { "${sudo[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${test_only[@]}" >/dev/null; } ||
    echo "setup: warning: could not install ${test_only[*]}: the tests that run checkpoints from Python will skip" >&2
fi

# LibTorch calls whatever libblas.so.3 the alternatives system selects; the reference BLAS is about
# 50x slower than OpenBLAS here (docs/benchmarks.md). Installing OpenBLAS selects it unless an
# administrator pinned another choice: say so rather than silently run slow.
blas=$(update-alternatives --query libblas.so.3-x86_64-linux-gnu 2>/dev/null | sed -n 's/^Value: //p')
if [[ $blas != *openblas* ]]; then
  echo "setup: warning: libblas.so.3 is $blas, not OpenBLAS; training will be very slow." >&2
  echo "       fix: update-alternatives --config libblas.so.3-x86_64-linux-gnu" >&2
fi

"$root/scripts/fetch_sentencepiece.sh"

if [[ ! -f $build_dir/build.ninja ]]; then
  cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
echo "setup: ready (programs in $build_dir/apps)"
