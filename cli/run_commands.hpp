// The commands that measure: `probe` (one probe into one record) and `run-all` (every probe into
// a results folder, then the machine model). Called by run_cli (cli/cli.cpp).
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace gpuprobe {

int cmd_probe(const std::string& id, const std::string& device_spec, const std::string& out_path,
              double max_seconds, const std::vector<std::string>& extras, std::ostream& out,
              std::ostream& err);

int cmd_run_all(const std::string& device_spec, std::string out_dir, double max_seconds,
                std::ostream& out, std::ostream& err);

}  // namespace gpuprobe
