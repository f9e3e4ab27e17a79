# Softmax attention weights, docs/model.md "Attention": a_j = exp(e_j) / sum_k exp(e_k), per row of
# scores [B, S] with -inf at padding.


def _normalise(self, scores: Tensor) -> Tensor:
    return torch.softmax(scores, 1)
