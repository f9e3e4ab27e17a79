#!/usr/bin/env python3
"""Trains the nmt reference model in PyTorch: the Python side of the training benchmark.

The model is the one of docs/model.md (Bahdanau attention, Bahdanau-style decoder, linear or zero
bridge, any number of layers) as an ordinary trainable nn.Module: nn.Embedding, an nn.GRU encoder
over packed sequences, a per-step decoder loop over an nn.GRU, nn.Linear layers. It starts from the
weights of an nmt checkpoint, trains on batches written by build/bench/bench_train, and does each
step as nmt::Trainer does (nmt/train/loss.h, nmt/train/trainer.cc): label-smoothed cross-entropy
summed over the real target tokens and divided by their number, backward, clip_grad_norm_ 1.0,
Adam (lr 5e-4, betas 0.9/0.999, eps 1e-8). Dropout is 0 as in the C++ benchmark, so both train the
same function and their loss curves can be compared step for step. scripts/bench_train.sh runs both.

    /usr/bin/python3 scripts/reference/train_reference.py CHECKPOINT BATCHES [options]
      --steps N       train on the first N batches (default: all in BATCHES)
      --warmup K      leading steps left out of the timing, not of the loss curve (default 2)
      --results PATH  one TSV line per step: step tokens loss nll grad_norm seconds warmup
      --profile       also time the sections of each step and profile the operators
      --threads T     intra-op threads (default 1: more is much slower on the 2-core machine,
                      see /work/shared/PLATFORM.md)
      --device D      cpu (default), cuda or cuda:N; on CUDA each step ends with a device
                      synchronisation, as in bench_train --device

BATCHES is a TorchScript archive with buffers source_i [B,S], source_lengths_i [B],
target_in_i [B,T] and target_out_i [B,T] for i = 0, 1, ... (int64, padding id 0).
"""
import argparse
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nmt_reference import load_checkpoint  # noqa: E402  (reads the checkpoint, nothing else)

PAD = 0
SMOOTHING, CLIP_NORM, LR, BETAS, EPS = 0.1, 1.0, 5e-4, (0.9, 0.999), 1e-8


class Encoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.rnn = nn.GRU(c["embedding_size"], c["encoder_hidden_size"], c["encoder_layers"],
                          bidirectional=True, batch_first=True,
                          dropout=c["dropout"] if c["encoder_layers"] > 1 else 0.0)

    def forward(self, embedded, lengths):
        packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        out, h_n = self.rnn(packed)
        memory, _ = pad_packed_sequence(out, batch_first=True, total_length=embedded.shape[1])
        return memory, h_n


class BahdanauAttention(nn.Module):
    """e_j = v^T tanh(W q + U h_j); keys U h_j are computed once per batch."""

    def __init__(self, query_size, memory_size, attention_size):
        super().__init__()
        self.query_layer = nn.Linear(query_size, attention_size, bias=False)
        self.key_layer = nn.Linear(memory_size, attention_size, bias=False)
        self.energy_layer = nn.Linear(attention_size, 1, bias=False)

    def forward(self, query, keys, memory, mask):
        scores = self.energy_layer(torch.tanh(self.query_layer(query).unsqueeze(1) + keys)).squeeze(-1)
        weights = scores.masked_fill(~mask, float("-inf")).softmax(-1)
        return torch.bmm(weights.unsqueeze(1), memory).squeeze(1), weights


class Decoder(nn.Module):
    """Bahdanau style: attend from s_{t-1}, GRU over [e_{t-1}; c_t], readout tanh(W [s_t; c_t; e_{t-1}])."""

    def __init__(self, c):
        super().__init__()
        E, H2, D = c["embedding_size"], 2 * c["encoder_hidden_size"], c["decoder_hidden_size"]
        self.layers = c["decoder_layers"]
        self.attention = BahdanauAttention(D, H2, c["attention_size"])
        self.rnn = nn.GRU(E + H2, D, self.layers, batch_first=True,
                          dropout=c["dropout"] if self.layers > 1 else 0.0)
        self.bridge = nn.Linear(H2, D) if c["bridge"] == "linear" else None
        self.readout = nn.Linear(D + H2 + E, D)

    def forward(self, embedded, memory, final_states, mask):
        """embedded [B, T, E] (BOS y_1 ..) -> readouts [B, T, D]."""
        keys = self.attention.key_layer(memory)
        if self.bridge is not None:
            top = torch.cat([final_states[-2], final_states[-1]], -1)   # [fwd h_{n+1}; bwd h_1]
            hidden = torch.tanh(self.bridge(top)).unsqueeze(0).repeat(self.layers, 1, 1)
        else:
            hidden = memory.new_zeros(self.layers, memory.shape[0], self.rnn.hidden_size)
        readouts = []
        for t in range(embedded.shape[1]):
            e = embedded[:, t]
            context, _ = self.attention(hidden[-1], keys, memory, mask)
            output, hidden = self.rnn(torch.cat([e, context], -1).unsqueeze(1), hidden)
            s = output.squeeze(1)
            readouts.append(torch.tanh(self.readout(torch.cat([s, context, e], -1))))
        return torch.stack(readouts, 1)


class Seq2Seq(nn.Module):
    """Modules are registered in the C++ model's order, so parameters() lists them alike."""

    def __init__(self, c):
        super().__init__()
        if c["attention"] != "bahdanau" or c["decoder_style"] != "bahdanau":
            raise SystemExit(f"train_reference.py implements bahdanau attention with the bahdanau decoder, "
                             f"not {c['attention']} attention with the {c['decoder_style']} decoder")
        if c["share_embeddings"] or c["tie_output_embedding"]:
            raise SystemExit("train_reference.py does not implement shared or tied embeddings")
        E, D = c["embedding_size"], c["decoder_hidden_size"]
        self.source_embedding = nn.Embedding(c["source_vocab_size"], E, padding_idx=PAD)
        self.target_embedding = nn.Embedding(c["target_vocab_size"], E, padding_idx=PAD)
        self.encoder = Encoder(c)
        self.decoder = Decoder(c)
        self.output = nn.Linear(D, c["target_vocab_size"])

    def forward(self, source, source_lengths, target_in):
        """Logits [B, T, V] under teacher forcing."""
        with torch.autograd.profiler.record_function("encoder"):
            # source_lengths stays on the CPU (pack_padded_sequence wants it there); the mask goes
            # where the source is.
            mask = (torch.arange(source.shape[1], device=source.device).unsqueeze(0)
                    < source_lengths.to(source.device).unsqueeze(1))
            memory, final_states = self.encoder(self.source_embedding(source), source_lengths)
        with torch.autograd.profiler.record_function("decoder"):
            readouts = self.decoder(self.target_embedding(target_in), memory, final_states, mask)
        with torch.autograd.profiler.record_function("output layer"):
            return self.output(readouts)


def label_smoothed_cross_entropy(logits, labels, smoothing):
    """nmt/train/loss.h: q = 1 - eps on the label, eps / (V - 2) on every other class but padding.

    Returns (sum of the smoothed loss over real tokens, sum of -log p(y), number of real tokens)."""
    vocab = logits.shape[1]
    real = labels.ne(PAD)
    log_probs = logits.log_softmax(-1)
    nll = -log_probs.gather(1, labels.unsqueeze(1)).squeeze(1)
    others = -log_probs.sum(1) - nll + log_probs[:, PAD]          # -sum log p_k over k != y, pad
    per_token = (1.0 - smoothing) * nll + smoothing / (vocab - 2) * others
    return per_token.masked_select(real).sum(), nll.masked_select(real).sum(), int(real.sum())


def train_step(model, optimizer, batch, sections=None):
    """One step as nmt::Trainer does it; returns (tokens, loss/token, nll/token, grad norm, seconds)."""
    source, source_lengths, target_in, target_out = batch
    clock = last = time.perf_counter()

    def lap(name):
        nonlocal last
        if sections is not None:
            now = time.perf_counter()
            sections[name] = sections.get(name, 0.0) + now - last
            last = now

    optimizer.zero_grad()
    logits = model(source, source_lengths, target_in)
    lap("forward")
    with torch.autograd.profiler.record_function("loss"):
        loss, nll, tokens = label_smoothed_cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                         target_out.reshape(-1), SMOOTHING)
        nll = nll.item() / tokens
    lap("loss")
    (loss / tokens).backward()
    loss = loss.item() / tokens
    lap("backward")
    norm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP_NORM))
    lap("clip")
    optimizer.step()
    if target_out.is_cuda:
        torch.cuda.synchronize()  # the step's kernels are queued, not done, until here
    lap("optimizer")
    return tokens, loss, nll, norm, time.perf_counter() - clock


def read_batches(path, steps):
    archive = dict(torch.jit.load(path, map_location="cpu").named_buffers())
    batches = []
    while f"source_{len(batches)}" in archive and (steps is None or len(batches) < steps):
        i = len(batches)
        batches.append(tuple(archive[f"{name}_{i}"]
                             for name in ("source", "source_lengths", "target_in", "target_out")))
    if steps is not None and len(batches) < steps:
        raise SystemExit(f"{path} holds {len(batches)} batches, fewer than --steps {steps}")
    if not batches:
        raise SystemExit(f"{path} holds no batches (no buffer source_0)")
    return batches


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("batches")
    parser.add_argument("--steps", type=int)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--results")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    torch.set_num_threads(args.threads)

    config, params, _, _ = load_checkpoint(args.checkpoint)
    if config["dropout"] != 0:
        print(f"note: the checkpoint's dropout is {config['dropout']}; training here uses none", file=sys.stderr)
    config = dict(config, dropout=0.0)
    model = Seq2Seq(config)
    model.load_state_dict(params, strict=True)
    model.to(device)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR, betas=BETAS, eps=EPS)
    batches = [(source.to(device), lengths, target_in.to(device), target_out.to(device))
               for source, lengths, target_in, target_out in read_batches(args.batches, args.steps)]
    if not 0 <= args.warmup < len(batches):
        raise SystemExit(f"need 0 <= --warmup < steps ({len(batches)})")

    print(f"train_reference (Python): torch {torch.__version__}, {sum(p.numel() for p in model.parameters())} "
          f"parameters, {len(batches)} steps ({args.warmup} warm-up), {torch.get_num_threads()} intra-op thread(s), device {device}")
    print(f"{'step':>5} {'batch':>6} {'src x tgt':>9} {'tokens':>7} {'loss/token':>12} {'grad norm':>10} "
          f"{'ms':>9} {'tokens/s':>9}")
    sections = {} if args.profile else None
    results = []
    for i, batch in enumerate(batches):
        timed = i >= args.warmup
        r = train_step(model, optimizer, batch, sections if timed else None)
        results.append(r)
        tokens, loss, nll, norm, seconds = r
        B, S = batch[0].shape
        print(f"{i + 1:5d} {B:6d} {S:4d}x{batch[2].shape[1]:<4d} {tokens:7d} {loss:12.7f} {norm:10.4f} "
              f"{1000 * seconds:9.1f} {tokens / seconds:9.0f}{'' if timed else '  (warm-up)'}", flush=True)

    timed = results[args.warmup:]
    rates = [r[0] / r[4] for r in timed]
    print(f"Python: median {statistics.median(rates):.0f} target tokens/s, median step "
          f"{1000 * statistics.median(r[4] for r in timed):.1f} ms, overall "
          f"{sum(r[0] for r in timed) / sum(r[4] for r in timed):.0f} tokens/s over {len(timed)} timed steps")
    if args.results:
        with open(args.results, "w") as out:
            out.write("step\ttokens\tloss\tnll\tgrad_norm\tseconds\twarmup\n")
            for i, (tokens, loss, nll, norm, seconds) in enumerate(results):
                out.write(f"{i + 1}\t{tokens}\t{loss:.9g}\t{nll:.9g}\t{norm:.9g}\t{seconds:.6f}"
                          f"\t{int(i < args.warmup)}\n")

    if args.profile:
        n = len(timed)
        print("\nsections of a timed step (mean ms): " + " | ".join(
            f"{name} {1000 * sections[name] / n:.1f}" for name in ("forward", "loss", "backward", "clip", "optimizer"))
            + f" | total {1000 * sum(r[4] for r in timed) / n:.1f}")
        profiled = batches[args.warmup:args.warmup + 5]
        start = time.perf_counter()
        with torch.autograd.profiler.profile() as prof:
            for batch in profiled:
                train_step(model, optimizer, batch)
        wall = time.perf_counter() - start
        events = prof.key_averages()
        ops = sum(e.count for e in events if not e.key.startswith(("encoder", "decoder", "output layer", "loss")))
        print(f"\noperator profile over {len(profiled)} steps (torch.autograd.profiler; "
              f"{1000 * wall / len(profiled):.1f} ms/step wall while profiling): "
              f"{ops / len(profiled):.0f} recorded operators per step")
        print(events.table(sort_by="self_cpu_time_total", row_limit=30))
    return 0


if __name__ == "__main__":
    sys.exit(main())
