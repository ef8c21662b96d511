// Probe parameters: each probe declares its axes; the CLI and run-all fill them from text.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuprobe {

struct ParamSpec {
  enum class Kind { integer, bytes, real, choice, list, sm };  // sm: N, "any" or "all"
  std::string name;           // as on the command line without "--": "max-footprint-bytes"
  Kind kind = Kind::integer;
  std::string default_value;  // text, parsed like user input; "0" often means "derive from device"
  std::string help;
  // Kind::choice: the values; Kind::sm: the words it takes besides an SM number ("any", "all"; empty:
  // both), so a probe that cannot map every SM refuses "all".
  std::vector<std::string> choices;
  // The largest value (integer, bytes, real) or the most entries (list) accepted; 0: no maximum.
  // Every count has one (docs: README "Limits"), so no value makes a run spin for hours.
  uint64_t max = 0;
  // The smallest value (integer, bytes; each entry of a list) accepted, and the number every
  // value must be a multiple of; 0: none. Checked with the rest, before any device is opened.
  uint64_t min = 0;
  uint64_t multiple = 0;
};

// Parameter values after validation against the specs: an integer is decimal digits only, a real
// a decimal number (no hex, no blanks, finite), a size a whole number of bytes with an optional
// binary unit, a list comma-separated sizes with no entry twice, an SM a number, any or all; each
// within its spec's min, max and multiple. Getters throw gpuprobe::Error.
class Params {
 public:
  // Fills defaults, then applies overrides; an unknown name or a bad value throws one line.
  static Params parse(const std::vector<ParamSpec>& specs,
                      const std::map<std::string, std::string>& overrides);
  uint64_t get_u64(const std::string& name) const;
  double get_real(const std::string& name) const;
  const std::string& get_text(const std::string& name) const;
  std::vector<uint64_t> get_u64_list(const std::string& name) const;
  // A Kind::sm parameter: the SM number, kAnySm (harness/launch_config.hpp) or kSmAll.
  int get_sm(const std::string& name) const;
  static constexpr int kSmAll = -2;
  nlohmann::json to_json() const;

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, ParamSpec::Kind> kinds_;
};

// "64K" -> 65536, "2MiB" -> 2097152, "1.5G" -> 1610612736 (binary units); plain numbers as is.
uint64_t parse_bytes(const std::string& text);

}  // namespace gpuprobe
