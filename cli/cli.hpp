// The gpuprobe command line: list, probe, run-all, analyze. It sits above the harness and the
// analysis and joins them; main() only calls run_cli.
#pragma once
#include <ostream>

namespace gpuprobe {

// Returns the process exit code: 0 success, 1 a failure while running, 2 bad usage, 3 `aggregate`
// flagged an outlier.
// Never throws: every error becomes one line "gpuprobe: error: ..." on `err`.
int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace gpuprobe
