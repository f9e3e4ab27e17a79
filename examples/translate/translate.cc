// Translates one sentence with a checkpoint of nmt-train, as `nmt-translate -m MODEL` would:
//   translate MODEL.pt "En el principio creó Dios los cielos y la tierra."
#include <nmt/model/checkpoint.h>
#include <nmt/model/inference/inference_model.h>
#include <nmt/translate/translator.h>

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: translate MODEL.pt SENTENCE\n";
    return 2;
  }
  try {
    nmt::Checkpoint checkpoint = nmt::load_checkpoint(argv[1]);  // model and both tokenizers, on the CPU
    // Search steps the model's inference form: copies of the parameters, prepared for search.
    const auto model = checkpoint.model->for_inference(c10::Device(c10::kCPU));
    nmt::TranslateOptions options;  // beam search, beam 5, as nmt-translate's defaults
    nmt::Translator translator(*model, checkpoint.source_tokenizer, checkpoint.target_tokenizer, options,
                               c10::Device(c10::kCPU));
    const nmt::Translation translation = translator.translate({argv[2]}).front();
    std::cout << (translation.hypotheses.empty() ? "" : translation.hypotheses.front().text) << '\n';
  } catch (const std::exception& e) {
    std::cerr << "translate: " << e.what() << '\n';
    return 1;
  }
}
