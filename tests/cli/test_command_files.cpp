// cli/command_files.cpp: a run-all folder stands for its machine_model.json, every read failure
// names the file in one line (a folder says so, never "basic_filebuf::underflow"), `--out DIR/`
// and `--out` of an existing folder mean DIR/NAME, and which models are published.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/gpuprobe_run.hpp"

#include "cli/command_files.hpp"
#include "harness/error.hpp"

namespace GPUPROBE_TEST_FILE {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Catch::Equals;

TEST_CASE("command files: a folder as a model, and every read failure in one line naming the file",
          "[cli][command_files]") {
  gpuprobe::test::Scratch s("command-files");
  fs::create_directories(s.dir / "run");
  fs::create_directories(s.dir / "empty");
  std::ofstream(s / "run/machine_model.json") << R"({"schema": "gpuprobe.machine_model"})";
  std::ofstream(s / "bad.json") << "{";
  CHECK(gpuprobe::model_file(s / "run") == s / "run/machine_model.json");
  CHECK(gpuprobe::model_file(s / "bad.json") == s / "bad.json");
  CHECK_THROWS_WITH(
      gpuprobe::model_file(s / "empty"),
      Equals(s / "empty" + " is a folder without machine_model.json (run-all writes one; or give the "
                           "model's file)"));
  CHECK(gpuprobe::read_model_file(s / "run/machine_model.json")["schema"] == "gpuprobe.machine_model");
  CHECK_THROWS_WITH(gpuprobe::read_model_file(s / "empty"),
                    Equals(s / "empty" + " is a folder, not a machine model file"));
  CHECK_THROWS_WITH(gpuprobe::read_model_file(s / "missing.json"),
                    Equals("cannot open " + s / "missing.json"));
  CHECK_THROWS_WITH(gpuprobe::read_model_file(s / "bad.json"),
                    Catch::StartsWith(s / "bad.json" + " is not valid JSON: ") && !Catch::Contains("\n"));
}

TEST_CASE("command files: the output prefix of --out FILE, --out DIR/ and no --out", "[cli][command_files]") {
  gpuprobe::test::Scratch s("command-files");
  fs::create_directories(s.dir / "existing");
  CHECK(gpuprobe::output_prefix("", "stem", "fallback") == "fallback");
  CHECK(gpuprobe::output_prefix("p", "stem", "fallback") == "p");
  CHECK(gpuprobe::output_prefix("new/", "stem", "fallback") == "new/stem");  // never new/.compare.json
  CHECK(gpuprobe::output_prefix(s / "existing", "stem", "f") == s / "existing/stem");
  CHECK(gpuprobe::without_json("a/b.json") == "a/b");
  CHECK(gpuprobe::without_json("a/b.csv") == "a/b.csv");
  CHECK(gpuprobe::without_json(".json") == ".json");
}

TEST_CASE("command files: a published model by its source, else by every metric's", "[cli][command_files]") {
  const json published_metric = {{"source", "published"}};
  CHECK(gpuprobe::published_model({{"source", "published"}}));
  CHECK_FALSE(
      gpuprobe::published_model({{"source", "measured"}, {"metrics", json::array({published_metric})}}));
  CHECK(gpuprobe::published_model({{"metrics", {published_metric, published_metric}}}));
  CHECK_FALSE(gpuprobe::published_model({{"metrics", {published_metric, {{"source", "simulated"}}}}}));
  CHECK_FALSE(gpuprobe::published_model({{"metrics", json::array()}}));
  CHECK_FALSE(gpuprobe::published_model(json::array()));
}

}  // namespace GPUPROBE_TEST_FILE
