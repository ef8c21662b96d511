// `gpuprobe aggregate MODEL.json|DIR ... [--outlier-percent X] [--allow-mixed]
// [--allow-mixed-sources] [--out PREFIX]`: a fleet of runs of one GPU model (one per GPU, docs/FLEET.md)
// summarised metric by metric from each machine model's `device` and `metrics[]`: n, median, min,
// max and spread; and the outliers, every run more than X% worse than the median on a ceiling.
// Prints the Markdown tables; with --out writes PREFIX.aggregate.json (schema "gpuprobe.aggregate",
// docs/SCHEMA.md) and PREFIX.aggregate.md.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace gpuprobe {

struct AggregateArgs {
  std::vector<std::string> inputs;   // machine_model.json files, or result folders holding one
  double outlier_percent = 5;
  bool allow_mixed = false;          // several GPU models (device.name)
  bool allow_mixed_sources = false;  // a metric measured in one input, simulated or published in another
  std::string out_prefix;
};

// Adds the `aggregate` subcommand, its options filling `args`.
CLI::App* add_aggregate_subcommand(CLI::App& app, AggregateArgs& args);

// The gpuprobe.aggregate document of `models` (read from `files`, same order), created_utc aside.
// Throws gpuprobe::Error (one line) on a model without metrics[], a malformed metric, mixed GPU
// models or mixed sources that `args` does not allow.
nlohmann::json aggregate_models(const std::vector<nlohmann::json>& models, const std::vector<std::string>& files,
                                const AggregateArgs& args);

// The document as Markdown: the GPUs, the outliers and the metrics tables.
std::string aggregate_markdown(const nlohmann::json& doc);

// Runs it. Returns 0, or 3 when an outlier was flagged (the outputs are written either way).
// Throws gpuprobe::Error (one line) on bad input, before anything is written.
int cmd_aggregate(const AggregateArgs& args, std::ostream& out, std::ostream& err);

}  // namespace gpuprobe
