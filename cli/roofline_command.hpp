// `gpuprobe roofline --model M.json [--kernel ...]... [--kernels-csv F] [--ncu-csv F]
// [--precision P] [--out PREFIX] [--no-plot]`: the model's hierarchical roofline (ceilings and
// ridge points), the kernels placed on it (achieved, attainable, bound, % of attainable),
// PREFIX.roofline.json, and the plot PREFIX.roofline.png / .svg drawn by analysis/plot_roofline.py.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace gpuprobe {

struct RooflineArgs {
  std::string model, out_prefix, kernels_csv, ncu_csv, precision;
  std::vector<std::string> kernels;
  bool no_plot = false;
};

// Adds the `roofline` subcommand, its options filling `args`.
CLI::App* add_roofline_subcommand(CLI::App& app, RooflineArgs& args);

// Runs it. Returns 0, or 1 when the plot could not be drawn (the JSON is written first). Throws
// gpuprobe::Error (one line) on bad input, before anything is written.
int cmd_roofline(const RooflineArgs& args, std::ostream& out, std::ostream& err);

}  // namespace gpuprobe
