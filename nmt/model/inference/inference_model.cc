#include "nmt/model/inference/inference_model.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <algorithm>
#include <numeric>

#include "nmt/core/error.h"
#include "nmt/model/gru_cell.h"
#include "nmt/kernels/kernels.h"
#include "nmt/kernels/top_candidates.h"

namespace nmt {

InferenceEncoder::InferenceEncoder(const EncoderImpl& encoder, const at::Tensor& source_embedding,
                                   const c10::Device& device, Precision precision) {
  at::NoGradGuard no_grad;
  for (const auto& layer : encoder.layers()) {
    const bool first_layer = layers_.empty();  // its input product makes the float32 table below
    std::array<Direction, 2> directions;
    for (std::size_t d = 0; d < 2; ++d) {
      const GruWeights& w = layer[d];
      if (device.is_cuda()) {  // at::gru reads them (the products below serve the CPU's kernels only)
        GruWeights copies{snapshot(w.weight_ih, device), snapshot(w.weight_hh, device), snapshot(w.bias_ih, device),
                          snapshot(w.bias_hh, device)};
        if (flatten_gru_direction_for_cudnn(copies)) {
          directions[d] = {PackedLinear(), PackedLinear(), std::move(copies)};
          continue;
        }
      }
      directions[d] = {PackedLinear(w.weight_ih, w.bias_ih, device, first_layer ? Precision::float32 : precision),
                       PackedLinear(w.weight_hh, w.bias_hh, device, precision), {}};
    }
    layers_.push_back(std::move(directions));
  }
  embedding_ = snapshot(source_embedding, device);
  const Direction& forward = layers_.front()[0];
  const Direction& backward = layers_.front()[1];
  if (!forward.cudnn.weight_ih.defined() && inference_kernels_apply(embedding_, forward.input.weight())) {
    first_gates_ = {forward.input(embedding_), backward.input(embedding_)};
    embedding_ = at::Tensor();  // the tables hold all the encoder reads of it
  }
}

EncoderOutput InferenceEncoder::operator()(const at::Tensor& source, const at::Tensor& lengths) const {
  // With the tables the walk's first input is the piece ids, [batch, src_len, 1] (it reverses them
  // for the backward direction as it would the embeddings), and each direction gathers its gates.
  const bool tables = first_gates_[0].defined();
  const at::Tensor first_input = tables ? source.unsqueeze(2) : at::embedding(embedding_, source);
  return encode_bidirectional(
      first_input, lengths, static_cast<std::int64_t>(layers_.size()), /*dropout=*/0.0, /*training=*/false,
      [&](std::int64_t layer, bool reverse, const at::Tensor& input) {
        const Direction& d = layers_[static_cast<std::size_t>(layer)][reverse ? 1 : 0];
        if (layer == 0 && tables) {  // the tables exist only where the kernels apply: the cell directly
          const at::Tensor gates = at::embedding(first_gates_[reverse ? 1 : 0], input.squeeze(2));  // [batch, src_len, 3H]
          return gru_states(gates, [&](const at::Tensor& h) { return d.hidden(h); });
        }
        if (d.input.precision() == Precision::int8 || d.hidden.precision() == Precision::int8) {
          // No float weights for at::gru to fall back on (int8 runs on the CPU only): the cell directly.
          return gru_states(d.input(input), [&](const at::Tensor& h) { return d.hidden(h); });
        }
        const GruWeights w = d.cudnn.weight_ih.defined()
                                 ? d.cudnn
                                 : GruWeights{d.input.weight(), d.hidden.weight(), d.input.bias(), d.hidden.bias()};
        return run_gru_direction(
            input, w, /*training=*/false, [&](const at::Tensor& x) { return d.input(x); },
            [&](const at::Tensor& h) { return d.hidden(h); });
      });
}

InferenceModel::InferenceModel(const Seq2SeqImpl& model, const c10::Device& device,
                               const InferencePrecision& precision)
    : config_(model.config()),
      device_(device),
      precision_(precision),
      encoder_(*model.encoder(), model.source_embedding()->weight, device,
               InferencePrecision::of_group(precision.encoder)) {
  at::NoGradGuard no_grad;  // the slices and concatenations below are copied, not trained
  decoder_ = std::make_unique<const InferenceDecoder>(
      *model.decoder(), config_, snapshot(model.target_embedding()->weight, device), device, precision);
  output_ = PackedLinear(model.output()->weight(), model.output()->bias(), device,
                         InferencePrecision::of_group(precision.output));
}

DecoderStatePtr InferenceModel::encode(const at::Tensor& source, const at::Tensor& source_lengths) const {
  TORCH_CHECK(source.dim() == 2, "encode: source must be [batch, src_len]");
  const at::Tensor lengths = source_lengths.to(at::kCPU).to(at::kLong);
  const at::Tensor mask = source_mask(source.size(1), lengths).to(source.device());
  const EncoderOutput encoded = encoder_(source, lengths);
  return decoder_->initial_state(encoded, mask);
}

InferenceStep InferenceModel::decode(const DecoderState& state, const at::Tensor& previous_tokens) const {
  TORCH_CHECK(previous_tokens.dim() == 1, "step: previous_tokens must be [batch]");
  return decoder_->step(previous_tokens, as_inference_state(state));
}

StepOutput InferenceModel::step(const DecoderState& state, const at::Tensor& previous_tokens) const {
  InferenceStep decoded = decode(state, previous_tokens);
  return {log_softmax_last(output_(decoded.readout)), decoded.attention, std::move(decoded.state)};
}

BestStep InferenceModel::best_step(const DecoderState& state, const at::Tensor& previous_tokens,
                                   const at::Tensor& offset) const {
  InferenceStep decoded = decode(state, previous_tokens);
  at::Tensor logits = output_(decoded.readout);
  BestStep out{at::Tensor(), {}, {}, std::move(decoded.attention), std::move(decoded.state)};
  if (best_of_log_softmax_applies(logits)) {  // the row's log-softmax is not written out
    BestOfRows best = best_of_log_softmax(logits, offset);
    out.ids = std::move(best.ids);
    out.scores = std::move(best.scores);
  } else {
    out.log_probs = log_softmax_last(std::move(logits));
  }
  return out;
}

RankedStep InferenceModel::ranked_step(const DecoderState& state, const at::Tensor& previous_tokens,
                                       const at::Tensor& offset, const std::vector<std::int64_t>& group_sizes,
                                       std::int64_t count) const {
  InferenceStep decoded = decode(state, previous_tokens);
  at::Tensor logits = output_(decoded.readout);  // [rows, V]
  RankedStep out{at::Tensor(), {}, std::move(decoded.attention), std::move(decoded.state)};
  // Other devices (and logits not laid out as log_softmax_last's kernel takes them, whose
  // log-softmax ATen would compute): step()'s log-probabilities, ranked by the search.
  if (!best_of_log_softmax_applies(logits) || !logits.is_contiguous()) {
    out.log_probs = log_softmax_last(std::move(logits));
    return out;
  }
  const std::int64_t rows = logits.size(0), vocab = logits.size(1);
  TORCH_CHECK(std::all_of(group_sizes.begin(), group_sizes.end(), [](std::int64_t n) { return n >= 0; }) &&
                  std::accumulate(group_sizes.begin(), group_sizes.end(), std::int64_t{0}) == rows &&
                  offset.numel() == rows,
              "InferenceModel::ranked_step: the groups and offsets must cover the batch's rows");
  const at::Tensor& x = logits;
  const RowNormalisers normalisers = log_softmax_normalisers(x);
  const at::Tensor r = offset.to(at::kCPU, at::kFloat).contiguous();
  const float* values = x.data_ptr<float>();
  const float* offsets = r.data_ptr<float>();
  std::int64_t row = 0;
  out.ranked.reserve(group_sizes.size());
  for (const std::int64_t size : group_sizes) {
    const auto first = static_cast<std::size_t>(row);
    out.ranked.push_back(top_of_rows(values + row * vocab, normalisers.normalisers.data() + first,
                                     normalisers.block_maxima.data() + row * normalisers.blocks, offsets + row,
                                     size, vocab, std::min(count, size * vocab)));
    row += size;
  }
  return out;
}

namespace {

struct OutputRows final : OutputSubset {
  OutputRows(const at::Tensor& pieces, PackedLinear rows, const InferenceModel* made_by)
      : OutputSubset(pieces), output(std::move(rows)), model(made_by) {}
  PackedLinear output;          // W_out[pieces], b_out[pieces]
  const InferenceModel* model;  // whose rows they are
};

}  // namespace

std::shared_ptr<const OutputSubset> InferenceModel::output_subset(const at::Tensor& pieces) const {
  TORCH_CHECK(pieces.dim() == 1 && pieces.scalar_type() == at::kLong, "output_subset: pieces must be [K] int64");
  const at::Tensor ids = pieces.to(device_);
  return std::make_shared<OutputRows>(ids, output_.rows(ids), this);
}

StepLogits InferenceModel::step_logits(const DecoderState& state, const at::Tensor& previous_tokens,
                                       const OutputSubset& subset) const {
  const auto* rows = dynamic_cast<const OutputRows*>(&subset);
  InferenceStep decoded = decode(state, previous_tokens);
  at::Tensor logits = rows != nullptr && rows->model == this
                          ? rows->output(decoded.readout)
                          : output_(decoded.readout).index_select(1, subset.pieces().to(device_));
  return {std::move(logits), decoded.attention, std::move(decoded.state)};
}

std::shared_ptr<const IncrementalDecoder> InferenceModel::with_hard_attention() const {
  if (!config_.has_attention()) {
    throw ConfigError("hard-attention needs attention weights, and the model has attention = none");
  }
  auto copy = std::make_shared<InferenceModel>(*this);  // the encoder and the output layer are shared
  copy->decoder_ = decoder_->with_hard_attention();
  return copy;
}

}  // namespace nmt
