# Luong dot attention without a projection (D = 2H), docs/model.md "Attention": e_j = q^T h_j.
# Keys are the memory itself. (With D != 2H the checkpoint's dot attention has a projection P,
# e_j = q^T P h_j, which is attention_general.py's function with W = P.)


def _attention_keys(self, memory: Tensor, final: Tensor) -> Tensor:
    return memory


def _attend(self, query: Tensor, memory: Tensor, keys: Tensor, mask: Tensor,
            steps: Tensor) -> Tuple[Tensor, Tensor]:
    scores = torch.bmm(keys, query.unsqueeze(2)).squeeze(2)
    return self._context(scores, memory, mask, query, steps)
