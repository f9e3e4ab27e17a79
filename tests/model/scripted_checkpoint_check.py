#!/usr/bin/env python3
"""Runs checkpoints' TorchScript methods from Python and compares them with what nmt computed
(tests/model/scripted_checkpoint_test.cc writes them): score within 1e-5 of forced decoding plus
one unit in the last place of the float32 sum per summed term (both sides are float32 sums of
m + 1 log-probabilities whose last bits may differ),
greedy and beam_search (beam 5) the same token ids as nmt's greedy_search and beam_search.

    /usr/bin/python3 scripted_checkpoint_check.py DIR

DIR holds one folder per architecture with model.pt (the checkpoint) and expected.pt (a
TorchScript archive with buffers source, source_lengths, targets, target_lengths, forced,
greedy_tokens, greedy_lengths, beam_tokens, beam_lengths). Prints a line per folder and
"N of M architectures agree"; exit status 0 when all do.
"""
import os
import sys

import torch


def token_lists(tokens, lengths):
    return [tokens[i, :lengths[i]].tolist() for i in range(tokens.shape[0])]


def check(folder):
    """A list of what differs (empty: all agrees) and the largest score difference."""
    model = torch.jit.load(os.path.join(folder, "model.pt"))
    e = torch.jit.load(os.path.join(folder, "expected.pt"))
    problems = []
    with torch.inference_mode():
        scores = model.score(e.source, e.source_lengths, e.targets, e.target_lengths)
        forced = e.forced.float()
        ulp = (torch.nextafter(forced.abs(), torch.tensor(float("inf"))) - forced.abs()).double()
        bound = 1e-5 + (e.target_lengths + 1).double() * ulp
        difference = (scores - forced.double()).abs()
        error = difference.max().item()
        if bool((difference > bound).any()):
            problems.append(f"score differs from forced decoding by {error:.3g}")
        tokens, lengths, _, _ = model.greedy(e.source, e.source_lengths)
        greedy = token_lists(tokens, lengths)
        expected = token_lists(e.greedy_tokens, e.greedy_lengths)
        if greedy != expected:
            problems.append(f"greedy tokens differ in {sum(a != b for a, b in zip(greedy, expected))} sentences")
        tokens, lengths, _, _ = model.beam_search(e.source, e.source_lengths, 5, 0.6)
        beam = token_lists(tokens, lengths)
        expected = token_lists(e.beam_tokens, e.beam_lengths)
        if beam != expected:
            problems.append(f"beam search tokens differ in {sum(a != b for a, b in zip(beam, expected))} sentences")
    return problems, error, e.source.shape[0]


def main(directory):
    folders = sorted(d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
    agree = 0
    for name in folders:
        problems, error, sentences = check(os.path.join(directory, name))
        agree += not problems
        print(f"{name}: " + ("; ".join(problems) if problems else
                             f"{sentences} sentences agree (score within {error:.2g})"))
    print(f"torch {torch.__version__}: {agree} of {len(folders)} architectures agree")
    return 0 if folders and agree == len(folders) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
