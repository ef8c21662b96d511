#include "analysis/sync_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/metric_fields.hpp"
#include "analysis/record_fields.hpp"
#include "harness/error.hpp"

namespace gpuprobe::analysis {
namespace {

using json = nlohmann::json;

// The latency sweeps' variables (probes/sync/sync.cuh SyncOpInfo::sweep); the grid's cost grows
// per CTA (one atomic each on one word), the others' per doubling (a barrier's tree).
constexpr const char* kSweeps[] = {"warps_per_block", "cluster_size", "grid_blocks"};

// Least squares of y = a + b f(x) over the points; b = 0 with one point.
std::pair<double, double> fit_line(const std::vector<std::pair<double, double>>& xy, bool log_x) {
  const double n = double(xy.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x0, y] : xy) {
    const double x = log_x ? std::log2(x0) : x0;
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double den = n * sxx - sx * sx;
  const double b = den > 0 ? (n * sxy - sx * sy) / den : 0;
  return {(sy - b * sx) / n, b};
}

// Fills the op's sweep from its points (sorted by x), its fit, and its latency at the smallest x.
void finish_sweep(json& o) {
  json& sweep = o["sweep"];
  json points = sweep["points"];
  std::sort(points.begin(), points.end(),
            [](const json& a, const json& b) { return a["x"].get<double>() < b["x"].get<double>(); });
  sweep["points"] = points;
  std::vector<std::pair<double, double>> xy;
  for (const auto& p : points) xy.emplace_back(p["x"].get<double>(), p["latency_cycles"].get<double>());
  const bool per_unit = sweep["variable"] == "grid_blocks";
  const auto [a, b] = fit_line(xy, !per_unit);
  sweep["fit"] = per_unit ? json{{"model", "latency = a + b x"}, {"a_cycles", a}, {"b_cycles_per_block", b}}
                          : json{{"model", "latency = a + b log2(x)"}, {"a_cycles", a},
                                 {"b_cycles_per_doubling", b}};
  o["latency_cycles"] = points.front()["latency_cycles"];
  o["latency_ns"] = points.front()["latency_ns"];
  o["latency_at"] = {{sweep["variable"].get<std::string>(), points.front()["x"]}};
}

}  // namespace

std::string sync_sass_per_op(const std::string& op, int sm) {
  const std::string errbar = sm >= 90 ? " + ERRBAR + CGAERRBAR + CCTL.IVALL" : " + ERRBAR + CCTL.IVALL";
  if (op == "shfl_idx") return "1 SHFL.IDX";
  if (op == "shfl_up") return "1 SHFL.UP";
  if (op == "shfl_down") return "1 SHFL.DOWN";
  if (op == "shfl_bfly") return "1 SHFL.BFLY";
  if (op == "vote_any") return sm < 80 ? "1 VOTE.ANY + 1 ISETP" : "1 VOTE.ANY (the predicate chain folds into it)";
  if (op == "vote_all")
    return sm < 80 ? "emulated: 1 VOTE.ANY + 1 LOP3 + 1 ISETP" : "1 VOTE.ALL (the predicate chain folds into it)";
  if (op == "vote_ballot") return "1 VOTE.ANY (the ballot) + 1 LOP3 (its predicate)";
  if (op == "match_any") return "1 MATCH.ANY";
  if (op == "match_all") return sm < 80 ? "emulated: 1 MATCH.ANY + 1 LOP3 + 1 ISETP + 1 SEL" : "1 MATCH.ALL";
  if (op == "redux_add") return "1 REDUX.SUM + a move out of its uniform register";
  if (op == "redux_min")
    return sm == 100 || sm == 103 ? "1 CREDUX.MIN + a move" : "1 REDUX.MIN + a move out of its uniform register";
  if (op == "elect") return "1 ELECT + REDUX.OR + R2UR + LOP3 (a register mask) and a retry branch";
  if (op == "bar_warp_sync") return "none: ptxas drops it (a NOP stays)";
  if (op == "bar_sync") return "1 BAR.SYNC";
  if (op == "bar_arrive") return "1 BAR.ARV + 1 BAR.SYNC in each half of the CTA (a round trip)";
  if (op == "bar_red_popc") return "1 BAR.RED.POPC + 1 B2R + 1 LOP3";
  if (op == "barrier_cluster")
    return "MEMBAR.ALL.GPU + ERRBAR + CGAERRBAR + UCGABAR_ARV + UCGABAR_WAIT + CCTL.IVALL + BAR.SYNC";
  if (op == "barrier_cluster_relaxed") return "UCGABAR_ARV + UCGABAR_WAIT + CCTL.IVALL + BAR.SYNC";
  if (op == "dsmem_ld") return "1 LD.E (generic, high half SR_SWINHI) + 2 MOV";
  if (op == "grid_sync")
    return "2 BAR.SYNC + MEMBAR.ALL.GPU + 1 ATOM (warp-aggregated) + an LD.E.STRONG.GPU poll";
  if (op == "mbarrier_test_wait")
    return sm < 90 ? "MEMBAR.ALL.CTA + ATOMS.ARRIVE.64 + an LDS poll"
                   : "SYNCS.ARRIVE.TRANS64.A1T0 + SYNCS.PHASECHK.TRANS64 (retried)";
  if (op == "mbarrier_try_wait") return "SYNCS.ARRIVE.TRANS64.A1T0 + SYNCS.PHASECHK.TRANS64.TRYWAIT (retried)";
  if (op == "membar_cta") return "1 MEMBAR.SC.CTA";
  if (op == "membar_gl") return "MEMBAR.SC.GPU" + errbar;
  if (op == "membar_sys") return "MEMBAR.SC.SYS" + errbar;
  if (op == "fence_acq_rel_gpu" || op == "fence_acq_rel_cluster") return "MEMBAR.ALL.GPU" + errbar;
  if (op == "fence_proxy_async") return "MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S";
  return "unknown";
}

void add_sync_from_run(const json& run, json& sync) {
  const json& device = run.contains("device") ? run["device"] : json::object();
  const int sm = record_sm(device);
  if (!sync.contains("ops")) sync["ops"] = json::object();
  if (!run.contains("series") || !run["series"].is_array())
    throw Error("sync/primitives record has no series");
  const json& series = run["series"];
  std::vector<std::string> swept;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const json& p = series[i];
    const std::string where = "series[" + std::to_string(i) + "]";
    const std::string op = record_text(p, "op", where);
    if (p.contains("skipped")) {
      sync["skipped"][op] = record_skip_reason(p);
      continue;
    }
    const std::string kind = record_text(p, "kind", where);
    json& o = sync["ops"][op];
    o["ptx"] = record_text(p, "ptx", where);
    o["scope"] = record_text(p, "scope", where);
    o["unit"] = record_text(p, "unit", where);
    o["sass_per_op"] = sync_sass_per_op(op, sm);
    if (kind == "latency") {
      const double cycles = record_number(p, "latency_cycles", where);
      const json ns = p.contains("latency_ns") ? p["latency_ns"] : json(nullptr);
      const char* variable = nullptr;
      for (const char* v : kSweeps)
        if (p.contains(v)) variable = v;
      if (variable == nullptr) {
        record_samples(p, kind, o);
        o["latency_cycles"] = cycles;
        o["latency_ns"] = ns;
        continue;
      }
      o["sweep"]["variable"] = variable;
      o["sweep"]["points"].push_back(
          {{"x", record_number(p, variable, where)}, {"latency_cycles", cycles}, {"latency_ns", ns}});
      if (std::find(swept.begin(), swept.end(), op) == swept.end()) swept.push_back(op);
    } else if (kind == "throughput") {
      record_samples(p, kind, o);
      o["ops_per_clk_per_sm"] = record_number(p, "ops_per_clk_per_sm", where);
      o["ops_per_s"] = record_number(p, "ops_per_s", where);
      o["clock_mhz"] = record_number(p, "region_sm_clock_mhz", where);
      if (p.contains("bytes_per_clk_per_sm")) {
        o["bytes_per_clk_per_sm"] = record_number(p, "bytes_per_clk_per_sm", where);
        o["bytes_per_s"] = record_number(p, "bytes_per_s", where);
      }
    } else {
      throw Error(where + ".kind is '" + kind + "', not latency or throughput");
    }
  }
  for (const std::string& op : swept) finish_sweep(sync["ops"][op]);
}

void sync_metrics(const json& model, const MetricSink& add) {
  const json* ops = at(model, {"sync", "ops"});
  if (!ops || !ops->is_object()) return;
  for (auto it = ops->begin(); it != ops->end(); ++it) {
    const json& o = it.value();
    const std::string op = it.key(), id = "sync." + part(op);
    const std::string what = "sync/primitives " + op + " (" + text(&o, "ptx") + ", per " + text(&o, "unit") + ")";
    if (o.contains("latency_cycles"))
      add({id + ".latency_cycles", op + " latency", num(&o, "latency_cycles"), "cycles", "lower", false,
             what + ": median over repeats of the median warp's cycles per op" +
                 (o.contains("latency_at") ? " at its smallest launch " + o["latency_at"].dump() : std::string()),
             "sync/primitives", num(&o, "latency_repeats"), nullptr, clock_of(o.value("latency_clock_mhz", json()))});
    const json clock = clock_of(o.value("clock_mhz", json())), repeats = num(&o, "throughput_repeats");
    if (o.contains("ops_per_s"))
      add({id + ".ops_per_s", op + " throughput", num(&o, "ops_per_s"), "ops/s", "higher", true,
             what + ": median SM's ops per clock x SMs x clock", "sync/primitives", repeats, nullptr, clock});
    if (o.contains("bytes_per_s"))
      add({id + ".bytes_per_s", op + " bandwidth", num(&o, "bytes_per_s"), "bytes/s", "higher", true,
             what + ": 8 bytes per load, median SM x SMs x clock", "sync/primitives", repeats, nullptr, clock});
  }
}

}  // namespace gpuprobe::analysis
