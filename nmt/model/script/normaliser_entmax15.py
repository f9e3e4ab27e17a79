# 1.5-entmax attention weights (Peters, Niculae & Martins 2019, the exact sort-based algorithm),
# docs/attention.md "Sparse normalisers": with x = z / 2 sorted, x_(1) >= x_(2) >= ..., the mean
# m_k and the squared deviations s_k of x_(1..k), tau_k = m_k - sqrt((1 - s_k) / k); tau is tau_k for
# the largest k with tau_k <= x_(k), and a_j = [x_j - tau]_+^2. Rows of scores [B, S], -inf at
# padding (sorted last, 0 in the sums), shifted by their best score first.


def _normalise(self, scores: Tensor) -> Tensor:
    x = (scores - scores.max(1, keepdim=True)[0]) / 2
    ranked = torch.sort(x, 1, True)[0]
    real = torch.isfinite(ranked)
    ranked = ranked.masked_fill(~real, 0.0)
    rank = torch.arange(1, x.size(1) + 1, dtype=x.dtype, device=x.device)
    sums = ranked.cumsum(1)
    squares = (ranked * ranked).cumsum(1)
    mean = sums / rank
    tau_k = mean - ((1 - (squares - rank * mean * mean)) / rank).clamp(min=0.0).sqrt()
    k = ((tau_k <= ranked) & real).sum(1, keepdim=True).clamp(min=1)
    size = k.to(x.dtype)
    mean_k = sums.gather(1, k - 1) / size
    tau = mean_k - ((1 - (squares.gather(1, k - 1) - size * mean_k * mean_k)) / size).sqrt()
    y = (x - tau).clamp(min=0.0)
    return y * y
