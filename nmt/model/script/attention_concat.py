# Luong concat attention, docs/model.md "Attention":
#   e_j = v^T tanh(W [q ; h_j]) = v^T tanh(W[:, :D] q + W[:, D:] h_j)
#   W: decoder.attention.concat_layer.weight [A, D + 2H], v: decoder.attention.energy_layer.weight [1, A].
# Keys k_j = W[:, D:] h_j, once per sentence.


def _attention_keys(self, memory: Tensor, final: Tensor) -> Tensor:
    weight = self.model.decoder.attention.concat_layer.weight
    query_size = weight.size(1) - memory.size(2)
    return self._linear(memory, weight[:, query_size:], None)


def _attend(self, query: Tensor, memory: Tensor, keys: Tensor, mask: Tensor,
            steps: Tensor) -> Tuple[Tensor, Tensor]:
    weight = self.model.decoder.attention.concat_layer.weight
    projected = self._linear(query, weight[:, :query.size(1)], None)
    energy = torch.tanh(projected.unsqueeze(1) + keys)
    scores = self._linear(energy, self.model.decoder.attention.energy_layer.weight, None).squeeze(2)
    return self._context(scores, memory, mask, query, steps)
