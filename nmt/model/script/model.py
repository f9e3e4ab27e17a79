# TorchScript methods of every nmt checkpoint: the model of docs/model.md and the search of
# docs/search.md, written a second time, independently of the C++ code, over the checkpoint's own
# parameters (self.model.*). `torch.jit.load(path)` in Python or `torch::jit::load` in C++ gives a
# module whose methods translate: ids in, ids out.
#
# This file is compiled with torch::jit::Module::define, whose resolver knows torch.* builtins, the
# module's attributes and its other methods only (no torch.nn.functional, no math). It is one of
# several fragments (nmt/model/checkpoint_program.cc puts them together for a model's config):
#   attention_<kind>.py  _attention_keys(memory, final), _attend(query, memory, keys, mask, steps)
#   normaliser_<kind>.py _normalise(scores) (scores to weights: softmax, sparsemax, entmax15)
#   window_global.py, or window_local.py with window_local_m.py, or with window_position.py
#                        (_position_energy(query)) and window_local_p.py or window_local_p_offset.py
#                        _weights(scores, mask, query, steps) (where attention looks: every
#                        position, or a window around a centre _centres(query, mask, steps))
#   decoder_<style>.py   _decode(...) (one decoder step), _initial_feed(batch)
#   bridge_<kind>.py     _initial_hidden(final)
# and accessors generated for the config (the layers' parameter lists, tied or shared matrices):
#   _source_embedding(), _target_embedding(), _output_weight(),
#   _encoder_layers() -> [[W_ih, W_hh, b_ih, b_hh, W_ih_rev, W_hh_rev, b_ih_rev, b_hh_rev], ...],
#   _decoder_layers() -> [[W_ih, W_hh, b_ih, b_hh], ...], and for local attention _window_size() -> float
#
# The decoder state is a list of tensors whose first dimension is the batch, so that a caller
# reorders beams with state[i].index_select(0, rows) for every i:
#   [memory [B, S, 2H], keys [B, S, K] (without attention: the fixed context [B, 1, 2H]),
#    mask [B, S] bool (true at real positions), hidden [B, L_d, D], feed [B, R] (Luong input
#    feeding; [B, 0] in the Bahdanau style), steps [B] int64 (the decoder steps taken: local-m's and local-p-offset's centre)]
# Shapes: src [B, S] int64 (x_1 .. x_n EOS, padded with PAD), src_lengths [B] int64 (n + 1).


def _linear(self, x: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
    # y = x W^T + b over the last dimension.
    y = torch.matmul(x, weight.t())
    if bias is not None:
        y = y + bias
    return y


def _gru_cell(self, gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor) -> Tensor:
    # PyTorch's GRU cell, gates r, z, n stacked in that order; gi = W_ih x + b_ih (given).
    #   r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
    #   z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
    #   n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
    #   h' = (1 - z) * n + z * h
    gh = self._linear(h, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, 1)
    h_r, h_z, h_n = gh.chunk(3, 1)
    r = torch.sigmoid(i_r + h_r)
    z = torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return (1.0 - z) * n + z * h


def _run_direction(self, gi: Tensor, lengths: Tensor, w_hh: Tensor, b_hh: Tensor) -> Tuple[Tensor, Tensor]:
    # One direction of one encoder layer over positions 0 .. S-1 from a zero state. gi [B, S, 3H].
    # A row's state stops at its last real position (what a packed sequence gives); outputs at
    # padding are zero. Returns (outputs [B, S, H], final states [B, H]).
    batch = gi.size(0)
    hidden_size = w_hh.size(1)
    h = torch.zeros([batch, hidden_size], dtype=gi.dtype, device=gi.device)
    outputs: List[Tensor] = []
    for t in range(gi.size(1)):
        h_new = self._gru_cell(gi[:, t], h, w_hh, b_hh)
        real = (lengths > t).unsqueeze(1)
        h = torch.where(real, h_new, h)
        outputs.append(torch.where(real, h_new, torch.zeros_like(h_new)))
    return torch.stack(outputs, 1), h


def _reverse_within_lengths(self, x: Tensor, lengths: Tensor) -> Tensor:
    # Row b's positions 0 .. len_b - 1 in reverse order, padding left in place. x [B, S, N].
    positions = torch.arange(x.size(1), device=x.device).unsqueeze(0)
    last = (lengths - 1).unsqueeze(1)
    index = torch.where(positions <= last, last - positions, positions)
    return x.gather(1, index.unsqueeze(2).expand(-1, -1, x.size(2)))


def _embed(self, weight: Tensor, ids: Tensor) -> Tensor:
    # weight[ids] for ids of any shape: [..., E].
    sizes = ids.size()
    rows = weight.index_select(0, ids.reshape(-1))
    return rows.reshape(sizes + [weight.size(1)])


def encode(self, src: Tensor, src_lengths: Tensor) -> List[Tensor]:
    # The encoder (docs/model.md, "Encoder"): h_j = [fwd_j ; bwd_j], the top layer's outputs, over
    # the real positions; the bridge reads c = [fwd_{n+1} ; bwd_1]. Returns the decoder state.
    lengths = src_lengths.to(src.device)
    x = self._embed(self._source_embedding(), src)
    final = torch.zeros([src.size(0), 0], dtype=x.dtype, device=x.device)
    for layer in self._encoder_layers():
        forward_out, forward_final = self._run_direction(self._linear(x, layer[0], layer[2]), lengths, layer[1], layer[3])
        reversed_x = self._reverse_within_lengths(x, lengths)
        backward_out, backward_final = self._run_direction(self._linear(reversed_x, layer[4], layer[6]), lengths,
                                                           layer[5], layer[7])
        x = torch.cat([forward_out, self._reverse_within_lengths(backward_out, lengths)], 2)
        final = torch.cat([forward_final, backward_final], 1)
    memory = x
    mask = torch.arange(src.size(1), device=src.device).unsqueeze(0) < lengths.unsqueeze(1)
    keys = self._attention_keys(memory, final)
    steps = torch.zeros([src.size(0)], device=src.device).long()
    return [memory, keys, mask, self._initial_hidden(final), self._initial_feed(src.size(0), memory), steps]


def _context(self, scores: Tensor, memory: Tensor, mask: Tensor, query: Tensor,
             steps: Tensor) -> Tuple[Tensor, Tensor]:
    # a = the window's weights of e with e_j = -inf at padding (padded weights are exactly 0);
    # c = sum_j a_j h_j.
    weights = self._weights(scores.masked_fill(~mask, float("-inf")), mask, query, steps)
    return torch.bmm(weights.unsqueeze(1), memory).squeeze(1), weights


def _decoder_layer_step(self, x: Tensor, hidden: Tensor) -> Tuple[Tensor, Tensor]:
    # The decoder GRU's layers, one step: x [B, input] -> (top state s_t [B, D], all layers [B, L, D]).
    states: List[Tensor] = []
    layer_index = 0
    for layer in self._decoder_layers():
        h = self._gru_cell(self._linear(x, layer[0], layer[2]), hidden[:, layer_index], layer[1], layer[3])
        states.append(h)
        x = h
        layer_index += 1
    return x, torch.stack(states, 1)


def step(self, state: List[Tensor], previous_tokens: Tensor) -> Tuple[Tensor, Tensor, List[Tensor]]:
    # One decoder step for every row: previous_tokens [B] (BOS first) -> (log p(y_t | y_<t, x)
    # [B, V], attention a_t [B, S] ([B, 0] without attention), the next state).
    #   logits_t = W_out r_t + b_out,  log p = log_softmax(logits_t)      (docs/model.md, "Output layer")
    memory, keys, mask, hidden, feed, steps = state[0], state[1], state[2], state[3], state[4], state[5]
    e = self._embed(self._target_embedding(), previous_tokens)
    r, attention, hidden, feed = self._decode(e, memory, keys, mask, hidden, feed, steps)
    logits = self._linear(r, self._output_weight(), self.model.output.bias)
    return torch.log_softmax(logits, 1), attention, [memory, keys, mask, hidden, feed, steps + 1]


def _index(self, values: List[int], like: Tensor) -> Tensor:
    # An int64 tensor of `values` on like's device (an empty list too, which torch.tensor warns about).
    if len(values) == 0:
        return torch.zeros([0], device=like.device).long()
    return torch.tensor(values, device=like.device).long()


def _select(self, state: List[Tensor], rows: Tensor) -> List[Tensor]:
    # Rows `rows` of every state tensor (beams reordered, finished sentences dropped).
    return [part.index_select(0, rows) for part in state]


def score(self, src: Tensor, src_lengths: Tensor, tgt: Tensor, tgt_lengths: Tensor) -> Tensor:
    # Forced decoding: log p(y_1 .. y_m EOS | x) per sentence [B] (float64), the sum over the
    # target's steps of the float32 log-probabilities in step order (nmt-translate --score).
    # tgt [B, T] int64 target ids without BOS or EOS, padded; tgt_lengths [B] = m.
    batch = src.size(0)
    lengths = tgt_lengths.to(src.device)
    gold = torch.cat([tgt.to(src.device), src.new_zeros([batch, 1])], 1)
    gold = gold.scatter(1, lengths.unsqueeze(1), src.new_full([batch, 1], self.eos_id))
    state = self.encode(src, src_lengths)
    previous = src.new_full([batch], self.bos_id)
    total = torch.zeros([batch], device=src.device)
    for t in range(int(lengths.max().item()) + 1):
        log_probs, attention, state = self.step(state, previous)
        picked = log_probs.gather(1, gold[:, t:t + 1]).squeeze(1)
        total = torch.where(lengths >= t, total + picked, total)
        previous = gold[:, t]
    return total.double()


def _length_limits(self, src_lengths: Tensor, max_len: int) -> List[int]:
    # L_i: the most target tokens of sentence i (EOS not counted). max_len < 0: nmt-translate's
    # default max(1, floor(2 n_i) + 10) for n_i source subwords (docs/search.md); else max_len.
    limits: List[int] = []
    source_lengths: List[int] = src_lengths.tolist()
    for m in source_lengths:
        if max_len < 0:
            limits.append(max(1, 2 * (m - 1) + 10))
        else:
            limits.append(max(1, max_len))
    return limits


def _pack_results(self, tokens: List[Tensor], scores: List[float], attention: List[Tensor], columns: int,
                  device: Device) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    # Per-sentence results as padded tensors: tokens [B, T] (PAD after a sentence's tokens, no EOS),
    # lengths [B], scores [B] float64, attention [B, T + 1, S] (one row per step, the EOS step
    # included; [B, T + 1, 0] without attention).
    batch = len(tokens)
    longest = 0
    for t in tokens:
        longest = max(longest, t.size(0))
    out_tokens = torch.full([batch, longest], self.pad_id, device=device).long()
    out_attention = torch.zeros([batch, longest + 1, columns], device=device)
    lengths = torch.zeros([batch], device=device).long()
    out_scores = torch.zeros([batch], device=device).double()
    for i in range(batch):
        n = tokens[i].size(0)
        lengths[i] = n
        out_scores[i] = scores[i]
        out_tokens[i, :n] = tokens[i]
        out_attention[i, :attention[i].size(0), :attention[i].size(1)] = attention[i]
    return out_tokens, lengths, out_scores, out_attention


def greedy(self, src: Tensor, src_lengths: Tensor, max_len: int = -1) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    # Greedy search (docs/search.md): the best of r + log p at each step, the batch at once; a
    # sentence leaves the batch at EOS or at its length limit. Returns (tokens [B, T], lengths [B],
    # scores [B] = r, the float32 sum of the log-probabilities (EOS included), attention [B, T+1, S]).
    batch = src.size(0)
    limits = self._length_limits(src_lengths, max_len)
    state = self.encode(src, src_lengths)
    columns = src.size(1) if self.has_attention != 0 else 0
    rows = torch.arange(batch, device=src.device)
    previous = src.new_full([batch], self.bos_id)
    raw = torch.zeros([batch], device=src.device)
    history = src.new_zeros([batch, 0])
    attention_history = torch.zeros([batch, 0, columns], device=src.device)
    out_tokens = [src.new_zeros([0]) for _ in range(batch)]
    out_scores = [0.0 for _ in range(batch)]
    out_attention = [torch.zeros([0, columns], device=src.device) for _ in range(batch)]
    t = 0
    while rows.size(0) > 0:
        log_probs, attention, state = self.step(state, previous)
        best, ids = (raw.unsqueeze(1) + log_probs).max(1)
        attention_history = torch.cat([attention_history, attention[:, :columns].unsqueeze(1)], 1)
        keep: List[int] = []
        row_list: List[int] = rows.tolist()
        id_list: List[int] = ids.tolist()
        best_list: List[float] = best.tolist()
        for j in range(len(row_list)):
            i = row_list[j]
            if id_list[j] == self.eos_id:  # finished: the tokens so far, EOS scored
                out_tokens[i] = history[j]
            elif t + 1 >= limits[i]:  # unfinished at the length limit
                out_tokens[i] = torch.cat([history[j], ids[j:j + 1]])
            else:
                keep.append(j)
                continue
            out_scores[i] = best_list[j]
            out_attention[i] = attention_history[j]
        history = torch.cat([history, ids.unsqueeze(1)], 1)
        index = self._index(keep, src)
        rows = rows.index_select(0, index)
        state = self._select(state, index)
        previous = ids.index_select(0, index)
        raw = best.index_select(0, index)
        history = history.index_select(0, index)
        attention_history = attention_history.index_select(0, index)
        t += 1
    return self._pack_results(out_tokens, out_scores, out_attention, columns, src.device)


def _length_penalty(self, length: int, alpha: float) -> float:
    # GNMT's lp(|Y|) = ((5 + |Y|) / 6)^alpha (Wu et al. 2016, eq. 14); alpha = 0: no penalty.
    return ((5.0 + length) / 6.0) ** alpha


def beam_search(self, src: Tensor, src_lengths: Tensor, beam: int = 5, length_alpha: float = 0.6,
                max_len: int = -1) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    # Batched beam search, step for step as docs/search.md says (n-best 1, no coverage penalty, no
    # constraints): every live hypothesis is a row; each step ranks a sentence's live x V candidates
    # r + log p, walks the best 2k, finalizes EOS among the first k, keeps k live ones, stops a
    # sentence at its length limit or when no live hypothesis can beat its best finished one; a
    # done sentence's rows leave the batch. Final score s = r / lp(|Y|), |Y| counting EOS.
    # Returns (tokens [B, T], lengths [B], scores [B] = s, attention [B, T+1, S]).
    batch = src.size(0)
    vocab = self.target_vocab_size
    limits = self._length_limits(src_lengths, max_len)
    state = self.encode(src, src_lengths)
    columns = src.size(1) if self.has_attention != 0 else 0
    sentence_of_row = [i for i in range(batch)]
    previous = src.new_full([batch], self.bos_id)
    raw = torch.zeros([batch], device=src.device)
    history = src.new_zeros([batch, 0])
    attention_history = torch.zeros([batch, 0, columns], device=src.device)
    # The best finalized hypothesis of each sentence: finished ones first, unfinished as a fallback.
    best_finished = [float("-inf") for _ in range(batch)]
    has_finished = [False for _ in range(batch)]
    best_unfinished = [float("-inf") for _ in range(batch)]
    has_unfinished = [False for _ in range(batch)]
    out_tokens = [src.new_zeros([0]) for _ in range(batch)]
    out_attention = [torch.zeros([0, columns], device=src.device) for _ in range(batch)]
    fallback_tokens = [src.new_zeros([0]) for _ in range(batch)]
    fallback_attention = [torch.zeros([0, columns], device=src.device) for _ in range(batch)]
    t = 0
    while len(sentence_of_row) > 0:
        log_probs, attention, state = self.step(state, previous)
        candidates = raw.unsqueeze(1) + log_probs
        step_attention = torch.cat([attention_history, attention[:, :columns].unsqueeze(1)], 1)
        parents: List[int] = []
        tokens: List[int] = []
        scores: List[float] = []
        next_sentences: List[int] = []
        start = 0
        while start < len(sentence_of_row):
            i = sentence_of_row[start]
            end = start
            while end < len(sentence_of_row) and sentence_of_row[end] == i:
                end += 1
            # Rank: the best min(2k, live x V) candidates, equal values in index order.
            flat = candidates[start:end].reshape(-1)
            top_values, top_index = flat.topk(min(2 * beam, flat.size(0)))
            top_index, order = top_index.sort()
            top_values = top_values.index_select(0, order)
            top_values, order = top_values.sort(descending=True, stable=True)
            top_index = top_index.index_select(0, order)
            values: List[float] = top_values.tolist()
            indices: List[int] = top_index.tolist()
            # This sentence's new live hypotheses: parent row, token, r.
            live_parents: List[int] = []
            live_tokens: List[int] = []
            live_scores: List[float] = []
            live = 0
            live_bound = float("-inf")
            lp_limit = self._length_penalty(limits[i], length_alpha)
            for q in range(len(values)):
                value = values[q]
                if value == float("-inf"):
                    continue
                parent = start + indices[q] // vocab
                token = indices[q] % vocab
                if token == self.eos_id:
                    if q < beam:  # finished: |Y| = t tokens + EOS
                        s = value / self._length_penalty(t + 1, length_alpha)
                        if not has_finished[i] or s > best_finished[i]:
                            has_finished[i] = True
                            best_finished[i] = s
                            out_tokens[i] = history[parent]
                            out_attention[i] = step_attention[parent]
                    continue
                live_parents.append(parent)
                live_tokens.append(token)
                live_scores.append(value)
                live += 1
                live_bound = max(live_bound, value / lp_limit if value < 0 else value)
                if live == beam:
                    break
            done = live == 0
            if live > 0 and t + 1 >= limits[i]:
                # Length limit: the new live hypotheses hold L_i tokens and are finalized unfinished.
                for j in range(live):
                    s = live_scores[j] / lp_limit
                    if not has_unfinished[i] or s > best_unfinished[i]:
                        has_unfinished[i] = True
                        best_unfinished[i] = s
                        fallback_tokens[i] = torch.cat([history[live_parents[j]],
                                                        torch.tensor([live_tokens[j]], device=src.device).long()])
                        fallback_attention[i] = step_attention[live_parents[j]]
                done = True
            elif has_finished[i] and best_finished[i] >= live_bound:
                done = True  # no live hypothesis can beat the best finished one
            if not done:
                for j in range(live):
                    parents.append(live_parents[j])
                    tokens.append(live_tokens[j])
                    scores.append(live_scores[j])
                    next_sentences.append(i)
            start = end
        index = self._index(parents, src)
        new_tokens = self._index(tokens, src)
        state = self._select(state, index)
        history = torch.cat([history.index_select(0, index), new_tokens.unsqueeze(1)], 1)
        attention_history = step_attention.index_select(0, index)
        raw = torch.zeros([0], device=src.device) if len(scores) == 0 else torch.tensor(scores, device=src.device).float()
        previous = new_tokens
        sentence_of_row = next_sentences
        t += 1
    final_scores: List[float] = []
    for i in range(batch):
        if has_finished[i]:
            final_scores.append(best_finished[i])
        else:
            final_scores.append(best_unfinished[i])
            out_tokens[i] = fallback_tokens[i]
            out_attention[i] = fallback_attention[i]
    return self._pack_results(out_tokens, final_scores, out_attention, columns, src.device)
