#!/usr/bin/env python3
"""A PyTorch re-implementation of the nmt model, written from docs/model.md alone.

It reads an nmt checkpoint with torch.jit.load (nothing else from the toolkit) and computes the
same log-probabilities as the C++ model. The interop test (tests/model/python_interop_test.cc)
holds the two to 1e-5; translate_reference.py searches with its encode() + step(), the Python
baseline of the translation benchmark (given the same batch, greedy search reproduces the C++
greedy_search's tokens and double-summed scores bit for bit).

    /usr/bin/python3 scripts/reference/nmt_reference.py CHECKPOINT          # prints a summary
    /usr/bin/python3 scripts/reference/nmt_reference.py CHECKPOINT INPUTS [CHECKPOINT INPUTS ...]
                                                                            # checks INPUTS' log_probs

With several pairs (one interpreter for all: importing torch costs seconds) each gets a line
"CHECKPOINT: ... ok" or "... FAILED", and the exit status is 0 only if every pair agrees.
INPUTS is a TorchScript archive with buffers source [B,S], source_lengths [B], target_in [B,T],
log_probs [B,T,V] and attention [B,T,S] (empty for a model with attention = none), as the interop
test writes it.
"""
import hashlib
import json
import sys
import zipfile

import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


def verify_digests(path, archive):
    """Formats 2 and 3: every entry's SHA-256 as docs/checkpoints.md defines it (a tensor's bytes, a
    string's UTF-8 bytes, an int's decimal text; format 3 also the code records' bytes, read from
    the zip) equals the stored one."""
    stored = json.loads(archive.digests)
    tensors = {name: t for name, t in archive.named_parameters()}
    tensors.update({name: t for name, t in archive.named_buffers()})
    code = {}
    if archive.format_version >= 3:
        with zipfile.ZipFile(path) as container:
            for info in container.infolist():
                name = info.filename.split("/", 1)[-1]  # without the archive's folder
                if name.startswith("code/") or name == "constants.pkl":
                    code[name] = container.read(info)
    for entry, digest in stored.items():
        if entry in code:
            data = code[entry]
        elif entry in tensors:
            data = tensors[entry].detach().contiguous().numpy().tobytes()
        else:
            value = getattr(archive, entry)
            data = (value if isinstance(value, str) else str(value)).encode("utf-8")
        if hashlib.sha256(data).hexdigest() != digest:
            raise SystemExit(f"{path}: entry {entry} does not match its SHA-256 checksum")
    missing = (set(tensors) | set(code)) - set(stored)
    if missing:
        raise SystemExit(f"{path}: entries without a checksum: {sorted(missing)[:3]}")


def load_checkpoint(path):
    """Returns (config dict, {parameter name: tensor}, source SentencePiece bytes, target bytes)."""
    archive = torch.jit.load(path, map_location="cpu")
    if archive.format_version not in (1, 2, 3):
        raise SystemExit(f"{path}: format version {archive.format_version}, this script reads 1 to 3")
    if archive.format_version >= 2:
        verify_digests(path, archive)
    config = json.loads(archive.model_config)
    params = {name[len("model."):]: p.detach() for name, p in archive.named_parameters()}
    return config, params, bytes(archive.source_spm.numpy()), bytes(archive.target_spm.numpy())


def gru(params, prefix, input_size, hidden_size, layers, bidirectional):
    rnn = torch.nn.GRU(input_size, hidden_size, num_layers=layers, bidirectional=bidirectional,
                       batch_first=True)
    rnn.load_state_dict({name: params[prefix + name] for name, _ in rnn.named_parameters()})
    return rnn.eval()


class DecoderState:
    """What changes per batch (nmt/model/inference/inference_state.h); the model itself stays stateless."""

    def __init__(self, memory, keys, mask, hidden, feed, context):
        self.memory = memory   # [batch, src_len, 2H] encoder states h_j
        self.keys = keys       # [batch, src_len, K]  attention keys precomputed from the memory; None without attention
        self.context = context # [batch, 2H]          c = [fwd_n; bwd_1]: the fixed context without attention, else None
        self.mask = mask       # [batch, src_len]     bool, true at real source positions
        self.hidden = hidden   # [layers, batch, D]   decoder GRU state
        self.feed = feed       # [batch, R]           Luong input feeding; None for Bahdanau-style decoders

    def select(self, rows, keep_memory=False):
        """Rows `rows` [n] (int64, repeats allowed): reorders beams or expands a batch. keep_memory:
        the memory, keys and mask stay as they are, for a caller that knows row i of the result reads
        the same sentence as row i now (beams reordered within their sentences)."""
        pick = lambda t, dim=0: None if t is None else t.index_select(dim, rows)
        memory, keys, mask, context = ((self.memory, self.keys, self.mask, self.context) if keep_memory else
                                       (pick(self.memory), pick(self.keys), pick(self.mask), pick(self.context)))
        return DecoderState(memory, keys, mask, pick(self.hidden, 1), pick(self.feed), context)


class Reference:
    """The forward pass of docs/model.md, in evaluation mode (no dropout), with the C++ model's two
    faces: forward() under teacher forcing, encode() + step() one token at a time (search). Layers
    with a bias use F.linear, as the C++ modules do (at::linear), so that results match to the bit."""

    def __init__(self, config, params):
        c, p = config, params
        if c.get("attention_normaliser", "softmax") != "softmax":  # absent in softmax checkpoints
            raise ValueError("the reference implements softmax attention only; this model's attention normaliser is "
                             + c["attention_normaliser"])
        if c.get("attention_window", "global") != "global":  # absent in global checkpoints
            raise ValueError("the reference implements global attention only; this model's attention window is "
                             + c["attention_window"])
        self.c, self.p = c, p
        E, H, D = c["embedding_size"], c["encoder_hidden_size"], c["decoder_hidden_size"]
        self.R = E if c["tie_output_embedding"] else D
        self.src_emb = p["source_embedding.weight"]
        self.tgt_emb = self.src_emb if c["share_embeddings"] else p["target_embedding.weight"]
        self.out_w = self.tgt_emb if c["tie_output_embedding"] else p["output.weight"]
        self.out_b = p["output.bias"]
        self.encoder = gru(p, "encoder.rnn.", E, H, c["encoder_layers"], True)
        rnn_in = E + 2 * H if c["decoder_style"] == "bahdanau" else E + self.R
        self.decoder = gru(p, "decoder.rnn.", rnn_in, D, c["decoder_layers"], False)

    def keys(self, memory):
        a, p, D = self.c["attention"], self.p, self.c["decoder_hidden_size"]
        if a == "none":
            return None
        if a == "bahdanau":
            return memory @ p["decoder.attention.key_layer.weight"].t()          # U h_j
        if a in ("dot", "general"):
            w = p.get("decoder.attention.key_layer.weight")                      # P or W (dot: absent if D = 2H)
            return memory if w is None else memory @ w.t()
        return memory @ p["decoder.attention.concat_layer.weight"][:, D:].t()    # W[:, D:] h_j

    def attend(self, q, state):
        """(context c_t [B, 2H], weights a_t [B, S]) for query q; without attention (c, None)."""
        a, p, D = self.c["attention"], self.p, self.c["decoder_hidden_size"]
        keys, memory, mask = state.keys, state.memory, state.mask
        if a == "none":
            return state.context, None
        if a == "bahdanau":
            e = torch.tanh((q @ p["decoder.attention.query_layer.weight"].t()).unsqueeze(1) + keys)
            e = (e @ p["decoder.attention.energy_layer.weight"].t()).squeeze(-1)
        elif a in ("dot", "general"):
            e = torch.bmm(keys, q.unsqueeze(2)).squeeze(2)
        else:
            w = p["decoder.attention.concat_layer.weight"][:, :D]
            e = torch.tanh((q @ w.t()).unsqueeze(1) + keys)
            e = (e @ p["decoder.attention.energy_layer.weight"].t()).squeeze(-1)
        weights = e.masked_fill(~mask, float("-inf")).softmax(-1)
        return torch.bmm(weights.unsqueeze(1), memory).squeeze(1), weights

    @torch.no_grad()
    def encode(self, source, source_lengths):
        """source [B, S] (x_1 .. x_n EOS, padded), source_lengths [B] -> the initial DecoderState."""
        c, p = self.c, self.p
        B, S = source.shape
        mask = torch.arange(S).unsqueeze(0) < source_lengths.unsqueeze(1)
        packed = pack_padded_sequence(F.embedding(source, self.src_emb), source_lengths, batch_first=True,
                                      enforce_sorted=False)
        out, h_n = self.encoder(packed)
        memory, _ = pad_packed_sequence(out, batch_first=True, total_length=S)
        L, D = c["decoder_layers"], c["decoder_hidden_size"]
        final = torch.cat([h_n[-2], h_n[-1]], -1)  # [fwd_n; bwd_1] of the top layer
        if c["bridge"] == "linear":
            s0 = torch.tanh(F.linear(final, p["decoder.bridge.weight"], p["decoder.bridge.bias"]))
            hidden = s0.unsqueeze(0).repeat(L, 1, 1).contiguous()
        else:
            hidden = torch.zeros(L, B, D)
        feed = torch.zeros(B, self.R) if c["decoder_style"] == "luong" else None
        context = final if c["attention"] == "none" else None
        return DecoderState(memory, self.keys(memory), mask, hidden, feed, context)

    def decode(self, e, state):
        """One decoder step from the embedded previous token e [B, E]: (readout [B, R], attention
        [B, S], next state)."""
        p = self.p
        if self.c["decoder_style"] == "bahdanau":
            ctx, w = self.attend(state.hidden[-1], state)
            out, hidden = self.decoder(torch.cat([e, ctx], -1).unsqueeze(1), state.hidden)
            s = out.squeeze(1)
            r = torch.tanh(F.linear(torch.cat([s, ctx, e], -1), p["decoder.readout.weight"], p["decoder.readout.bias"]))
            feed = None
        else:
            out, hidden = self.decoder(torch.cat([e, state.feed], -1).unsqueeze(1), state.hidden)
            s = out.squeeze(1)
            ctx, w = self.attend(s, state)
            r = torch.tanh(F.linear(torch.cat([ctx, s], -1), p["decoder.readout.weight"], p["decoder.readout.bias"]))
            feed = r
        return r, w, DecoderState(state.memory, state.keys, state.mask, hidden, feed, state.context)

    @torch.no_grad()
    def step(self, state, previous_tokens):
        """previous_tokens [B] (BOS first) -> (log_probs [B, V], attention [B, S] or None, next state)."""
        r, w, state = self.decode(F.embedding(previous_tokens, self.tgt_emb), state)
        return F.linear(r, self.out_w, self.out_b).log_softmax(-1), w, state

    @torch.no_grad()
    def forward(self, source, source_lengths, target_in):
        state = self.encode(source, source_lengths)
        emb = F.embedding(target_in, self.tgt_emb)
        readouts, attention = [], []
        for t in range(target_in.shape[1]):
            r, w, state = self.decode(emb[:, t], state)
            readouts.append(r)
            attention.append(w)
        # One large projection for all steps, as the C++ forward() does.
        logits = F.linear(torch.stack(readouts, 1), self.out_w, self.out_b)
        return logits.log_softmax(-1), None if attention[0] is None else torch.stack(attention, 1)


def check(checkpoint, inputs_path):
    """One line on how far the reference is from INPUTS' log_probs and attention; True within 1e-5."""
    config, params, _, _ = load_checkpoint(checkpoint)
    model = Reference(config, params)
    inputs = torch.jit.load(inputs_path, map_location="cpu")
    log_probs, attention = model.forward(inputs.source, inputs.source_lengths, inputs.target_in)
    # Padded target positions hold arbitrary but finite values in both implementations; compare all.
    lp_err = (log_probs - inputs.log_probs).abs().max().item()
    if attention is None:  # attention = none: the C++ model wrote no weights either
        at_err = 0.0 if inputs.attention.numel() == 0 else float("inf")
    else:
        at_err = (attention - inputs.attention).abs().max().item()
    ok = lp_err < 1e-5 and at_err < 1e-5
    print(f"{checkpoint}: max |log p difference| {lp_err:.3g}, max |attention difference| {at_err:.3g}: "
          f"{'ok' if ok else 'FAILED'}")
    return ok


def main(argv):
    if len(argv) < 2 or (len(argv) > 2 and len(argv) % 2 != 1):
        print(__doc__, file=sys.stderr)
        return 2
    if len(argv) == 2:
        config, params, source_spm, target_spm = load_checkpoint(argv[1])
        count = sum(t.numel() for t in params.values())
        print(f"{argv[1]}: {config['attention']} attention, {config['decoder_style']} decoder, "
              f"{count} parameters, tokenizers {len(source_spm)} + {len(target_spm)} bytes")
        return 0
    results = [check(argv[i], argv[i + 1]) for i in range(1, len(argv), 2)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
