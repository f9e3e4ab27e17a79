// Every checkpoint is a TorchScript program (docs/checkpoints.md, "Methods"): its encode, step,
// score, greedy and beam_search, a second implementation of docs/model.md and docs/search.md, must
// agree with the C++ model and search. For a briefly trained tiny model of each attention type and
// decoder style, on 50 sentences: step log-probabilities within 1e-5 of the inference model's,
// `score` within 1e-5 of forced decoding, `greedy` and `beam_search` (beam 5) the same token ids as
// greedy_search and beam_search; from C++ (torch::jit::load + run_method) and from Python
// (/usr/bin/python3 with torch, which skips where it is missing).
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/serialize/output-archive.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <numeric>
#include <tuple>

#include "nmt/data/source_batching.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/search/beam_search.h"
#include "nmt/search/forced_decoding.h"
#include "nmt/search/greedy_search.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

constexpr int kSourceVocab = 200, kTargetVocab = 300, kSentences = 50;

// lean: 2 decoder layers, zero bridge, shared+tied
using Architecture = std::tuple<AttentionType, DecoderStyle, bool, test::AttentionKind>;

// Every attention type x decoder style x {full, lean} with softmax over every position; the sparse
// normalisers and the local windows with each style's usual score (Bahdanau's additive, Luong's general).
std::vector<Architecture> all_architectures() {
  std::vector<Architecture> all;
  for (const auto attention : {AttentionType::bahdanau, AttentionType::dot, AttentionType::general,
                               AttentionType::concat, AttentionType::none}) {
    for (const auto style : {DecoderStyle::bahdanau, DecoderStyle::luong}) {
      for (const bool lean : {false, true}) all.emplace_back(attention, style, lean, test::AttentionKind{});
    }
  }
  for (const test::AttentionKind& kind : test::other_attention_kinds()) {
    all.emplace_back(AttentionType::bahdanau, DecoderStyle::bahdanau, false, kind);
    all.emplace_back(AttentionType::general, DecoderStyle::luong, false, kind);
  }
  return all;
}

struct Fixture {
  test::TempDir dir;
  Seq2Seq model{nullptr};
  std::shared_ptr<const InferenceModel> inference;
  SourceBatch sources;                      // kSentences sentences, longest first
  std::vector<std::vector<int>> targets;    // for forced decoding
  std::string checkpoint;
};

const Fixture& fixture(const Architecture& architecture) {
  static std::map<Architecture, Fixture> cache;
  auto [it, fresh] = cache.try_emplace(architecture);
  Fixture& f = it->second;
  if (!fresh) return f;
  const auto [attention, style, lean, kind] = architecture;
  ModelConfig config = test::tiny_config(attention, style);
  kind.apply(config);
  config.source_vocab_size = kSourceVocab;
  config.target_vocab_size = lean ? kSourceVocab : kTargetVocab;
  if (lean) {
    config.decoder_layers = 2;
    config.bridge = BridgeType::zero;
    config.share_embeddings = config.tie_output_embedding = true;
  } else {
    config.encoder_layers = 2;
  }
  std::vector<int> lengths, target_lengths;
  for (int i = 0; i < kSentences; ++i) {
    lengths.push_back(1 + (i * 7) % 14);
    target_lengths.push_back(1 + (i * 5) % 13);
  }
  const auto sources = test::random_sequences(lengths, kSourceVocab, 5);
  f.targets = test::random_sequences(target_lengths, static_cast<int>(config.target_vocab_size), 6);
  std::vector<std::size_t> all(kSentences);
  std::iota(all.begin(), all.end(), 0);
  at::manual_seed(17);
  f.model = Seq2Seq(config);
  test::fit_briefly(f.model, make_batch(ParallelCorpus::from_sequences(sources, f.targets), all));
  f.inference = f.model->for_inference(c10::Device(c10::kCPU));
  std::vector<std::int64_t> sizes;
  for (const auto& s : sources) sizes.push_back(static_cast<std::int64_t>(s.size()));
  const auto order = longest_first(sizes, /*keep_empty=*/true);
  f.sources = make_source_batch(sources, order, 0, order.size());
  std::vector<std::vector<int>> ordered_targets;
  for (const std::size_t i : order) ordered_targets.push_back(f.targets[i]);
  f.targets = ordered_targets;
  f.checkpoint = f.dir.path("model.pt");
  save_checkpoint(f.checkpoint, f.model, test::toy_tokenizer(kSourceVocab),
                  test::toy_tokenizer(static_cast<int>(config.target_vocab_size)));
  return f;
}

std::string architecture_name(const Architecture& architecture) {
  return name_of(std::get<0>(architecture)) + "_" + name_of(std::get<1>(architecture)) +
         (std::get<2>(architecture) ? "_lean" : "_full") + std::get<3>(architecture).suffix();
}

// Padded result tensors (tokens [B, T], lengths [B]) as id lists.
std::vector<std::vector<int>> token_lists(const at::Tensor& tokens, const at::Tensor& lengths) {
  std::vector<std::vector<int>> out;
  for (std::int64_t i = 0; i < tokens.size(0); ++i) {
    std::vector<int> row;
    for (std::int64_t t = 0; t < lengths[i].item<std::int64_t>(); ++t) row.push_back(static_cast<int>(tokens[i][t].item<std::int64_t>()));
    out.push_back(row);
  }
  return out;
}

std::vector<std::vector<int>> native_tokens(const std::vector<Hypothesis>& hypotheses) {
  std::vector<std::vector<int>> out;
  for (const auto& h : hypotheses) out.push_back(h.tokens);
  return out;
}

// The forced-decoding batch (targets + EOS, padded) as score() takes it: ids without EOS, padded.
at::Tensor without_eos(const at::Tensor& gold) {
  const at::Tensor ids = gold.narrow(1, 0, gold.size(1) - 1);
  return ids.masked_fill(ids == SpecialIds::kEos, SpecialIds::kPad);
}

// Each step's log-probabilities and attention within 1e-5 of the inference model's.
void expect_steps_match(const Fixture& f, torch::jit::Module& module);
// score() within 1e-5 of forced decoding.
void expect_score_matches(const Fixture& f, torch::jit::Module& module);
// greedy() and beam_search() give greedy_search's and beam_search's tokens, scores within 1e-4.
void expect_searches_match(const Fixture& f, torch::jit::Module& module);

// Every architecture from C++, then from Python, in one process: the fixtures (a model trained
// briefly and saved, each) are made once for both.
TEST(ScriptedCheckpoint, EveryArchitecturesMethodsAgreeWithTheNativeModelFromCpp) {
  for (const Architecture& architecture : all_architectures()) {
    SCOPED_TRACE(architecture_name(architecture));
    const Fixture& f = fixture(architecture);
    torch::jit::Module module = torch::jit::load(f.checkpoint);
    {
      SCOPED_TRACE("steps");
      expect_steps_match(f, module);
    }
    {
      SCOPED_TRACE("score");
      expect_score_matches(f, module);
    }
    SCOPED_TRACE("greedy and beam search");
    expect_searches_match(f, module);
  }
}

void expect_steps_match(const Fixture& f, torch::jit::Module& module) {
  const at::Tensor source = f.sources.source, lengths = f.sources.lengths;
  auto scripted_state = module.run_method("encode", source, lengths).toTensorList().vec();
  DecoderStatePtr state = f.inference->encode(source, lengths);
  at::Tensor previous = at::full({source.size(0)}, SpecialIds::kBos, at::kLong);
  for (int t = 0; t < 6; ++t) {
    const StepOutput native = f.inference->step(*state, previous);
    const auto out = module.run_method("step", c10::List<at::Tensor>(scripted_state), previous).toTuple();
    const at::Tensor log_probs = out->elements()[0].toTensor(), attention = out->elements()[1].toTensor();
    EXPECT_LT((log_probs - native.log_probs).abs().max().item<double>(), 1e-5) << "step " << t;
    if (native.attention.defined()) {
      EXPECT_LT((attention - native.attention).abs().max().item<double>(), 1e-5) << "step " << t;
    } else {
      EXPECT_EQ(attention.size(1), 0);
    }
    scripted_state = out->elements()[2].toTensorList().vec();
    state = native.state;
    previous = native.log_probs.argmax(1);
  }
}

void expect_score_matches(const Fixture& f, torch::jit::Module& module) {
  std::vector<const std::vector<int>*> pointers;
  std::vector<std::int64_t> target_lengths;
  for (const auto& t : f.targets) {
    pointers.push_back(&t);
    target_lengths.push_back(static_cast<std::int64_t>(t.size()));
  }
  const at::Tensor gold = make_target_batch(pointers);  // targets + EOS, padded
  const at::Tensor native = forced_log_probs(*f.inference, f.sources.source, f.sources.lengths, gold);
  const at::Tensor scripted = module.run_method("score", f.sources.source, f.sources.lengths, without_eos(gold),
                                                at::tensor(target_lengths)).toTensor();
  EXPECT_EQ(scripted.scalar_type(), at::kDouble);
  // Both are float32 sums of the m + 1 log-probabilities in step order, whose terms may differ in
  // their last bits, and each addition rounds: the bound is 1e-5 plus one unit in the last place of
  // the float32 sum per term (LibTorch 2.6 gave 1.14e-5, three units of a sum between -32 and -64).
  for (std::int64_t i = 0; i < native.size(0); ++i) {
    const float value = native[i].item<float>();
    const double ulp = std::nextafter(std::fabs(value), INFINITY) - std::fabs(value);
    const double terms = static_cast<double>(target_lengths[static_cast<std::size_t>(i)] + 1);
    EXPECT_LE(std::fabs(scripted[i].item<double>() - value), 1e-5 + terms * ulp) << "sentence " << i;
  }
}

void expect_searches_match(const Fixture& f, torch::jit::Module& module) {
  const at::Tensor source = f.sources.source, lengths = f.sources.lengths;
  SearchOptions options;
  const auto greedy = greedy_search(*f.inference, source, lengths, options);
  const auto scripted_greedy = module.run_method("greedy", source, lengths).toTuple()->elements();
  EXPECT_EQ(token_lists(scripted_greedy[0].toTensor(), scripted_greedy[1].toTensor()), native_tokens(greedy));
  for (std::size_t i = 0; i < greedy.size(); ++i) {
    EXPECT_NEAR(scripted_greedy[2].toTensor()[static_cast<std::int64_t>(i)].item<double>(), greedy[i].score, 1e-4) << i;
  }
  options.beam_size = 5;
  const auto beamed = beam_search(*f.inference, source, lengths, options);
  std::vector<Hypothesis> best;
  for (const auto& n_best : beamed) best.push_back(n_best.front());
  const auto scripted_beam = module.run_method("beam_search", source, lengths, 5, 0.6).toTuple()->elements();
  EXPECT_EQ(token_lists(scripted_beam[0].toTensor(), scripted_beam[1].toTensor()), native_tokens(best));
  int differ = 0;  // the two searches must really differ for the comparison to mean something
  for (std::size_t i = 0; i < best.size(); ++i) differ += best[i].tokens != greedy[i].tokens;
  EXPECT_GT(differ, 0);
  for (std::size_t i = 0; i < best.size(); ++i) {
    EXPECT_NEAR(scripted_beam[2].toTensor()[static_cast<std::int64_t>(i)].item<double>(), best[i].score, 1e-4) << i;
  }
}

// Padded [rows, longest] token ids and [rows] lengths of the hypotheses.
std::pair<at::Tensor, at::Tensor> padded(const std::vector<Hypothesis>& hypotheses) {
  std::size_t longest = 0;
  for (const auto& h : hypotheses) longest = std::max(longest, h.tokens.size());
  at::Tensor tokens = at::zeros({static_cast<std::int64_t>(hypotheses.size()), static_cast<std::int64_t>(longest)}, at::kLong);
  at::Tensor lengths = at::zeros({static_cast<std::int64_t>(hypotheses.size())}, at::kLong);
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const auto row = static_cast<std::int64_t>(i);
    lengths[row] = static_cast<std::int64_t>(hypotheses[i].tokens.size());
    for (std::size_t t = 0; t < hypotheses[i].tokens.size(); ++t) tokens[row][static_cast<std::int64_t>(t)] = hypotheses[i].tokens[t];
  }
  return {tokens, lengths};
}

// Writes dir/<architecture>/model.pt and expected.pt: the checkpoint and what nmt computes with it
// (greedy and beam 5 tokens, forced decoding) on the fixture's sentences.
void write_expected(const Architecture& architecture, const std::filesystem::path& dir) {
  const Fixture& f = fixture(architecture);
  const at::Tensor source = f.sources.source, lengths = f.sources.lengths;
  SearchOptions options;
  const auto [greedy_tokens, greedy_lengths] = padded(greedy_search(*f.inference, source, lengths, options));
  options.beam_size = 5;
  std::vector<Hypothesis> best;
  for (auto& n_best : beam_search(*f.inference, source, lengths, options)) best.push_back(n_best.front());
  const auto [beam_tokens, beam_lengths] = padded(best);
  std::vector<const std::vector<int>*> pointers;
  std::vector<std::int64_t> target_lengths;
  for (const auto& t : f.targets) {
    pointers.push_back(&t);
    target_lengths.push_back(static_cast<std::int64_t>(t.size()));
  }
  const at::Tensor gold = make_target_batch(pointers);
  torch::serialize::OutputArchive expected;
  expected.write("source", source, /*is_buffer=*/true);
  expected.write("source_lengths", lengths, true);
  expected.write("targets", without_eos(gold), true);
  expected.write("target_lengths", at::tensor(target_lengths), true);
  expected.write("forced", forced_log_probs(*f.inference, source, lengths, gold), true);
  expected.write("greedy_tokens", greedy_tokens, true);
  expected.write("greedy_lengths", greedy_lengths, true);
  expected.write("beam_tokens", beam_tokens, true);
  expected.write("beam_lengths", beam_lengths, true);
  const std::filesystem::path to = dir / architecture_name(architecture);
  std::filesystem::create_directories(to);
  expected.save_to((to / "expected.pt").string());
  std::filesystem::copy_file(f.checkpoint, to / "model.pt", std::filesystem::copy_options::overwrite_existing);
}

// From Python, every architecture in one interpreter (a torch import costs seconds). With
// NMT_SCRIPTED_EXPORT_DIR set, the files stay there for another PyTorch to check
// (scripts/check-debian13.sh --python-torch runs them with Debian 13's), whether or not this
// machine's Python has torch.
TEST(ScriptedCheckpoint, EveryArchitectureAgreesWithNmtFromPython) {
  test::TempDir temp;
  const char* export_dir = std::getenv("NMT_SCRIPTED_EXPORT_DIR");
  const std::filesystem::path dir = export_dir ? std::filesystem::path(export_dir) : temp.root();
  for (const Architecture& architecture : all_architectures()) write_expected(architecture, dir);
  if (!test::python_torch_available()) GTEST_SKIP() << test::kSystemPython << " with torch not available";
  const std::string log = temp.path("log.txt");
  const std::string command = std::string(test::kSystemPython) + " " + NMT_SOURCE_DIR +
                              "/tests/model/scripted_checkpoint_check.py " + dir.string() + " >" + log + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << test::read_text(log);
  const std::string text = test::read_text(log);
  EXPECT_NE(text.find(std::to_string(all_architectures().size()) + " of " + std::to_string(all_architectures().size()) +
                      " architectures agree"), std::string::npos) << text;
}

}  // namespace
}  // namespace nmt
