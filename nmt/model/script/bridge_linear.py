# The linear bridge (docs/model.md "Bridge"): s_0 = tanh(W_b [fwd_{n+1} ; bwd_1] + b_b) for every
# decoder layer; decoder.bridge.weight [D, 2H], decoder.bridge.bias [D]. Returns [B, L_d, D].


def _initial_hidden(self, final: Tensor) -> Tensor:
    bridge = self.model.decoder.bridge
    s0 = torch.tanh(self._linear(final, bridge.weight, bridge.bias))
    return s0.unsqueeze(1).repeat(1, len(self._decoder_layers()), 1)
