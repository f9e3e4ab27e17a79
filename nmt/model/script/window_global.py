# Global attention (docs/model.md "Attention"): the weights are the normaliser's over every real
# position.


def _weights(self, scores: Tensor, mask: Tensor, query: Tensor, steps: Tensor) -> Tensor:
    return self._normalise(scores)
