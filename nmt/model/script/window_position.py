# The position network of local-p and local-p-offset: the energy v_p^T tanh(W_p q) [B] of the query q.
#   W_p: decoder.attention.position_layer.weight [A, D], v_p: decoder.attention.position_energy.weight [1, A]


def _position_energy(self, query: Tensor) -> Tensor:
    attention = self.model.decoder.attention
    hidden = torch.tanh(self._linear(query, attention.position_layer.weight, None))
    return self._linear(hidden, attention.position_energy.weight, None).squeeze(1)
