#include "harness/axes.hpp"

#include "harness/error.hpp"
#include "harness/points.hpp"

namespace gpuprobe {
namespace {

std::string text_of(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

void expand(const std::vector<Axis>& axes, std::size_t i, const Params& params, const nlohmann::json& so_far,
            std::vector<nlohmann::json>& out) {
  if (i == axes.size()) {
    out.push_back(so_far);
    return;
  }
  const Axis& axis = axes[i];
  const std::string* keep = axis.filter.empty() ? nullptr : &params.get_text(axis.filter);
  for (const nlohmann::json& v : axis.values(so_far)) {
    if (keep && *keep != axis.all && *keep != text_of(v)) continue;
    nlohmann::json next = so_far;
    if (axis.name.empty()) {
      for (const auto& [k, x] : v.items()) next[k] = x;
    } else {
      next[axis.name] = v;
    }
    expand(axes, i + 1, params, next, out);
  }
}

}  // namespace

Axis fixed_axis(std::string name, std::vector<std::string> values, std::string all) {
  Axis a;
  a.filter = name;
  a.name = std::move(name);
  a.all = std::move(all);
  a.values = [values = std::move(values)](const nlohmann::json&) {
    return std::vector<nlohmann::json>(values.begin(), values.end());
  };
  return a;
}

std::vector<nlohmann::json> enumerate_axes(const std::vector<Axis>& axes, const Params& params) {
  std::vector<nlohmann::json> out;
  expand(axes, 0, params, nlohmann::json::object(), out);
  return out;
}

void measure_axes(ProbeContext& ctx, const std::vector<Axis>& axes,
                  const std::function<nlohmann::json(const nlohmann::json& axes)>& measure,
                  const std::string& nothing) {
  std::vector<PlannedPoint> points;
  for (nlohmann::json& a : enumerate_axes(axes, ctx.params()))
    points.push_back({a, [&measure, a] { return measure(a); }});
  if (points.empty()) {
    if (!nothing.empty()) throw Error(nothing);
    std::string filters;
    for (const Axis& axis : axes)
      if (!axis.filter.empty()) filters += " --" + axis.filter + " " + ctx.params().get_text(axis.filter);
    throw Error(filters.substr(filters.empty() ? 0 : 1) + " measures nothing");
  }
  measure_points(ctx, points);
}

}  // namespace gpuprobe
