#!/usr/bin/env bash
# Set up (idempotent), build, and run every test. This is the README's test command and what CI runs.
# Usage: scripts/test.sh [extra ctest arguments, e.g. -L unit or -R Batch]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" --test-packages
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)" "$@"
