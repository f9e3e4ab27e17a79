// The decoder's equations written once: the column layout every form is checked against (the
// parameters' shapes, the docs), and the order in which one step calls a form's products.
#include "nmt/model/decoder_walk.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nmt/model/seq2seq.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

TEST(DecoderLayout, BlocksTileTheWeightsOfBothStylesInTheDocumentedOrder) {
  for (const auto style : {DecoderStyle::bahdanau, DecoderStyle::luong}) {
    for (const bool tied : {false, true}) {
      ModelConfig config = test::tiny_config(AttentionType::general, style);
      config.tie_output_embedding = tied;
      const DecoderLayout layout = DecoderLayout::of(config);
      const Seq2Seq model(config);
      auto parameters = model->named_parameters();
      const at::Tensor W_ih = parameters["decoder.rnn.weight_ih_l0"], W_r = parameters["decoder.readout.weight"];
      EXPECT_EQ(layout.gru_input_size(), W_ih.size(1));
      EXPECT_EQ(layout.readout_size(), W_r.size(1));
      for (const auto* blocks : {&layout.gru_input, &layout.readout}) {
        std::int64_t next = 0;
        for (const ColumnBlock& block : *blocks) {
          EXPECT_EQ(block.begin, next) << "blocks side by side, from column 0";
          next += block.size;
          const std::int64_t expected = block.input == DecoderInput::embedding ? config.embedding_size
                                        : block.input == DecoderInput::context ? 2 * config.encoder_hidden_size
                                        : block.input == DecoderInput::feed    ? config.readout_size()
                                                                               : config.decoder_hidden_size;
          EXPECT_EQ(block.size, expected);
        }
      }
      const bool luong = style == DecoderStyle::luong;
      EXPECT_EQ(layout.input_feeding(), luong);
      EXPECT_EQ(DecoderLayout::find(layout.readout, DecoderInput::embedding) != nullptr, !luong);
      EXPECT_EQ(DecoderLayout::find(layout.gru_input, DecoderInput::context) != nullptr, !luong);
      EXPECT_EQ(columns(W_r, layout.readout.back()).size(1), layout.readout.back().size);
    }
  }
}

// docs/model.md states the layout; the code's layout must be the one it states.
TEST(DecoderLayout, IsTheOneDocsModelMdStates) {
  const std::string docs = test::read_text(std::string(NMT_SOURCE_DIR) + "/docs/model.md");
  for (const auto style : {DecoderStyle::bahdanau, DecoderStyle::luong}) {
    for (const std::string& line : DecoderLayout::of(test::tiny_config(AttentionType::dot, style)).describe()) {
      EXPECT_NE(docs.find(line), std::string::npos) << "docs/model.md lacks: " << line;
    }
  }
  EXPECT_EQ(DecoderLayout::of(test::tiny_config(AttentionType::dot, DecoderStyle::bahdanau)).describe(),
            (std::vector<std::string>{"W_ih,0 = [ê_{t-1} (E) | c_t (2H)]", "W_r = [s_t (D) | c_t (2H) | ê_{t-1} (E)]"}));
}

// A form that records which product the walk asks for, in order.
class RecordingTerms final : public DecoderTerms {
 public:
  std::vector<std::string> calls;
  AttendedContext attend(const at::Tensor& query) override {
    calls.push_back("attend(" + name(query) + ")");
    return {at::ones({1, 3}), at::full({1, 2}, 7.0)};
  }
  at::Tensor first_layer_gates(const AttendedContext* attended, const at::Tensor& feed) override {
    calls.push_back(attended != nullptr ? "first(context)" : "first(feed " + std::to_string(feed.item<double>()) + ")");
    return at::zeros({1, 6});
  }
  at::Tensor input_gates(std::size_t layer, const at::Tensor&) override {
    calls.push_back("input(" + std::to_string(layer) + ")");
    return at::zeros({1, 6});
  }
  at::Tensor hidden_gates(std::size_t layer, const at::Tensor&) override {
    calls.push_back("hidden(" + std::to_string(layer) + ")");
    return at::zeros({1, 6});
  }
  at::Tensor readout(const at::Tensor& top, const AttendedContext& attended) override {
    calls.push_back("readout(" + name(top) + ", context " + std::to_string(attended.context[0][0].item<double>()) + ")");
    return at::zeros({1, 1});
  }

 private:
  // The old state is 5 everywhere; a new one is what the GRU cell makes of zero gates from it.
  static std::string name(const at::Tensor& state) { return state[0][0].item<double>() == 5.0 ? "old" : "new"; }
};

TEST(DecoderStep, EachStyleCallsTheProductsInTheOrderOfItsEquations) {
  const at::Tensor hidden = at::full({2, 1, 2}, 5.0);  // two layers, batch 1, D 2
  const at::Tensor feed = at::full({1, 1}, 3.0);
  RecordingTerms bahdanau;
  const DecoderStepOutput b = decoder_step(DecoderStyle::bahdanau, bahdanau, hidden, at::Tensor());
  EXPECT_EQ(bahdanau.calls, (std::vector<std::string>{"attend(old)", "first(context)", "hidden(0)", "input(1)",
                                                       "hidden(1)", "readout(new, context 7.000000)"}));
  RecordingTerms luong;
  const DecoderStepOutput l = decoder_step(DecoderStyle::luong, luong, hidden, feed);
  EXPECT_EQ(luong.calls, (std::vector<std::string>{"first(feed 3.000000)", "hidden(0)", "input(1)", "hidden(1)",
                                                    "attend(new)", "readout(new, context 7.000000)"}));
  for (const auto* out : {&b, &l}) {
    EXPECT_EQ(out->hidden.sizes(), hidden.sizes());
    EXPECT_TRUE(out->attended.weights.defined());
  }
}

TEST(DecoderStep, TheBridgeOrZerosStartEveryLayer) {
  EncoderOutput encoded;
  encoded.memory = at::zeros({3, 4, 6});
  encoded.final_states = at::randn({2, 3, 3});  // one layer, two directions, batch 3, H 3
  EXPECT_TRUE(at::equal(initial_decoder_state(encoded, 2, 5, nullptr), at::zeros({2, 3, 5})));
  const Product bridge = [](const at::Tensor& x) { return x.sum(1, /*keepdim=*/true).expand({x.size(0), 5}).contiguous(); };
  const at::Tensor s0 = initial_decoder_state(encoded, 2, 5, &bridge);
  ASSERT_EQ(s0.sizes(), (std::vector<std::int64_t>{2, 3, 5}));
  EXPECT_TRUE(at::allclose(s0[0], at::tanh(bridge(top_final_states(encoded)))));
  EXPECT_TRUE(at::equal(s0[0], s0[1]));
}

}  // namespace
}  // namespace nmt
