#!/usr/bin/env python3
"""Greedy and beam search in PyTorch over the nmt model: the Python side of the translation benchmark.

It runs the model of nmt_reference.py (read from an nmt checkpoint with torch.jit.load) one token at a
time and searches step for step as the beam search specification says (docs/search.md), the
algorithm nmt's C++ beam search follows, so that both give the same outputs. It is written the way Joey NMT and OpenNMT-py write
search: batched over sentences and beams in tensors, the source encoded once and the attention keys
precomputed, finished sentences leave the batch, no autograd (torch.inference_mode).

    /usr/bin/python3 scripts/reference/translate_reference.py CHECKPOINT [INPUT] [options]

INPUT (default: stdin) holds one source sentence a line as space-separated subword ids without EOS,
as `nmt-tokenizer encode -m MODEL` prints them; an empty line gives an empty translation. The output
is one line of target ids per sentence (EOS not printed) in input order; with --scores each line is
"ids<TAB>score<TAB>log_prob" (score: the final score with the length and coverage penalties; log_prob:
the raw sum of log-probabilities, EOS included when reached; both printed with Python's repr, which
round-trips). With --n-best N each sentence gets N lines, best first.

Sentences are sorted by length (longest first, ties in input order) and cut into batches of
--batch-size sentences, or, with --max-tokens, as nmt::translate_greedy does (rows x longest source,
EOS included, <= max tokens); outputs are restored to input order. Outputs can depend on the batch
composition in the last bits of the floating-point sums, so compare with a C++ run that forms the
same batches (--max-tokens with the C++ max_tokens).
"""
import argparse
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nmt_reference import Reference, load_checkpoint  # noqa: E402

PAD, BOS, EOS = 0, 2, 3
NEG_INF = float("-inf")


class SearchOptions:
    """The search settings, with nmt::SearchOptions' defaults (nmt/search/search_options.h)."""

    def __init__(self, beam_size=5, n_best=1, length_penalty="gnmt", alpha=0.6, coverage_beta=0.0,
                 max_length_a=2.0, max_length_b=10, min_length=0, no_repeat_ngram=0):
        self.beam_size = beam_size              # k
        self.n_best = n_best                    # n, 1 <= n <= k
        self.length_penalty = length_penalty    # none, average or gnmt
        self.alpha = alpha                      # gnmt exponent
        self.coverage_beta = coverage_beta      # weight of the coverage penalty (0: off)
        self.max_length_a = max_length_a        # at most a * n + b target tokens for n source subwords
        self.max_length_b = max_length_b
        self.min_length = min_length            # EOS is not allowed before this many tokens
        self.no_repeat_ngram = no_repeat_ngram  # N > 0: no N-gram twice in a hypothesis

    def validate(self):
        checks = [(self.beam_size >= 1, f"beam size must be >= 1, got {self.beam_size}"),
                  (1 <= self.n_best <= self.beam_size,
                   f"n-best must be between 1 and the beam size {self.beam_size}, got {self.n_best}"),
                  (self.length_penalty in ("none", "average", "gnmt"),
                   f"length penalty must be none, average or gnmt, got {self.length_penalty!r}"),
                  (math.isfinite(self.alpha) and self.alpha >= 0, f"alpha must be >= 0, got {self.alpha}"),
                  (math.isfinite(self.coverage_beta) and self.coverage_beta >= 0,
                   f"coverage beta must be >= 0, got {self.coverage_beta}"),
                  (math.isfinite(self.max_length_a) and self.max_length_a >= 0,
                   f"max length a must be >= 0, got {self.max_length_a}"),
                  (self.max_length_b >= 0, f"max length b must be >= 0, got {self.max_length_b}"),
                  (self.min_length >= 0, f"min length must be >= 0, got {self.min_length}"),
                  (self.no_repeat_ngram >= 0, f"no-repeat n-gram size must be >= 0, got {self.no_repeat_ngram}")]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)

    def max_length(self, source_subwords):
        """L: the most target tokens for a source of this many subwords (EOS not counted)."""
        return max(1, math.floor(self.max_length_a * source_subwords) + self.max_length_b)

    def lp(self, length):
        if self.length_penalty == "average":
            return float(length)
        if self.length_penalty == "gnmt":
            return ((5.0 + length) / 6.0) ** self.alpha
        return 1.0


class Hypothesis:
    __slots__ = ("tokens", "score", "log_prob", "finished")

    def __init__(self, tokens, score, log_prob, finished):
        self.tokens = tokens        # target ids without EOS
        self.score = score          # final score s (double)
        self.log_prob = log_prob    # raw score r: float32 sum of log-probabilities, widened
        self.finished = finished    # ended with EOS (False: stopped at the length limit)


def final_score(options, log_prob, length, coverage, source_length):
    """s = r / lp(|Y|) + cp in double; coverage [src_len] float32 (None when beta = 0)."""
    cp = 0.0
    if options.coverage_beta != 0.0:
        total = 0.0
        for c in coverage[:source_length].tolist():  # sequential sum in source order
            total += math.log(min(max(c, 1e-10), 1.0))
        cp = options.coverage_beta * total
    return log_prob / options.lp(length) + cp


def constrain(log_probs, step, options, history):
    """Sets forbidden tokens to -inf in place. log_probs [rows, V]; step = tokens held by every row;
    history [rows, step] (int64) the rows' tokens."""
    if step < options.min_length:
        log_probs[:, EOS] = NEG_INF
    N = options.no_repeat_ngram
    if N > 0 and step >= N - 1 and step > 0:
        rows, tokens = [], []
        for row, hyp in enumerate(history.tolist()):
            prefix = hyp[len(hyp) - (N - 1):] if N > 1 else []
            for j in range(len(hyp) - N + 1):
                if hyp[j:j + N - 1] == prefix and hyp[j + N - 1] != EOS:
                    rows.append(row)
                    tokens.append(hyp[j + N - 1])
        if rows:
            log_probs[torch.tensor(rows), torch.tensor(tokens)] = NEG_INF


def greedy_search(model, source, source_lengths, options):
    """The most probable token at each step (nmt::greedy_search): one Hypothesis per batch row. As in
    nmt, the length and coverage penalties do not apply (score = log_prob)."""
    batch = source.shape[0]
    limit = [options.max_length(m - 1) for m in source_lengths.tolist()]
    state = model.encode(source, source_lengths)
    active = list(range(batch))          # batch row of each state row
    tokens = [[] for _ in range(batch)]
    results = [None] * batch
    previous = torch.full((batch,), BOS, dtype=torch.long)
    raw = torch.zeros(batch)             # float32 r per state row
    history = torch.empty(batch, 0, dtype=torch.long)
    step = 0
    while active:
        log_probs, _, state = model.step(state, previous)
        constrain(log_probs, step, options, history)
        best, ids = log_probs.max(dim=1)
        raw = raw + best
        id_list, raw_list, keep = ids.tolist(), raw.tolist(), []
        for j, row in enumerate(active):
            token = id_list[j]
            if token != EOS:
                tokens[row].append(token)
                if len(tokens[row]) < limit[row]:
                    keep.append(j)
                    continue
            results[row] = Hypothesis(tokens[row], raw_list[j], raw_list[j], token == EOS)
        if not keep:
            break
        if len(keep) != len(active):
            index = torch.tensor(keep)
            state, previous, raw = state.select(index), ids.index_select(0, index), raw.index_select(0, index)
            active = [active[j] for j in keep]
        else:
            previous = ids
        if options.no_repeat_ngram > 0:
            history = torch.tensor([tokens[row] for row in active], dtype=torch.long)
        step += 1
    return results


def ranked_candidates(candidates, counts, vocab, beam):
    """Step 2 of the spec: per active sentence one row of its live_i * V candidates, topk(min(2k,
    live_i * V)) sorted. One topk per distinct live count (one in all, but at the start and in rare
    steps). Returns groups (positions of the sentences, values [g, K], token ids [g, K], parent state
    rows [g, K])."""
    starts, total = [], 0
    for count in counts:
        starts.append(total)
        total += count
    members_of = {}
    for a, count in enumerate(counts):
        members_of.setdefault(count, []).append(a)
    groups = []
    for count, members in members_of.items():
        if len(members) == len(counts):
            rows = candidates.view(len(counts), count * vocab)
        else:
            index = torch.cat([torch.arange(starts[a], starts[a] + count) for a in members])
            rows = candidates.index_select(0, index).view(len(members), count * vocab)
        values, flat = rows.topk(min(2 * beam, count * vocab), dim=1, largest=True, sorted=True)
        parents = torch.div(flat, vocab, rounding_mode="floor") + torch.tensor([starts[a] for a in members]).unsqueeze(1)
        groups.append((members, values, flat % vocab, parents))
    return groups


def walk_candidates(groups, beam):
    """Step 3 of the spec, vectorised: an EOS candidate of rank < k finalizes its hypothesis; the first
    k other candidates become the new live hypotheses; -inf candidates are skipped. Returns the new
    live hypotheses as (values, tokens, parents, sentence positions) in sentence order and rank order
    within a sentence, and the EOS finalizations as (position, value, parent) in rank order."""
    parts, eos_events = [], []
    for members, values, tokens, parents in groups:
        finite = values != NEG_INF
        is_eos = tokens == EOS
        eos = is_eos & finite
        eos[:, beam:] = False
        other = ~is_eos & finite
        live = other & (other.cumsum(1) <= beam)
        positions = torch.tensor(members).unsqueeze(1).expand_as(values)
        if bool(eos.any()):
            eos_events += zip(positions[eos].tolist(), values[eos].tolist(), parents[eos].tolist())
        ranks = torch.arange(values.shape[1]).expand_as(values)
        parts.append((values[live], tokens[live], parents[live], positions[live], ranks[live]))
    if len(parts) == 1:
        return parts[0][:4], eos_events
    values, tokens, parents, positions, ranks = (torch.cat(x) for x in zip(*parts))
    order = torch.argsort(positions * (2 * beam) + ranks)
    return (values[order], tokens[order], parents[order], positions[order]), eos_events


def beam_search(model, source, source_lengths, options):
    """Beam search of the spec (docs/search.md): per batch row, up to n Hypotheses, best first."""
    k, n = options.beam_size, options.n_best
    batch = source.shape[0]
    vocab = model.out_b.shape[0]
    lengths = source_lengths.tolist()
    limit = [options.max_length(m - 1) for m in lengths]
    track_coverage = options.coverage_beta != 0.0
    state = model.encode(source, source_lengths)
    sentences = list(range(batch))   # active sentences (batch rows); their state rows are contiguous
    counts = [1] * batch             # live hypotheses per active sentence
    previous = torch.full((batch,), BOS, dtype=torch.long)
    raw = torch.zeros(batch)         # r per live hypothesis, float32
    history = torch.empty(batch, 0, dtype=torch.long)
    coverage = torch.zeros(source.shape) if track_coverage else None
    finished = [[] for _ in range(batch)]
    results = [None] * batch

    def finalize(row, hyp_tokens, log_prob, cov, is_finished):
        length = len(hyp_tokens) + int(is_finished)
        score = final_score(options, log_prob, length, cov, lengths[row])
        return Hypothesis(hyp_tokens, score, log_prob, is_finished)

    step = 0
    while sentences:
        log_probs, attention, state = model.step(state, previous)
        constrain(log_probs, step, options, history)
        groups = ranked_candidates(raw.unsqueeze(1) + log_probs, counts, vocab, k)
        (new_values, new_tokens, new_parents, new_positions), eos_events = walk_candidates(groups, k)
        new_counts = torch.bincount(new_positions, minlength=len(sentences)).tolist()
        new_history = torch.cat([history.index_select(0, new_parents), new_tokens.unsqueeze(1)], dim=1)
        new_coverage = (coverage + attention).index_select(0, new_parents) if track_coverage else None

        for a, value, parent in eos_events:
            row = sentences[a]
            cov = (coverage[parent] + attention[parent]) if track_coverage else None
            finished[row].append(finalize(row, history[parent].tolist(), value, cov, True))

        # Steps 4 and 5: the length limit, and the bound no live hypothesis can beat.
        value_list = new_values.tolist()
        keep_entries, keep_sentences, keep_counts, offset = [], [], [], 0
        for a, row in enumerate(sentences):
            count = new_counts[a]
            entries = range(offset, offset + count)
            offset += count
            done = count == 0
            if not done and step + 1 >= limit[row]:
                unfinished = [finalize(row, new_history[e].tolist(), value_list[e],
                                       new_coverage[e] if track_coverage else None, False) for e in entries]
                results[row] = best_of(finished[row], unfinished, n)
                continue
            if not done and len(finished[row]) >= n:
                nth = sorted((h.score for h in finished[row]), reverse=True)[n - 1]
                best = value_list[entries[0]]  # candidates are in rank order: the first live is the best r
                bound = best / options.lp(limit[row]) if best < 0 else best
                done = nth >= bound
            if done:
                results[row] = best_of(finished[row], [], n)
                continue
            keep_entries.extend(entries)
            keep_sentences.append(row)
            keep_counts.append(count)

        if not keep_sentences:
            break
        # Step 6: done sentences leave the batch; the others follow their new live hypotheses. The
        # memory, keys and mask only move when the rows' sentences change (beams of one sentence
        # share them).
        same_layout = keep_sentences == sentences and keep_counts == counts
        index = torch.tensor(keep_entries) if len(keep_entries) != len(value_list) else None
        pick = (lambda t: t) if index is None else (lambda t: t.index_select(0, index))
        parents = pick(new_parents)
        state = state.select(parents, keep_memory=same_layout)
        previous, raw, history = pick(new_tokens), pick(new_values), pick(new_history)
        if track_coverage:
            coverage = pick(new_coverage)
        sentences, counts = keep_sentences, keep_counts
        step += 1
    return results


def best_of(finished, unfinished, n):
    """The finished hypotheses by score (stable), then the unfinished ones if fewer than n: the first n."""
    ranked = sorted(finished, key=lambda h: -h.score)
    if len(ranked) < n:
        ranked += sorted(unfinished, key=lambda h: -h.score)
    return ranked[:n]


def read_ids(path, vocab):
    stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
    sentences = []
    with stream:
        for number, line in enumerate(stream, 1):
            try:
                ids = [int(x) for x in line.split()]
            except ValueError:
                raise SystemExit(f"{path}:{number}: not a list of subword ids: {line.strip()[:60]!r}")
            bad = [i for i in ids if not 0 <= i < vocab]
            if bad:
                raise SystemExit(f"{path}:{number}: id {bad[0]} outside the source vocabulary [0, {vocab})")
            sentences.append(ids)
    return sentences


def make_batches(sentences, batch_size, max_tokens):
    """Longest first, ties in input order (as nmt::translate_greedy); empty sentences are left out."""
    order = sorted((i for i, s in enumerate(sentences) if s), key=lambda i: -len(sentences[i]))
    start = 0
    while start < len(order):
        if max_tokens:
            longest = len(sentences[order[start]]) + 1
            end = start + 1
            while end < len(order) and (end - start + 1) * longest <= max_tokens:
                end += 1
        else:
            end = min(start + batch_size, len(order))
        rows = order[start:end]
        longest = len(sentences[rows[0]]) + 1
        source = torch.full((len(rows), longest), PAD, dtype=torch.long)
        for r, i in enumerate(rows):
            source[r, :len(sentences[i])] = torch.tensor(sentences[i], dtype=torch.long)
            source[r, len(sentences[i])] = EOS
        yield rows, source, torch.tensor([len(sentences[i]) + 1 for i in rows], dtype=torch.long)
        start = end


def translate(model, sentences, options, greedy, batch_size=32, max_tokens=0):
    """Per input sentence, its list of n-best Hypotheses (empty sentence: an empty translation)."""
    results = [[Hypothesis([], 0.0, 0.0, True)] for _ in sentences]
    with torch.inference_mode():
        for rows, source, lengths in make_batches(sentences, batch_size, max_tokens):
            if greedy:
                found = [[h] for h in greedy_search(model, source, lengths, options)]
            else:
                found = beam_search(model, source, lengths, options)
            for i, hyps in zip(rows, found):
                results[i] = hyps or [Hypothesis([], NEG_INF, NEG_INF, False)]  # every candidate was -inf
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("input", nargs="?", default="-", help="source ids, one sentence a line (default: stdin)")
    parser.add_argument("--greedy", action="store_true", help="greedy search instead of beam search")
    parser.add_argument("--beam-size", type=int, default=5)
    parser.add_argument("--n-best", type=int, default=1, help="hypotheses printed per sentence")
    parser.add_argument("--length-penalty", choices=["none", "average", "gnmt"], default="gnmt",
                        help="beam search ranking (greedy ignores it)")
    parser.add_argument("--alpha", type=float, default=0.6, help="gnmt length penalty exponent")
    parser.add_argument("--coverage-beta", type=float, default=0.0,
                        help="coverage penalty weight (0: off; beam search only)")
    parser.add_argument("--max-length-a", type=float, default=2.0)
    parser.add_argument("--max-length-b", type=int, default=10)
    parser.add_argument("--min-length", type=int, default=0)
    parser.add_argument("--no-repeat-ngram", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=32, help="sentences per batch")
    parser.add_argument("--max-tokens", type=int, default=0,
                        help="batch as nmt::translate_greedy: rows x longest source <= this (overrides --batch-size)")
    parser.add_argument("--threads", type=int, default=1,
                        help="intra-op threads (default 1: more is slower on 2 cores, see /work/shared/PLATFORM.md)")
    parser.add_argument("--scores", action="store_true", help="print ids<TAB>score<TAB>log_prob")
    parser.add_argument("--timing", action="store_true", help="print speed to stderr (model load excluded)")
    args = parser.parse_args()
    options = SearchOptions(1 if args.greedy else args.beam_size, args.n_best, args.length_penalty, args.alpha,
                            args.coverage_beta, args.max_length_a, args.max_length_b, args.min_length,
                            args.no_repeat_ngram)
    try:
        options.validate()
    except ValueError as e:
        parser.error(str(e))
    if args.batch_size < 1 or args.max_tokens < 0 or args.threads < 1:
        parser.error("--batch-size and --threads must be >= 1, --max-tokens >= 0")
    torch.set_num_threads(args.threads)

    config, params, _, _ = load_checkpoint(args.checkpoint)
    model = Reference(config, params)
    sentences = read_ids(args.input, config["source_vocab_size"])
    start = time.perf_counter()
    results = translate(model, sentences, options, args.greedy, args.batch_size, args.max_tokens)
    seconds = time.perf_counter() - start

    out = []
    for hyps in results:
        for h in hyps:
            line = " ".join(map(str, h.tokens))
            out.append(f"{line}\t{h.score!r}\t{h.log_prob!r}" if args.scores else line)
    sys.stdout.write("".join(line + "\n" for line in out))
    if args.timing:
        tokens = sum(len(hyps[0].tokens) for hyps in results)
        search = "greedy" if args.greedy else f"beam {options.beam_size}"
        print(f"translate_reference (Python, torch {torch.__version__}, {torch.get_num_threads()} thread(s)): "
              f"{search}, {len(sentences)} sentences, {tokens} target tokens (EOS not counted) in {seconds:.3f} s: "
              f"{len(sentences) / seconds:.2f} sentences/s, {tokens / seconds:.1f} target tokens/s",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
