#!/usr/bin/env bash
# CLI tests of the faults issue 13 found, run as a hostile user would: outputs that are devices,
# FIFOs, links or each other; two trainers on one run directory; kill -9; damaged checkpoints;
# absurd numbers; malformed configuration files; binary training text. Each case once lost data,
# damaged a file, crashed or misreported. Trains a small model first (~10 s).
# Usage: reliability_cli_test.sh BIN_DIR DATA_DIR
set -uo pipefail
bin=$1 data=$2
source "$(dirname "$0")/cli_lib.sh"

train=$bin/nmt-train translate=$bin/nmt-translate tokenizer=$bin/nmt-tokenizer
head -n 12 "$data/toy.es" >"$work/dev.es"
head -n 12 "$data/toy.en" >"$work/dev.en"
cat >"$work/toy.toml" <<TOML
device = "cpu"

[data]
train-source = "$data/toy.es"
train-target = "$data/toy.en"
dev-source = "$work/dev.es"
dev-target = "$work/dev.en"
source-spm = "$work/spm.model"
vocab-size = 300

[model]
embedding-size = 16
encoder-hidden-size = 16
decoder-hidden-size = 16
attention-size = 16

[train]
max-steps = 20
max-tokens = 400
log-every = 5

[valid]
every = 0

[checkpoint]
every = 10
TOML
"$train" --config "$work/toy.toml" --run-dir "$work/model" --train.max-steps 30 >/dev/null 2>"$work/train.err" ||
  { echo "training the test model failed: $(tail -n 2 "$work/train.err")"; exit 1; }
model=$work/model/best.pt
head -n 6 "$data/toy.es" >"$work/in.es"
"$translate" -m "$model" -i "$work/in.es" -o "$work/expected.en" 2>/dev/null || fail "reference translation failed"

# --- Outputs: a device, a FIFO and a link are written, never replaced. ---------------------------
if mknod "$work/null" c 1 3 2>/dev/null; then
  expect 0 "" -- "$translate" -m "$model" -i "$work/in.es" -o "$work/null"
  [[ -c $work/null ]] && pass || fail "-o a device node turned it into $(stat -c %F "$work/null")"
else
  echo "skip: mknod needs root"
fi
expect 0 "" -- "$translate" -m "$model" -i "$work/in.es" -o /dev/null --attention-output /dev/null
[[ -c /dev/null ]] && pass || fail "-o /dev/null replaced the system's /dev/null"
"$tokenizer" encode -m "$work/spm.model" -i "$work/in.es" -o /dev/null && [[ -c /dev/null ]] && pass ||
  fail "nmt-tokenizer -o /dev/null"

mkfifo "$work/fifo"
timeout 60 cat "$work/fifo" >"$work/from-fifo" &
reader=$!
expect 0 "" -- timeout 60 "$translate" -m "$model" -i "$work/in.es" -o "$work/fifo"
wait "$reader" && pass || fail "the FIFO's reader did not finish (blocked forever once)"
cmp -s "$work/from-fifo" "$work/expected.en" && pass || fail "the FIFO's reader got other bytes"
[[ -p $work/fifo ]] && pass || fail "-o a FIFO turned it into $(stat -c %F "$work/fifo")"

# /dev/stdout and bash's >(...) are links through /proc to a descriptor: written in place.
(cd "$work" && "$translate" -m "$model" -i "$work/in.es" -o /dev/stdout >"$work/stdout.en" 2>/dev/null) &&
  cmp -s "$work/stdout.en" "$work/expected.en" && pass || fail "-o /dev/stdout"
(cd "$work" && "$translate" -m "$model" -i "$work/in.es" -o >(cat >"$work/subst.en") 2>/dev/null) || fail "-o >(...)"
for _ in $(seq 50); do cmp -s "$work/subst.en" "$work/expected.en" && break; sleep 0.1; done
cmp -s "$work/subst.en" "$work/expected.en" && pass || fail "-o >(...) did not reach the pipe"
[[ -z $(find "$work" -maxdepth 1 -name 'pipe:*' -o -maxdepth 1 -name 'stdout.tmp.*') ]] && pass ||
  fail "a file named after a descriptor was created"

mkdir "$work/real"
ln -s real/out.en "$work/link"
expect 0 "" -- "$translate" -m "$model" -i "$work/in.es" -o "$work/link"
[[ -L $work/link ]] && cmp -s "$work/real/out.en" "$work/expected.en" && pass ||
  fail "-o a link replaced the link instead of writing its target"

# One file as two outputs, a missing folder: refused before anything is written.
expect_error 1 "--attention-output .*same\.en is the same file as --output" -- \
  "$translate" -m "$model" -i "$work/in.es" -o "$work/same.en" --attention-output "$work/same.en"
[[ ! -e $work/same.en ]] && pass || fail "a refused run left same.en"
expect_error 1 "--alignment-output .*link is the same file as --output" -- \
  "$translate" -m "$model" -i "$work/in.es" -o "$work/real/out.en" --alignment-output "$work/link"
expect_error 1 "cannot write .*nowhere/out.en: folder .*nowhere does not exist" -- \
  "$translate" -m "$model" -i "$work/in.es" -o "$work/nowhere/out.en"
[[ ! -e $work/nowhere ]] && pass || fail "the missing folder was created"

# A temporary file left by a killed writer is removed by the next writer of that path.
printf 'half a file' >"$work/again.en.tmp.Xk9dQ2"
expect 0 "" -- "$translate" -m "$model" -i "$work/in.es" -o "$work/again.en"
[[ ! -e $work/again.en.tmp.Xk9dQ2 ]] && pass || fail "a killed writer's temporary file was left"

# --- Absurd numbers: one line, no crash. ----------------------------------------------------------
expect_error 1 "threads must be in \[1, [0-9]+\].*got 1000000000" -- \
  "$translate" -m "$model" -i "$work/in.es" --threads 1000000000
expect_error 1 "workers must be in \[1, [0-9]+\]" -- "$translate" -m "$model" -i "$work/in.es" --workers 1000000000
cores=$(nproc)
if [[ $cores -lt 64 ]]; then
  "$translate" -m "$model" -i "$work/in.es" -o "$work/many.en" --threads 64 2>"$work/err" && pass || fail "--threads 64"
  grep -q -- "threads 64 is more than the $cores cores" "$work/err" && pass || fail "no warning for --threads 64"
fi
expect_error 1 "max-length-a must be in \[0, 1000\], got 1e\+?30" -- \
  "$translate" -m "$model" -i "$work/in.es" --max-length-a 1e30
expect_error 1 "threads must be in \[1, [0-9]+\]" -- "$train" --config "$work/toy.toml" --run-dir "$work/t" --threads 1000000000

# --- Damaged checkpoints: refused with the file's name, in one line. ------------------------------
size=$(stat -c %s "$model")
for offset in $((size / 3)) $((size / 2)) $((size * 9 / 10)); do
  cp "$model" "$work/flipped.pt"
  byte=$(od -An -tu1 -j "$offset" -N1 "$model" | tr -d ' ')
  printf "$(printf '\\%03o' $(((byte + 1) % 256)))" | dd of="$work/flipped.pt" bs=1 seek="$offset" conv=notrunc 2>/dev/null
  expect_error 1 "checkpoint .*flipped\.pt (is damaged|is not a readable)" -- "$translate" -m "$work/flipped.pt" -i "$work/in.es"
done

# --- Run directories: one trainer each; kill -9 loses nothing. ------------------------------------
"$train" --config "$work/toy.toml" --run-dir "$work/run" --train.max-steps 100000 >/dev/null 2>"$work/first.err" &
first=$!
for _ in $(seq 150); do grep -q "step  *10 " "$work/first.err" 2>/dev/null && break; sleep 0.2; done
expect_error 1 "run directory .*run is in use by process $first on $(hostname)" -- \
  "$train" --config "$work/toy.toml" --run-dir "$work/run" --resume --train.max-steps 5
expect_error 1 "is in use by process $first" -- "$train" --config "$work/toy.toml" --run-dir "$work/run"
kill -9 "$first"
wait "$first" 2>/dev/null
latest=$(cat "$work/run/checkpoints/latest")
[[ -f $work/run/checkpoints/$latest.pt ]] && pass || fail "after kill -9, latest names a missing $latest.pt"
step=$((10#${latest#step-}))
expect 0 "" -- "$train" --config "$work/toy.toml" --run-dir "$work/run" --resume --train.max-steps $((step + 10))
[[ -z $(find "$work/run" -name '*.tmp.*') ]] && pass || fail "temporary files left: $(find "$work/run" -name '*.tmp.*')"
[[ $(cat "$work/run/checkpoints/latest") == $(printf 'step-%08d' $((step + 10))) ]] && pass || fail "resume after kill -9"
# The effective configuration a run writes is itself a valid configuration file.
expect 0 "" -- "$train" --config "$work/run/config.toml" --resume --train.max-steps $((step + 10))
grep -q "^share-embeddings = false$" "$work/run/config.toml" && pass || fail "config.toml: a bool written as 0/1"

# --- A signal during start-up: one line saying what it was doing, status 128 + signal. -----------
# sigterm_when PID TRIES PAUSE COMMAND...: runs COMMAND every PAUSE seconds until it succeeds (at
# most TRIES times, or until PID ends), then sends PID SIGTERM and waits: its exit status in `status`.
sigterm_when() {
  local pid=$1 tries=$2 pause=$3
  shift 3
  for _ in $(seq "$tries"); do
    "$@" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep "$pause"
  done
  kill -TERM "$pid"
  wait "$pid"
  status=$?
}
# The training source is a FIFO whose writer writes nothing: nmt-train stays in its start-up,
# reading the training data, for as long as the test wants (issue 44: it died without a line).
mkfifo "$work/silent.es"
sleep 60 >"$work/silent.es" &  # the writer: opens the FIFO once nmt-train does, then holds it
writer=$!
"$train" --config "$work/toy.toml" --run-dir "$work/startup" --data.train-source "$work/silent.es" \
  >/dev/null 2>"$work/startup.err" &
starting=$!
# Until nmt-train has logged its configuration (the end of the "starting" phase, whose file checks
# also open the FIFO for a moment) and then holds the FIFO open: it waits in read, loading the data.
loading_silent_fifo() {
  grep -qs "effective configuration" "$work/startup/train.log" && ls -l "/proc/$starting/fd" 2>/dev/null | grep -q silent.es
}
sigterm_when "$starting" 300 0.1 loading_silent_fifo
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
[[ $status -eq 143 ]] && pass || fail "SIGTERM during start-up: exit status $status, expected 143"
line="nmt-train: stopped by SIGTERM while loading the training data and building the model;"
line+=" no step was trained, no checkpoint written"
tail -n 1 "$work/startup.err" | grep -qxF "$line" && pass ||
  fail "SIGTERM during start-up: last line is '$(tail -n 1 "$work/startup.err")'"
[[ -z $(find "$work/startup" -name '*.tmp.*' -o -name '*.pt' -o -name latest) ]] && pass ||
  fail "SIGTERM during start-up left $(find "$work/startup" -name '*.tmp.*' -o -name '*.pt' -o -name latest)"

# A signal while the subword model trains on a TSV corpus: nmt-train has written the corpus's
# columns beside the model (SPM.corpus1.source.tmp, .target.tmp, opened "wbx": a leftover would stop
# the next run); they go with the program.
{ printf 'es\ten\n'; for _ in $(seq 40); do paste "$data/toy.es" "$data/toy.en"; done; } >"$work/big.tsv"
sed -e "/^train-source/d" -e "/^train-target/d" -e "s|^source-spm = .*|source-spm = \"$work/tsvspm.model\"|" \
  "$work/toy.toml" >"$work/tsv.toml"
printf '\n[[data.corpus]]\ntsv = "%s"\nsource-column = "es"\ntarget-column = "en"\n' "$work/big.tsv" >>"$work/tsv.toml"
"$train" --config "$work/tsv.toml" --run-dir "$work/tsvrun" >/dev/null 2>"$work/tsvrun.err" &
starting=$!
# Once the columns exist: SentencePiece then trains on them for a second or more.
sigterm_when "$starting" 3000 0.01 test -e "$work/tsvspm.model.corpus1.target.tmp"
[[ $status -eq 143 ]] && pass || fail "SIGTERM while training the subword model: exit status $status, expected 143"
grep -qF "nmt-train: stopped by SIGTERM while loading the subword models;" "$work/tsvrun.err" && pass ||
  fail "SIGTERM while training the subword model: $(tail -n 1 "$work/tsvrun.err")"
[[ -z $(find "$work" -maxdepth 1 -name 'tsvspm.model.corpus*') ]] && pass ||
  fail "SIGTERM while training the subword model left $(find "$work" -maxdepth 1 -name 'tsvspm.model.corpus*')"

# Older, higher-numbered step files of another run: refused, and nothing deleted.
mkdir -p "$work/foreign/checkpoints"
cp "$model" "$work/foreign/checkpoints/step-00090000.pt"
expect_error 1 "holds checkpoints of another run \(checkpoints/step-00090000.pt\) but no checkpoints/latest" -- \
  "$train" --config "$work/toy.toml" --run-dir "$work/foreign" --train.max-steps 20
cmp -s "$model" "$work/foreign/checkpoints/step-00090000.pt" && pass || fail "a foreign step file was touched"

# --- Configuration files: strict, with our messages; usage errors exit 2. --------------------------
config_error() {  # config_error PATTERN FILE_CONTENT (printf format)
  printf "$2" >"$work/bad.toml"
  expect_error 2 "$1" -- "$train" --config "$work/bad.toml"
}
config_error 'bad\.toml:2: optim\.lr must be a number, got "fast"' '[optim]\nlr = "fast"\n'
config_error 'bad\.toml:2: train\.max-steps must be an integer, got "100"' '[train]\nmax-steps = "100"\n'
config_error 'bad\.toml:1: threads must be an integer, got 1\.5' 'threads = 1.5\n'
config_error 'bad\.toml:2: arrays are not accepted' '[data]\ntrain-source = ["a", "b"]\n'
config_error "bad\.toml:3: key 'train.max-steps' is set twice \(first on line 2\)" '[train]\nmax-steps = 1\nmax-steps = 2\n'
config_error "bad\.toml:2: unknown key 'train.max-step'" '[train]\nmax-step = 5\n'
config_error "bad\.toml:1: 'cpu' is not a TOML value \(strings need quotes" 'device = cpu\n'
config_error 'bad\.toml: not a text file' '\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe'
config_error 'bad\.toml:2: model\.share-embeddings must be true or false, got 1' '[model]\nshare-embeddings = 1\n'
config_error 'bad\.toml:1: .*multi-line strings' 'run-dir = """x"""\n'
expect_error 2 "--optim\.lr: 'fast' is not a decimal number" -- "$train" --config "$work/toy.toml" --optim.lr fast
# A byte-order mark (some editors write one) is not part of the first key.
{ printf '\xef\xbb\xbf'; cat "$work/toy.toml"; } >"$work/bom.toml"
expect_error 1 "train.max-steps, train.max-epochs" -- "$train" --config "$work/bom.toml" --run-dir "$work/b" \
  --train.max-steps 0 --train.max-epochs 0

# --- Training data and sizes (the trainer logs its start first: the error is the last line). -------
: >"$work/empty.es"
: >"$work/empty.en"
expect 1 "dev set .*empty\.es .* has no sentence pair" -- "$train" --config "$work/toy.toml" --run-dir "$work/e" \
  --data.dev-source "$work/empty.es" --data.dev-target "$work/empty.en" --data.source-spm "$work/spm.model"
[[ -z $(grep -h "nan" "$work"/e/train.log 2>/dev/null) ]] && pass || fail "NaN reported"
grep -q "error.*has no sentence pair" "$work/e/train.log" && pass || fail "the fatal error is not in train.log"
{ head -n 3 "$data/toy.es"; printf 'bad \0 line\n'; } >"$work/nul.es"
head -n 4 "$data/toy.en" >"$work/nul.en"
expect 1 "nul\.es:4: NUL byte at byte 5" -- "$train" --config "$work/toy.toml" --run-dir "$work/n" \
  --data.train-source "$work/nul.es" --data.train-target "$work/nul.en" --data.source-spm "$work/nul-spm.model"
expect 1 "cannot build the model \(.*encoder-hidden-size 200000.*\): .*allocate" -- \
  "$train" --config "$work/toy.toml" --run-dir "$work/huge" --model.encoder-hidden-size 200000
expect 1 "vocabulary of 20 pieces is too small .* at least [0-9]+" -- \
  "$train" --config "$work/toy.toml" --run-dir "$work/v" --data.vocab-size 20 --data.source-spm "$work/tiny-spm.model"

# Numbers (issue 29): decimal only, on the command line and in files; out of range named with the
# limit; a config value's error names FILE:LINE; nothing quoted at length.
printf 'la casa\n' >"$work/one.es"
expect 0 "" -- "$translate" -m "$model" -i "$work/one.es" -o "$work/b010.en" -b 010 --n-best 010 --progress never
expect 0 "" -- "$translate" -m "$model" -i "$work/one.es" -o "$work/b10.en" -b 10 --n-best 10 --progress never
cmp -s "$work/b010.en" "$work/b10.en" && pass || fail "-b 010 is not ten"
expect_error 2 "--beam-size: '0x10' is not a decimal integer" -- "$translate" -m "$model" -b 0x10
expect_error 2 "--beam-size: ' 5' is not a decimal integer" -- "$translate" -m "$model" -b " 5"
expect_error 2 "--beam-size must be in \[-9223372036854775808, 9223372036854775807\], got 99999999999999999999" -- \
  "$translate" -m "$model" -b 99999999999999999999
expect_error 2 "--threads must be in \[-2147483648, 2147483647\], got 4294967297" -- \
  "$translate" -m "$model" --threads 4294967297
expect_error 2 "--chunk-lines must be in \[0, 18446744073709551615\], got -1" -- \
  "$translate" -m "$model" --chunk-lines -1
expect_error 2 "--length-alpha: 'nan' is not a decimal number" -- "$translate" -m "$model" --length-alpha nan
expect_error 2 "--length-alpha: '1e999' is beyond the range of a double" -- "$translate" -m "$model" --length-alpha 1e999
expect_error 2 "--train.max-steps: '1_000' is not a decimal integer" -- "$train" --config "$work/toy.toml" --train.max-steps 1_000
expect_error 2 "--vocab-size: '0x100' is not a decimal integer" -- "$tokenizer" train -i "$data/toy.es" -m "$work/x.model" --vocab-size 0x100
printf '[train]\nmax-steps = 18446744073709551616\n' >"$work/big-int.toml"
expect_error 2 "big-int\.toml:2: train\.max-steps must be in \[-9223372036854775808, 9223372036854775807\], got 18446744073709551616" -- \
  "$train" --config "$work/big-int.toml"
printf '[train]\nmax-steps = 1_0\nmax-tokens = 0x10\n' >"$work/hex.toml"
expect_error 2 "hex\.toml:3: '0x10' is not a TOML value" -- "$train" --config "$work/hex.toml"
printf '[optim]\nlr = 1e999\n' >"$work/inf.toml"
expect_error 2 "inf\.toml:2: optim\.lr: '1e999' is beyond the range of a double" -- "$train" --config "$work/inf.toml"
{ cat "$work/toy.toml"; printf '\n[schedule]\n'; } >"$work/file-line.toml"
sed -i 's/^max-steps = 20$/max-steps = 20\nlabel-smoothing = 1.5/' "$work/file-line.toml"
line=$(grep -n 'label-smoothing = 1.5' "$work/file-line.toml" | cut -d: -f1)
expect_error 1 "file-line\.toml:$line: train\.label-smoothing must be in \[0, 1\), got 1.5" -- \
  "$train" --config "$work/file-line.toml" --run-dir "$work/fl"
expect_error 1 "\[error\] train\.label-smoothing must be in" -- \
  "$train" --config "$work/file-line.toml" --run-dir "$work/fl" --train.label-smoothing 1.5
# Strings: a control character cannot hide in a path; long keys and values are cut when quoted.
printf '[data]\ntrain-source = "a\\u0000b"\n' >"$work/nul-path.toml"
expect_error 2 "nul-path\.toml:2: U\+0000 \(NUL\) in a string" -- "$train" --config "$work/nul-path.toml"
printf '[data]\ntrain-source = "a\\tb"\n' >"$work/tab-path.toml"
expect_error 1 "tab-path\.toml:2: data\.train-source: control character 9 in 'a.x09b'" -- "$train" --config "$work/tab-path.toml"
expect_error 1 "\[error\] run-dir: control character 10 in" -- "$train" --config "$work/toy.toml" --run-dir "$(printf 'r\nx')"
/usr/bin/env python3 -c "print('[train]\nmax-steps = \"' + 'a' * 1000000 + '\"')" >"$work/long-value.toml"
expect_error 2 "long-value\.toml:2: train\.max-steps must be an integer, got 'a{60}\.\.\.' \(1000000 bytes\)" -- \
  "$train" --config "$work/long-value.toml"
[[ $(wc -c <"$work/err") -lt 400 ]] && pass || fail "a long value was echoed: $(wc -c <"$work/err") bytes"
/usr/bin/env python3 -c "print('[train]\n' + 'k' * 100000 + ' = 1')" >"$work/long-key.toml"
expect_error 2 "long-key\.toml:2: unknown key 'train\.k{54}\.\.\.' \(100006 bytes\)" -- "$train" --config "$work/long-key.toml"
# --config: only regular files, at most 1 MiB (a FIFO hung the reader; /dev/zero filled memory).
mkfifo "$work/config.fifo"
expect_error 2 "--config '.*config\.fifo': not a regular file" -- timeout 10 "$train" --config "$work/config.fifo"
expect_error 2 "--config '/dev/zero': not a regular file" -- timeout 10 "$train" --config=/dev/zero
head -c 1048577 /dev/zero | tr '\0' '#' >"$work/huge.toml"
expect_error 2 "--config '.*huge\.toml': 1048577 bytes, more than the 1048576" -- "$train" --config "$work/huge.toml"
# The effective configuration a run saves is read back by the same strict reader.
expect 0 "" -- "$train" --config "$work/toy.toml" --run-dir "$work/canon" --optim.lr .5e-2 --train.max-steps 002 \
  --train.label-smoothing 1e-1 --train.max-tokens +400
grep -qx 'lr = 0.005' "$work/canon/config.toml" && grep -qx 'max-steps = 2' "$work/canon/config.toml" && pass ||
  fail "config.toml is not canonical: $(grep -E '^(lr|max-steps) ' "$work/canon/config.toml")"
expect 0 "" -- "$train" --config "$work/canon/config.toml" --run-dir "$work/canon2"

# --- NMT_CPU_CAPABILITY: a cap on the kernels' vector build, refused by name at start. ------------
expect_error 1 "NMT_CPU_CAPABILITY: 'sse' is not one of avx512, avx512bw, avx2, portable" -- \
  env NMT_CPU_CAPABILITY=sse "$train" --config "$work/toy.toml" --run-dir "$work/capability"
[[ ! -e $work/capability ]] && pass || fail "a refused NMT_CPU_CAPABILITY still made the run directory"
expect_error 1 "NMT_CPU_CAPABILITY: 'AVX2' is not one of" -- \
  env NMT_CPU_CAPABILITY=AVX2 "$translate" -m "$model" -i "$work/in.es" -o "$work/capability.en"
[[ ! -e $work/capability.en ]] && pass || fail "a refused NMT_CPU_CAPABILITY still wrote its output"
# Every build the CPU can run translates to the same bytes (each product is the same fma chains).
for capability in avx512 avx2 portable; do
  expect 0 "" -- env NMT_CPU_CAPABILITY=$capability "$translate" -m "$model" -i "$work/in.es" -o "$work/$capability.en"
  cmp -s "$work/$capability.en" "$work/expected.en" && pass || fail "NMT_CPU_CAPABILITY=$capability translated otherwise"
done

finish
