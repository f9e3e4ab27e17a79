# The Luong-style decoder step with input feeding (docs/model.md "Decoder"): attention from the
# current state.
#   S_t      = GRU([e_{t-1} ; r_{t-1}], S_{t-1})           decoder.rnn.*; r_0 = 0
#   c_t, a_t = attend(q = s_t)
#   r_t      = tanh(W_r [c_t ; s_t] + b_r)                 decoder.readout.weight [R, 2H + D], .bias
# The state's feed slot carries r_{t-1} [B, R].


def _initial_feed(self, batch: int, memory: Tensor) -> Tensor:
    return torch.zeros([batch, self.model.decoder.readout.weight.size(0)], dtype=memory.dtype, device=memory.device)


def _decode(self, e: Tensor, memory: Tensor, keys: Tensor, mask: Tensor, hidden: Tensor, feed: Tensor,
            steps: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    s, hidden = self._decoder_layer_step(torch.cat([e, feed], 1), hidden)
    context, attention = self._attend(s, memory, keys, mask, steps)
    readout = self.model.decoder.readout
    r = torch.tanh(self._linear(torch.cat([context, s], 1), readout.weight, readout.bias))
    return r, attention, hidden, r
