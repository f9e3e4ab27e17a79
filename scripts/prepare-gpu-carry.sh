#!/usr/bin/env bash
# Pack what scripts/check-cuda.sh needs on the lent GPU machine (no network there) into one file under
# the device tool's 64 MiB: the Debian libraries the build needs (../shared/gpu/debian-deps.sh,
# trimmed: no static libraries but GoogleTest's, no docs), SentencePiece's source (no quilt
# patches), the Bible corpus's train/dev/test sides with the reference subword model (8000 pieces,
# trained here when missing) and, for the int8 stage, a model and its shortlist. Run here, in the
# project root, after the corpus exists (scripts/quickstart.sh or scripts/prepare_bible.py) and the
# programs are built.
#
# Usage: scripts/prepare-gpu-carry.sh [--int8-model PT] [--out FILE]
#   --int8-model PT  the int8 stage's model (default: the first that exists of the reference model
#                    of docs/benchmarks.md's int8 tables, runs/bench-ref/checkpoints/step-00002000.pt,
#                    and runs/quality-study/recipe/best.pt)
#   --out FILE       default .gpu/carry.tar.xz (.gpu is kept out of git through .git/info/exclude)
# Writes .deps/root (replaced; check-cuda.sh's --deps default), .gpu/int8-model.pt and its shortlist
# .gpu/int8-shortlist.txt (build/apps/nmt-checkpoint shortlist on data/bible's training side) as well.
# Then, with the device tool (two calls of one lease; docs/benchmarks.md, "On a GPU"):
#   run  carry [".gpu/carry.tar.xz"]:  tar xJf .gpu/carry.tar.xz && scripts/check-cuda.sh /tmp/cc
#        --budget 545 --reserve 280 --targets all --stages "cuda-tests bench-train int8 train";
#        tar czf $OUT/cc1.tar.gz -C /tmp cc
#   run  (at once, the machine still warm):  scripts/check-cuda.sh /tmp/cc2 --no-build --budget 350
#        --stages suite; cp /tmp/cc2/ctest.log /tmp/cc2/summary.txt $OUT/
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
model="" out=.gpu/carry.tar.xz
while [[ $# -gt 0 ]]; do
  case $1 in
    --int8-model) model=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "prepare-gpu-carry.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
fail() { echo "prepare-gpu-carry.sh: $*" >&2; exit 1; }
if [[ -z $model ]]; then
  for candidate in runs/bench-ref/checkpoints/step-00002000.pt runs/quality-study/recipe/best.pt; do
    [[ -f $candidate ]] && { model=$candidate; break; }
  done
fi
for f in train.es train.en dev.es dev.en test.es test.en; do
  [[ -f data/bible/$f ]] || fail "missing data/bible/$f: build the corpus first (scripts/prepare_bible.py --out data/bible)"
done
[[ -f third_party/sentencepiece/CMakeLists.txt ]] || fail "no SentencePiece source: run scripts/setup.sh first"
if [[ ! -f data/bible/spm.model ]]; then
  [[ -x build/apps/nmt-tokenizer ]] || fail "no data/bible/spm.model and no build/apps/nmt-tokenizer to train it"
  build/apps/nmt-tokenizer train -i data/bible/train.es -i data/bible/train.en -m data/bible/spm.model --vocab-size 8000
fi

mkdir -p .git/info .gpu
for ignored in /.deps/ /build-cuda/ /.gpu/; do
  grep -qxF "$ignored" .git/info/exclude 2>/dev/null || echo "$ignored" >>.git/info/exclude
done
deps=$(mktemp -d)
trap 'rm -rf "$deps"' EXIT
../shared/gpu/debian-deps.sh "$deps" libprotobuf-dev libprotobuf32 protobuf-compiler libprotoc32 \
  nlohmann-json3-dev zlib1g-dev libgloo-dev pkgconf-bin libpkgconf3 libcairo2-dev libcairo2 \
  libpixman-1-0 libfontconfig1 libfreetype6 libpng16-16 libxcb-shm0 libxcb1 libxcb-render0 \
  libxrender1 libx11-6 libxext6 libexpat1 libbrotli1 libxau6 libxdmcp6 libbsd0 libmd0 \
  fontconfig-config fonts-dejavu-core libglib2.0-dev libglib2.0-0 libpcre2-8-0 >/dev/null
find "$deps/root" -name '*.a' ! -name 'libgtest*' -delete
find "$deps/root" -name '*sentencepiece*' -prune -exec rm -rf {} +
rm -rf "$deps/root/usr/share/doc" "$deps/root/usr/share/man" "$deps/root/usr/share/glib-2.0" \
  "$deps/root/usr/share/gettext" "$deps/root/usr/src/googletest/googlemock/docs"
rm -rf .deps/root && mkdir -p .deps && mv "$deps/root" .deps/root

files=(.deps/root third_party/sentencepiece data/bible/{train.es,train.en,dev.es,dev.en,test.es,test.en,spm.model})
rm -f .gpu/int8-model.pt .gpu/int8-shortlist.txt
if [[ -n $model && -f $model ]]; then
  cp "$model" .gpu/int8-model.pt
  files+=(.gpu/int8-model.pt)
  # Its shortlist, so that the int8 stage measures the shortlist's rows too (seconds here; nmt-checkpoint
  # is not among the targets built there).
  if [[ -x build/apps/nmt-checkpoint ]] &&
     build/apps/nmt-checkpoint shortlist .gpu/int8-model.pt --source data/bible/train.es --target data/bible/train.en \
       -o .gpu/int8-shortlist.txt >/dev/null 2>&1; then
    files+=(.gpu/int8-shortlist.txt)
  else
    echo "prepare-gpu-carry.sh: no shortlist made (build/apps/nmt-checkpoint): the int8 stage runs without one" >&2
  fi
else
  echo "prepare-gpu-carry.sh: no int8 model (${model:-none found}): the int8 stage will skip its translation benchmark" >&2
fi
tar -c --exclude=third_party/sentencepiece/.pc "${files[@]}" | xz -6 -T0 >"$out.partial"
mv "$out.partial" "$out"
size=$(stat -c %s "$out")
# What travels beside it: tracked files and untracked ones git does not ignore.
tree=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -n 1 | cut -f1)
echo "wrote $out: $((size / 1048576)) MiB (the tracked tree: $((tree / 1048576)) MiB; the device tool takes 64 MiB in all)"
((size + tree < 64 * 1048576)) || fail "$out and the tree exceed 64 MiB: carry less"
