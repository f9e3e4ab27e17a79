# local-m's centre: p_t = min(t, n - 1), the decoder step t from 0 and n the row's real positions.


def _centres(self, query: Tensor, mask: Tensor, steps: Tensor) -> Tensor:
    return torch.min(steps, mask.sum(1) - 1).to(query.dtype)
