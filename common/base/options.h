// The one typed option reader: the plugin's and the HTTP front's plugin_opt_* lines of
// mosquitto.conf, fleetmcp-device's and fleetctl's command lines all come in as an OptionSet, a
// list of (key, value, where it was written) entries, and are read with the typed getters of
// Option. Every failure is a Result whose envelope names the option and where it came from:
//
//   /etc/mosquitto/mosquitto.conf:42: plugin_opt_http_max_connections: '0' is not an integer from 1 to 1000000
//   command line argument 3: --workers: 'x' is not an integer from 1 to 256
//
// Unknown, repeated and missing keys are detected here, in OptionSet::read and OptionSet::require,
// so each program only lists its keys and what each one means (a table of OptionRule).
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/base/result.h"

namespace fleetmcp {

// Where an option was written: a file and its line, or an argument of the command line.
struct OptionSource {
  std::string file;  // "" = the command line
  int line = 0;      // the file's line, or the argument's index in argv; 0 = not known

  // "mosquitto.conf:42", "mosquitto.conf", "command line argument 3", or "" when nothing is known.
  std::string describe() const;
};

// One option as given. `key` is what the program looks up ("loopback_port", "days"); `name` is
// what the user wrote ("plugin_opt_loopback_port", "--days", "-c"), the word messages use.
struct Option {
  std::string key, name, value;
  OptionSource source;

  // kBadRequest "<where>: <name>: <what>" (no "<where>: " when the source is unknown).
  ErrorEnvelope error(std::string_view what, std::string_view fix) const;

  Result<std::string> text(std::string_view fix_when_empty) const;  // not empty
  Result<int64_t> integer(int64_t min, int64_t max) const;
  Result<double> number(double min, double max) const;               // finite, decimal
  Result<std::chrono::milliseconds> millis(int64_t min, int64_t max) const;  // an integer of ms
  Result<bool> boolean() const;                                      // true/false/yes/no/on/off/1/0
  Result<std::string> readable_file() const;                         // a path that opens for reading
  Result<std::string> directory() const;                             // a path that is a directory
  std::vector<std::string> words() const;                            // split at whitespace

  // The value as one of `names` ("by_kind" -> ToolsMode::kByKind …); else "must be a, b or c".
  template <typename E>
  Result<E> one_of(std::initializer_list<std::pair<std::string_view, E>> names, std::string_view fix) const {
    std::string choices;
    size_t i = 0;
    for (const auto& [word, value] : names) {
      if (word == this->value) return value;
      if (i > 0) choices += i + 1 == names.size() ? " or " : ", ";
      choices += word;
      ++i;
    }
    return error("must be " + choices, fix);
  }
};

// Stores a successful read in `field` (converting to its type), or hands the failure back.
template <typename Field, typename T>
Status assign(Field& field, Result<T> read) {
  if (!read) return std::move(read).error();
  field = static_cast<Field>(*std::move(read));
  return {};
}

// One key a program understands and how it reads it into its configuration.
template <typename Config>
struct OptionRule {
  std::string_view key;
  Status (*read)(Config& config, const Option& option);
};

class OptionSet {
 public:
  OptionSet() = default;
  // `prefix` turns a key into the name the user writes ("plugin_opt_", "--"); `origin` is where
  // the options were read from ("/etc/mosquitto/mosquitto.conf"), named when
  // one is missing; "" when not known.
  OptionSet(std::string prefix, std::string origin) : prefix_(std::move(prefix)), origin_(std::move(origin)) {}
  // Options without positions: tests, or a broker whose configuration file cannot be read.
  static OptionSet from_pairs(std::string prefix, const std::vector<std::pair<std::string, std::string>>& pairs);

  void add(std::string key, std::string value, OptionSource source = {});
  // Adds an option written under another name than prefix + key (a short flag: "-c" for config).
  void add_named(std::string key, std::string name, std::string value, OptionSource source);

  const std::vector<Option>& options() const { return options_; }
  const Option* find(std::string_view key) const;  // the first one given
  bool has(std::string_view key) const { return find(key) != nullptr; }
  std::string name_of(std::string_view key) const { return prefix_ + std::string(key); }
  const std::string& origin() const { return origin_; }

  // An error about `key` that is not about one value: where it was given if it was, else the
  // origin ("<origin>: <name>: <what>").
  ErrorEnvelope error(std::string_view key, std::string_view what, std::string_view fix) const;
  // "<origin>: <name>: is required" unless `key` was given.
  Status require(std::string_view key, std::string_view fix) const;

  // Reads every option through the rule of its key into `config`, in the order given. A key no
  // rule names is refused ("unknown option", `unknown_fix` says where the keys are documented)
  // unless `skip` says another reader owns it; a key given twice is refused.
  template <typename Config>
  Status read(std::span<const OptionRule<Config>> rules, Config& config, std::string_view unknown_fix,
              bool (*skip)(std::string_view key) = nullptr) const {
    for (size_t i = 0; i < options_.size(); ++i) {
      const Option& option = options_[i];
      if (skip != nullptr && skip(option.key)) continue;
      const OptionRule<Config>* rule = nullptr;
      for (const auto& r : rules) {
        if (r.key == option.key) rule = &r;
      }
      if (rule == nullptr) return option.error("unknown option", unknown_fix);
      if (Status repeated = check_once(i); !repeated) return repeated;
      if (Status applied = rule->read(config, option); !applied) return applied;
    }
    return {};
  }

 private:
  Status check_once(size_t index) const;  // "given twice" when an earlier option has the same key

  std::string prefix_, origin_;
  std::vector<Option> options_;
};

// What a command line may hold. Long names are written without "--"; "--help" and "-h" are always
// switches.
struct CommandLineSpec {
  std::vector<std::string_view> valued;    // --name VALUE or --name=VALUE
  std::vector<std::string_view> switches;  // --name
  std::vector<std::pair<std::string_view, std::string_view>> short_names;  // {"-c", "config"}
  bool positionals = false;                // words that do not start with "--" (fleetctl's)
  std::string_view unknown_fix;            // "run fleetmcp-device --help"
};

struct CommandLine {
  OptionSet options;  // a switch is an option whose value is ""
  std::vector<std::string> positionals;
};

// Reads `args` (argv without the program name). `first_index` is the index in argv of args[0],
// for "command line argument N" in messages; 0 leaves the position out (fleetctl's subcommands
// see only their own words). Refuses unknown and repeated options, a valued option without a
// value and a switch with one.
Result<CommandLine> read_command_line(std::span<const std::string> args, const CommandLineSpec& spec,
                                      int first_index);

}  // namespace fleetmcp
