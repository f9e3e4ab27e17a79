# local-p's centre: p_t = (n - 1) sigmoid(v_p^T tanh(W_p q)), n the row's real positions, q the query.
#   W_p: decoder.attention.position_layer.weight [A, D], v_p: decoder.attention.position_energy.weight [1, A]


def _centres(self, query: Tensor, mask: Tensor, steps: Tensor) -> Tensor:
    attention = self.model.decoder.attention
    hidden = torch.tanh(self._linear(query, attention.position_layer.weight, None))
    energy = self._linear(hidden, attention.position_energy.weight, None).squeeze(1)
    return (mask.sum(1) - 1).to(query.dtype) * torch.sigmoid(energy)
