# Bahdanau (additive) attention, docs/model.md "Attention": e_j = v^T tanh(W q + U h_j).
#   W: decoder.attention.query_layer.weight [A, D], U: decoder.attention.key_layer.weight [A, 2H],
#   v: decoder.attention.energy_layer.weight [1, A]. Keys k_j = U h_j, once per sentence.


def _attention_keys(self, memory: Tensor, final: Tensor) -> Tensor:
    return self._linear(memory, self.model.decoder.attention.key_layer.weight, None)


def _attend(self, query: Tensor, memory: Tensor, keys: Tensor, mask: Tensor,
            steps: Tensor) -> Tuple[Tensor, Tensor]:
    projected = self._linear(query, self.model.decoder.attention.query_layer.weight, None)
    energy = torch.tanh(projected.unsqueeze(1) + keys)
    scores = self._linear(energy, self.model.decoder.attention.energy_layer.weight, None).squeeze(2)
    return self._context(scores, memory, mask, query, steps)
