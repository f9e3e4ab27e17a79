# The zero bridge (docs/model.md "Bridge"): s_0 = 0 for every decoder layer. Returns [B, L_d, D].


def _initial_hidden(self, final: Tensor) -> Tensor:
    layers = self._decoder_layers()
    return torch.zeros([final.size(0), len(layers), layers[0][1].size(1)], dtype=final.dtype, device=final.device)
