#include "cli/command_files.hpp"

#include <filesystem>
#include <fstream>

#include "harness/error.hpp"
#include "harness/results.hpp"

namespace gpuprobe {

namespace fs = std::filesystem;

std::string model_file(const std::string& input) {
  std::error_code ec;
  if (!fs::is_directory(input, ec)) return input;
  const std::string file = (fs::path(input) / "machine_model.json").string();
  if (!fs::is_regular_file(file, ec))
    throw Error(input +
                " is a folder without machine_model.json (run-all writes one; or give the model's file)");
  return file;
}

nlohmann::json read_model_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error(path + " is a folder, not a machine model file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    if (const auto nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
    throw Error(path + " is not valid JSON: " + what);
  } catch (const std::exception& e) {  // a read error of the stream (an I/O error, a special file)
    throw Error("cannot read " + path + ": " + e.what());
  }
}

std::string without_json(const std::string& path) {
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0)
    return path.substr(0, path.size() - 5);
  return path;
}

std::string output_prefix(const std::string& out, const std::string& stem, const std::string& fallback) {
  if (out.empty()) return fallback;
  std::error_code ec;
  if (out.back() == '/' || fs::is_directory(out, ec)) return (fs::path(out) / stem).string();
  return out;
}



bool published_model(const nlohmann::json& model) {
  if (!model.is_object()) return false;
  if (model.contains("source") && model["source"].is_string()) return model["source"] == "published";
  if (!model.contains("metrics") || !model["metrics"].is_array() || model["metrics"].empty()) return false;
  for (const auto& m : model["metrics"])
    if (!m.is_object() || m.value("source", nlohmann::json()) != "published") return false;
  return true;
}

}  // namespace gpuprobe
