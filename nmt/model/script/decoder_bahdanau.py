# The Bahdanau-style decoder step (docs/model.md "Decoder"): attention from the previous state.
#   c_t, a_t = attend(q = s_{t-1})
#   S_t      = GRU([e_{t-1} ; c_t], S_{t-1})              decoder.rnn.*
#   r_t      = tanh(W_r [s_t ; c_t ; e_{t-1}] + b_r)       decoder.readout.weight [R, D + 2H + E], .bias


def _initial_feed(self, batch: int, memory: Tensor) -> Tensor:
    return torch.zeros([batch, 0], dtype=memory.dtype, device=memory.device)


def _decode(self, e: Tensor, memory: Tensor, keys: Tensor, mask: Tensor, hidden: Tensor, feed: Tensor,
            steps: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    context, attention = self._attend(hidden[:, hidden.size(1) - 1], memory, keys, mask, steps)
    s, hidden = self._decoder_layer_step(torch.cat([e, context], 1), hidden)
    readout = self.model.decoder.readout
    r = torch.tanh(self._linear(torch.cat([s, context, e], 1), readout.weight, readout.bias))
    return r, attention, hidden, feed
