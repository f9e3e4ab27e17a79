#!/usr/bin/env python3
"""Translate a file with an nmt checkpoint from Python, with nothing installed but torch and
sentencepiece: the checkpoint's own TorchScript methods do the work (docs/checkpoints.md).

    python3 scripts/translate.py CHECKPOINT < input.txt > output.txt
    python3 scripts/translate.py CHECKPOINT --greedy -i input.txt -o output.txt

One sentence a line in, one translation a line out, in input order; an empty or blank line gives an
empty line. The defaults are nmt-translate's: beam 5, the GNMT length penalty with alpha 0.6, at
most 2n + 10 target tokens for n source subwords, sources cut to their first 250 subwords (with a
warning naming the line), the tag of a model trained with tags (--tag, default the training
configuration's data.default-tag) put before every source, so the output equals nmt-translate's
line for line (up to float rounding in near ties: the methods compute with torch's operators,
nmt-translate with its own kernels).
"""
import argparse
import os
import sys
import tempfile
import tomllib

import sentencepiece
import torch


def fail(message):
    print(f"translate.py: {message}", file=sys.stderr)
    sys.exit(1)


def load(path):
    try:
        model = torch.jit.load(path, map_location="cpu")
    except Exception as error:  # torch says a lot; one line is enough
        fail(f"cannot load {path}: {str(error).splitlines()[0] if str(error) else type(error).__name__}")
    if not all(hasattr(model, name) for name in ("beam_search", "greedy", "source_spm", "target_spm", "eos_id")):
        fail(f"{path} has no translation methods (an nmt checkpoint older than format 3? "
             f"run nmt-checkpoint upgrade {path} NEW.pt)")
    return model


def training_config(model):
    """The checkpoint's training configuration as a dict ({} when it has none or it is not TOML)."""
    try:
        return tomllib.loads(str(getattr(model, "training_config", "")))
    except tomllib.TOMLDecodeError:
        return {}


def choose_tag(model, source, requested):
    """The tag's piece id to put before every source, or None: `requested` (None: the training
    configuration's data.default-tag; '': no tag), refused when the model has no such tag."""
    data = training_config(model).get("data", {})
    tag = data.get("default-tag", "") if requested is None else requested
    if not tag:
        return None
    known = []
    for corpus in data.get("corpus", []):
        for key in ("tag", "reverse-tag"):
            if corpus.get(key) and corpus[key] not in known:
                known.append(corpus[key])
    tags = [t for t in known if source.piece_to_id(t) != source.unk_id()]
    if tag not in tags:
        fail(f"--tag {tag!r}: not a tag of the model "
             f"({'its tags: ' + ', '.join(tags) if tags else 'it was trained without tags'})")
    return source.piece_to_id(tag)


def batches(order, lengths, max_sentences, max_tokens):
    """Runs of `order` (sentences sorted longest first) of at most max_sentences sentences and
    max_tokens source positions (padding and EOS included)."""
    batch = []
    for i in order:
        if batch and (len(batch) + 1 > max_sentences or (len(batch) + 1) * (lengths[batch[0]] + 1) > max_tokens):
            yield batch
            batch = []
        batch.append(i)
    if batch:
        yield batch


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="an nmt checkpoint (format 3), e.g. runs/bible/best.pt")
    parser.add_argument("-i", "--input", help="input file (default: stdin)")
    parser.add_argument("-o", "--output", help="output file (default: stdout)")
    parser.add_argument("-b", "--beam", type=int, default=5, help="beam size (default 5; 1 is greedy search)")
    parser.add_argument("--greedy", action="store_true", help="greedy search (the same as --beam 1)")
    parser.add_argument("--length-alpha", type=float, default=0.6, help="GNMT length penalty alpha (default 0.6)")
    parser.add_argument("--max-source-length", type=int, default=250, help="subwords kept per source (default 250)")
    parser.add_argument("--batch-sentences", type=int, default=64, help="sentences per batch (default 64)")
    parser.add_argument("--batch-tokens", type=int, default=4000, help="source positions per batch (default 4000)")
    parser.add_argument("--tag", help="the tag put before every source, for a model trained with tags "
                        "(default: its data.default-tag; '' for none)")
    args = parser.parse_args(argv)
    if args.beam < 1:
        fail(f"--beam must be >= 1, got {args.beam}")
    if args.max_source_length < 1 or args.batch_sentences < 1 or args.batch_tokens < 1:
        fail("--max-source-length, --batch-sentences and --batch-tokens must be >= 1")
    greedy = args.greedy or args.beam == 1

    model = load(args.checkpoint)
    source = sentencepiece.SentencePieceProcessor(model_proto=model.source_spm.numpy().tobytes())
    target = sentencepiece.SentencePieceProcessor(model_proto=model.target_spm.numpy().tobytes())
    tag = choose_tag(model, source, args.tag)

    stream = open(args.input, "rb") if args.input else sys.stdin.buffer
    lines = []
    for number, raw in enumerate(stream, 1):
        try:
            lines.append(raw.rstrip(b"\n").decode("utf-8"))
        except UnicodeDecodeError as error:
            fail(f"{args.input or 'stdin'}:{number}: not UTF-8 ({error.reason} at byte {error.start})")
    ids = []
    for number, line in enumerate(lines, 1):
        pieces = source.encode(line)
        if len(pieces) > args.max_source_length:
            print(f"translate.py: warning: input line {number}: {len(pieces)} subwords, more than the maximum "
                  f"source length {args.max_source_length}; translating the first {args.max_source_length}",
                  file=sys.stderr)
            pieces = pieces[:args.max_source_length]
        ids.append([tag] + pieces if tag is not None and pieces else pieces)

    outputs = [""] * len(lines)
    order = sorted((i for i in range(len(ids)) if ids[i]), key=lambda i: -len(ids[i]))  # stable: ties in input order
    with torch.inference_mode():
        for batch in batches(order, [len(x) for x in ids], args.batch_sentences, args.batch_tokens):
            longest = len(ids[batch[0]]) + 1
            src = torch.full((len(batch), longest), model.pad_id, dtype=torch.long)
            for row, i in enumerate(batch):
                src[row, :len(ids[i]) + 1] = torch.tensor(ids[i] + [model.eos_id])
            src_lengths = torch.tensor([len(ids[i]) + 1 for i in batch])
            if greedy:
                tokens, lengths, _, _ = model.greedy(src, src_lengths)
            else:
                tokens, lengths, _, _ = model.beam_search(src, src_lengths, args.beam, args.length_alpha)
            for row, i in enumerate(batch):
                outputs[i] = target.decode(tokens[row, :lengths[row]].tolist())

    text = "".join(line + "\n" for line in outputs)
    if not args.output:
        sys.stdout.write(text)
    elif os.path.exists(args.output) and not os.path.isfile(args.output):  # a device or a FIFO: in place
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    else:  # whole or not at all: a temporary file beside it, renamed over it
        target = os.path.realpath(args.output)
        handle, temporary = tempfile.mkstemp(prefix=".translate-", dir=os.path.dirname(target))
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
