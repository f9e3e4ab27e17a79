#include "nmt/data/tokenizer.h"

#include <gtest/gtest.h>
#include <sentencepiece_model.pb.h>
#include <sentencepiece_trainer.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <thread>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/data/tokenizer_training.h"
#include "tests/test_util.h"

namespace nmt {
namespace {
using test::data_path;
using test::toy_tokenizer;

TEST(Tokenizer, SpecialIdsAreFixed) {
  const Tokenizer& tok = toy_tokenizer();
  EXPECT_EQ(tok.id_to_piece(SpecialIds::kPad), "<pad>");
  EXPECT_EQ(tok.id_to_piece(SpecialIds::kUnk), "<unk>");
  EXPECT_EQ(tok.id_to_piece(SpecialIds::kBos), "<s>");
  EXPECT_EQ(tok.id_to_piece(SpecialIds::kEos), "</s>");
  EXPECT_EQ(tok.vocab_size(), 500);
  EXPECT_EQ(tok.model_type(), "unigram");
  // The tokenizer never emits the special ids for ordinary text.
  for (const auto& line : test::read_lines(data_path("toy.en"))) {
    for (const int id : tok.encode(line)) {
      EXPECT_GT(id, SpecialIds::kEos) << line;
    }
  }
}

TEST(Tokenizer, RoundTripsRealText) {
  const Tokenizer& tok = toy_tokenizer();
  for (const char* file : {"toy.es", "toy.en"}) {
    const auto lines = test::read_lines(data_path(file));
    ASSERT_EQ(lines.size(), 319u);
    for (const auto& line : lines) {
      EXPECT_EQ(tok.decode(tok.encode(line)), line);
      EXPECT_EQ(tok.decode_pieces(tok.encode_pieces(line)), line);
    }
  }
}

TEST(Tokenizer, PiecesAndIdsAgree) {
  const Tokenizer& tok = toy_tokenizer();
  const std::string text = "Y dijo Dios: Sea la luz: y fué la luz.";
  const auto ids = tok.encode(text);
  const auto pieces = tok.encode_pieces(text);
  ASSERT_EQ(ids.size(), pieces.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(tok.id_to_piece(ids[i]), pieces[i]);
    EXPECT_EQ(tok.piece_to_id(pieces[i]), ids[i]);
  }
  EXPECT_EQ(pieces.front().rfind("\xE2\x96\x81", 0), 0u) << "pieces mark word starts with U+2581";
  EXPECT_EQ(tok.piece_to_id("no-such-piece"), SpecialIds::kUnk);
}

TEST(Tokenizer, UnknownCharactersMapToUnk) {
  const auto ids = toy_tokenizer().encode("中文");
  EXPECT_NE(std::find(ids.begin(), ids.end(), SpecialIds::kUnk), ids.end());
}

TEST(Tokenizer, DecodeSkipsSpecialIdsAndRejectsOutOfRange) {
  const Tokenizer& tok = toy_tokenizer();
  auto ids = tok.encode("la luz");
  ids.insert(ids.begin(), SpecialIds::kBos);
  ids.push_back(SpecialIds::kEos);
  ids.push_back(SpecialIds::kPad);
  EXPECT_EQ(tok.decode(ids), "la luz");
  EXPECT_EQ(tok.decode({}), "");
  EXPECT_THROW_WITH(tok.decode({5, 500}), DataError, "cannot decode id 500", "vocabulary size 500");
  EXPECT_THROW_WITH(tok.decode({-1}), DataError, "id -1");
  EXPECT_THROW_WITH(tok.id_to_piece(9999), DataError, "9999");
}

TEST(Tokenizer, LoadsFromFileAndFromBytesIdentically) {
  test::TempDir dir;
  const std::string path = dir.path("copy.model");
  write_file_atomic(path, toy_tokenizer().model_bytes());
  const Tokenizer from_file = Tokenizer::load(path);
  const Tokenizer from_bytes = Tokenizer::from_bytes(toy_tokenizer().model_bytes(), "embedded");
  EXPECT_EQ(from_file.name(), path);
  EXPECT_EQ(from_bytes.name(), "embedded");
  EXPECT_EQ(from_file.model_bytes(), from_bytes.model_bytes());
  for (const auto& line : test::read_lines(data_path("toy.es"))) {
    EXPECT_EQ(from_file.encode(line), toy_tokenizer().encode(line));
    EXPECT_EQ(from_bytes.encode(line), toy_tokenizer().encode(line));
  }
}

TEST(Tokenizer, SamplingIsSeededAndVaries) {
  const Tokenizer& tok = toy_tokenizer();
  std::vector<std::string> lines = test::read_lines(data_path("toy.es"));
  lines.resize(50);
  const SamplingOptions options{0.1f, -1};
  const auto first = tok.sample_encode(lines, options, 7);
  const auto again = tok.sample_encode(lines, options, 7);
  const auto other = tok.sample_encode(lines, options, 8);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  std::size_t differs_from_best = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(tok.decode(first[i]), lines[i]) << "a sampled segmentation still spells the sentence";
    differs_from_best += first[i] != tok.encode(lines[i]);
  }
  EXPECT_GT(differs_from_best, 10u) << "alpha 0.1 should change many segmentations";
}

TEST(Tokenizer, SamplingIsDeterministicAcrossThreads) {
  const Tokenizer& tok = toy_tokenizer();
  std::vector<std::string> lines = test::read_lines(data_path("toy.es"));
  lines.resize(40);
  const SamplingOptions options{0.1f, -1};
  const std::vector<std::uint32_t> seeds = {7, 8, 99};
  std::vector<std::vector<std::vector<int>>> expected;
  for (const auto seed : seeds) expected.push_back(tok.sample_encode(lines, options, seed));
  // Three threads sample at once with their own seeds, again and again.
  for (int round = 0; round < 10; ++round) {
    std::vector<std::vector<std::vector<int>>> got(seeds.size());
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < seeds.size(); ++k) {
      threads.emplace_back([&, k] { got[k] = tok.sample_encode(lines, options, seeds[k]); });
    }
    for (auto& thread : threads) thread.join();
    for (std::size_t k = 0; k < seeds.size(); ++k) ASSERT_EQ(got[k], expected[k]) << "seed " << seeds[k];
  }
}

TEST(Tokenizer, SamplingOptionsAreValidated) {
  const std::vector<std::string> text{"la luz"};
  EXPECT_THROW_WITH(toy_tokenizer().sample_encode(text, {1.5f, -1}, 1), ConfigError, "alpha");
  EXPECT_THROW_WITH(toy_tokenizer().sample_encode(text, {0.1f, 0}, 1), ConfigError, "nbest");
  EXPECT_THROW_WITH(toy_tokenizer().sample_encode(text, {0.1f, 1000}, 1), ConfigError, "nbest size must be -1 or in [1, 512]");
}

TEST(Tokenizer, LoadErrorsNameTheFile) {
  test::TempDir dir;
  EXPECT_THROW_WITH(Tokenizer::load(dir.path("absent.model")), IoError, "absent.model");
  test::write_text(dir.path("empty.model"), "");
  EXPECT_THROW_WITH(Tokenizer::load(dir.path("empty.model")), DataError, "empty.model", "empty");
  test::write_text(dir.path("text.model"), "this is not a protobuf at all\n");
  EXPECT_THROW_WITH(Tokenizer::load(dir.path("text.model")), DataError, "text.model",
                    "not a SentencePiece model");
  const std::string bytes = toy_tokenizer().model_bytes();
  test::write_text(dir.path("truncated.model"), bytes.substr(0, bytes.size() / 2));
  EXPECT_THROW_WITH(Tokenizer::load(dir.path("truncated.model")), DataError, "truncated.model");
}

TEST(Tokenizer, RejectsModelsWithOtherSpecialIds) {
  // SentencePiece's defaults: unk 0, bos 1, eos 2, no pad.
  test::TempDir dir;
  const auto status = sentencepiece::SentencePieceTrainer::Train(
      "--input=" + data_path("toy.en") + " --model_prefix=" + dir.path("default") +
      " --vocab_size=200 --minloglevel=2");
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_THROW_WITH(Tokenizer::load(dir.path("default.model")), DataError, "default.model",
                    "pad id is -1", "needs 0");
}

// SentencePiece reads out of bounds on these (found by tests/fuzz/fuzz_tokenizer_model): they must be
// refused when loaded, before any text reaches them.
TEST(Tokenizer, RejectsTablesSentencePieceWouldReadOutOfBounds) {
  sentencepiece::ModelProto good;
  ASSERT_TRUE(good.ParseFromString(toy_tokenizer().model_bytes()));
  const std::string charsmap = good.normalizer_spec().precompiled_charsmap();
  ASSERT_GT(charsmap.size(), 4u);  // nmt-tokenizer's models normalize with NFKC
  const auto with_charsmap = [&](const std::string& table) {
    sentencepiece::ModelProto model = good;
    model.mutable_normalizer_spec()->set_precompiled_charsmap(table);
    return model.SerializeAsString();
  };
  std::uint32_t trie_bytes = 0;
  std::memcpy(&trie_bytes, charsmap.data(), 4);  // little-endian header: the trie's size
  std::string oversized = charsmap;  // SentencePiece checks size < blob, not size + header <= blob
  const auto too_big = static_cast<std::uint32_t>(charsmap.size() - 1);
  std::memcpy(oversized.data(), &too_big, 4);
  EXPECT_THROW_WITH(Tokenizer::from_bytes(with_charsmap(oversized), "oversized"), DataError, "oversized",
                    "damaged normalization table", "bad trie size");
  EXPECT_THROW_WITH(Tokenizer::from_bytes(with_charsmap(charsmap.substr(0, 4 + trie_bytes)), "cut"), DataError,
                    "cut", "a replacement outside the table");
  const std::uint32_t half = trie_bytes / 2 / 4 * 4;  // the trie's first half: transitions lead out of it
  std::string shrunk = charsmap.substr(0, 4) + charsmap.substr(4, half) + charsmap.substr(4 + trie_bytes);
  std::memcpy(shrunk.data(), &half, 4);
  EXPECT_THROW_WITH(Tokenizer::from_bytes(with_charsmap(shrunk), "half"), DataError, "half",
                    "damaged normalization table");
  EXPECT_NO_THROW(Tokenizer::from_bytes(with_charsmap(charsmap), "same"));

  sentencepiece::ModelProto nested = good;
  for (int n = 1; n <= 65; ++n) {
    auto* piece = nested.add_pieces();
    std::string snowmen;
    for (int k = 0; k < n; ++k) snowmen += "\xE2\x98\x83";
    piece->set_piece(snowmen);
    piece->set_type(sentencepiece::ModelProto::SentencePiece::USER_DEFINED);
  }
  EXPECT_THROW_WITH(Tokenizer::from_bytes(nested.SerializeAsString(), "nested"), DataError, "nested",
                    "more than 64 user-defined symbols");
  nested.mutable_pieces()->RemoveLast();
  EXPECT_NO_THROW(Tokenizer::from_bytes(nested.SerializeAsString(), "64 nested"));

  // The fuzzer's inputs: a replacement outside the table, and a user-defined symbol that starts with
  // NUL (SentencePiece's trie builder threw Darts::Exception out of from_bytes).
  for (const char* name : {"charsmap-replacement-outside-table", "darts-exception-zero-length-symbol"}) {
    const std::string bytes = read_file(std::string(NMT_SOURCE_DIR) + "/tests/fuzz/regressions/tokenizer_model/" + name);
    EXPECT_THROW(Tokenizer::from_bytes(bytes, name), DataError) << name;
  }
}

TEST(TokenizerTraining, TrainsBpeAndWritesVocab) {
  test::TempDir dir;
  TokenizerTrainOptions options;
  options.input_files = {data_path("toy.en")};
  std::filesystem::create_directory(dir.path("models"));
  options.model_path = dir.path("models/bpe.model");
  options.model_type = SubwordModelType::bpe;
  options.vocab_size = 300;
  const Tokenizer tok = train_tokenizer(options);
  EXPECT_EQ(tok.model_type(), "bpe");
  EXPECT_EQ(tok.vocab_size(), 300);
  EXPECT_EQ(Tokenizer::load(options.model_path).model_bytes(), tok.model_bytes());
  const auto vocab = test::read_lines(dir.path("models/bpe.vocab"));
  ASSERT_EQ(vocab.size(), 300u);
  EXPECT_EQ(vocab[0].substr(0, vocab[0].find('\t')), "<pad>");
  EXPECT_EQ(vocab[3].substr(0, vocab[3].find('\t')), "</s>");
  const std::string line = test::read_lines(data_path("toy.en"))[10];
  EXPECT_EQ(tok.decode(tok.encode(line)), line);
  // BPE-dropout through the same sampling interface.
  const auto sampled = tok.sample_encode({line}, {0.3f, -1}, 3);
  EXPECT_EQ(tok.decode(sampled[0]), line);
  EXPECT_GT(sampled[0].size(), tok.encode(line).size());
}

TEST(TokenizerTraining, IsDeterministic) {
  test::TempDir dir;
  TokenizerTrainOptions options;
  options.input_files = {data_path("toy.es")};
  options.vocab_size = 300;
  options.model_path = dir.path("a.model");
  const std::string first = train_tokenizer(options).model_bytes();
  options.model_path = dir.path("b.model");
  EXPECT_EQ(train_tokenizer(options).model_bytes(), first);
}

TEST(TokenizerTraining, SamplesInputSentences) {
  test::TempDir dir;
  TokenizerTrainOptions options;
  options.input_files = {data_path("toy.es"), data_path("toy.en")};
  options.model_path = dir.path("sampled.model");
  options.vocab_size = 200;
  options.input_sentence_size = 200;  // of 638 sentences
  const Tokenizer sampled = train_tokenizer(options);
  options.input_sentence_size = 0;
  options.model_path = dir.path("all.model");
  const Tokenizer all = train_tokenizer(options);
  EXPECT_NE(sampled.model_bytes(), all.model_bytes());
}

TEST(TokenizerTraining, JointAndSeparatePairs) {
  test::TempDir dir;
  TokenizerPairOptions options;
  options.common.vocab_size = 250;
  options.source_model_path = dir.path("joint.model");
  const auto joint = train_tokenizer_pair({data_path("toy.es")}, {data_path("toy.en")}, options);
  EXPECT_EQ(joint.source.model_bytes(), joint.target.model_bytes());
  EXPECT_TRUE(std::filesystem::exists(dir.path("joint.model")));

  options.joint = false;
  options.source_model_path = dir.path("es.model");
  options.target_model_path = dir.path("en.model");
  const auto separate = train_tokenizer_pair({data_path("toy.es")}, {data_path("toy.en")}, options);
  EXPECT_NE(separate.source.model_bytes(), separate.target.model_bytes());
  EXPECT_EQ(Tokenizer::load(dir.path("en.model")).model_bytes(), separate.target.model_bytes());
  // Each model knows its own language better: fewer pieces per sentence.
  const std::string english = test::read_lines(data_path("toy.en"))[0];
  EXPECT_LT(separate.target.encode(english).size(), separate.source.encode(english).size());

  options.target_model_path = options.source_model_path;
  EXPECT_THROW_WITH(train_tokenizer_pair({data_path("toy.es")}, {data_path("toy.en")}, options), ConfigError,
                    "two different model paths");
}

TEST(TokenizerTraining, ErrorsNameTheProblem) {
  test::TempDir dir;
  TokenizerTrainOptions options;
  options.model_path = dir.path("m.model");
  EXPECT_THROW_WITH(train_tokenizer(options), ConfigError, "no input files");
  options.input_files = {dir.path("missing.txt")};
  EXPECT_THROW_WITH(train_tokenizer(options), IoError, "missing.txt");
  test::write_text(dir.path("bad.txt"), "fine\nbroken \xFF byte\n");
  options.input_files = {dir.path("bad.txt")};
  EXPECT_THROW_WITH(train_tokenizer(options), DataError, "bad.txt:2: invalid UTF-8");
  EXPECT_FALSE(std::filesystem::exists(options.model_path)) << "no model after a failed training";
  options.input_files = {data_path("toy.en")};
  options.vocab_size = 3;
  EXPECT_THROW_WITH(train_tokenizer(options), ConfigError, "vocab size");
  options.vocab_size = 100;
  options.input_sentence_size = 50;
  EXPECT_THROW_WITH(train_tokenizer(options), ConfigError, "input sentence size");
  options.input_sentence_size = 0;
  options.character_coverage = 0;
  EXPECT_THROW_WITH(train_tokenizer(options), ConfigError, "character coverage");
  EXPECT_THROW_WITH(parse_enum<SubwordModelType>("wordpiece"), ConfigError, "wordpiece");
}

// vocabulary_shortfall reads SentencePiece's English: provoked here with the real trainer, so a
// SentencePiece that words it otherwise fails this test, not a user's training.
TEST(TokenizerTraining, AVocabularyTooSmallForTheCharactersSaysTheSizeNeeded) {
  test::TempDir dir;
  TokenizerTrainOptions options;
  options.model_path = dir.path("m.model");
  options.input_files = {data_path("toy.es"), data_path("toy.en")};
  options.vocab_size = 20;
  try {
    train_tokenizer(options);
    ADD_FAILURE() << "20 pieces were enough for two Bible chapters' characters";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("a vocabulary of 20 pieces is too small"), std::string::npos) << message;
    EXPECT_NE(message.find("use at least "), std::string::npos) << message;
  }
  EXPECT_FALSE(vocabulary_shortfall("some other failure").has_value());
}

}  // namespace
}  // namespace nmt
