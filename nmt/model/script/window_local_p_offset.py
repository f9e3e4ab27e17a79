# local-p-offset's centre: local-m's moved by a learnt offset of at most W,
#   p_t = min(t, n - 1) + W tanh(v_p^T tanh(W_p q))
# the decoder step t from 0, n the row's real positions, q the query (the energy: window_position.py).


def _centres(self, query: Tensor, mask: Tensor, steps: Tensor) -> Tensor:
    monotonic = torch.min(steps, mask.sum(1) - 1).to(query.dtype)
    return monotonic + torch.tanh(self._position_energy(query)) * self._window_size()
