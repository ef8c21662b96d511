// Reading a file the user hands in (a CSV, a gpu-benches log): every problem is one line,
// "path: problem" or "path:line: problem", thrown as harness/error.hpp's Error.
#pragma once
#include <cstddef>
#include <fstream>
#include <string>

#include "harness/error.hpp"

namespace gpuprobe::analysis {

[[noreturn]] inline void fail_at_line(const std::string& path, std::size_t line, const std::string& problem) {
  throw Error(path + ":" + std::to_string(line) + ": " + problem);
}

inline std::ifstream open_or_fail(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the file");
  return in;
}

}  // namespace gpuprobe::analysis
