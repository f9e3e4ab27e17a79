// Several training corpora (data.corpus, nmt/train/corpus_options.h): their tags in the subword
// model, the checkpoint and every source; reversed pairs; each corpus's share of an epoch; the
// errors of bad corpora; a resumed multi-corpus run bit for bit; and a tagged model asked by its tag.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include "nmt/core/error.h"
#include "nmt/data/corpus_mixture.h"
#include "nmt/data/subword_words.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/train/trainer.h"
#include "nmt/train/training_data.h"
#include "nmt/train/word_dropout.h"
#include "nmt/translate/source_tags.h"
#include "nmt/translate/translation_output.h"
#include "nmt/translate/translator.h"
#include "tests/search/fake_model.h"
#include "tests/test_util.h"
#include "tests/train/train_test_util.h"

// A namespace of its own: the unity build puts this file in one unit with others.
namespace nmt::multi_corpus_test {
namespace {
namespace fs = std::filesystem;

// toy.es/toy.en (319 verse pairs of Genesis) cut in two corpora: "a" the first 200 pairs, "b" the
// other 119; a dev set of 12 pairs; a tiny model.
TrainConfig two_corpora(const test::TempDir& dir, const std::string& run, std::int64_t max_steps) {
  if (!fs::exists(dir.path("a.es"))) {
    const auto es = test::read_lines(test::data_path("toy.es"));
    const auto en = test::read_lines(test::data_path("toy.en"));
    std::string a_es, a_en, b_es, b_en, dev_es, dev_en;
    for (std::size_t i = 0; i < es.size(); ++i) {
      (i < 200 ? a_es : b_es) += es[i] + "\n";
      (i < 200 ? a_en : b_en) += en[i] + "\n";
      if (i < 12) dev_es += es[i] + "\n", dev_en += en[i] + "\n";
    }
    test::write_text(dir.path("a.es"), a_es);
    test::write_text(dir.path("a.en"), a_en);
    test::write_text(dir.path("b.es"), b_es);
    test::write_text(dir.path("b.en"), b_en);
    test::write_text(dir.path("dev.es"), dev_es);
    test::write_text(dir.path("dev.en"), dev_en);
  }
  TrainConfig c;
  c.run_dir = dir.path(run);
  c.device = "cpu";
  CorpusOptions a, b;
  a.source = dir.path("a.es");
  a.target = dir.path("a.en");
  a.tag = "<2en>";
  a.reverse = true;
  a.reverse_tag = "<2es>";
  b.source = dir.path("b.es");
  b.target = dir.path("b.en");
  b.tag = "<2en>";
  b.weight = 2;
  c.data.corpora.corpora = {a, b};
  c.data.default_tag = "<2en>";
  c.data.dev_source = dir.path("dev.es");
  c.data.dev_target = dir.path("dev.en");
  c.data.source_spm = dir.path("spm.model");
  c.data.vocab_size = 300;
  c.data.max_length = 0;  // every pair kept: the counts below are the files'
  c.model.embedding_size = c.model.encoder_hidden_size = c.model.decoder_hidden_size = c.model.attention_size = 24;
  c.model.dropout = 0.2;
  c.train.max_steps = max_steps;
  c.train.max_tokens = 500;
  c.train.log_every = 5;
  c.valid.every = 0;
  c.valid.examples = 1;
  c.checkpoint.every = 10;
  c.schedule.lr = 0.003;
  return c;
}

TEST(MultiCorpus, TagsAreUserDefinedPiecesBeforeEverySourceAndReversedPairsSwapTheSides) {
  test::TempDir dir;
  const TrainConfig config = two_corpora(dir, "run", 10);
  const TokenizerPair tokenizers = load_or_train_tokenizers(config);
  const int to_en = tokenizers.source.piece_to_id("<2en>"), to_es = tokenizers.source.piece_to_id("<2es>");
  EXPECT_TRUE(tokenizers.source.is_user_defined(to_en));
  EXPECT_TRUE(tokenizers.source.is_user_defined(to_es));
  EXPECT_EQ(model_tags(tokenizers.source), (std::vector<std::string>{"<2en>", "<2es>"}));
  // SentencePiece keeps a tag one piece wherever it stands in a text.
  const auto pieces = tokenizers.source.encode_pieces("x<2es>y");
  EXPECT_EQ(std::count(pieces.begin(), pieces.end(), "<2es>"), 1);

  const TrainingCorpus training(config, tokenizers.source, tokenizers.target);
  const ParallelCorpus& all = training.corpus();
  ASSERT_EQ(all.size(), 200u + 200u + 119u);  // a, a reversed, b
  EXPECT_EQ(training.tag_ids(), (std::vector<int>{to_en, to_es}));
  const std::vector<int> first_es = tokenizers.source.encode(test::read_lines(dir.path("a.es"))[0]);
  const std::vector<int> first_en = tokenizers.source.encode(test::read_lines(dir.path("a.en"))[0]);
  std::vector<int> tagged_es = {to_en}, tagged_en = {to_es};
  tagged_es.insert(tagged_es.end(), first_es.begin(), first_es.end());
  tagged_en.insert(tagged_en.end(), first_en.begin(), first_en.end());
  const auto ids = [](TokenSpan span) { return std::vector<int>(span.begin(), span.end()); };
  EXPECT_EQ(ids(all.source(0)), tagged_es);
  EXPECT_EQ(ids(all.target(0)), first_en);
  EXPECT_EQ(ids(all.source(200)), tagged_en);  // the reversed stream follows its corpus
  EXPECT_EQ(ids(all.target(200)), first_es);
  for (std::size_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(all.source(i)[0], i >= 200 && i < 400 ? to_es : to_en) << i;
  }
}

TEST(MultiCorpus, EachEpochGivesEveryStreamItsShareByWeight) {
  test::TempDir dir;
  const TrainConfig config = two_corpora(dir, "run", 10);
  const TokenizerPair tokenizers = load_or_train_tokenizers(config);
  const TrainingCorpus training(config, tokenizers.source, tokenizers.target);
  const auto make = training.corpus_for_epoch();
  ASSERT_TRUE(make);
  // 519 samples by 1 : 1 : 2 (a, a reversed, b) = 129.75, 129.75, 259.5 -> 130, 130, 259.
  const std::vector<std::size_t> quotas = mixture_quotas({{200, 1}, {200, 1}, {119, 2}});
  EXPECT_EQ(quotas, (std::vector<std::size_t>{130, 130, 259}));
  const int to_es = tokenizers.source.piece_to_id("<2es>");
  for (std::int64_t epoch = 0; epoch < 2; ++epoch) {
    const auto corpus = make(epoch);
    ASSERT_EQ(corpus->size(), 519u);
    std::size_t reversed = 0;
    for (std::size_t i = 0; i < corpus->size(); ++i) reversed += corpus->source(i)[0] == to_es;
    EXPECT_EQ(reversed, 130u) << "epoch " << epoch;
  }
  EXPECT_NE(make(0)->fingerprint(), make(1)->fingerprint());
  EXPECT_EQ(make(1)->fingerprint(), make(1)->fingerprint());
}

// A TSV corpus (its columns by name) is the same corpus as its line-parallel files; SentencePiece
// trains on its columns through temporary files that are gone afterwards.
TEST(MultiCorpus, ATsvCorpusIsItsColumns) {
  test::TempDir dir;
  TrainConfig files = two_corpora(dir, "run", 10);
  const auto es = test::read_lines(dir.path("b.es")), en = test::read_lines(dir.path("b.en"));
  std::string tsv = "en\tes\n";
  for (std::size_t i = 0; i < es.size(); ++i) tsv += en[i] + "\t" + es[i] + "\n";
  test::write_text(dir.path("b.tsv"), tsv);
  TrainConfig table = files;
  table.data.source_spm = dir.path("tsv.model");
  CorpusOptions& b = table.data.corpora.corpora[1];
  b.source.clear();
  b.target.clear();
  b.tsv = dir.path("b.tsv");
  b.source_column = "es";
  b.target_column = "en";
  table.validate();
  const TokenizerPair from_files = load_or_train_tokenizers(files);
  const TokenizerPair from_table = load_or_train_tokenizers(table);
  ASSERT_EQ(from_files.source.vocab_size(), from_table.source.vocab_size());
  for (int id = 0; id < from_files.source.vocab_size(); ++id) {  // the same text, the same pieces
    ASSERT_EQ(from_files.source.id_to_piece(id), from_table.source.id_to_piece(id)) << id;
  }
  for (const auto& entry : fs::directory_iterator(dir.path(""))) EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
  // A file already where a column would go is nobody's to replace or remove.
  TrainConfig occupied = table;
  occupied.data.source_spm = dir.path("occupied.model");
  test::write_text(dir.path("occupied.model.corpus2.target.tmp"), "mine\n");
  EXPECT_THROW_WITH(load_or_train_tokenizers(occupied), IoError, "occupied.model.corpus2.target.tmp exists");
  EXPECT_EQ(test::read_lines(dir.path("occupied.model.corpus2.target.tmp")), std::vector<std::string>{"mine"});
  EXPECT_FALSE(fs::exists(dir.path("occupied.model.corpus2.source.tmp"))) << "the column written first is removed";
  const TrainingCorpus a(files, from_files.source, from_files.target);
  const TrainingCorpus t(table, from_files.source, from_files.target);
  EXPECT_EQ(a.corpus().fingerprint(), t.corpus().fingerprint());

  const auto refuses = [&](const std::function<void(CorpusOptions&)>& change, const std::string& expected) {
    TrainConfig bad = table;
    change(bad.data.corpora.corpora[1]);
    EXPECT_THROW_WITH(bad.validate(), ConfigError, expected);
  };
  refuses([&](CorpusOptions& c) { c.source = "x"; }, "give source and target, or tsv with its columns, not both");
  refuses([](CorpusOptions& c) { c.target_column.clear(); }, "tsv needs source-column and target-column");
  test::write_text(dir.path("wide.tsv"), "en\tes\na\tb\tc\n");
  TrainConfig wide = table;
  wide.data.corpora.corpora[1].tsv = dir.path("wide.tsv");
  EXPECT_THROW_WITH(TrainingCorpus(wide, from_files.source, from_files.target), DataError,
                    "wide.tsv:2: 3 columns, where the file's first line has 2");
  TrainConfig unnamed = table;
  unnamed.data.corpora.corpora[1].source_column = "spa";
  EXPECT_THROW_WITH(TrainingCorpus(unnamed, from_files.source, from_files.target), ConfigError, "no column 'spa'");
}

// Subword sampling segments every stream anew each epoch; each keeps its tag in front.
TEST(MultiCorpus, SubwordSamplingKeepsEachStreamsTag) {
  test::TempDir dir;
  TrainConfig config = two_corpora(dir, "run", 10);
  config.train.sampling_alpha = 0.2;
  const TokenizerPair tokenizers = load_or_train_tokenizers(config);
  const TrainingCorpus training(config, tokenizers.source, tokenizers.target);
  const int to_en = tokenizers.source.piece_to_id("<2en>"), to_es = tokenizers.source.piece_to_id("<2es>");
  const auto sampled = training.corpus_for_epoch()(0);
  ASSERT_EQ(sampled->size(), 519u);
  std::size_t reversed = 0, resegmented = 0;
  for (std::size_t i = 0; i < sampled->size(); ++i) {
    const int tag = sampled->source(i)[0];
    ASSERT_TRUE(tag == to_en || tag == to_es) << i;
    reversed += tag == to_es;
    for (std::size_t j = 1; j < sampled->source(i).size; ++j) ASSERT_NE(sampled->source(i)[j], tag) << i;
  }
  EXPECT_EQ(reversed, 130u);
  // The samples differ from the best segmentation (the same pairs drawn without sampling).
  TrainConfig best = config;
  best.train.sampling_alpha = 0;
  const TrainingCorpus plain(best, tokenizers.source, tokenizers.target);
  const auto unsampled = plain.corpus_for_epoch()(0);
  for (std::size_t i = 0; i < sampled->size(); ++i) resegmented += sampled->source(i).size != unsampled->source(i).size;
  EXPECT_GT(resegmented, 100u);
}

// Alignments count words from the first piece after the tag (the fake attends to position t at step t).
TEST(MultiCorpus, AlignmentsSkipTheTag) {
  test::TempDir dir;
  const TokenizerPair tokenizers = load_or_train_tokenizers(two_corpora(dir, "run", 10));
  const Tokenizer& tok = tokenizers.source;
  const std::vector<int> script = tok.encode("Y dijo Dios");
  ASSERT_GE(script.size(), 3u);
  test::FakeModel fake({script}, tok.vocab_size());
  TranslateOptions options;
  options.search.beam_size = 1;
  options.search.keep_attention = true;
  options.source_tag = "<2en>";
  Translator translator(fake, tok, tok, options, c10::Device(c10::kCPU));
  const auto out = translator.translate({"Y dijo Dios"});
  ASSERT_TRUE(out[0].tagged);
  ASSERT_EQ(out[0].source[0], tok.piece_to_id("<2en>"));
  // Step 0 attends to the tag (no word: no pair), step t > 0 to source piece t - 1.
  std::vector<std::string> pieces;
  for (const int id : script) pieces.push_back(tok.id_to_piece(id));
  const std::vector<std::size_t> words = word_of_pieces(pieces);
  std::set<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t t = 1; t < pieces.size(); ++t) pairs.emplace(words[t - 1], words[t]);
  std::string expected;
  for (const auto& [s, t] : pairs) expected += (expected.empty() ? "" : " ") + std::to_string(s) + "-" + std::to_string(t);
  EXPECT_EQ(format_alignment(out[0], tok), expected + "\n");
  EXPECT_EQ(expected.rfind("0-0", 0), std::string::npos) << "step 0 went to the tag: no pair for target word 0";
}

TEST(MultiCorpus, WordDropoutNeverDropsATag) {
  const ParallelCorpus corpus = ParallelCorpus::from_sequences({{7, 9, 9, 9, 9, 9, 9, 9}, {7, 9, 9, 9}},
                                                               {{9, 9, 9}, {9, 9}});
  const Batch dropped = drop_words(make_batch(corpus, {0, 1}), 0.9, 3, 0, {7});
  const auto source = dropped.source.accessor<std::int64_t, 2>();
  EXPECT_EQ(source[0][0], 7);
  EXPECT_EQ(source[1][0], 7);
  EXPECT_LT(drop_words(make_batch(corpus, {0, 1}), 0.9, 3, 0).source.eq(7).sum().item<int>(), 2) << "else dropped";
}

TEST(MultiCorpus, BadCorporaAreOneLineErrors) {
  test::TempDir dir;
  TrainConfig c = two_corpora(dir, "run", 10);
  c.validate();
  const auto refuses = [&](const std::function<void(TrainConfig&)>& change, const std::string& expected) {
    TrainConfig bad = two_corpora(dir, "run", 10);
    change(bad);
    EXPECT_THROW_WITH(bad.validate(), ConfigError, expected);
  };
  refuses([](TrainConfig& b) { b.data.train_source = "x"; }, "data.corpus and data.train-source/-target are both set");
  refuses([](TrainConfig& b) { b.data.corpora.corpora[1].weight = 0; }, "data.corpus[2] (");
  refuses([](TrainConfig& b) { b.data.corpora.corpora[1].weight = -1; }, "weight must be a number > 0, got -1");
  refuses([](TrainConfig& b) { b.data.corpora.corpora[1].target.clear(); }, "source and target must both be set");
  refuses([](TrainConfig& b) { b.data.corpora.corpora[0].reverse_tag.clear(); }, "reverse = true needs a reverse-tag");
  refuses([](TrainConfig& b) { b.data.corpora.corpora[0].reverse_tag = "<2en>"; }, "is also a forward tag");
  refuses([](TrainConfig& b) { b.data.target_spm = "t.model"; }, "reverse needs a joint vocabulary");
  refuses([](TrainConfig& b) { b.data.corpora.corpora[1].tag = "<2 en>"; }, "is not a tag");
  refuses([](TrainConfig& b) { b.data.corpora.corpora[1].tag = "<unk>"; }, "is not a tag");
  refuses([](TrainConfig& b) { b.data.default_tag = "<2fr>"; }, "data.default-tag: '<2fr>' is not a tag of data.corpus");
  refuses([](TrainConfig& b) { b.data.corpora.corpora[1].reverse_tag = "<x>"; }, "reverse-tag is set but reverse is false");

  // Files: a missing one, and corpora whose sides differ in length, name the files.
  TrainConfig missing = two_corpora(dir, "run", 10);
  missing.data.corpora.corpora[1].source = dir.path("nothing.es");
  const TokenizerPair tokenizers = load_or_train_tokenizers(two_corpora(dir, "run", 10));
  EXPECT_THROW_WITH(TrainingCorpus(missing, tokenizers.source, tokenizers.target), Error, "nothing.es");
  TrainConfig uneven = two_corpora(dir, "run", 10);
  uneven.data.corpora.corpora[1].target = dir.path("a.en");
  EXPECT_THROW_WITH(TrainingCorpus(uneven, tokenizers.source, tokenizers.target), DataError, "b.es", "a.en");

  // The same before anything is written (check_data_files: nmt-train's first step, before the run
  // directory and the subword models), each error naming its corpus or option.
  TrainConfig early = two_corpora(dir, "early", 10);
  early.data.source_spm = dir.path("early.model");
  early.data.corpora.corpora[1].target = dir.path("a.en");
  EXPECT_THROW_WITH(check_data_files(early, true), DataError, "data.corpus[2] (", "b.es has 119 lines",
                    "a.en has 200");
  EXPECT_THROW_WITH(Trainer(early).run(), DataError, "data.corpus[2] (");
  EXPECT_FALSE(fs::exists(dir.path("early"))) << "a run directory for refused data";
  EXPECT_FALSE(fs::exists(dir.path("early.model"))) << "a subword model for refused data";
  test::write_text(dir.path("ragged.tsv"), "es\ten\nuno\tone\ndos\n");
  early.data.corpora.corpora[1] = CorpusOptions{};
  early.data.corpora.corpora[1].tsv = dir.path("ragged.tsv");
  early.data.corpora.corpora[1].source_column = "es";
  early.data.corpora.corpora[1].target_column = "en";
  EXPECT_THROW_WITH(check_data_files(early, true), DataError, "data.corpus[2] (", "ragged.tsv:3: 1 columns");
  early.data.corpora.corpora[1].target_column = "spa";
  EXPECT_THROW_WITH(check_data_files(early, true), ConfigError, "data.corpus[2] (", "no column 'spa'");
  TrainConfig dev = two_corpora(dir, "early", 10);
  dev.data.dev_target = dir.path("a.en");
  EXPECT_THROW_WITH(check_data_files(dev, true), DataError, "data.dev-source/-target: ", "dev.es has 12 lines");
  check_data_files(dev, false);  // the dev set is rank 0's alone
  TrainConfig one = two_corpora(dir, "early", 10);
  one.data.corpora.corpora.clear();
  one.data.default_tag.clear();
  one.data.train_source = dir.path("a.es");
  one.data.train_target = dir.path("b.en");
  EXPECT_THROW_WITH(check_data_files(one, true), DataError, "data.train-source/-target: ", "a.es has 200 lines");

  // A given subword model must hold the tags as user-defined symbols: not at all, or as a piece.
  TrainConfig plain = two_corpora(dir, "plain", 10);
  plain.data.source_spm = dir.path("plain.model");
  plain.data.corpora.corpora[0].tag.clear();
  plain.data.corpora.corpora[0].reverse = false;
  plain.data.corpora.corpora[0].reverse_tag.clear();
  plain.data.corpora.corpora[1].tag.clear();
  plain.data.default_tag.clear();
  const Tokenizer untagged = load_or_train_tokenizers(plain).source;
  TrainConfig tagged = two_corpora(dir, "tagged", 10);
  tagged.data.source_spm = dir.path("plain.model");
  EXPECT_THROW_WITH(load_or_train_tokenizers(tagged), ConfigError, "tag '<2en>' is not a piece of", "plain.model");
  const std::string ordinary = untagged.id_to_piece(40);
  tagged.data.corpora.corpora[1].tag = ordinary;
  tagged.data.corpora.corpora[0].tag = ordinary;
  tagged.data.default_tag = ordinary;
  EXPECT_THROW_WITH(load_or_train_tokenizers(tagged), ConfigError, "is an ordinary piece of");
}

using test::final_parameters;

TEST(MultiCorpus, AResumedRunIsTheStraightRunBitForBit) {
  test::TempDir dir;
  const auto config = [&](const std::string& run, std::int64_t steps) {
    TrainConfig c = two_corpora(dir, run, steps);
    c.train.word_dropout = 0.1;
    c.train.sampling_alpha = 0.1;  // every stream segmented anew each epoch
    return c;
  };
  Trainer(config("straight", 20)).run();
  Trainer(config("split", 10)).run();
  TrainConfig second_half = config("split", 20);
  second_half.resume = true;
  Trainer(second_half).run();
  const auto straight = final_parameters(dir.path("straight"), 20);
  const auto split = final_parameters(dir.path("split"), 20);
  for (const auto& [name, value] : straight) {
    EXPECT_TRUE(at::equal(value, split.at(name))) << name << " differs after resuming";
  }
  // The checkpoint lists the tags (its source subword model's) and names the default.
  const Checkpoint checkpoint = load_checkpoint(dir.path("straight") + "/checkpoints/step-00000020.pt");
  EXPECT_EQ(model_tags(checkpoint.source_tokenizer), (std::vector<std::string>{"<2en>", "<2es>"}));
  EXPECT_EQ(default_tag_of(checkpoint.training_config), "<2en>");
  EXPECT_NE(checkpoint.training_config.find("[[data.corpus]]"), std::string::npos);

  // A translation puts the tag first (not counted in the length limit); an empty line stays empty;
  // a tag the model does not know is refused naming those it knows.
  const auto inference = checkpoint.model->for_inference(c10::Device(c10::kCPU));
  TranslateOptions options;
  options.source_tag = "<2es>";
  options.max_source_length = 3;
  Translator translator(*inference, checkpoint.source_tokenizer, checkpoint.target_tokenizer, options,
                        c10::Device(c10::kCPU));
  const auto out = translator.translate({"In the beginning God created the heavens", ""});
  ASSERT_EQ(out[0].source.size(), 4u);
  EXPECT_EQ(out[0].source[0], checkpoint.source_tokenizer.piece_to_id("<2es>"));
  EXPECT_TRUE(out[0].truncated);
  EXPECT_TRUE(out[1].hypotheses.empty());
  options.source_tag = "<2fr>";
  EXPECT_THROW_WITH(Translator(*inference, checkpoint.source_tokenizer, checkpoint.target_tokenizer, options,
                               c10::Device(c10::kCPU)),
                    ConfigError, "tag '<2fr>': not a tag of the model (its tags: <2en>, <2es>)");
  EXPECT_EQ(choose_tag(checkpoint.source_tokenizer, nullptr, "<2en>"), "<2en>");
  const std::string none;
  EXPECT_EQ(choose_tag(checkpoint.source_tokenizer, &none, "<2en>"), "");
}

}  // namespace
}  // namespace nmt::multi_corpus_test
