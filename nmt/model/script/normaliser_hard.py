# Hard attention (docs/attention.md "Trained hard attention"): all the weight on the best score,
# a = one_hot(argmax_j e_j), the first of equal ones (-inf at padding is never the best).


def _normalise(self, scores: Tensor) -> Tensor:
    return torch.zeros_like(scores).scatter(1, scores.argmax(1, keepdim=True), 1.0)
