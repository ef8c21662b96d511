// The files of `roofline`, `compare` and `aggregate`: a machine model given as a file or as a
// run-all result folder, read with its name in every error, and the output PREFIX (`--out`, which
// may name a folder, or the command's default).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace gpuprobe {

// The model file an input names: a run-all result folder stands for its machine_model.json; a
// folder without one is refused in one line (gpuprobe::Error).
std::string model_file(const std::string& input);

// The JSON document in `path` (after model_file). Every failure is one gpuprobe::Error naming the
// file: missing, unreadable, a folder, not JSON.
nlohmann::json read_model_file(const std::string& path);

// `path` without a trailing ".json".
std::string without_json(const std::string& path);

// The PREFIX of the files a command writes: `out` when it names one; `out` that ends in '/' or
// names an existing folder means DIR/`stem` (so `--out DIR/` never writes hidden files such as
// DIR/.roofline.json); an empty `out` gives `fallback`.
std::string output_prefix(const std::string& out, const std::string& stem, const std::string& fallback);

// Whether a machine model holds published figures (results/reference/): its top-level `source`,
// else every metric's, is "published".
bool published_model(const nlohmann::json& model);

}  // namespace gpuprobe
