#!/usr/bin/env python3
"""A translation model that is not nmt's, written here from scratch and saved with
torch.jit.script(...).save(...): a unidirectional LSTM encoder, an LSTM-cell decoder with dot
attention and input feeding, random weights. It keeps the scripted-model contract of
docs/checkpoints.md (encode, step, the attributes), so nmt-translate --engine script searches it.

    /usr/bin/python3 foreign_scripted_model.py SPM_MODEL INPUT MODEL_OUT EXPECTED_OUT

SPM_MODEL serves both sides. Writes the model and, in EXPECTED_OUT, the model's own greedy
translations of INPUT (one a line; an empty line for an empty input), each sentence alone in a
batch padded to a multiple of 16 positions as nmt-translate pads its batches, so that
`nmt-translate --engine script -b 1 --batch-sentences 1` must print the same lines.
"""
import sys
from typing import List, Tuple

import sentencepiece
import torch
from torch import Tensor, nn


class LstmDotAttention(nn.Module):
    def __init__(self, spm: bytes, vocab: int, embedding: int = 24, hidden: int = 32):
        super().__init__()
        self.source_embedding = nn.Embedding(vocab, embedding, padding_idx=0)
        self.target_embedding = nn.Embedding(vocab, embedding, padding_idx=0)
        self.encoder = nn.LSTM(embedding, hidden, batch_first=True)
        self.decoder = nn.LSTMCell(embedding + hidden, hidden)
        self.output = nn.Linear(2 * hidden, vocab)
        bytes_tensor = torch.tensor(list(spm), dtype=torch.uint8)
        self.register_buffer("source_spm", bytes_tensor)
        self.register_buffer("target_spm", bytes_tensor.clone())
        self.source_vocab_size = vocab
        self.target_vocab_size = vocab
        self.pad_id, self.unk_id, self.bos_id, self.eos_id = 0, 1, 2, 3
        self.has_attention = 1

    @torch.jit.export
    def encode(self, src: Tensor, src_lengths: Tensor) -> List[Tensor]:
        # Left to right: padding after a sentence never reaches its real positions.
        memory, _ = self.encoder(self.source_embedding(src))
        lengths = src_lengths.to(src.device)
        mask = torch.arange(src.size(1), device=src.device).unsqueeze(0) < lengths.unsqueeze(1)
        last = memory[torch.arange(src.size(0), device=src.device), lengths - 1]
        return [memory, mask, last, torch.zeros_like(last), torch.zeros_like(last)]

    @torch.jit.export
    def step(self, state: List[Tensor], previous: Tensor) -> Tuple[Tensor, Tensor, List[Tensor]]:
        memory, mask, h, c, feed = state[0], state[1], state[2], state[3], state[4]
        h, c = self.decoder(torch.cat([self.target_embedding(previous), feed], 1), (h, c))
        scores = torch.bmm(memory, h.unsqueeze(2)).squeeze(2).masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, 1)
        context = torch.bmm(weights.unsqueeze(1), memory).squeeze(1)
        log_probs = torch.log_softmax(self.output(torch.cat([h, context], 1)), 1)
        return log_probs, weights, [memory, mask, h, c, context]

    @torch.jit.export
    def greedy(self, src: Tensor, src_lengths: Tensor) -> List[int]:
        # One sentence: the best of r + log p each step, at most 2n + 10 tokens for n subwords.
        state = self.encode(src, src_lengths)
        previous = torch.full([1], self.bos_id, dtype=torch.long)
        raw = torch.zeros([1])
        tokens: List[int] = []
        for _ in range(2 * (int(src_lengths[0]) - 1) + 10):
            log_probs, _, state = self.step(state, previous)
            best, index = (raw.unsqueeze(1) + log_probs).max(1)
            if int(index[0]) == self.eos_id:
                break
            tokens.append(int(index[0]))
            raw, previous = best, index
        return tokens


def main(spm_path, input_path, model_path, expected_path):
    torch.manual_seed(7)
    torch.set_num_threads(1)
    spm_bytes = open(spm_path, "rb").read()
    tokenizer = sentencepiece.SentencePieceProcessor(model_proto=spm_bytes)
    model = torch.jit.script(LstmDotAttention(spm_bytes, tokenizer.get_piece_size()).eval())
    model.save(model_path)
    model = torch.jit.load(model_path)  # what nmt-translate will run
    lines = []
    with torch.inference_mode():
        for line in open(input_path, encoding="utf-8").read().splitlines():
            ids = tokenizer.encode(line)
            if not ids:
                lines.append("")
                continue
            width = (len(ids) + 1 + 15) // 16 * 16
            src = torch.zeros([1, width], dtype=torch.long)
            src[0, :len(ids) + 1] = torch.tensor(ids + [3])
            lines.append(tokenizer.decode(model.greedy(src, torch.tensor([len(ids) + 1]))))
    with open(expected_path, "w", encoding="utf-8") as out:
        out.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main(*sys.argv[1:])
