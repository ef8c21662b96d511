// A probe's axes, as nvbench has them: the probe declares each axis (the key it gives its points
// and the values it takes, in order) and how to measure one point; the harness enumerates every
// combination in order, applies the command line's filter of each axis and measures the points
// (measure_points: write-as-you-go, clock outliers). A point's axes are what --resume matches it
// by (ProbeContext::resumed_point), so the points an interrupted run measured are kept.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/params.hpp"
#include "harness/probe.hpp"

namespace gpuprobe {

struct Axis {
  // The key of the point's axes. Empty: an expansion, whose values are objects merged into the
  // point's axes (a sweep whose key depends on the earlier axes, or a point with no key at all).
  std::string name;
  // The values this axis takes at a point whose earlier axes are `so_far`, in order (none: no
  // point with this prefix).
  std::function<std::vector<nlohmann::json>(const nlohmann::json& so_far)> values;
  // The parameter that filters the axis, if any: its value `all` keeps every value, any other
  // keeps the value whose text (a string's own, a number's digits) is equal to it.
  std::string filter;
  std::string all = "all";
};

// An axis of fixed values, filtered by the parameter of its own name.
Axis fixed_axis(std::string name, std::vector<std::string> values, std::string all = "all");

// Every combination of the axes' values, in order (the first axis outermost), filtered.
std::vector<nlohmann::json> enumerate_axes(const std::vector<Axis>& axes, const Params& params);

// Measures the axes' points with measure(axes) (measure_points). No point at all throws a one-line
// Error: `nothing` if given, else one naming the filters.
void measure_axes(ProbeContext& ctx, const std::vector<Axis>& axes,
                  const std::function<nlohmann::json(const nlohmann::json& axes)>& measure,
                  const std::string& nothing = "");

}  // namespace gpuprobe
