// nmt-serve: parse flags (or a --config TOML file) into ServeOptions and run the server
// (docs/serving.md).
#include "apps/common/app_main.h"
#include "apps/common/libtorch_app.h"
#include "apps/common/config_file.h"
#include "apps/common/option_table.h"
#include "apps/common/search_flags.h"
#include "nmt/serve/translation_server.h"

int main(int argc, char** argv) {
  CLI::App app{"Serve translations over HTTP: a JSON API (/v1/translate), LibreTranslate's API (/translate, "
               "/languages), a web page (/), /health and /metrics. Requests' sentences are batched together."};
  nmt::app::add_common_options(app);
  nmt::app::add_config_file_option(app);
  nmt::ServeOptions o;
  nmt::QueueOptions& q = o.queue;
  nmt::ServeLimits& l = o.limits;
  app.add_option("--model,-m", o.checkpoints, "Checkpoint (.pt); repeated: an ensemble of the models")->required();
  nmt::app::add_enum_option(app, "--ensemble-mode", o.ensemble_mode, "How an ensemble combines the models' steps");
  nmt::app::add_enum_option(app, "--engine", o.engine, "native or script (the model's TorchScript methods)");
  app.add_option("--host", o.host, "Address to listen on (0.0.0.0: every interface)")->capture_default_str();
  nmt::app::add_number_option(app, "--port,-p", o.port, "Port (0: any free port, logged)")->capture_default_str();
  nmt::app::add_number_option(app, "--http-threads", o.http_threads, "Connections served at once")->capture_default_str();
  app.add_option("--api-keys", o.api_keys_file, "File of API keys, one a line: requests must carry one (403 otherwise)");
  app.add_option("--source-language", o.source_language,
                 "Source language code for LibreTranslate's API (default: the training data's file extension)");
  app.add_option("--target-language", o.target_language, "Target language code (default: as for the source)");
  app.add_option_function<std::string>(
      "--tag", [&o](const std::string& tag) { o.tag = tag; },
      "Tag of the requests without one (a model trained on tagged corpora; default: its data.default-tag; '' for "
      "none)");
  app.add_option("--device", o.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  nmt::app::add_number_option(app, "--threads", o.threads, "CPU intra-op threads")->capture_default_str();
  nmt::app::add_precision_flags(app, o.precision, o.int8_products, nmt::app::SearchFlags::serve);
  nmt::app::add_number_option(app, "--search-workers", q.search_workers,
                              "Threads translating batches, each with single-threaded BLAS (0: one per core, at most 4)")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--batch-wait-ms", q.batch_wait_ms,
                              "How long a sentence waits for others to share its batch while another worker searches")
      ->capture_default_str();
  app.add_flag("--batch-wait-always", q.batch_wait_always,
               "Wait --batch-wait-ms for company even when every other worker is idle (adds latency)");
  nmt::app::add_number_option(app, "--batch-sentences", q.max_batch_sentences, "Sentences a worker takes at once")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--batch-tokens", q.translate.max_tokens,
                              "Source subwords per search batch, padding included, times the beam size")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--max-queued-sentences", q.max_queued_sentences,
                              "Sentences waiting at most; more: 503")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--max-source-length", q.translate.max_source_length, "Longest source in subwords")
      ->capture_default_str();
  nmt::app::add_enum_option(app, "--long-inputs", q.translate.long_inputs,
                            "Longer sentences: truncate (with a warning) or reject (400)");
  nmt::app::add_search_flags(app, o.search, nmt::app::SearchFlags::serve);
  nmt::app::add_number_option(app, "--max-body-bytes", l.max_body_bytes, "Largest request body; larger: 413")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--max-texts", l.max_texts, "Texts per request; more: 413")->capture_default_str();
  nmt::app::add_number_option(app, "--max-sentences", l.max_sentences, "Sentences per request after splitting; more: 413")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--max-characters", l.max_characters, "Characters per text; more: 413")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--max-beam", l.max_beam, "Largest beam a request may ask for")->capture_default_str();
  nmt::app::add_number_option(app, "--max-alternatives", l.max_alternatives, "Most alternatives (n-best - 1) a request may ask for")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--request-timeout", l.request_timeout_s,
                              "Seconds a request may take from its connection's accept; longer: 504")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--max-connection-wait", l.max_connection_wait_s,
                              "Seconds a connection may wait for an HTTP thread; longer: 503 (busy)")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--header-timeout", l.header_timeout_s,
                              "Seconds a request's line and headers may take from their first byte; longer: 408")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--body-timeout", l.body_timeout_s,
                              "Seconds a request's body may take from the end of its headers; longer: 408")
      ->capture_default_str();
  return nmt::app::run_with_libtorch(app, argc, argv, [&] { nmt::run_server(o); });
}
