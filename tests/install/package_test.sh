#!/usr/bin/env bash
# The Debian packages from CPack (cmake/NmtPackage.cmake): names, contents, declared and computed
# dependencies (each one installed here, so the set can be satisfied), and the packages unpacked
# into a scratch root, where the programs run with the packaged library.
# Usage: package_test.sh BUILD_DIR SOURCE_DIR VERSION
set -uo pipefail
build=$1 source=$2 version=$3
source "$source/tests/apps/cli_lib.sh"
arch=$(dpkg --print-architecture)

(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/packages") >"$work/cpack.log" 2>&1 ||
  { fail "cpack: $(grep -m 3 -iE 'error|warning' "$work/cpack.log")"; finish; exit; }
runtime=$work/packages/nmt_${version}-1_${arch}.deb
dev=$work/packages/nmt-dev_${version}-1_${arch}.deb
for deb in "$runtime" "$dev"; do [[ -f $deb ]] && pass || fail "no $(basename "$deb"): $(ls "$work/packages")"; done
[[ -f $runtime && -f $dev ]] || { finish; exit; }

# Contents: programs and the versioned library in nmt; headers, link and CMake package in nmt-dev.
dpkg-deb -c "$runtime" | awk '{print $6}' >"$work/runtime.files"
dpkg-deb -c "$dev" | awk '{print $6}' >"$work/dev.files"
for program in nmt-train nmt-translate nmt-score nmt-tokenizer nmt-corpus-stats; do
  grep -qx "./usr/bin/$program" "$work/runtime.files" && pass || fail "nmt lacks /usr/bin/$program"
done
grep -qE '^\./usr/lib/.*libnmt\.so\.0\.1$' "$work/runtime.files" && pass || fail "nmt lacks libnmt.so.0.1"
grep -q '^\./usr/share/nmt/configs/bible-es-en.toml$' "$work/runtime.files" && pass || fail "nmt lacks the configs"
grep -qE 'include|cmake/|libnmt\.so$' "$work/runtime.files" && fail "nmt carries development files" || pass
grep -q '^\./usr/include/nmt/translate/translator.h$' "$work/dev.files" && pass || fail "nmt-dev lacks the headers"
grep -qE '^\./usr/lib/.*cmake/nmt/nmtConfig\.cmake$' "$work/dev.files" && pass || fail "nmt-dev lacks nmtConfig.cmake"
grep -qE '^\./usr/lib/.*/?libnmt\.so$' "$work/dev.files" && pass || fail "nmt-dev lacks the libnmt.so link"
grep -qE 'sentencepiece|spm_|\.a$|/log\.h$' "$work/runtime.files" "$work/dev.files" &&
  fail "private files packaged: $(grep -hE 'sentencepiece|spm_|\.a$|/log\.h$' "$work/runtime.files" "$work/dev.files")" || pass

# Dependencies: dpkg-shlibdeps found LibTorch, protobuf, spdlog and libc; nmt-dev needs this very nmt.
# A library that no installed package owns (PyTorch's LibTorch on the GPU machine, libraries unpacked
# beside it) gives dpkg-shlibdeps nothing to name: that dependency is not checked, and said so.
depends=$(dpkg-deb -f "$runtime" Depends)
linked=$(ldd "$(find "$build/nmt" -maxdepth 1 -name 'libnmt.so.0.1' | head -n 1)" 2>/dev/null)
for spec in 'libtorch[0-9.]+ libtorch_cpu' 'libprotobuf[0-9]+(t64)? libprotobuf' \
            'libspdlog[0-9.]+(-fmt[0-9]+)? libspdlog' 'libc6 libc'; do
  read -r needed library <<<"$spec"
  path=$(awk -v l="$library.so" 'index($1, l) == 1 {print $3; exit}' <<<"$linked")
  [[ $path == not ]] && { fail "libnmt's $library is not found (ldd)"; continue; }
  real=$(realpath "$path" 2>/dev/null || echo "$path")
  # Merged /usr: dpkg may know the file under /lib or under /usr/lib.
  if [[ -n $path ]] && ! dpkg -S "$real" >/dev/null 2>&1 && ! dpkg -S "$path" >/dev/null 2>&1 &&
     ! dpkg -S "${real#/usr}" >/dev/null 2>&1; then
    echo "not checked: $needed in Depends ($path belongs to no installed package)"
    continue
  fi
  grep -qE "(^|, )$needed( |,|$)" <<<"$depends" && pass || fail "nmt Depends lacks $needed: $depends"
done
dpkg-deb -e "$runtime" "$work/control"
grep -qx "libnmt 0.1 nmt (>= ${version}-1)" "$work/control/shlibs" 2>/dev/null && pass ||
  fail "nmt's shlibs file does not name libnmt 0.1: $(cat "$work/control/shlibs" 2>&1)"
[[ $(dpkg-deb -f "$runtime" Recommends) == *libopenblas0-pthread* ]] && pass || fail "nmt does not recommend OpenBLAS"
dev_depends=$(dpkg-deb -f "$dev" Depends)
[[ $dev_depends == *"nmt (= ${version}-1)"* && $dev_depends == *libtorch-dev* ]] && pass ||
  fail "nmt-dev Depends: $dev_depends"
# Every dependency is a package installed here (one of each set of alternatives), at a version
# that satisfies the relation: the package installs where it was built.
unsatisfied=()
IFS=',' read -ra clauses <<<"$depends"
for clause in "${clauses[@]}"; do
  ok=0
  IFS='|' read -ra alternatives <<<"$clause"
  for alternative in "${alternatives[@]}"; do
    name=$(awk '{print $1}' <<<"$alternative")
    relation=$(sed -n 's/.*(\(.*\)).*/\1/p' <<<"$alternative")
    installed=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null) || continue
    if [[ -z $relation ]] || dpkg --compare-versions "$installed" "$(awk '{print $1}' <<<"$relation" |
         sed 's/>=/ge/;s/<=/le/;s/>>/gt/;s/<</lt/;s/^=$/eq/')" "$(awk '{print $2}' <<<"$relation")"; then
      ok=1
      break
    fi
  done
  [[ $ok -eq 1 ]] || unsatisfied+=("$clause")
done
[[ ${#unsatisfied[@]} -eq 0 ]] && pass || fail "dependencies not satisfied here: ${unsatisfied[*]}"

# Unpacked into a scratch root, the programs run with the packaged libnmt and find every library.
mkdir -p "$work/root"
dpkg-deb -x "$runtime" "$work/root" && dpkg-deb -x "$dev" "$work/root" && pass || fail "dpkg-deb -x failed"
expect 0 "" -- "$work/root/usr/bin/nmt-train" --version
grep -q "$version" "$work/out" && pass || fail "packaged nmt-train --version printed '$(cat "$work/out")'"
ldd "$work/root/usr/bin/nmt-translate" >"$work/ldd.txt" 2>&1
grep -q 'not found' "$work/ldd.txt" && fail "unresolved libraries: $(grep 'not found' "$work/ldd.txt")" || pass
grep -qE "libnmt\.so\.0\.1 => $work/root/" "$work/ldd.txt" && pass ||
  fail "packaged nmt-translate does not load the packaged libnmt: $(grep libnmt "$work/ldd.txt")"
link=$(find "$work/root" -name libnmt.so -type l)
[[ -n $link && -e $link ]] && pass || fail "the libnmt.so link in nmt-dev is dangling"

finish
