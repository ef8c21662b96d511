// The CLI tests' way to run the gpuprobe binary under test: a scratch folder of the test's own,
// removed when it ends, and `gpuprobe ARGS` with its exit code, stdout and stderr.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/gpu.hpp"

namespace gpuprobe::test {

struct Scratch {
  std::filesystem::path dir;
  // A fresh folder /tmp/gpuprobe-<tag>-<pid>-<n>.
  explicit Scratch(const std::string& tag) {
    static int counter = 0;
    dir = std::filesystem::temp_directory_path() /
          ("gpuprobe-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct Result {
  int rc = -1;
  std::string out, err;
};

// `ENV gpuprobe ARGS`, started in `cwd` (empty: this process's folder); stdout and stderr are
// kept in the scratch folder's .out and .err.
inline Result run_gpuprobe(const Scratch& s, const std::string& args, const std::string& env = "",
                           const std::filesystem::path& cwd = {}) {
  const std::string cmd = (cwd.empty() ? std::string() : "cd '" + cwd.string() + "' && ") + env + " " +
                          GPUPROBE_EXE + " " + args + " >" + (s / ".out") + " 2>" + (s / ".err");
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(s / ".out"), slurp(s / ".err")};
}

}  // namespace gpuprobe::test
