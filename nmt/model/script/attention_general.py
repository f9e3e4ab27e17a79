# Luong general attention, docs/model.md "Attention": e_j = q^T W h_j,
#   W: decoder.attention.key_layer.weight [D, 2H] (also dot attention's projection P when D != 2H).
# Keys k_j = W h_j, once per sentence.


def _attention_keys(self, memory: Tensor, final: Tensor) -> Tensor:
    return self._linear(memory, self.model.decoder.attention.key_layer.weight, None)


def _attend(self, query: Tensor, memory: Tensor, keys: Tensor, mask: Tensor,
            steps: Tensor) -> Tuple[Tensor, Tensor]:
    scores = torch.bmm(keys, query.unsqueeze(2)).squeeze(2)
    return self._context(scores, memory, mask, query, steps)
