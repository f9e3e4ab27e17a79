// nmt-serve's precisions (--precision, --int8-products, the request's "precision" field): a server
// with the native engine on the CPU holds an int8 form beside the float32 one, /v1/model says so,
// each request chooses, and what the server does not offer is a 400 naming it.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "nmt/core/error.h"
#include "tests/serve/serve_test_util.h"
#include "tests/test_util.h"

// A namespace of its own: the unity build puts this file in one unit with others.
namespace nmt::precision_server_test {
namespace {

using nlohmann::json;

json post(const test::RunningServer& server, const json& body, int expected_status) {
  auto response = server.client().Post("/v1/translate", body.dump(), "application/json");
  EXPECT_TRUE(response) << "no answer";
  if (!response) return json();
  EXPECT_EQ(response->status, expected_status) << response->body;
  return json::parse(response->body);
}

TEST(PrecisionServe, RequestsChooseTheFormAndTheModelSaysWhichItHas) {
  const test::TempDir dir;
  const std::string checkpoint = test::write_tiny_checkpoint(dir);
  const test::RunningServer server(test::tiny_options(checkpoint));
  const json model = json::parse(server.client().Get("/v1/model")->body);
  EXPECT_EQ(model["precision"], "float32");
  EXPECT_EQ(model["precisions"], json::array({"float32", "int8"}));
  EXPECT_EQ(model["int8_products"], InferencePrecision::of(Precision::int8).describe());

  const json texts = json::array({"Y dijo Dios.", "En el principio creó Dios los cielos y la tierra."});
  const json by_default = post(server, {{"text", texts}}, 200);
  EXPECT_EQ(post(server, {{"text", texts}, {"precision", "float32"}}, 200), by_default);
  const json int8 = post(server, {{"text", texts}, {"precision", "int8"}}, 200);
  ASSERT_EQ(int8["translations"].size(), 2u);
  // The same int8 translation alone as in company (batch invariance holds in int8 too).
  EXPECT_EQ(post(server, {{"text", texts[1]}, {"precision", "int8"}}, 200)["translations"][0], int8["translations"][1]);
  for (const json& bad : {json("fp16"), json(8), json(nullptr)}) {
    const std::string error = post(server, {{"text", "x"}, {"precision", bad}}, 400)["error"];
    EXPECT_NE(error.find("precision: must be \"float32\" or \"int8\""), std::string::npos) << error;
  }
}

TEST(PrecisionServe, WithoutAnInt8FormInt8RequestsAreRefusedByName) {
  const test::TempDir dir;
  ServeOptions options = test::tiny_options(test::write_tiny_checkpoint(dir));
  options.int8_products = "none";
  const test::RunningServer server(options);
  EXPECT_EQ(json::parse(server.client().Get("/v1/model")->body)["precisions"], json::array({"float32"}));
  const std::string error = post(server, {{"text", "x"}, {"precision", "int8"}}, 400)["error"];
  EXPECT_NE(error.find("precision int8 is not offered here"), std::string::npos) << error;
  // A server whose default is int8 needs the form: refused at start, naming both options.
  options.precision = Precision::int8;
  try {
    TranslationServer refused(options);
    ADD_FAILURE() << "an int8 default without an int8 form was accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "precision int8 needs an int8 form, and int8-products is none");
  }
}

TEST(PrecisionServe, AnInt8DefaultServesInt8AndFloat32OnRequest) {
  const test::TempDir dir;
  const std::string checkpoint = test::write_tiny_checkpoint(dir);
  ServeOptions options = test::tiny_options(checkpoint);
  options.precision = Precision::int8;
  const test::RunningServer int8_default(options);
  const json texts = json::array({"Y dijo Dios.", "Y fue la tarde y la mañana."});
  const json int8 = post(int8_default, {{"text", texts}}, 200);
  EXPECT_EQ(json::parse(int8_default.client().Get("/v1/model")->body)["precision"], "int8");
  EXPECT_EQ(post(int8_default, {{"text", texts}, {"precision", "int8"}}, 200), int8);
  const json float32 = post(int8_default, {{"text", texts}, {"precision", "float32"}}, 200);
  const test::RunningServer float_default(test::tiny_options(checkpoint));
  EXPECT_EQ(post(float_default, {{"text", texts}}, 200), float32);
}

}  // namespace
}  // namespace nmt::precision_server_test
