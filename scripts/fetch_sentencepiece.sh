#!/usr/bin/env bash
# Fetch SentencePiece 0.1.97 from Debian's source package into third_party/sentencepiece, so that
# CMake builds it as a static library against the system protobuf (the one LibTorch links).
#
# Why not Debian's libsentencepiece.so? It carries a private copy of protobuf-lite 3.14 and exports
# those symbols; LibTorch links the system libprotobuf 3.21; a program linking both crashes before
# main (see docs/architecture.md). One protobuf per process fixes that and keeps the tokenizer usable
# under AddressSanitizer and fuzzers (which a dlopen(RTLD_DEEPBIND) shim would not).
#
# Uses a private apt source list and state directory: nothing under /etc is changed. apt verifies the
# downloaded files against the signed Debian archive index.
# Usage: scripts/fetch_sentencepiece.sh [DEST]   (default: third_party/sentencepiece)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/third_party/sentencepiece}
version=0.1.97-3

if [[ -f $dest/.nmt-fetched && $(cat "$dest/.nmt-fetched") == "$version" ]]; then
  exit 0  # already there
fi
for tool in apt-get dpkg-source patch; do
  command -v "$tool" >/dev/null || { echo "fetch_sentencepiece: '$tool' not found (install dpkg-dev and patch)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/parts" "$work/lists/partial" "$work/dl"
cat > "$work/parts/debian-src.sources" <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/parts"
          -o "Dir::State::Lists=$work/lists" -o APT::Sandbox::User=root -qq)
apt-get "${apt_opts[@]}" update
(cd "$work/dl" && apt-get "${apt_opts[@]}" source --download-only "sentencepiece=$version" >/dev/null)
(cd "$work" && dpkg-source --no-check -x "dl/sentencepiece_$version.dsc" src >/dev/null)

src=$work/src
# Debian's packaging removes the static library targets; we need exactly those.
patch -s -R -p1 -d "$src" < "$src/debian/patches/disable-static-library.patch"
# Debian patch 0023 includes the bundled protobuf-lite header unconditionally, which breaks the
# (upstream-supported) build against an external protobuf.
sed -i 's|#include "third_party/protobuf-lite/google/protobuf/message_lite.h"|#include <google/protobuf/message_lite.h>|' \
  "$src/src/init.h"
# Test data, Python bindings and docs are not needed to build the library (keeps the tree small).
rm -rf "$src/data" "$src/python" "$src/doc" "$src/debian"
echo "$version" > "$src/.nmt-fetched"

rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$src" "$dest"
echo "fetched SentencePiece $version into $dest"
