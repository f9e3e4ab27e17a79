#!/usr/bin/env bash
# `cmake --install` into a scratch prefix, then use it as a user would: the layout, headers that
# name no private dependency, a library that exports none of them, programs that run from the
# prefix, and the example consumer (examples/translate) built with find_package(nmt) against the
# prefix alone, translating exactly as nmt-translate does. Trains a toy model first (~20 s).
# Usage: install_test.sh BUILD_DIR SOURCE_DIR LIBDIR VERSION
set -uo pipefail
build=$1 source=$2 libdir=$3 version=$4
data=$source/tests/data
source "$source/tests/apps/cli_lib.sh"
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  { fail "cmake --install: $(tail -n 3 "$work/install.log")"; finish; exit; }

# Layout: programs, the versioned library and its links, headers, the CMake package, configs.
for program in nmt-train nmt-translate nmt-score nmt-tokenizer nmt-corpus-stats nmt-plot; do
  [[ -x $prefix/bin/$program ]] && pass || fail "bin/$program not installed"
done
lib=$prefix/$libdir
for file in libnmt.so libnmt.so.0.1 cmake/nmt/nmtConfig.cmake cmake/nmt/nmtConfigVersion.cmake cmake/nmt/nmtTargets.cmake; do
  [[ -e $lib/$file ]] && pass || fail "$libdir/$file not installed"
done
[[ $(readelf -d "$lib/libnmt.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p') == libnmt.so.0.1 ]] && pass ||
  fail "soname of libnmt.so is not libnmt.so.0.1"
for header in model/checkpoint.h translate/translator.h train/trainer.h data/tokenizer.h core/error.h; do
  [[ -f $prefix/include/nmt/$header ]] && pass || fail "include/nmt/$header not installed"
done
[[ ! -e $prefix/include/nmt/core/log.h ]] && pass || fail "the internal logger header (spdlog) was installed"
[[ ! -e $prefix/include/nmt/plot/draw.h ]] && pass || fail "the internal drawing header (cairo) was installed"
[[ -f $prefix/share/nmt/configs/bible-es-en.toml ]] && pass || fail "share/nmt/configs not installed"

# Private dependencies stay private: no installed header includes them, the library exports none
# of their symbols, and nothing of SentencePiece's own install rules came along.
leaks=$(grep -rlE '#include [<"](spdlog|fmt|nlohmann|sentencepiece|google/protobuf|CLI|cairo)' "$prefix/include")
[[ -z $leaks ]] && pass || fail "installed headers include private dependencies: $leaks"
if nm -D --defined-only "$lib/libnmt.so" | c++filt >"$work/symbols.txt" && [[ -s $work/symbols.txt ]]; then
  exported=$(grep -cE 'sentencepiece::|google::protobuf::' "$work/symbols.txt")
  [[ $exported -eq 0 ]] && pass || fail "libnmt.so exports $exported SentencePiece/protobuf symbols"
else
  fail "cannot list the symbols of libnmt.so (nm, c++filt)"
fi
[[ -z $(find "$prefix" -name 'spm_*' -o -name 'sentencepiece*' -o -name '*.a') ]] && pass ||
  fail "SentencePiece or static libraries installed: $(find "$prefix" -name 'spm_*' -o -name 'sentencepiece*' -o -name '*.a')"

# The installed programs run from the prefix with the installed library, not the build tree's.
expect 0 "" -- "$prefix/bin/nmt-translate" --version
grep -qF "$version" "$work/out" && pass ||
  fail "nmt-translate --version printed '$(cat "$work/out")'"
resolved=$(ldd "$prefix/bin/nmt-translate" | sed -n 's/.*libnmt\.so[^ ]* => \([^ ]*\).*/\1/p')
[[ $resolved == "$prefix"/* ]] && pass || fail "installed nmt-translate loads libnmt from '$resolved'"

# A toy model, trained with the installed nmt-train.
"$prefix/bin/nmt-train" --run-dir "$work/run" --device cpu --data.train-source "$data/toy.es" \
  --data.train-target "$data/toy.en" --data.dev-source "$data/toy.es" --data.dev-target "$data/toy.en" \
  --data.source-spm "$work/spm.model" --data.vocab-size 300 --model.embedding-size 32 \
  --model.encoder-hidden-size 32 --model.decoder-hidden-size 32 --model.attention-size 32 \
  --train.max-steps 150 --train.max-tokens 600 --optim.lr 0.005 --valid.every 0 >/dev/null 2>"$work/train.err" ||
  { fail "installed nmt-train failed: $(tail -n 2 "$work/train.err")"; finish; exit; }
model=$(ls "$work"/run/checkpoints/*.pt | tail -n 1)

# The consumer: examples/translate, plus one file that includes every installed header, built
# against the prefix alone (CMAKE_PREFIX_PATH only: nmtConfig.cmake finds the LibTorch it was built with).
mkdir -p "$work/consumer"
{
  echo 'cmake_minimum_required(VERSION 3.18)'
  echo 'project(nmt_consumer_check LANGUAGES CXX)'
  echo "add_subdirectory(\"$source/examples/translate\" example)"
  echo 'find_package(nmt 0.1 REQUIRED)'
  echo 'add_library(all_headers OBJECT all_headers.cc)'
  echo 'target_link_libraries(all_headers PRIVATE nmt::nmt)'
} >"$work/consumer/CMakeLists.txt"
(cd "$prefix/include" && find nmt -name '*.h' | sort | sed 's/.*/#include <&>/') >"$work/consumer/all_headers.cc"
if cmake -S "$work/consumer" -B "$work/consumer/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 &&
   cmake --build "$work/consumer/build" >"$work/build.log" 2>&1; then
  pass
else
  fail "the consumer did not build: $(cat "$work/configure.log" "$work/build.log" 2>/dev/null | grep -m 3 -A 3 -E 'error|Error')"
  finish; exit
fi
if grep -qE -- "-(I|isystem) ?$source(/| |$)" "$work/consumer/build/build.ninja"; then
  fail "the consumer compiled with the source tree on its include path"
else
  pass
fi

sentence=$(head -n 1 "$data/toy.es")
expect 0 "" -- "$work/consumer/build/example/translate" "$model" "$sentence"
cp "$work/out" "$work/example.out"
printf '%s\n' "$sentence" | "$prefix/bin/nmt-translate" -m "$model" >"$work/program.out" 2>/dev/null
[[ -s $work/example.out ]] && cmp -s "$work/example.out" "$work/program.out" && pass ||
  fail "example translated '$(cat "$work/example.out")', nmt-translate '$(cat "$work/program.out")'"
expect_error 1 "translate: .*$work/missing.pt" -- "$work/consumer/build/example/translate" "$work/missing.pt" "hola"
expect 2 "usage: translate" -- "$work/consumer/build/example/translate"

# The version file: 0.1.x is found, another minor version is not (0.x may break the API).
mkdir -p "$work/version"
printf 'cmake_minimum_required(VERSION 3.18)\nproject(v LANGUAGES CXX)\nfind_package(nmt 0.2 REQUIRED)\n' \
  >"$work/version/CMakeLists.txt"
cmake -S "$work/version" -B "$work/version/build" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/version.log" 2>&1 && fail "find_package(nmt 0.2) accepted version 0.1" || pass
grep -q "requested version \"0.2\"" "$work/version.log" && pass ||
  fail "find_package(nmt 0.2) failed without naming the version: $(grep -m 2 -i error "$work/version.log")"

finish
