# Local attention (Luong et al. 2015, docs/model.md "Local attention"): a window of positions s
# with |s - p_t| <= W around the centre p_t (_centres: window_local_m.py, window_local_p.py or
# window_local_p_offset.py),
# the normaliser over the window, a Gaussian with sigma = W / 2, renormalised:
#   a_ts = align_s exp(-(s - p_t)^2 / (2 sigma^2)) / Z


def _weights(self, scores: Tensor, mask: Tensor, query: Tensor, steps: Tensor) -> Tensor:
    centres = self._centres(query, mask, steps)
    positions = torch.arange(scores.size(1), device=scores.device).to(scores.dtype)
    distance = positions.unsqueeze(0) - centres.unsqueeze(1)
    window = self._window_size()
    aligned = self._normalise(scores.masked_fill(distance.abs() > window, float("-inf")))
    sigma = window / 2.0
    product = aligned * torch.exp(distance * distance * (-1.0 / (2.0 * sigma * sigma)))
    return product / product.sum(1, keepdim=True)
