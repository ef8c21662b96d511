// `gpuprobe compare A.json B.json [C.json ...] [--family F,...] [--out PREFIX] [--no-plot]`: every
// metric of the machine models' `metrics[]` tables side by side, with the ratio of each input to the first
// (absolute and per SM per clock), a one-paragraph summary of the largest differences, and overlay
// plots of the latency curves and rooflines (analysis/plot_compare.py). Writes PREFIX.compare.md,
// PREFIX.compare.json (schema gpuprobe.compare v1, docs/SCHEMA.md), PREFIX.compare-latency.png /
// .svg and PREFIX.compare-roofline.png / .svg (PREFIX by default in the current folder, named after
// the inputs). Reference profiles of published GPUs, to compare a run against, are in
// results/reference/.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace gpuprobe {

struct CompareArgs {
  std::vector<std::string> inputs;  // model files, or run-all folders holding machine_model.json
  std::string out_prefix;
  std::vector<std::string> families;  // --family: only these families' metrics (empty: all)
  bool no_plot = false;
};

// Adds the `compare` subcommand, its options filling `args`.
CLI::App* add_compare_subcommand(CLI::App& app, CompareArgs& args);

// The comparison document (schema gpuprobe.compare v1) of `models` read from `files`, in that
// order: the first is the base of every ratio. With `families`, only their metrics are compared
// (and drawn). Throws gpuprobe::Error (one line) on bad input, an unknown family among them.
nlohmann::json compare_models(const std::vector<nlohmann::json>& models,
                              const std::vector<std::string>& files,
                              const std::vector<std::string>& families = {});

// The default name of a comparison's files: the inputs' names (a file's name without .json; a
// run-all folder's machine_model.json by its folder) joined by "-vs-", the first three and
// "-and-N-more"; in the current folder, never beside an input.
std::string default_compare_name(const std::vector<std::string>& files);

// The Markdown page of a comparison document: the inputs, the table, the summary.
std::string compare_markdown(const nlohmann::json& doc);

// Runs it: prints the Markdown, writes the files. Returns 0, or 1 when a plot could not be drawn
// (the Markdown and JSON are written first). Throws gpuprobe::Error (one line) on bad input,
// before anything is written.
int cmd_compare(const CompareArgs& args, std::ostream& out, std::ostream& err);

}  // namespace gpuprobe
