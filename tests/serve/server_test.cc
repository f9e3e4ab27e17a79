// nmt-serve over HTTP: a random tiny model saved as a checkpoint, a TranslationServer on a free
// loopback port, cpp-httplib's client. Every endpoint, every error code, batching invariance under
// concurrent requests, clients that disconnect, and a stop with requests in flight.
#include "nmt/serve/translation_server.h"

#include <ATen/ATen.h>
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <thread>
#include <type_traits>

#include "nmt/model/checkpoint.h"
#include "nmt/model/seq2seq.h"
#include "nmt/search/search_option_table.h"
#include "nmt/serve/serve_api.h"
#include "tests/model/model_test_util.h"
#include "tests/serve/serve_test_util.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

using nlohmann::json;
using test::raw_exchange;
using test::RunningServer;
using test::tiny_options;
using test::write_tiny_checkpoint;

class Serve : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    checkpoint_ = write_tiny_checkpoint(*dir_);
    server_ = new RunningServer(tiny_options(checkpoint_));
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  static json post_json(const std::string& path, const json& body, int expected_status) {
    auto response = server_->client().Post(path.c_str(), body.dump(), "application/json");
    EXPECT_TRUE(response) << "no answer to " << path;
    if (!response) return json();
    EXPECT_EQ(response->status, expected_status) << response->body;
    EXPECT_EQ(response->get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(response->get_header_value("Access-Control-Allow-Origin"), "*");
    return json::parse(response->body);
  }
  // The error message of a request that must fail with `status`.
  static std::string error_of(const std::string& path, const std::string& body, int status,
                              const std::string& type = "application/json") {
    auto response = server_->client().Post(path.c_str(), body, type.c_str());
    EXPECT_TRUE(response);
    if (!response) return "";
    EXPECT_EQ(response->status, status) << response->body;
    const json answer = json::parse(response->body);
    EXPECT_TRUE(answer.contains("error")) << response->body;
    return answer.value("error", "");
  }

  static test::TempDir* dir_;
  static std::string checkpoint_;
  static RunningServer* server_;
};
test::TempDir* Serve::dir_ = nullptr;
std::string Serve::checkpoint_;
RunningServer* Serve::server_ = nullptr;

TEST_F(Serve, HealthLanguagesAndModel) {
  auto client = server_->client();
  auto health = client.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(json::parse(health->body), json({{"status", "ok"}}));

  auto languages = client.Get("/languages");
  ASSERT_TRUE(languages);
  const json list = json::parse(languages->body);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["code"], "es");  // from the training files' extensions
  EXPECT_EQ(list[0]["name"], "Spanish");
  EXPECT_EQ(list[0]["targets"], json::array({"en"}));
  EXPECT_EQ(list[1]["code"], "en");

  auto model = client.Get("/v1/model");
  ASSERT_TRUE(model);
  const json info = json::parse(model->body);
  EXPECT_EQ(info["source_language"], "es");
  EXPECT_EQ(info["max_beam"], 4);
  EXPECT_EQ(info["checkpoints"][0]["file"], "tiny.pt");  // the name only, never the server's paths
  EXPECT_EQ(info["checkpoints"][0]["source_vocabulary_size"], test::toy_tokenizer().vocab_size());
  EXPECT_EQ(info["defaults"]["beam"], 2);
  EXPECT_TRUE(info["has_attention"].get<bool>());

  auto page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("v1/translate"), std::string::npos);
  EXPECT_EQ(page->body.find("http://"), std::string::npos) << "the page must fetch nothing from elsewhere";
  EXPECT_EQ(page->body.find("https://"), std::string::npos) << "the page must fetch nothing from elsewhere";
}

TEST_F(Serve, NativeTranslationWithAttentionSplitsSentencesAndJoinsThem) {
  const json answer = post_json("/v1/translate",
                                {{"text", {"Y dijo Dios: Sea la luz. Y fué la luz.", "", "  Y vió Dios que la luz era buena."}},
                                 {"attention", true},
                                 {"beam", 3},
                                 {"n_best", 2}},
                                200);
  ASSERT_EQ(answer["translations"].size(), 3u);
  const json& first = answer["translations"][0];
  ASSERT_EQ(first["sentences"].size(), 2u);
  EXPECT_EQ(first["sentences"][0]["source"], "Y dijo Dios: Sea la luz.");
  EXPECT_EQ(first["sentences"][1]["source"], "Y fué la luz.");
  EXPECT_EQ(first["text"], first["sentences"][0]["hypotheses"][0]["text"].get<std::string>() + " " +
                               first["sentences"][1]["hypotheses"][0]["text"].get<std::string>());
  EXPECT_EQ(answer["translations"][1]["sentences"].size(), 0u);
  EXPECT_EQ(answer["translations"][1]["text"], "");
  EXPECT_EQ(answer["translations"][2]["text"].get<std::string>().rfind("  ", 0), 0u) << "leading space kept";
  for (const json& text : answer["translations"]) {
    for (const json& sentence : text["sentences"]) {
      ASSERT_EQ(sentence["hypotheses"].size(), 2u);
      const json& source_pieces = sentence["source_pieces"];
      EXPECT_EQ(source_pieces.back(), "</s>");
      for (const json& h : sentence["hypotheses"]) {
        const json& target_pieces = h["target_pieces"];
        const json& attention = h["attention"];
        ASSERT_EQ(attention.size(), target_pieces.size());
        for (const json& row : attention) {
          ASSERT_EQ(row.size(), source_pieces.size());
          double sum = 0;
          for (const json& w : row) sum += w.get<double>();
          EXPECT_NEAR(sum, 1.0, 1e-4);
        }
        const std::size_t pieces = target_pieces.size() - (target_pieces.back() == "</s>" ? 1 : 0);
        EXPECT_NEAR(h["score"].get<double>(), h["log_prob"].get<double>() / static_cast<double>(pieces + 1), 1e-9);
        EXPECT_LE(h["score"].get<double>(), 0.0);
      }
    }
  }
  // Without attention: no pieces, no weights.
  const json plain = post_json("/v1/translate", {{"text", "Sea la luz."}}, 200);
  EXPECT_FALSE(plain["translations"][0]["sentences"][0].contains("source_pieces"));
  EXPECT_FALSE(plain["translations"][0]["sentences"][0]["hypotheses"][0].contains("attention"));
}

// A request may ask for hard attention (docs/attention.md): every weight row is one-hot, and a
// server whose model runs its checkpoint's own methods (--engine script) refuses it with a 400.
TEST_F(Serve, HardAttentionGivesOneHotRowsAndTheScriptEngineRefusesIt) {
  const json text = {"Y dijo Dios: Sea la luz.", "Y vió Dios que la luz era buena."};
  const json hard = post_json("/v1/translate", {{"text", text}, {"attention", true}, {"hard_attention", true}}, 200);
  const json soft = post_json("/v1/translate", {{"text", text}, {"attention", true}}, 200);
  bool any_differs = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const json& sentence = hard["translations"][i]["sentences"][0];
    for (const json& row : sentence["hypotheses"][0]["attention"]) {
      int ones = 0;
      for (const json& w : row) {
        const double weight = w.get<double>();
        EXPECT_TRUE(weight == 0.0 || weight == 1.0) << row.dump();
        ones += weight == 1.0;
      }
      EXPECT_EQ(ones, 1) << row.dump();
    }
    any_differs = any_differs || sentence["hypotheses"][0]["log_prob"] !=
                                     soft["translations"][i]["sentences"][0]["hypotheses"][0]["log_prob"];
  }
  EXPECT_TRUE(any_differs);

  ServeOptions options = tiny_options(checkpoint_);
  options.engine = TranslateEngine::script;
  const RunningServer scripted(options);
  auto answer = scripted.client().Post("/v1/translate", R"({"text":"luz","hard_attention":true})", "application/json");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 400) << answer->body;
  EXPECT_NE(answer->body.find("hard-attention needs the native engine"), std::string::npos) << answer->body;
  answer = scripted.client().Post("/v1/translate", R"({"text":"luz"})", "application/json");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200) << answer->body;
}

// Every sentence gets the same answer, bit for bit, alone or batched with other clients' sentences.
TEST_F(Serve, ConcurrentRequestsGetTheTranslationsTheyGetAlone) {
  const std::vector<std::string> texts = {"Y dijo Dios: Sea la luz.", "Y vió Dios que la luz era buena.",
                                          "EN el principio crió Dios los cielos y la tierra.",
                                          "Y llamó Dios á la luz Día, y á las tinieblas llamó Noche.",
                                          "Y fué la tarde y la mañana un día."};
  std::vector<std::string> alone;
  for (const std::string& text : texts) alone.push_back(post_json("/v1/translate", {{"text", text}}, 200).dump());
  std::vector<std::thread> clients;
  std::vector<std::vector<std::string>> seen(8);
  for (std::size_t c = 0; c < seen.size(); ++c) {
    clients.emplace_back([&, c] {
      auto client = server_->client();
      for (std::size_t round = 0; round < 6; ++round) {
        const std::string& text = texts[(c + round) % texts.size()];
        auto response = client.Post("/v1/translate", json({{"text", text}}).dump(), "application/json");
        seen[c].push_back(response && response->status == 200 ? json::parse(response->body).dump() : "failed");
      }
    });
  }
  for (std::thread& t : clients) t.join();
  for (std::size_t c = 0; c < seen.size(); ++c) {
    for (std::size_t round = 0; round < seen[c].size(); ++round) {
      EXPECT_EQ(seen[c][round], alone[(c + round) % texts.size()]) << "client " << c << " round " << round;
    }
  }
  // The batches were shared: some search took more than one sentence.
  auto metrics = server_->client().Get("/metrics");
  ASSERT_TRUE(metrics);
  const auto count_of = [&](const std::string& name) {
    const std::size_t at = metrics->body.find("\n" + name + " ");
    return at == std::string::npos ? -1.0 : std::stod(metrics->body.substr(at + name.size() + 2));
  };
  EXPECT_LT(count_of("nmt_serve_batch_sentences_count"), count_of("nmt_serve_batch_sentences_sum"))
      << "no batch held sentences of two requests";
}

TEST_F(Serve, NativeRequestErrorsNameTheField) {
  EXPECT_NE(error_of("/v1/translate", "{\"text\": [\"a\"", 400).find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("/v1/translate", "[1, 2]", 400).find("must be a JSON object"), std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a", "bem": 3})", 400).find("bem: unknown field"), std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"beam": 3})", 400).find("text: missing"), std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": 5})", 400).find("text: must be a string or a list"), std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": ["a", 5]})", 400).find("text[1]: must be a string"), std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a", "beam": "5"})", 400).find("beam: must be an integer"),
            std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a", "beam": 2.5})", 400).find("beam: must be an integer"),
            std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a", "beam": 0})", 400).find("beam: must be in [1, 4]"),
            std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a", "beam": 99999999999999999999})", 400).find("beam:"),
            std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a", "beam": 2, "n_best": 3})", 400).find("n_best: must be in [1, 2]"),
            std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a", "length_penalty": "long"})", 400).find("length_penalty"),
            std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a", "attention": 1})", 400).find("attention: must be true or false"),
            std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a", "length_alpha": -1})", 400).find("length_alpha"),
            std::string::npos);
  EXPECT_NE(error_of("/v1/translate", "{\"text\": [\"ok\", \"\xC3\x28\"]}", 400).find("not valid UTF-8 (byte 17)"),
            std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a\u0000b"})", 400).find("NUL"), std::string::npos);
  // Sizes: 413.
  EXPECT_NE(error_of("/v1/translate", json({{"text", std::vector<std::string>(9, "a")}}).dump(), 413).find("9 texts"),
            std::string::npos);
  EXPECT_NE(error_of("/v1/translate", json({{"text", std::string(301, 'a')}}).dump(), 413).find("301 characters"),
            std::string::npos);
  std::string many;
  for (int i = 0; i < 13; ++i) many += "Luz. ";
  EXPECT_NE(error_of("/v1/translate", json({{"text", many}}).dump(), 413).find("13 sentences"), std::string::npos);
  EXPECT_NE(error_of("/v1/translate", json({{"text", std::string(9000, 'a')}}).dump(), 413).find("--max-body-bytes"),
            std::string::npos);
  // Unknown paths and methods: JSON errors too.
  auto missing = server_->client().Get("/v2/translate");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(json::parse(missing->body)["error"].get<std::string>().find("/v2/translate"), std::string::npos);
  // The server is still there.
  EXPECT_EQ(post_json("/v1/translate", {{"text", "luz"}}, 200)["translations"].size(), 1u);
}

// What a hostile client can send within the size limits: deep nesting (nlohmann's serializer
// recurses per level), numbers beyond a double, bodies without a length or with a huge one,
// attention for too much, lengths beyond the server's.
TEST_F(Serve, HostileBodiesAreRefusedAndTheServerStays) {
  const std::string deep = std::string(3000, '[') + std::string(3000, ']');
  EXPECT_NE(error_of("/v1/translate", "{\"text\": \"a\", \"beam\": " + deep + "}", 400).find("nested deeper than 32"),
            std::string::npos);
  EXPECT_NE(error_of("/translate", "{\"q\": \"a\", \"source\": \"es\", \"target\": \"en\", \"alternatives\": " + deep + "}",
                     400).find("nested deeper than 32"),
            std::string::npos);
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a", "beam": 1e400})", 400).find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("/translate", R"({"q": "a", "source": "es", "target": "en", "alternatives": 1e400})", 400)
                .find("not valid JSON"),
            std::string::npos);
  // A chunked body, a POST without a length, and a huge announced length: refused unread.
  const std::string chunked = raw_exchange(
      server_->port(), "POST /v1/translate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
      /*first_only=*/true);
  EXPECT_EQ(chunked.rfind("HTTP/1.1 411", 0), 0u) << chunked;
  const std::string no_length =
      raw_exchange(server_->port(), "POST /translate HTTP/1.1\r\nHost: x\r\n\r\n{}", /*first_only=*/true);
  EXPECT_EQ(no_length.rfind("HTTP/1.1 411", 0), 0u) << no_length;
  const auto start = std::chrono::steady_clock::now();
  const std::string huge = raw_exchange(
      server_->port(), "POST /v1/translate HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n{\"text\"",
      /*first_only=*/true);
  EXPECT_EQ(huge.rfind("HTTP/1.1 413", 0), 0u) << huge;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "the body was waited for";
  // GET where POST is meant: 405 with Allow.
  auto get = server_->client().Get("/translate");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST, OPTIONS");
  // A request may shorten the length limit, not lengthen it.
  EXPECT_NE(error_of("/v1/translate", R"({"text": "a", "max_length_b": 9})", 400).find("max_length_b: must be in [0, 8]"),
            std::string::npos);
  EXPECT_EQ(post_json("/v1/translate", {{"text", "luz"}}, 200)["translations"].size(), 1u);
}

// The request Mastodon's LibreTranslate client sends (app/lib/translation_service/libre_translate.rb):
// JSON, q a list of HTML texts, source possibly "auto", format html, api_key.
TEST_F(Serve, LibreTranslateAsMastodonSendsIt) {
  const json answer = post_json("/translate",
                                {{"q", {"<p>Y dijo Dios: Sea la luz.</p><p>Y fué la <b>luz</b> &amp; el día.</p>"}},
                                 {"source", "auto"},
                                 {"target", "en"},
                                 {"format", "html"},
                                 {"api_key", ""}},
                                200);
  ASSERT_TRUE(answer["translatedText"].is_array());
  const std::string html = answer["translatedText"][0];
  EXPECT_EQ(html.rfind("<p>", 0), 0u) << html;
  EXPECT_NE(html.find("</p><p>"), std::string::npos) << html;
  EXPECT_NE(html.find("<b>"), std::string::npos) << html;
  EXPECT_EQ(html.substr(html.size() - 4), "</p>") << html;
  EXPECT_EQ(answer["detectedLanguage"][0]["language"], "es");
  EXPECT_FALSE(answer.contains("alternatives"));
}

// Weblate's LibreTranslate machinery (weblate/machinery/libretranslate.py, the batch version)
// posts JSON: api_key, q a list of the units' texts, source, target; it reads translatedText[i].
TEST_F(Serve, LibreTranslateAsWeblateSendsIt) {
  const json answer = post_json("/translate",
                                {{"api_key", ""},
                                 {"q", {"Y dijo Dios: Sea la luz.", "Y vió Dios que la luz era buena."}},
                                 {"source", "es"},
                                 {"target", "en"}},
                                200);
  ASSERT_TRUE(answer["translatedText"].is_array());
  ASSERT_EQ(answer["translatedText"].size(), 2u);
  EXPECT_TRUE(answer["translatedText"][1].is_string());
  EXPECT_FALSE(answer.contains("detectedLanguage"));
}

// Form bodies (curl -d, older clients): urlencoded and multipart, as LibreTranslate accepts them.
TEST_F(Serve, LibreTranslateFormBodiesAndAlternatives) {
  auto client = server_->client();
  httplib::Params form{{"q", "Y vió Dios que la luz era buena."}, {"source", "es"}, {"target", "en"},
                       {"alternatives", "2"}, {"api_key", ""}};
  auto response = client.Post("/translate", form);
  ASSERT_TRUE(response);
  ASSERT_EQ(response->status, 200) << response->body;
  const json answer = json::parse(response->body);
  ASSERT_TRUE(answer["translatedText"].is_string());
  ASSERT_EQ(answer["alternatives"].size(), 2u);
  EXPECT_FALSE(answer.contains("detectedLanguage"));  // only for source "auto"
  // The same text as JSON gives the same translation.
  const json same = post_json("/translate", {{"q", "Y vió Dios que la luz era buena."}, {"source", "es"}, {"target", "en"}}, 200);
  EXPECT_EQ(same["translatedText"], answer["translatedText"]);
  // Multipart forms too.
  httplib::MultipartFormDataItems items{{"q", "Sea la luz.", "", ""}, {"source", "es", "", ""}, {"target", "en", "", ""}};
  auto multipart = client.Post("/translate", items);
  ASSERT_TRUE(multipart);
  EXPECT_EQ(multipart->status, 200) << multipart->body;
  // A key given twice is a list, in both kinds of form.
  auto twice = client.Post("/translate", "q=Luz.&q=D%C3%ADa.&source=es&target=en", "application/x-www-form-urlencoded");
  ASSERT_TRUE(twice);
  ASSERT_EQ(twice->status, 200) << twice->body;
  EXPECT_EQ(json::parse(twice->body)["translatedText"].size(), 2u);
  httplib::MultipartFormDataItems two{{"q", "Luz.", "", ""}, {"q", "Día.", "", ""}, {"source", "es", "", ""},
                                      {"target", "en", "", ""}};
  auto twice_multipart = client.Post("/translate", two);
  ASSERT_TRUE(twice_multipart);
  ASSERT_EQ(twice_multipart->status, 200) << twice_multipart->body;
  EXPECT_EQ(json::parse(twice_multipart->body)["translatedText"].size(), 2u);
}

TEST_F(Serve, LibreTranslateErrorsAndCors) {
  EXPECT_EQ(error_of("/translate", R"({"source": "es", "target": "en"})", 400), "Invalid request: missing q parameter");
  EXPECT_EQ(error_of("/translate", R"({"q": "", "source": "es", "target": "en"})", 400),
            "Invalid request: missing q parameter");
  EXPECT_EQ(error_of("/translate", R"({"q": "a", "target": "en"})", 400), "Invalid request: missing source parameter");
  EXPECT_EQ(error_of("/translate", R"({"q": "a", "source": "es"})", 400), "Invalid request: missing target parameter");
  EXPECT_NE(error_of("/translate", R"({"q": "a", "source": "fr", "target": "en"})", 400).find("fr is not supported"),
            std::string::npos);
  EXPECT_NE(error_of("/translate", R"({"q": "a", "source": "es", "target": "de"})", 400).find("de is not supported"),
            std::string::npos);
  EXPECT_NE(error_of("/translate", R"({"q": "a", "source": "es", "target": "en", "format": "pdf"})", 400).find("format"),
            std::string::npos);
  EXPECT_NE(error_of("/translate", R"({"q": "a", "source": "es", "target": "en", "alternatives": 3})", 400)
                .find("alternatives: must be in [0, 2]"),
            std::string::npos);
  EXPECT_NE(error_of("/translate", "q=a&source=es&target=en&alternatives=x", 400,
                     "application/x-www-form-urlencoded").find("alternatives must be an integer"),
            std::string::npos);
  EXPECT_NE(error_of("/translate", "{\"q\": ", 400).find("not valid JSON"), std::string::npos);
  EXPECT_EQ(error_of("/translate", "q=%C3%28&source=es&target=en", 400, "application/x-www-form-urlencoded"),
            "q: not valid UTF-8 (byte 0)");
  // A field LibreTranslate does not know is ignored, as LibreTranslate does.
  post_json("/translate", {{"q", "luz"}, {"source", "es"}, {"target", "en"}, {"char_limit", 5}}, 200);

  auto preflight = server_->client().Options("/translate", {{"Origin", "https://example.org"},
                                                            {"Access-Control-Request-Method", "POST"},
                                                            {"Access-Control-Request-Headers", "content-type"}});
  ASSERT_TRUE(preflight);
  EXPECT_EQ(preflight->status, 204);
  EXPECT_EQ(preflight->get_header_value("Access-Control-Allow-Origin"), "*");
  EXPECT_NE(preflight->get_header_value("Access-Control-Allow-Methods").find("POST"), std::string::npos);
  EXPECT_EQ(preflight->get_header_value("Access-Control-Allow-Headers"), "content-type");
}

TEST_F(Serve, MetricsCountRequestsByRouteAndCode) {
  post_json("/v1/translate", {{"text", "luz"}}, 200);
  error_of("/v1/translate", "{}", 400);
  // A request is counted as it is logged, just after its answer went out: wait for both.
  std::string text;
  std::string type;
  const auto start = std::chrono::steady_clock::now();
  const auto counted = [&text] {
    return text.find("route=\"/v1/translate\",code=\"200\"") != std::string::npos &&
           text.find("route=\"/v1/translate\",code=\"400\"") != std::string::npos;
  };
  while (!counted() && std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    auto metrics = server_->client().Get("/metrics");
    ASSERT_TRUE(metrics);
    type = metrics->get_header_value("Content-Type");
    text = metrics->body;
  }
  EXPECT_EQ(type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(text.find("nmt_serve_requests_total{route=\"/v1/translate\",code=\"200\"}"), std::string::npos);
  EXPECT_NE(text.find("nmt_serve_requests_total{route=\"/v1/translate\",code=\"400\"}"), std::string::npos);
  EXPECT_NE(text.find("nmt_serve_errors_total{code=\"400\"}"), std::string::npos);
  EXPECT_NE(text.find("nmt_serve_queue_sentences 0"), std::string::npos);
  EXPECT_NE(text.find("nmt_serve_search_workers 2"), std::string::npos);
  EXPECT_NE(text.find("nmt_serve_request_duration_seconds_bucket{le=\"+Inf\"}"), std::string::npos);
  EXPECT_NE(text.find("# TYPE nmt_serve_request_duration_seconds histogram"), std::string::npos);
}

TEST(ServeKeys, RequestsNeedAKeyFromTheFile) {
  test::TempDir dir;
  ServeOptions options = tiny_options(write_tiny_checkpoint(dir));
  test::write_text(dir.path("keys"), "# one key a line\n  secret-1  \n\nsecret-2\n");
  options.api_keys_file = dir.path("keys");
  RunningServer server(options);
  auto client = server.client();
  const std::string body = json({{"q", "luz"}, {"source", "es"}, {"target", "en"}}).dump();
  auto without = client.Post("/translate", body, "application/json");
  ASSERT_TRUE(without);
  EXPECT_EQ(without->status, 403);
  EXPECT_EQ(json::parse(without->body)["error"], "Invalid API key");
  auto wrong = client.Post("/translate", json({{"q", "luz"}, {"source", "es"}, {"target", "en"}, {"api_key", "secret"}}).dump(),
                           "application/json");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 403);
  auto in_body = client.Post("/translate", json({{"q", "luz"}, {"source", "es"}, {"target", "en"}, {"api_key", "secret-1"}}).dump(),
                             "application/json");
  ASSERT_TRUE(in_body);
  EXPECT_EQ(in_body->status, 200) << in_body->body;
  auto native_without = client.Post("/v1/translate", R"({"text": "luz"})", "application/json");
  ASSERT_TRUE(native_without);
  EXPECT_EQ(native_without->status, 403);
  auto native_bearer = client.Post("/v1/translate", {{"Authorization", "Bearer secret-2"}}, R"({"text": "luz"})",
                                   "application/json");
  ASSERT_TRUE(native_bearer);
  EXPECT_EQ(native_bearer->status, 200) << native_bearer->body;
  auto health = client.Get("/health");  // monitoring needs no key
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST(ServeKeys, AnEmptyOrMissingKeysFileIsRefusedAtStart) {
  test::TempDir dir;
  ServeOptions options = tiny_options(write_tiny_checkpoint(dir));
  test::write_text(dir.path("keys"), "# nothing\n\n");
  options.api_keys_file = dir.path("keys");
  EXPECT_THROW_WITH(TranslationServer server(options), ConfigError, "api-keys:", "has no keys");
  options.api_keys_file = dir.path("absent");
  EXPECT_THROW_WITH(TranslationServer server(options), IoError, "absent");
}

// A queue that holds at most two sentences and a batch that waits 3 s for company: a request that
// does not fit is refused at once (503), one that waits past its time limit gets 504, and its
// sentences leave the queue.
double queued_sentences(RunningServer& server);

// Waits (at most 20 s) until `count` sentences are queued; false if they never are.
bool wait_for_queue(RunningServer& server, double count) {
  const auto start = std::chrono::steady_clock::now();
  while (queued_sentences(server) != count) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(20)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

TEST(ServeLimits, FullQueueIs503AndTimeLimitIs504) {
  test::TempDir dir;
  ServeOptions options = tiny_options(write_tiny_checkpoint(dir));
  options.queue.batch_wait_ms = 10000;
  options.queue.batch_wait_always = true;
  options.queue.max_queued_sentences = 12;
  options.queue.search_workers = 1;
  options.limits.request_timeout_s = 3;
  RunningServer server(options);
  std::thread waiting([&] {
    auto response = server.client().Post(
        "/v1/translate", R"({"text": "Luz. Tinieblas. Día. Noche. Tarde. Mañana. Cielo. Tierra. Mar. Sol. Luna."})",
        "application/json");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 504);
    EXPECT_NE(json::parse(response->body)["error"].get<std::string>().find("time limit"), std::string::npos);
  });
  ASSERT_TRUE(wait_for_queue(server, 11));
  auto refused = server.client().Post("/v1/translate", R"({"text": "Día. Noche."})", "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503);
  EXPECT_NE(json::parse(refused->body)["error"].get<std::string>().find("queue is full"), std::string::npos);
  waiting.join();
  auto metrics = server.client().Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("nmt_serve_queue_sentences 0"), std::string::npos) << "the timed-out request left the queue";
}

// Two HTTP threads, both held by requests that wait 3 s for company: a third connection waits for
// a thread, and once it gets one after more than --max-connection-wait it is answered 503 at once
// (not queued behind them without bound). Its time counted from accept.
TEST(ServeLimits, AConnectionThatWaitedTooLongForAThreadIs503) {
  test::TempDir dir;
  ServeOptions options = tiny_options(write_tiny_checkpoint(dir));
  options.http_threads = 2;
  options.queue.search_workers = 1;
  options.queue.batch_wait_ms = 3000;
  options.queue.batch_wait_always = true;
  options.limits.max_connection_wait_s = 0.5;
  RunningServer server(options);
  std::vector<std::thread> holders;
  std::vector<int> held(2, 0);
  for (std::size_t i = 0; i < 2; ++i) {
    holders.emplace_back([&, i] {
      auto response = server.client().Post("/v1/translate", R"({"text": "Luz."})", "application/json");
      held[i] = response ? response->status : -1;
    });
  }
  // Both threads are taken once both sentences are queued (/metrics needs a thread: ask over a raw
  // socket after a short wait instead).
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const auto start = std::chrono::steady_clock::now();
  const std::string busy = raw_exchange(server.port(), "GET /health HTTP/1.1\r\nHost: x\r\n\r\n", true);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (std::thread& t : holders) t.join();
  EXPECT_EQ(held, (std::vector<int>{200, 200}));
  EXPECT_EQ(busy.rfind("HTTP/1.1 503", 0), 0u) << busy;
  EXPECT_NE(busy.find("the server is busy"), std::string::npos) << busy;
  EXPECT_GT(seconds, 1.0) << "it was answered before a thread was free: the threads were not both held";
  // Free threads again: served.
  auto health = server.client().Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

// With the default limits, long sentences with n-best attention could answer gigabytes: refused
// (413) before anything is searched, from the sentences' lengths and the length limit.
TEST(ServeLimits, AttentionIsBoundedBeforeTheSearch) {
  test::TempDir dir;
  ServeOptions options;
  options.checkpoints = {write_tiny_checkpoint(dir)};
  options.port = 0;
  RunningServer server(options);
  std::string sentence;
  while (sentence.size() < 900) sentence += "y dijo Dios sea la luz y fue la luz y vio Dios que la luz era buena ";
  sentence = "Y" + sentence.substr(1, sentence.size() - 2) + ". ";
  const std::string text = sentence + sentence + sentence + sentence + sentence;
  const auto start = std::chrono::steady_clock::now();
  auto response = server.client().Post(
      "/v1/translate", json({{"text", {text, text}}, {"attention", true}, {"n_best", 2}, {"beam", 2}}).dump(),
      "application/json");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 413) << response->body;
  EXPECT_NE(response->body.find("weights, more than the limit of 2000000"), std::string::npos) << response->body;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "searched before refusing";
}

// Sends a request on a raw socket and closes it, without reading the answer, once the server
// has queued `sentences` of it.
void post_and_hang_up(RunningServer& server, const std::string& body, double sentences) {
  const int port = server.port();
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  const std::string request = "POST /v1/translate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                              "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  ASSERT_EQ(send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  EXPECT_TRUE(wait_for_queue(server, sentences));
  close(fd);
}

double queued_sentences(RunningServer& server) {
  auto metrics = server.client().Get("/metrics");
  if (!metrics) return -1;
  const std::string name = "\nnmt_serve_queue_sentences ";
  const std::size_t at = metrics->body.find(name);
  return at == std::string::npos ? -1 : std::stod(metrics->body.substr(at + name.size()));
}

TEST(ServeLimits, AClientThatHangsUpFreesItsQueuedSentences) {
  test::TempDir dir;
  ServeOptions options = tiny_options(write_tiny_checkpoint(dir));
  options.queue.batch_wait_ms = 10000;  // without the watch, the sentences would wait 10 s
  options.queue.batch_wait_always = true;
  options.queue.search_workers = 1;
  RunningServer server(options);
  post_and_hang_up(server, R"({"text": "Luz. Tinieblas. Día."})", 3);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(wait_for_queue(server, 0));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
  std::string metrics;
  while (metrics.find("code=\"499\"") == std::string::npos &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {  // the log line comes after
    auto answer = server.client().Get("/metrics");
    metrics = answer ? answer->body : "";
  }
  EXPECT_NE(metrics.find("code=\"499\""), std::string::npos) << metrics;
}

TEST(ServeStop, RequestsInFlightAreAnsweredThenServeReturns) {
  test::TempDir dir;
  ServeOptions options = tiny_options(write_tiny_checkpoint(dir));
  options.queue.batch_wait_ms = 2000;  // the request is still queued when stop() comes
  options.queue.batch_wait_always = true;
  RunningServer server(options);
  int status = 0;
  std::thread in_flight([&] {
    auto response = server.client().Post("/v1/translate", R"({"text": "Y dijo Dios: Sea la luz."})", "application/json");
    status = response ? response->status : -1;
  });
  ASSERT_TRUE(wait_for_queue(server, 1));
  server.stop();  // returns once serve() has: the request had its answer first
  in_flight.join();
  EXPECT_EQ(status, 200);
  httplib::Client late("127.0.0.1", server.port());
  late.set_connection_timeout(1, 0);
  EXPECT_FALSE(late.Get("/health")) << "still accepting connections after stop()";
}

// stop() before serve() has started listening (cpp-httplib's own stop() would be lost then, and
// serve() would never return), and at once after.
TEST(ServeStop, AStopBeforeOrAsServeStartsIsNotLost) {
  test::TempDir dir;
  const ServeOptions options = tiny_options(write_tiny_checkpoint(dir));
  {
    TranslationServer server(options);
    server.stop();
    server.serve();  // returns at once
  }
  for (int i = 0; i < 5; ++i) {
    RunningServer server(options);
    server.stop();  // races with serve() starting on its thread; must not hang
  }
  SUCCEED();
}

TEST(ServeOptionsCheck, BadOptionsAreRefusedNamingThem) {
  test::TempDir dir;
  const ServeOptions good = tiny_options(write_tiny_checkpoint(dir));
  ServeOptions o = good;
  o.port = 70000;
  EXPECT_THROW_WITH(TranslationServer server(o), ConfigError, "port");
  o = good;
  o.search.beam_size = 5;  // above max-beam 4
  EXPECT_THROW_WITH(TranslationServer server(o), ConfigError, "beam-size", "max-beam");
  o = good;
  o.limits.max_alternatives = 4;
  EXPECT_THROW_WITH(TranslationServer server(o), ConfigError, "max-alternatives");
  o = good;
  o.queue.max_queued_sentences = 8;  // below max-sentences 12: a large request could never be queued
  EXPECT_THROW_WITH(TranslationServer server(o), ConfigError, "max-sentences", "max-queued-sentences");
  o = good;
  o.queue.batch_wait_ms = -1;
  EXPECT_THROW_WITH(TranslationServer server(o), ConfigError, "batch-wait-ms");
  o = good;
  o.source_language = "es\"><script>";
  EXPECT_THROW_WITH(TranslationServer server(o), ConfigError, "source-language");
  {
    // A port another server holds is refused (cpp-httplib's default SO_REUSEPORT would share it).
    RunningServer first(good);
    o = good;
    o.port = first.port();
    EXPECT_THROW_WITH(TranslationServer second(o), IoError, "cannot listen on 127.0.0.1:" + std::to_string(first.port()));
  }
  o = good;
  o.host = "203.0.113.9";  // TEST-NET-3: not an address of this machine
  EXPECT_THROW_WITH(TranslationServer server(o), IoError, "cannot listen on 203.0.113.9");
}

// The search settings' table over HTTP: /v1/model's defaults are search_defaults() of the
// server's settings, and a request may name every field of the table (tests/serve/search_settings_test.cc
// checks each one's effect).
TEST_F(Serve, ModelDefaultsAndRequestFieldsComeFromTheSearchOptionTable) {
  auto model = server_->client().Get("/v1/model");
  ASSERT_TRUE(model);
  const ServeOptions options = tiny_options(checkpoint_);
  EXPECT_EQ(json::parse(model->body)["defaults"], search_defaults(options.search));
  json request = {{"text", "luz"}};
  const SearchOptions own;
  for_each_search_option([&](const SearchOptionDoc& doc, auto member) {
    const auto& value = doc.server_default ? options.search.*member : own.*member;
    if constexpr (std::is_enum_v<std::remove_const_t<std::remove_reference_t<decltype(value)>>>) {
      request[doc.field] = name_of(value);
    } else {
      request[doc.field] = value;
    }
  });
  EXPECT_EQ(post_json("/v1/translate", request, 200)["translations"].size(), 1u) << request.dump();
}

}  // namespace
}  // namespace nmt
