// nmt-serve with a model trained on tagged corpora (data.corpus, docs/training.md): a random tiny
// model whose source subword model holds the tags <2en> and <2es>, and whose training configuration
// names Spanish -> English (<2en>, the default) and, reversed, English -> Spanish (<2es>). Requests
// choose by "tag" (native) or by source and target (LibreTranslate); /languages and /v1/model say
// what the model offers; a tag it lacks is a 400.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "nmt/data/tokenizer_training.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/seq2seq.h"
#include "tests/model/model_test_util.h"
#include "tests/serve/serve_test_util.h"
#include "tests/test_util.h"

// A namespace of its own: the unity build puts this file in one unit with others.
namespace nmt::tagged_server_test {
namespace {

using nlohmann::json;

std::string write_tagged_checkpoint(const test::TempDir& dir) {
  TokenizerTrainOptions spm;
  spm.input_files = {test::data_path("toy.es"), test::data_path("toy.en")};
  spm.model_path = dir.path("tagged.model");
  spm.vocab_size = 500;
  spm.user_defined_symbols = {"<2en>", "<2es>"};
  const Tokenizer tok = train_tokenizer(spm);
  ModelConfig config = test::tiny_config(AttentionType::general, DecoderStyle::luong);
  config.embedding_size = config.decoder_hidden_size = config.attention_size = 32;
  config.encoder_hidden_size = 16;
  config.source_vocab_size = config.target_vocab_size = tok.vocab_size();
  at::manual_seed(12);
  Seq2Seq model(config);
  const std::string path = dir.path("tagged.pt");
  save_checkpoint(path, model, tok, tok,
                  "[data]\ndefault-tag = \"<2en>\"\n\n[[data.corpus]]\nsource = \"c/train.es\"\ntarget = "
                  "\"c/train.en\"\nweight = 1\ntag = \"<2en>\"\nreverse = true\nreverse-tag = \"<2es>\"\n");
  return path;
}

class TaggedServe : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    server_ = new test::RunningServer(test::tiny_options(write_tagged_checkpoint(*dir_)));
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  static json post(const std::string& path, const json& body, int expected_status) {
    auto response = server_->client().Post(path.c_str(), body.dump(), "application/json");
    EXPECT_TRUE(response) << "no answer to " << path;
    if (!response) return json();
    EXPECT_EQ(response->status, expected_status) << response->body;
    return json::parse(response->body);
  }
  static test::TempDir* dir_;
  static test::RunningServer* server_;
};
test::TempDir* TaggedServe::dir_ = nullptr;
test::RunningServer* TaggedServe::server_ = nullptr;

TEST_F(TaggedServe, LanguagesAndModelListTheDirectionsAndTags) {
  auto client = server_->client();
  const json languages = json::parse(client.Get("/languages")->body);
  ASSERT_EQ(languages.size(), 2u);
  EXPECT_EQ(languages[0]["code"], "es");
  EXPECT_EQ(languages[0]["targets"], json::array({"en"}));
  EXPECT_EQ(languages[1]["code"], "en");
  EXPECT_EQ(languages[1]["targets"], json::array({"es"}));
  const json model = json::parse(client.Get("/v1/model")->body);
  EXPECT_EQ(model["tags"], json::array({"<2en>", "<2es>"}));
  EXPECT_EQ(model["default_tag"], "<2en>");
  EXPECT_EQ(model["source_language"], "es");
  EXPECT_EQ(model["directions"][1], json({{"source", "en"}, {"target", "es"}, {"tag", "<2es>"}}));
}

TEST_F(TaggedServe, ARequestsTagIsItsSourcesFirstPiece) {
  const auto first_piece = [&](const json& request) {
    const json answer = post("/v1/translate", request, 200);
    return answer["translations"][0]["sentences"][0]["source_pieces"][0].get<std::string>();
  };
  EXPECT_EQ(first_piece({{"text", "Y dijo Dios."}, {"attention", true}}), "<2en>");  // the default
  EXPECT_EQ(first_piece({{"text", "And God said."}, {"attention", true}, {"tag", "<2es>"}}), "<2es>");
  EXPECT_NE(first_piece({{"text", "Y dijo Dios."}, {"attention", true}, {"tag", ""}}), "<2en>");  // none
  EXPECT_NE(post("/v1/translate", {{"text", "x"}, {"tag", "<2fr>"}}, 400)["error"].get<std::string>().find(
                "tag '<2fr>': not a tag of the model (its tags: <2en>, <2es>)"),
            std::string::npos);
  EXPECT_NE(post("/v1/translate", {{"text", "x"}, {"tag", 3}}, 400)["error"].get<std::string>().find(
                "tag: must be a string, got 3"),
            std::string::npos);
}

TEST_F(TaggedServe, LibreTranslatesSourceAndTargetChooseTheTag) {
  // The same search as the native API's defaults (the server's beam), with the direction's tag.
  for (const auto& [source, target, tag, text] :
       {std::tuple{"en", "es", "<2es>", "And God said."}, {"es", "en", "<2en>", "Y dijo Dios."},
        {"auto", "es", "<2es>", "And God said."}}) {
    const json libre = post("/translate", {{"q", text}, {"source", source}, {"target", target}}, 200);
    const json native = post("/v1/translate", {{"text", text}, {"tag", tag}}, 200);
    EXPECT_EQ(libre["translatedText"], native["translations"][0]["text"]) << source << "->" << target;
  }
  const json detected = post("/translate", {{"q", "x"}, {"source", "auto"}, {"target", "es"}}, 200);
  EXPECT_EQ(detected["detectedLanguage"]["language"], "en");
  EXPECT_NE(post("/translate", {{"q", "x"}, {"source", "fr"}, {"target", "en"}}, 400)["error"].get<std::string>().find(
                "fr is not supported (this server translates es to en, en to es)"),
            std::string::npos);
  EXPECT_NE(post("/translate", {{"q", "x"}, {"source", "es"}, {"target", "de"}}, 400)["error"].get<std::string>().find(
                "de is not supported"),
            std::string::npos);
}

// --source-language and --target-language rename the languages of every direction, reverse too.
TEST(TaggedServeStart, LanguageOptionsRenameTheDirections) {
  test::TempDir dir;
  ServeOptions options = test::tiny_options(write_tagged_checkpoint(dir));
  options.source_language = "spa";
  options.target_language = "eng";
  test::RunningServer server(options);
  const json languages = json::parse(server.client().Get("/languages")->body);
  ASSERT_EQ(languages.size(), 2u);
  EXPECT_EQ(languages[0]["code"], "spa");
  EXPECT_EQ(languages[0]["targets"], json::array({"eng"}));
  EXPECT_EQ(languages[1]["code"], "eng");
  EXPECT_EQ(languages[1]["targets"], json::array({"spa"}));
  auto answer = server.client().Post("/translate", json({{"q", "And God said."}, {"source", "eng"}, {"target", "spa"}}).dump(),
                                     "application/json");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200) << answer->body;
  answer = server.client().Post("/translate", json({{"q", "x"}, {"source", "spa"}, {"target", "spa"}}).dump(),
                                "application/json");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 400);
  EXPECT_NE(answer->body.find("spa to spa is not supported (this server translates spa to eng, eng to spa)"),
            std::string::npos)
      << answer->body;
}

TEST(TaggedServeStart, ADefaultTagTheModelLacksStopsTheServerAtStart) {
  test::TempDir dir;
  ServeOptions options = test::tiny_options(write_tagged_checkpoint(dir));
  options.tag = "<2fr>";
  EXPECT_THROW_WITH(TranslationServer{options}, ConfigError, "tag '<2fr>': not a tag of the model");
}

}  // namespace
}  // namespace nmt::tagged_server_test
