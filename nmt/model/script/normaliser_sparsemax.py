# Sparsemax attention weights (Martins & Astudillo 2016), docs/attention.md "Sparse normalisers":
# a_j = [z_j - tau]_+ with tau = (sum_{j<=k} z_(j) - 1) / k, k the largest with
# 1 + k z_(k) > sum_{j<=k} z_(j), z_(1) >= z_(2) >= ... a row of scores [B, S] sorted (-inf at
# padding sorts last and counts as 0 in the sums). Rows are shifted by their best score first.


def _normalise(self, scores: Tensor) -> Tensor:
    z = scores - scores.max(1, keepdim=True)[0]
    ranked = torch.sort(z, 1, True)[0]
    real = torch.isfinite(ranked)
    ranked = ranked.masked_fill(~real, 0.0)
    cumulative = ranked.cumsum(1)
    rank = torch.arange(1, z.size(1) + 1, dtype=z.dtype, device=z.device)
    k = ((rank * ranked + 1 > cumulative) & real).sum(1, keepdim=True).clamp(min=1)
    tau = (cumulative.gather(1, k - 1) - 1) / k.to(z.dtype)
    return (z - tau).clamp(min=0.0)
