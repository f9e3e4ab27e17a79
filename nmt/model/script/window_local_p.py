# local-p's centre: p_t = (n - 1) sigmoid(v_p^T tanh(W_p q)), n the row's real positions, q the query
# (the energy: window_position.py).


def _centres(self, query: Tensor, mask: Tensor, steps: Tensor) -> Tensor:
    return (mask.sum(1) - 1).to(query.dtype) * torch.sigmoid(self._position_energy(query))
