#!/usr/bin/env python3
"""Runs a checkpoint's TorchScript methods from Python and compares them with the C++ results the
test wrote (tests/model/scripted_checkpoint_test.cc): score within 1e-5 of forced decoding, greedy
and beam_search (beam 5) the same token ids as greedy_search and beam_search.

    /usr/bin/python3 scripted_checkpoint_check.py CHECKPOINT EXPECTED

EXPECTED is a TorchScript archive with buffers source, source_lengths, targets, target_lengths,
forced (log-probabilities), greedy_tokens, greedy_lengths, beam_tokens, beam_lengths. Exit 0 when
everything agrees; otherwise it prints what differs.
"""
import sys

import torch


def token_lists(tokens, lengths):
    return [tokens[i, :lengths[i]].tolist() for i in range(tokens.shape[0])]


def main(checkpoint, expected_path):
    model = torch.jit.load(checkpoint)
    e = torch.jit.load(expected_path)
    problems = []
    with torch.inference_mode():
        scores = model.score(e.source, e.source_lengths, e.targets, e.target_lengths)
        error = (scores - e.forced.double()).abs().max().item()
        if error > 1e-5:
            problems.append(f"score differs from forced decoding by {error:.3g}")
        tokens, lengths, _, _ = model.greedy(e.source, e.source_lengths)
        if token_lists(tokens, lengths) != token_lists(e.greedy_tokens, e.greedy_lengths):
            problems.append("greedy tokens differ")
        tokens, lengths, _, _ = model.beam_search(e.source, e.source_lengths, 5, 0.6)
        if token_lists(tokens, lengths) != token_lists(e.beam_tokens, e.beam_lengths):
            problems.append("beam search tokens differ")
    print(f"torch {torch.__version__}: " + ("; ".join(problems) if problems else
          f"{e.source.shape[0]} sentences agree (score within {error:.2g})"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
