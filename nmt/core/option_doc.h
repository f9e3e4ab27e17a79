// What an option table says about one option (see TrainConfig's for_each_option): its key and its
// help text, written once. Programs make the flag --KEY and the config-file key from the key;
// the library writes the effective configuration under it.
#pragma once

namespace nmt {

struct OptionDoc {
  const char* key;   // "train.max-steps": the flag --train.max-steps, [train] max-steps in TOML
  const char* help;  // one line, for --help
  // The effective configuration leaves the option out while it has its type's empty value ("", 0):
  // options added after runs existed, so that those runs' configurations stay byte for byte.
  bool written_only_when_set = false;
};

}  // namespace nmt
