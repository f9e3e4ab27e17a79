#!/usr/bin/env bash
# Run the README's test command (scripts/test.sh) in a fresh Debian 13 ("trixie") root, as a new
# user on the current Debian stable would: a minimal root made with debootstrap, a clean clone of
# this repository's HEAD copied in, nothing else. Set-up (packages, SentencePiece), build and
# every test happen inside. Needs root (debootstrap, chroot, mounts) and the network (Debian's
# mirror). Prints the test summary and writes it, with the versions found, to CACHE/last-run.txt.
#
# Cached between runs under CACHE: the debootstrapped base root (made once, copied for each run)
# and apt's downloaded packages. The copy a run works in is CACHE/root (kept for inspection until
# the next run; --clean removes it at the end).
#
# Exit status: that of scripts/test.sh in the root; 77 when this machine cannot make the root at
# all (not root, no debootstrap, no mounts allowed, the mirror unreachable): the check did not run.
#
# Usage: scripts/check-debian13.sh [--cache DIR] [--mirror URL] [--python-torch] [--clean] [--command CMD]
#   --cache DIR     default: $NMT_DEBIAN13_CACHE or /var/cache/nmt/debian13
#   --mirror URL    default: http://deb.debian.org/debian
#   --python-torch  also check checkpoints across versions: the Debian 12 build's (this machine's
#                   build/, when it exists) are run from Python with Debian 13's python3-torch
#                   (PyTorch 2.6) beside the root's own tests (which install python3-torch anyway:
#                   scripts/test.sh --test-packages)
#   --clean         remove the working root after the run
#   --command CMD   run CMD (bash, in the clone) instead of scripts/test.sh: e.g. 'scripts/quickstart.sh',
#                   the README's main job as a new user on a fresh machine runs it (docs/benchmarks.md)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${NMT_DEBIAN13_CACHE:-/var/cache/nmt/debian13}
mirror=http://deb.debian.org/debian
python_torch=0 clean=0 command=scripts/test.sh
while [[ $# -gt 0 ]]; do
  case $1 in
    --cache) cache=$(realpath -m "$2"); shift 2 ;;
    --mirror) mirror=$2; shift 2 ;;
    --python-torch) python_torch=1; shift ;;
    --clean) clean=1; shift ;;
    --command) command=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "check-debian13.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
cache=$(realpath -m "$cache")  # absolute, as /proc/mounts names mount points (unmount_under)
say() { printf '== debian13: %s\n' "$*"; }
cannot() { echo "check-debian13.sh: cannot run here: $*" >&2; exit 77; }
# Mounts left inside an old root (a run killed before its cleanup, or someone's chroot session)
# are released first, and removal never crosses into a mount: the host's /proc stays untouched.
unmount_under() {
  local point
  awk -v prefix="$1/" 'index($2, prefix) == 1 {print $2}' /proc/mounts | sort -r |
    while read -r point; do umount -l "$point" || true; done
}
[[ $EUID -eq 0 ]] || cannot "needs root (debootstrap, chroot and mounts)"
host=${mirror#*://}
host=${host%%/*}
port=80
[[ $mirror == https://* ]] && port=443
[[ $host == *:* ]] && port=${host##*:}
timeout 20 bash -c "exec 3<>/dev/tcp/${host%%:*}/$port" 2>/dev/null || cannot "the mirror $mirror is unreachable"
git -C "$repo" rev-parse HEAD >/dev/null 2>&1 || { echo "check-debian13.sh: $repo is not a git checkout" >&2; exit 1; }
if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; } ||
    cannot "debootstrap is missing and could not be installed"
fi

base=$cache/base root=$cache/root archives=$cache/apt-archives
# The script removes and remakes CACHE/base and CACHE/root: it works only in a folder of its own
# (marked at first use), never in one that holds anything else (--cache / would name /root).
if [[ -d $cache && ! -f $cache/.nmt-debian13-cache && -n $(ls -A "$cache") ]]; then
  echo "check-debian13.sh: $cache is not empty and not a cache of this script; choose an empty or new --cache" >&2
  exit 1
fi
mkdir -p "$cache" "$archives/partial"
touch "$cache/.nmt-debian13-cache"
start=$SECONDS

# One run at a time per cache: a second one would copy over the first one's root.
exec 9>"$cache/.lock"
flock -n 9 || { echo "check-debian13.sh: another check is running with cache $cache" >&2; exit 1; }

if [[ ! -f $base/.nmt-base-ready ]]; then
  say "making the base root with debootstrap (once; cached in $base)"
  unmount_under "$base"
  rm -rf --one-file-system "$base"
  debootstrap --variant=minbase trixie "$base" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    cannot "debootstrap failed (see $cache/debootstrap.log)"
  echo "deb $mirror trixie main" >"$base/etc/apt/sources.list"
  date -u +%Y-%m-%dT%H:%M:%SZ >"$base/.nmt-base-ready"
fi

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  unmount_under "$root"  # anything mounted inside the root while it ran
  if [[ $clean -eq 1 ]]; then rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT

say "fresh root from the base ($(cat "$base/.nmt-base-ready"))"
unmount_under "$root"
rm -rf --one-file-system "$root"
cp -a "$base" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# The root has its own /dev (device nodes made by debootstrap): nothing in it is the host's.
mount -t proc proc "$root/proc" || cannot "mounting proc in the root is not allowed"
mounted+=("$root/proc")
mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm" && mounted+=("$root/dev/shm")
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts" 2>/dev/null && mounted+=("$root/dev/pts")  # apt's log
mount --bind "$archives" "$root/var/cache/apt/archives" && mounted+=("$root/var/cache/apt/archives")

commit=$(git -C "$repo" rev-parse --short HEAD)
if [[ -n $(git -C "$repo" status --porcelain --untracked-files=no) ]]; then
  say "warning: uncommitted changes are not part of the check (it tests HEAD, $commit)"
fi
git clone -q "$repo" "$root/root/nmt"

in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -c "$1"
}
# Checkpoints written by this machine's build (Debian 12, LibTorch 1.13), with what nmt computed on
# them, for the root's PyTorch to run (tests/model/scripted_checkpoint_test.cc writes them).
host_checkpoints=0
if [[ $python_torch -eq 1 && $command == scripts/test.sh && -x $repo/build/tests/test_model ]]; then
  say "writing checkpoints with this machine's build for Debian 13's PyTorch"
  mkdir -p "$root/root/host-checkpoints"
  NMT_SCRIPTED_EXPORT_DIR=$root/root/host-checkpoints "$repo/build/tests/test_model" \
    --gtest_filter='ScriptedCheckpoint.EveryArchitectureAgreesWithNmtFromPython' >"$cache/host-checkpoints.log" 2>&1 && host_checkpoints=1 ||
    say "warning: writing them failed (see $cache/host-checkpoints.log)"
fi

say "running $command in the root (clone of $commit); log in $cache/last-run.log"
set +e
in_root "cd /root/nmt && $command" >"$cache/last-run.log" 2>&1
status=$?
if [[ $host_checkpoints -eq 1 ]]; then
  say "running the Debian 12 build's checkpoints with Debian 13's PyTorch"
  in_root '/usr/bin/python3 /root/nmt/tests/model/scripted_checkpoint_check.py /root/host-checkpoints' \
    >>"$cache/last-run.log" 2>&1 || status=1
fi
set -e

versions=$(in_root "dpkg-query -W -f='\${Package} \${Version}\n' libtorch-dev libsentencepiece-dev libprotobuf-dev \
  libcli11-dev libspdlog-dev libgtest-dev g++ cmake python3-torch 2>/dev/null" || true)
{
  echo "Debian 13 check of $commit on $(date -u +%Y-%m-%d), $(nproc) cores, $((SECONDS - start)) s, exit status $status"
  echo "$(in_root '. /etc/os-release && echo "$PRETTY_NAME"')"
  echo "$versions"
  grep -E 'tests passed|Total Test time|^The following tests FAILED|\(Failed\)|\(Timeout\)|architectures agree' "$cache/last-run.log" || true
} >"$cache/last-run.txt"
cat "$cache/last-run.txt"
if [[ $status -ne 0 ]]; then
  echo "check-debian13.sh: $command failed in Debian 13 (exit $status); the last lines:" >&2
  tail -n 30 "$cache/last-run.log" >&2
fi
exit "$status"
