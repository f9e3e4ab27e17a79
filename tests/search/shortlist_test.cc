// Lexical shortlists: the Dice table and the frequent pieces, the file and its refusals, and
// decoding with one (ShortlistDecoder): a list of every piece changes nothing, bit for bit; a real
// list gives proper distributions over each sentence's own pieces, independent of the batch.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/serialize/output-archive.h>

#include <cmath>
#include <fstream>
#include <numeric>

#include "nmt/core/error.h"
#include "nmt/core/sha256.h"
#include "nmt/core/verified_archive.h"
#include "nmt/data/tokenizer.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/model/seq2seq.h"
#include "nmt/search/beam_search.h"
#include "nmt/search/greedy_search.h"
#include "nmt/search/lexical_shortlist.h"
#include "nmt/search/shortlist_decoder.h"
#include "nmt/kernels/top_candidates.h"
#include "nmt/translate/shortlist_builder.h"
#include "tests/model/model_test_util.h"
#include "tests/search/steps_only.h"
#include "tests/test_util.h"

namespace nmt {
// Its own namespace: a unity build compiles this file together with others (docs/architecture.md).
namespace shortlist_test {
namespace {

using Tokens = std::vector<int>;
constexpr std::int64_t kSourceVocab = 37, kTargetVocab = 41;

LexicalShortlist make_shortlist(at::Tensor table, std::vector<std::int64_t> frequent) {
  return LexicalShortlist(std::move(table), std::move(frequent), kTargetVocab, "src-digest", "tgt-digest", "dice");
}

// A list of every target piece: the frequent pieces are the whole vocabulary.
std::shared_ptr<const LexicalShortlist> whole_vocabulary() {
  std::vector<std::int64_t> all(kTargetVocab);
  std::iota(all.begin(), all.end(), 0);
  return std::make_shared<const LexicalShortlist>(make_shortlist(at::full({kSourceVocab, 1}, -1, at::kInt), all));
}

TEST(DiceTable, ListsTheBestCooccurringPiecesWithTheDocumentedTieBreaks) {
  // s4 always with t7 (dice 1); s4 with t8 in 2 of its 3 sentences, t8 also alone once (2*2/(3+3));
  // t9 with s4 once and alone twice: 2*1/(3+3) = t10's 2*1/(3+3): equal dice and count, smaller id first.
  const std::vector<Tokens> sources{{4, 5}, {4, 5, 5}, {4}, {6}, {6}, {6}};
  const std::vector<Tokens> targets{{7, 8, 3}, {7, 8, 9}, {7, 10}, {8}, {9, 10}, {9, 10}};
  const at::Tensor table = dice_table(sources, targets, 12, 12, 3);
  EXPECT_EQ(table.sizes(), (std::vector<std::int64_t>{12, 3}));
  EXPECT_EQ(table[4][0].item<int>(), 7);
  EXPECT_EQ(table[4][1].item<int>(), 8);
  EXPECT_EQ(table[4][2].item<int>(), 9);
  // s5 (in 2 sentences, once twice): with t7 and t8 twice (2*2/(2+3)), t9 once.
  EXPECT_EQ(table[5][0].item<int>(), 7);
  EXPECT_EQ(table[5][1].item<int>(), 8);
  EXPECT_EQ(table[5][2].item<int>(), 9);
  // s6: t9 and t10 twice each (2*2/(3+3)), t8 once (2/(3+3)).
  EXPECT_EQ(table[6][0].item<int>(), 9);
  EXPECT_EQ(table[6][1].item<int>(), 10);
  EXPECT_EQ(table[6][2].item<int>(), 8);
  // Specials are neither counted nor listed (EOS 3 in the first target); unseen pieces have no list.
  for (std::int64_t s = 0; s < 12; ++s) {
    for (std::int64_t j = 0; j < 3; ++j) EXPECT_NE(table[s][j].item<int>(), SpecialIds::kEos);
  }
  EXPECT_TRUE(table[7].eq(-1).all().item<bool>());
  EXPECT_TRUE(table[SpecialIds::kEos].eq(-1).all().item<bool>());
  EXPECT_THROW(dice_table({{4}}, {{12}}, 12, 12, 3), Error);
}

TEST(DiceTable, MostFrequentPiecesCountOccurrencesAndComeSorted) {
  const std::vector<Tokens> targets{{7, 7, 7, 3}, {8, 8, 9}, {9, 2, 2, 2, 2}};
  EXPECT_EQ(most_frequent_pieces(targets, 12, 2), (std::vector<std::int64_t>{7, 8}));  // 8 and 9 tie: smaller id
  EXPECT_EQ(most_frequent_pieces(targets, 12, 10), (std::vector<std::int64_t>{7, 8, 9}));
  EXPECT_TRUE(most_frequent_pieces(targets, 12, 0).empty());
}

TEST(LexicalShortlist, ASentencesPiecesAreTheFrequentOnesItsListsEosAndUnk) {
  at::Tensor table = at::full({kSourceVocab, 2}, -1, at::kInt);
  table[5][0] = 20;
  table[5][1] = 11;
  table[6][0] = 11;
  const LexicalShortlist shortlist = make_shortlist(table, {30, 9});
  const std::vector<std::int64_t> source{5, 6, 36, SpecialIds::kEos, 99, -1};  // 99 and -1: no row, skipped
  EXPECT_EQ(shortlist.pieces_for(source.data(), static_cast<std::int64_t>(source.size())),
            (std::vector<std::int64_t>{SpecialIds::kUnk, SpecialIds::kEos, 9, 11, 20, 30}));
  EXPECT_EQ(shortlist.pieces_for(source.data(), 0),
            (std::vector<std::int64_t>{SpecialIds::kUnk, SpecialIds::kEos, 9, 30}));
}

TEST(LexicalShortlist, RefusesIdsOutsideTheVocabularies) {
  at::Tensor table = at::full({kSourceVocab, 2}, -1, at::kInt);
  EXPECT_THROW(make_shortlist(table, {kTargetVocab}), ConfigError);
  EXPECT_THROW(make_shortlist(table, {-1}), ConfigError);
  table[3][0] = static_cast<int>(kTargetVocab);
  EXPECT_THROW(make_shortlist(table, {}), ConfigError);
  table[3][0] = -2;
  EXPECT_THROW(make_shortlist(table, {}), ConfigError);
  EXPECT_THROW(make_shortlist(at::zeros({kSourceVocab, 2}, at::kLong), {}), ConfigError);
}

TEST(LexicalShortlist, FileRoundTripsAndEveryBadFileIsNamed) {
  test::TempDir dir;
  at::manual_seed(3);
  const at::Tensor table = at::randint(-1, kTargetVocab, {kSourceVocab, 5}, at::kInt);
  const LexicalShortlist original = make_shortlist(table, {4, 8, 15});
  const std::string path = (dir.root() / "a.shortlist").string();
  original.save(path, /*replace=*/false);
  const LexicalShortlist loaded = LexicalShortlist::load(path);
  EXPECT_TRUE(at::equal(loaded.table(), table));
  EXPECT_EQ(loaded.frequent(), original.frequent());
  EXPECT_EQ(loaded.target_vocab(), kTargetVocab);
  EXPECT_EQ(loaded.method(), "dice");
  EXPECT_THROW(original.save(path, /*replace=*/false), IoError);  // exists
  original.save(path, /*replace=*/true);

  const auto message = [](const std::string& file) {
    try {
      LexicalShortlist::load(file);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  EXPECT_NE(message((dir.root() / "missing").string()).find("missing"), std::string::npos);
  const std::string text = (dir.root() / "text.shortlist").string();
  std::ofstream(text) << "not an archive\n";
  EXPECT_NE(message(text).find("shortlist " + text), std::string::npos) << message(text);
  // Every flipped byte of the file: refused (damaged, not a shortlist) or, where it touches no
  // value (zip padding, names LibTorch ignores), the same shortlist; never a different one.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  int refused = 0;
  for (std::size_t i = 0; i < bytes.size(); i += 7) {
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x20);
    const std::string file = (dir.root() / "flipped.shortlist").string();
    std::ofstream(file, std::ios::binary | std::ios::trunc) << flipped;
    try {
      const LexicalShortlist other = LexicalShortlist::load(file);
      EXPECT_TRUE(at::equal(other.table(), table)) << "byte " << i;
      EXPECT_EQ(other.frequent(), original.frequent()) << "byte " << i;
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);

  // Digests that hold, contents that do not: refused naming the file and what is wrong.
  torch::serialize::OutputArchive archive;
  archive.write("format_version", c10::IValue(std::int64_t{1}));
  archive.write("kind", c10::IValue(std::string("nmt lexical shortlist")));
  archive.write("method", c10::IValue(std::string("dice")));
  archive.write("source_spm_sha256", c10::IValue(std::string("a")));
  archive.write("target_spm_sha256", c10::IValue(std::string("b")));
  archive.write("target_vocab", c10::IValue(kTargetVocab));
  archive.write("table", at::full({kSourceVocab, 2}, 99, at::kInt), /*is_buffer=*/true);
  archive.write("frequent", at::tensor({4L}, at::kLong), /*is_buffer=*/true);
  const std::string crafted = (dir.root() / "crafted.shortlist").string();
  std::ofstream(crafted, std::ios::binary) << serialize_with_digests(archive);
  EXPECT_NE(message(crafted).find("shortlist " + crafted + ": a shortlist's table holds a piece outside the target "
                                  "vocabulary of 41"),
            std::string::npos)
      << message(crafted);
}

// A tiny trained model and sentences over its source vocabulary.
struct Trained {
  Seq2Seq model{nullptr};
  std::shared_ptr<const InferenceModel> inference;
  std::vector<Tokens> sentences;
};

const Trained& trained() {
  static const Trained t = [] {
    Trained out;
    std::vector<int> lengths, target_lengths;
    for (int i = 0; i < 16; ++i) {
      lengths.push_back(1 + (i * 7) % 11);
      target_lengths.push_back(1 + (i * 5) % 12);
    }
    out.sentences = test::random_sequences(lengths, static_cast<int>(kSourceVocab), 8);
    const auto corpus =
        ParallelCorpus::from_sequences(out.sentences, test::random_sequences(target_lengths, static_cast<int>(kTargetVocab), 9));
    std::vector<std::size_t> all(out.sentences.size());
    std::iota(all.begin(), all.end(), 0);
    at::manual_seed(21);
    out.model = Seq2Seq(test::tiny_config(AttentionType::bahdanau, DecoderStyle::luong));
    test::fit_briefly(out.model, make_batch(corpus, all));
    out.inference = out.model->for_inference(c10::Device(c10::kCPU));
    return out;
  }();
  return t;
}

std::pair<at::Tensor, at::Tensor> source_tensors(const std::vector<Tokens>& sentences, const std::vector<std::size_t>& ids) {
  std::size_t longest = 0;
  for (const std::size_t i : ids) longest = std::max(longest, sentences[i].size() + 1);
  at::Tensor source = at::full({static_cast<std::int64_t>(ids.size()), static_cast<std::int64_t>(longest)},
                               SpecialIds::kPad, at::kLong);
  at::Tensor lengths = at::empty({static_cast<std::int64_t>(ids.size())}, at::kLong);
  for (std::size_t r = 0; r < ids.size(); ++r) {
    const Tokens& s = sentences[ids[r]];
    for (std::size_t j = 0; j < s.size(); ++j) source[static_cast<std::int64_t>(r)][static_cast<std::int64_t>(j)] = s[j];
    source[static_cast<std::int64_t>(r)][static_cast<std::int64_t>(s.size())] = SpecialIds::kEos;
    lengths[static_cast<std::int64_t>(r)] = static_cast<std::int64_t>(s.size()) + 1;
  }
  return {source, lengths};
}

// n-best lists by sentence, searched in the given batches.
std::vector<std::vector<Hypothesis>> search(const IncrementalDecoder& model, const std::vector<std::vector<std::size_t>>& batches,
                                            const SearchOptions& options) {
  std::vector<std::vector<Hypothesis>> out(trained().sentences.size());
  for (const auto& ids : batches) {
    const auto [source, lengths] = source_tensors(trained().sentences, ids);
    std::vector<std::vector<Hypothesis>> results;
    if (options.beam_size == 1) {
      for (auto& h : greedy_search(model, source, lengths, options)) results.push_back({std::move(h)});
    } else {
      results = beam_search(model, source, lengths, options);
    }
    for (std::size_t r = 0; r < ids.size(); ++r) out[ids[r]] = std::move(results[r]);
  }
  return out;
}

std::vector<std::size_t> all_sentences() {
  std::vector<std::size_t> all(trained().sentences.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

void expect_same(const std::vector<std::vector<Hypothesis>>& a, const std::vector<std::vector<Hypothesis>>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size()) << "sentence " << i;
    for (std::size_t j = 0; j < a[i].size(); ++j) {
      EXPECT_EQ(a[i][j].tokens, b[i][j].tokens) << "sentence " << i << " hypothesis " << j;
      EXPECT_EQ(a[i][j].log_prob, b[i][j].log_prob) << "sentence " << i << " hypothesis " << j;
      EXPECT_EQ(a[i][j].score, b[i][j].score) << "sentence " << i << " hypothesis " << j;
      EXPECT_EQ(a[i][j].finished, b[i][j].finished);
    }
  }
}

SearchOptions options_for(std::int64_t beam) {
  SearchOptions options;
  options.beam_size = beam;
  options.n_best = beam > 1 ? 3 : 1;
  return options;
}

TEST(ShortlistDecoder, AListOfEveryPieceChangesNothingBitForBit) {
  const auto model = trained().inference;
  const ShortlistDecoder shortlisted(model, whole_vocabulary());
  for (const std::int64_t beam : {1, 4}) {
    expect_same(search(shortlisted, {all_sentences()}, options_for(beam)), search(*model, {all_sentences()}, options_for(beam)));
  }
  // One step's log-probabilities, compared whole.
  const auto [source, lengths] = source_tensors(trained().sentences, all_sentences());
  const at::Tensor bos = at::full({source.size(0)}, SpecialIds::kBos, at::kLong);
  const StepOutput plain = model->step(*model->encode(source, lengths), bos);
  const StepOutput listed = shortlisted.step(*shortlisted.encode(source, lengths), bos);
  EXPECT_TRUE(at::equal(plain.log_probs, listed.log_probs));
  EXPECT_TRUE(at::equal(plain.attention, listed.attention));
}

// Lists of a few pieces per source piece: each row a distribution over its own list.
std::shared_ptr<const LexicalShortlist> small_lists() {
  at::manual_seed(5);
  const at::Tensor table = at::randint(SpecialIds::kEos + 1, kTargetVocab, {kSourceVocab, 3}, at::kInt);
  return std::make_shared<const LexicalShortlist>(make_shortlist(table, {4, 5}));
}

TEST(ShortlistDecoder, EachRowIsADistributionOverItsOwnPieces) {
  const auto shortlist = small_lists();
  const ShortlistDecoder shortlisted(trained().inference, shortlist);
  const auto [source, lengths] = source_tensors(trained().sentences, all_sentences());
  const at::Tensor bos = at::full({source.size(0)}, SpecialIds::kBos, at::kLong);
  const StepOutput step = shortlisted.step(*shortlisted.encode(source, lengths), bos);
  for (std::int64_t r = 0; r < source.size(0); ++r) {
    const auto pieces = shortlist->pieces_for(source[r].data_ptr<std::int64_t>(), lengths[r].item<std::int64_t>());
    at::Tensor inside = at::zeros({kTargetVocab}, at::kBool);
    for (const std::int64_t p : pieces) inside[p] = true;
    EXPECT_TRUE(step.log_probs[r].masked_select(inside.logical_not()).eq(-INFINITY).all().item<bool>()) << "row " << r;
    EXPECT_NEAR(step.log_probs[r].masked_select(inside).to(at::kDouble).exp().sum().item<double>(), 1.0, 1e-5);
  }
  // Every hypothesis uses listed pieces only.
  const auto results = search(shortlisted, {all_sentences()}, options_for(4));
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto [s, l] = source_tensors(trained().sentences, {i});
    const auto pieces = shortlist->pieces_for(s[0].data_ptr<std::int64_t>(), l[0].item<std::int64_t>());
    for (const Hypothesis& h : results[i]) {
      for (const int token : h.tokens) EXPECT_TRUE(std::binary_search(pieces.begin(), pieces.end(), token));
    }
  }
}

TEST(ShortlistDecoder, ASentenceGetsTheSameResultInAnyBatch) {
  const ShortlistDecoder shortlisted(trained().inference, small_lists());
  std::vector<std::vector<std::size_t>> alone, pairs;
  for (std::size_t i = 0; i < trained().sentences.size(); ++i) alone.push_back({i});
  for (std::size_t i = 0; i + 1 < trained().sentences.size(); i += 2) pairs.push_back({i + 1, i});
  for (const std::int64_t beam : {1, 4}) {
    const auto together = search(shortlisted, {all_sentences()}, options_for(beam));
    expect_same(search(shortlisted, alone, options_for(beam)), together);
    expect_same(search(shortlisted, pairs, options_for(beam)), together);
  }
}

// Greedy search with the shortlist choosing each row's piece from its list's logits
// (ranked_step with k = 1) gives what ranking the written [rows, V] log-probabilities gives:
// the same pieces, score bits and attention, float32 and int8, batched and reordered.
TEST(ShortlistDecoder, GreedyChoosesFromTheListsLogitsAsFromTheWrittenRows) {
  for (const Precision precision : {Precision::float32, Precision::int8}) {
    const std::shared_ptr<const InferenceModel> model =
        trained().model->for_inference(c10::Device(c10::kCPU), InferencePrecision::of(precision));
    const ShortlistDecoder shortlisted(model, small_lists());
    const auto [source, lengths] = source_tensors(trained().sentences, all_sentences());
    const at::Tensor rows = at::tensor({3L, 0L, 3L, 7L});
    const BestStep chosen = shortlisted.best_step(*shortlisted.encode(source, lengths)->select(rows),
                                                  at::full({4}, SpecialIds::kBos, at::kLong), at::zeros({4}));
    ASSERT_EQ(chosen.ids.size(), 4U) << "the shortlist chose on the CPU";
    EXPECT_FALSE(chosen.log_probs.defined());
    SearchOptions options = options_for(1);
    options.keep_attention = true;
    const auto fast = search(shortlisted, {all_sentences()}, options);
    const auto plain = search(test::StepsOnly(shortlisted), {all_sentences()}, options);
    expect_same(fast, plain);
    for (std::size_t i = 0; i < fast.size(); ++i) {
      EXPECT_TRUE(at::equal(fast[i][0].attention, plain[i][0].attention)) << name_of(precision) << ", sentence " << i;
    }
  }
}

// Beam search with the shortlist ranking each sentence's candidates from its rows' lists
// (ranked_step) gives what ranking the written rows gives: lists long enough to decide, lists
// shorter than the 2k candidates a sentence ranks (its rows then written out), and every piece.
TEST(ShortlistDecoder, BeamRanksTheListsAsTheWrittenRows) {
  at::manual_seed(6);
  const at::Tensor one_each = at::randint(SpecialIds::kEos + 1, kTargetVocab, {kSourceVocab, 1}, at::kInt);
  const std::vector<std::shared_ptr<const LexicalShortlist>> lists = {
      small_lists(), std::make_shared<const LexicalShortlist>(make_shortlist(one_each, {})), whole_vocabulary()};
  for (const Precision precision : {Precision::float32, Precision::int8}) {
    const std::shared_ptr<const InferenceModel> model =
        trained().model->for_inference(c10::Device(c10::kCPU), InferencePrecision::of(precision));
    for (std::size_t l = 0; l < lists.size(); ++l) {
      const ShortlistDecoder shortlisted(model, lists[l]);
      const auto [source, lengths] = source_tensors(trained().sentences, all_sentences());
      // One step's rankings against top_of_rows over its written rows: rows of sentences 3, 0, 3, 7
      // in groups of 1, 2 and 1, as beam search holds them (sentence 0 has one source piece: with
      // one piece per source piece its list is shorter than the candidates asked for).
      const at::Tensor rows = at::tensor({3L, 0L, 3L, 7L});
      const DecoderStatePtr state = shortlisted.encode(source, lengths)->select(rows);
      const at::Tensor bos = at::full({4}, SpecialIds::kBos, at::kLong), offset = at::tensor({0.0f, -1.0f, -0.5f, 0.0f});
      const at::Tensor written = shortlisted.step(*state, bos).log_probs.contiguous();
      for (const std::int64_t count : {1, 6, 40}) {
        const RankedStep ranked = shortlisted.ranked_step(*state, bos, offset, {1, 2, 1}, count);
        ASSERT_EQ(ranked.ranked.size(), 3U) << "the shortlist ranked on the CPU";
        const std::int64_t first_row[] = {0, 1, 3}, group_rows[] = {1, 2, 1};
        for (std::size_t g = 0; g < 3; ++g) {
          const std::int64_t wanted = std::min(count, group_rows[g] * kTargetVocab);
          EXPECT_EQ(ranked.ranked[g], top_of_rows(written.data_ptr<float>() + first_row[g] * kTargetVocab,
                                                  offset.data_ptr<float>() + first_row[g], group_rows[g], kTargetVocab,
                                                  wanted))
              << "lists " << l << ", group " << g << ", count " << count;
        }
      }
      for (const std::int64_t beam : {3, 5}) {
        SearchOptions options = options_for(beam);
        options.keep_attention = true;
        const auto fast = search(shortlisted, {all_sentences()}, options);
        const auto plain = search(test::StepsOnly(shortlisted), {all_sentences()}, options);
        SCOPED_TRACE(std::string(name_of(precision)) + ", lists " + std::to_string(l) + ", beam " + std::to_string(beam));
        expect_same(fast, plain);
        for (std::size_t i = 0; i < fast.size(); ++i) {
          for (std::size_t j = 0; j < fast[i].size() && j < plain[i].size(); ++j) {
            EXPECT_TRUE(at::equal(fast[i][j].attention, plain[i][j].attention)) << "sentence " << i;
          }
        }
      }
    }
  }
}

// A model whose logits come in bfloat16: the shortlist then takes tensor operations (what CUDA
// and autograd take) instead of the CPU kernel; the same pieces, the same distributions up to
// bfloat16's precision.
class Bfloat16Logits final : public IncrementalDecoder {
 public:
  explicit Bfloat16Logits(std::shared_ptr<const IncrementalDecoder> model) : model_(std::move(model)) {}
  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& lengths) const override {
    return model_->encode(source, lengths);
  }
  StepOutput step(const DecoderState& state, const at::Tensor& previous) const override {
    return model_->step(state, previous);
  }
  std::shared_ptr<const OutputSubset> output_subset(const at::Tensor& pieces) const override {
    return model_->output_subset(pieces);
  }
  StepLogits step_logits(const DecoderState& state, const at::Tensor& previous,
                         const OutputSubset& subset) const override {
    StepLogits out = model_->step_logits(state, previous, subset);
    out.logits = out.logits.to(at::kBFloat16);
    return out;
  }
  std::int64_t target_vocab_size() const override { return model_->target_vocab_size(); }

 private:
  std::shared_ptr<const IncrementalDecoder> model_;
};

TEST(ShortlistDecoder, TensorOperationsGiveWhatTheKernelGives) {
  const auto shortlist = small_lists();
  const ShortlistDecoder kernel(trained().inference, shortlist);
  const ShortlistDecoder tensors(std::make_shared<Bfloat16Logits>(trained().inference), shortlist);
  const auto [source, lengths] = source_tensors(trained().sentences, all_sentences());
  const at::Tensor bos = at::full({source.size(0)}, SpecialIds::kBos, at::kLong);
  const at::Tensor rows = at::tensor({3L, 0L, 3L, 7L});  // reordered and repeated, as beam search does
  const auto kernel_state = kernel.encode(source, lengths)->select(rows);
  const auto tensor_state = tensors.encode(source, lengths)->select(rows);
  const StepOutput a = kernel.step(*kernel_state, bos.index_select(0, rows));
  const StepOutput b = tensors.step(*tensor_state, bos.index_select(0, rows));
  EXPECT_EQ(b.log_probs.scalar_type(), at::kBFloat16);
  EXPECT_TRUE(at::equal(a.log_probs.isinf(), b.log_probs.isinf()));
  const at::Tensor finite = a.log_probs.isfinite();
  EXPECT_TRUE(at::allclose(a.log_probs.masked_select(finite), b.log_probs.to(at::kFloat).masked_select(finite), 0.05, 0.05));
}

TEST(ShortlistDecoder, RefusesAShortlistOfAnotherVocabulary) {
  const LexicalShortlist other(at::full({kSourceVocab, 1}, -1, at::kInt), {}, kTargetVocab + 1, "a", "b", "dice");
  EXPECT_THROW(ShortlistDecoder(trained().inference, std::make_shared<const LexicalShortlist>(other)), ConfigError);
}

}  // namespace
}  // namespace shortlist_test
}  // namespace nmt
