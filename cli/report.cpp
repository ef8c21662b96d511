#include "cli/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace gpuprobe {

std::string format_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double v = bytes;
  while (unit < 4 && std::fabs(v) >= 1024) {
    v /= 1024;
    ++unit;
  }
  char buf[48];
  if (v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f %s", v, kUnits[unit]);
  else std::snprintf(buf, sizeof buf, "%.3g %s", v, kUnits[unit]);
  return buf;
}

void print_probe_params(std::ostream& out, const ProbeSpec& probe) {
  for (const auto& prm : probe.params)
    out << "    --" << prm.name << " (default " << prm.default_value
        << (prm.max > 0 ? ", at most " + std::to_string(prm.max) +
                              (prm.kind == ParamSpec::Kind::list ? " entries" : "")
                        : std::string())
        << "): " << prm.help << "\n";
}

void print_sm_map(std::ostream& out, const nlohmann::json& map) {
  if (map.contains("error")) {
    out << "per-SM L2 map: " << map["error"].get<std::string>() << "\n";
    return;
  }
  char buf[240];
  for (const char* key : {"l2", "l2_far"}) {
    if (!map.contains(key) || map[key].is_null()) continue;
    const auto& s = map[key];
    std::snprintf(buf, sizeof buf,
                  "per-SM %-6s %7.1f to %7.1f cycles (median %.1f, spread %.1f) over %zu SMs\n",
                  std::string(key) == "l2" ? "L2" : "L2-far", s["min_cycles"].get<double>(),
                  s["max_cycles"].get<double>(), s["median_cycles"].get<double>(),
                  s["spread_cycles"].get<double>(), map["sms"].size());
    out << buf;
  }
  if (map.contains("fastest_sm"))
    out << "  fastest SM " << map["fastest_sm"] << ", slowest SM " << map["slowest_sm"] << "\n";
}

void print_levels(std::ostream& out, const nlohmann::json& model) {
  const auto& mem = model["memory"];
  if (!mem.contains("levels")) {
    // Chase records whose fit failed say why; with no chase record there is nothing to say.
    if (mem.contains("paths"))
      for (const auto& [op, path] : mem["paths"].items())
        if (path.contains("error"))
          out << "memory hierarchy (cache-op " << op << "): " << path["error"].get<std::string>() << "\n";
    return;
  }
  out << "memory hierarchy (" << mem.value("levels_from", "") << "):\n";
  if (mem.contains("paths") && mem["paths"].contains("imported")) {
    const auto& curve = mem["paths"]["imported"].value("curve", nlohmann::json::object());
    if (curve.contains("binned") && curve["binned"].is_object())
      out << "  fitted from " << curve["binned"].value("points", 0) << " bins (the median of each) of "
          << curve.value("input_points", 0) << " rows\n";
  }
  for (const auto& l : mem["levels"]) {
    char ns[32] = "ns unknown";  // latency_ns is null when no clock is known
    if (l.contains("latency_ns") && l["latency_ns"].is_number())
      std::snprintf(ns, sizeof ns, "%8.1f ns", l["latency_ns"].get<double>());
    char buf[200];
    if (l["capacity_bytes"].is_null())
      std::snprintf(buf, sizeof buf, "  %-7s %8.1f cycles %11s   capacity beyond the sweep   confidence %.2f\n",
                    l["name"].get<std::string>().c_str(), l["latency_cycles"].get<double>(), ns,
                    l["confidence"].get<double>());
    else
      std::snprintf(buf, sizeof buf, "  %-7s %8.1f cycles %11s   capacity %10s   confidence %.2f\n",
                    l["name"].get<std::string>().c_str(), l["latency_cycles"].get<double>(), ns,
                    format_bytes(l["capacity_bytes"].get<double>()).c_str(),
                    l["confidence"].get<double>());
    out << buf;
  }
  if (mem.contains("far_l2")) out << "  far L2: " << mem["far_l2"].value("reason", "") << "\n";
  if (mem.contains("rejected"))
    for (const auto& r : mem["rejected"]) out << "  not a level: " << r.value("reason", "") << "\n";
}

namespace {

// " 16.7 ns" when the model knows the clock, else "".
std::string ns_suffix(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number() || !(j[key].get<double>() > 0)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, " %.1f ns", j[key].get<double>());
  return buf;
}

}  // namespace

void print_shared(std::ostream& out, const nlohmann::json& shared) {
  if (shared.contains("error")) {
    out << "shared memory: " << shared["error"].get<std::string>() << "\n";
    return;
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "shared memory: %.1f cycles%s (p50 %.1f, p95 %.1f cycles over %d points)\n",
                shared.value("latency_cycles", NAN), ns_suffix(shared, "latency_ns").c_str(),
                shared.value("p50_cycles", NAN), shared.value("p95_cycles", NAN),
                shared.value("points", 0));
  out << buf;
}

void print_line_sector(std::ostream& out, const nlohmann::json& ls) {
  if (ls.contains("error")) {
    out << "cache line and sector: " << ls["error"].get<std::string>() << "\n";
    return;
  }
  char buf[120];
  std::snprintf(buf, sizeof buf, "cache line %s, sector %s (confidence %.2f)\n",
                format_bytes(ls.value("line_bytes", 0.0)).c_str(),
                format_bytes(ls.value("sector_bytes", 0.0)).c_str(), ls.value("confidence", 0.0));
  out << buf;
  if (!ls.value("note", "").empty()) out << "  " << ls["note"].get<std::string>() << "\n";
}

void print_tlb(std::ostream& out, const nlohmann::json& tlb) {
  if (tlb.contains("error")) {
    out << "TLB: " << tlb["error"].get<std::string>() << "\n";
    return;
  }
  char buf[240];
  std::snprintf(buf, sizeof buf, "TLB (%s pages): %.1f cycles with every translation hitting\n",
                format_bytes(tlb.value("page_bytes", 0.0)).c_str(),
                tlb.value("base_latency_cycles", NAN));
  out << buf;
  for (const auto& l : tlb.value("levels", nlohmann::json::array())) {
    const auto interval = l.value("reach_interval_bytes", nlohmann::json::array());
    std::string within;
    if (interval.size() == 2)
      within = " (" + format_bytes(interval[0].get<double>()) + " to " +
               format_bytes(interval[1].get<double>()) + ")";
    std::snprintf(buf, sizeof buf, "  %-5s reach %s%s, miss cost %.1f cycles, confidence %.2f\n",
                  l.value("name", "TLB").c_str(), format_bytes(l.value("reach_bytes", 0.0)).c_str(),
                  within.c_str(), l.value("miss_cost_cycles", NAN), l.value("confidence", 0.0));
    out << buf;
  }
  if (!tlb.value("note", "").empty()) out << "  " << tlb["note"].get<std::string>() << "\n";
}

namespace {

// Bandwidth in decimal units, as datasheets give it: "1.84 TB/s", "912 GB/s" (GB = 10^9 bytes).
std::string format_bandwidth(double bytes_per_s) {
  char buf[32];
  if (!(bytes_per_s > 0)) return "?";
  if (bytes_per_s >= 1e12) std::snprintf(buf, sizeof buf, "%.2f TB/s", bytes_per_s / 1e12);
  else std::snprintf(buf, sizeof buf, "%.0f GB/s", bytes_per_s / 1e9);
  return buf;
}

void print_concurrency(std::ostream& out, const char* label, const nlohmann::json& c) {
  if (c.contains("error")) {
    out << "  " << label << ": " << c["error"].get<std::string>() << "\n";
    return;
  }
  // Null without an SM count or clock (an imported curve given neither).
  char per_clk[48] = "B/clk/SM unknown";
  if (c.contains("peak_bytes_per_clk_per_sm") && c["peak_bytes_per_clk_per_sm"].is_number())
    std::snprintf(per_clk, sizeof per_clk, "%.1f B/clk/SM", c["peak_bytes_per_clk_per_sm"].get<double>());
  char buf[240];
  std::snprintf(buf, sizeof buf,
                "  %-13s peak %s (%s, %s), 90%% of it from %s in flight per SM, "
                "confidence %.2f\n",
                label, format_bandwidth(c.value("peak_bytes_per_s", 0.0)).c_str(), per_clk,
                c.value("peak_from", "").c_str(),
                format_bytes(c.value("bytes_in_flight_per_sm_for_90pct", 0.0)).c_str(),
                c.value("confidence", 0.0));
  out << buf;
  if (c.value("still_rising", false)) out << "    still rising at the largest concurrency: the peak is a lower bound\n";
}

}  // namespace

void print_bandwidth(std::ostream& out, const nlohmann::json& bandwidth) {
  out << "bandwidth (GB = 10^9 bytes; sizes in KiB = 1024 bytes):\n";
  // "imported": a curve read by analyze --import-csv, in the same shape (docs/SCHEMA.md).
  for (const char* level : {"L1", "shared", "L2", "DRAM", "imported"}) {
    if (!bandwidth.contains(level)) continue;
    const auto& l = bandwidth[level];
    if (l.contains("error")) {
      out << "  " << level << ": " << l["error"].get<std::string>() << "\n";
      continue;
    }
    if (l.contains("concurrency")) print_concurrency(out, level, l["concurrency"]);
    else if (!l.contains("read")) out << "  " << level << "\n";
    for (const char* kind : {"read", "write", "copy"}) {
      if (!l.contains(kind)) continue;
      const auto& k = l[kind];
      const std::string label = std::string(level) + " " + kind;
      if (k.contains("concurrency")) print_concurrency(out, label.c_str(), k["concurrency"]);
      if (k.contains("percent_of_datasheet") && l.contains("datasheet")) {
        char buf[200];
        const double top = k.contains("concurrency")
                               ? k["concurrency"].value("measured_top_bytes_per_s", 0.0)
                               : 0.0;
        std::snprintf(buf, sizeof buf, "    measured top %s = %.1f%% of the %s datasheet's %s\n",
                      format_bandwidth(top).c_str(), k["percent_of_datasheet"].get<double>(),
                      l["datasheet"].value("gpu", "").c_str(),
                      format_bandwidth(l["datasheet"].value("bytes_per_s", 0.0)).c_str());
        out << buf;
      }
    }
    if (l.contains("loaded_latency") && l["loaded_latency"].is_object()) {
      const auto& ll = l["loaded_latency"];
      char buf[240];
      if (ll.contains("error"))
        std::snprintf(buf, sizeof buf, "    loaded latency: %s\n", ll["error"].get<std::string>().c_str());
      else
        std::snprintf(buf, sizeof buf,
                      "    loaded latency (%s): %.1f ns unloaded + %.1f ns x B / (%s - B), "
                      "confidence %.2f\n",
                      ll.value("source", "?").c_str(), ll.value("unloaded_latency_ns", NAN),
                      ll.value("queue_ns", NAN),
                      format_bandwidth(ll.value("peak_bandwidth_bytes_per_s", 0.0)).c_str(),
                      ll.value("confidence", 0.0));
      out << buf;
    }
    if (l.contains("footprint_sweep") && l["footprint_sweep"].contains("levels")) {
      for (const auto& f : l["footprint_sweep"]["levels"]) {
        const std::string ends = f.contains("ends_at_bytes") && f["ends_at_bytes"].is_number()
                                     ? "up to " + format_bytes(f["ends_at_bytes"].get<double>())
                                     : std::string("to the end of the sweep");
        out << "    footprint plateau " << f.value("name", "?") << ": "
            << format_bandwidth(f.value("bandwidth_bytes_per_s", 0.0)) << " " << ends << "\n";
      }
    }
    if (l.contains("bank_conflicts") && l["bank_conflicts"].contains("strides")) {
      out << "    bank conflicts (" << l["bank_conflicts"].value("word_bytes", 0)
          << "-byte words), slowdown by stride:";
      for (const auto& st : l["bank_conflicts"]["strides"]) {
        char buf[48];
        std::snprintf(buf, sizeof buf, " %u: %.1fx", st.value("stride_elems", 0u),
                      st.value("slowdown", NAN));
        out << buf;
      }
      out << "\n";
    }
  }
}

// compute.imported: the roofline fit of an intensity sweep (analysis/roofline_fit.hpp).
void print_imported_compute(std::ostream& out, const nlohmann::json& im) {
  const auto num = [&](const char* key) { return im.contains(key) && im[key].is_number() ? im[key].get<double>() : NAN; };
  char buf[320];
  out << "compute ceilings from an intensity sweep (" << im.value("file", "?") << "):\n";
  const double bw = num("bandwidth_bytes_per_s"), flops = num("flops_per_s");
  std::snprintf(buf, sizeof buf, "  bandwidth    %s\n",
                std::isnan(bw) ? "not reached (the sweep never was memory-bound)" : (format_bandwidth(bw)).c_str());
  out << buf;
  if (std::isnan(flops)) {
    out << "  compute      not reached (the sweep never was compute-bound)\n";
  } else {
    std::string clk;
    if (im.contains("clock_mhz") && im["clock_mhz"].is_object()) {
      std::snprintf(buf, sizeof buf, " at %.0f MHz (%.0f FLOP/clk", im["clock_mhz"].value("stated", 0.0),
                    num("flops_per_clk"));
      clk = buf;
      if (!std::isnan(num("flops_per_clk_per_sm"))) {
        std::snprintf(buf, sizeof buf, ", %.1f per SM", num("flops_per_clk_per_sm"));
        clk += buf;
      }
      clk += ")";
    }
    std::snprintf(buf, sizeof buf, "  compute      %.2f TFLOP/s%s\n", flops / 1e12, clk.c_str());
    out << buf;
  }
  if (!std::isnan(num("ridge_flop_per_byte"))) {
    std::snprintf(buf, sizeof buf, "  ridge        %.1f FLOP/B  (confidence %.2f)\n", num("ridge_flop_per_byte"),
                  num("confidence"));
    out << buf;
  }
  for (const auto& n : im.value("notes", nlohmann::json::array()))
    if (n.is_string()) out << "  note: " << n.get<std::string>() << "\n";
}

// One tensor-core form of the compute section: path and precisions, latency, FLOP/clk/SM and
// TFLOP/s with random operands (zeros in brackets), then % of the dense peak or "emulated".
std::string tensor_op_kind(const nlohmann::json& op) {
  return op.value("path", "?") + " " + op.value("precision", "?") + "->" + op.value("accumulate", "?");
}

// Columns line up over the whole section: `name_width` and `kind_width` are the longest op name
// and tensor_op_kind of the section (block-scaled names such as mma_m16n8k32_mxf8f6f4_e3m2_f32
// are longer than the fixed columns).
void print_tensor_op(std::ostream& out, const std::string& name, const nlohmann::json& op,
                     int name_width, int kind_width) {
  const nlohmann::json zeros = op.value("zeros", nlohmann::json::object());
  char buf[400];
  std::snprintf(buf, sizeof buf, "  %-*s %-*s %6.1f cycles  %7.0f FLOP/clk/SM  %7.1f TFLOP/s (zeros %.1f)",
                name_width, name.c_str(), kind_width, tensor_op_kind(op).c_str(), op.value("latency_cycles", NAN),
                op.value("flops_per_clk_per_sm", NAN), op.value("flops_per_s", NAN) / 1e12,
                zeros.value("flops_per_s", NAN) / 1e12);
  out << buf;
  const std::string impl = op.value("implementation", "native");
  if (impl != "native") {
    out << "  " << impl;
  } else if (op.contains("percent_of_peak") && op["percent_of_peak"].is_number() && op.contains("peak")) {
    std::snprintf(buf, sizeof buf, "  %.1f%% of %s's %.0f TFLOP/s %s", op["percent_of_peak"].get<double>(),
                  op["peak"].value("gpu", "?").c_str(), op["peak"].value("flops_per_s", 0.0) / 1e12,
                  op.value("precision", "?").c_str());
    out << buf;
  }
  out << "\n";
}

void print_compute(std::ostream& out, const nlohmann::json& compute) {
  if (compute.contains("imported") && compute["imported"].is_object()) print_imported_compute(out, compute["imported"]);
  const nlohmann::json ops = compute.value("ops", nlohmann::json::object());
  const nlohmann::json skipped = compute.value("skipped", nlohmann::json::object());
  if (ops.empty() && skipped.empty() && compute.contains("imported")) return;
  out << "compute (latency of one dependent chain; rate over all SMs at the measured clock):\n";
  int name_width = 22, kind_width = 0;
  for (const auto& [name, op] : ops.items()) {
    if (!op.is_object()) continue;
    name_width = std::max(name_width, static_cast<int>(name.size()));
    if (op.contains("accumulate"))
      kind_width = std::max(kind_width, static_cast<int>(tensor_op_kind(op).size()));
  }
  for (const auto& [name, op] : ops.items()) {
    if (!op.is_object()) continue;
    if (op.contains("accumulate")) {  // a tensor-core form (tensor/mma): FLOP rates
      print_tensor_op(out, name, op, name_width, kind_width);
      continue;
    }
    char buf[320];
    std::snprintf(buf, sizeof buf, "  %-*s %6.1f cycles  %7.1f ops/clk/SM  %8.3g ops/s%s", name_width, name.c_str(),
                  op.value("latency_cycles", NAN), op.value("ops_per_clk_per_sm", NAN),
                  op.value("ops_per_s", NAN),
                  op.value("implementation", "native") == "native" ? "" : "  (emulated)");
    out << buf;
    if (op.contains("percent_of_peak") && op["percent_of_peak"].is_number() && op.contains("peak")) {
      std::snprintf(buf, sizeof buf, "  %.1f%% of %s's %.1f TFLOP/s",
                    op["percent_of_peak"].get<double>(), op["peak"].value("gpu", "?").c_str(),
                    op["peak"].value("flops_per_s", 0.0) / 1e12);
      out << buf;
    }
    out << "\n";
  }
  for (const auto& [name, why] : skipped.items())
    out << "  " << name << ": not measured: " << (why.is_string() ? why.get<std::string>() : why.dump())
        << "\n";
}

// atomics (analysis/atomics_model.hpp): per op and address pattern its latency and rate, and what
// ptxas made of the op.
void print_atomics(std::ostream& out, const nlohmann::json& section) {
  const nlohmann::json ops = section.value("ops", nlohmann::json::object());
  const nlohmann::json skipped = section.value("skipped", nlohmann::json::object());
  out << "atomics (latency of one dependent op of one chain, ns at the measured clock; rate in "
         "thread-level atomics per clock per SM):\n";
  for (const auto& [name, op] : ops.items()) {
    if (!op.is_object() || !op.contains("patterns") || !op["patterns"].is_object()) continue;
    const std::string lowering = op.value("lowering", "");
    // red returns nothing: its patterns have no latency (docs/SCHEMA.md), which is said, not NaN.
    const bool red = op.value("ptx", "").rfind("red.", 0) == 0;
    for (const auto& [pattern, at] : op["patterns"].items()) {
      if (!at.is_object()) continue;
      const nlohmann::json ns = at.value("latency_ns", nlohmann::json());
      char latency[64];
      if (at.contains("latency_cycles") && at["latency_cycles"].is_number())
        std::snprintf(latency, sizeof latency, "%7.1f cycles %8.1f ns", at["latency_cycles"].get<double>(),
                      ns.is_number() ? ns.get<double>() : NAN);
      else
        std::snprintf(latency, sizeof latency, "%s", red ? "none: red returns nothing" : "latency not measured");
      char buf[320];
      std::snprintf(buf, sizeof buf, "  %-24s %-9s %-26s  %8.3f /clk/SM  [%s]", name.c_str(), pattern.c_str(),
                    latency, at.value("ops_per_clk_per_sm", NAN), lowering.c_str());
      out << buf << "\n";
    }
  }
  for (const auto& [name, why] : skipped.items())
    out << "  " << name << ": not measured: " << (why.is_string() ? why.get<std::string>() : why.dump())
        << "\n";
}

void print_sync(std::ostream& out, const nlohmann::json& sync) {
  const nlohmann::json ops = sync.value("ops", nlohmann::json::object());
  const nlohmann::json skipped = sync.value("skipped", nlohmann::json::object());
  out << "sync (latency of one dependent op at the smallest launch, ns at the measured clock; rate "
         "per SM in the op's unit):\n";
  for (const auto& [name, op] : ops.items()) {
    if (!op.is_object()) continue;
    const nlohmann::json ns = op.value("latency_ns", nlohmann::json());
    char buf[320];
    std::snprintf(buf, sizeof buf, "  %-24s %7.1f cycles %8.1f ns", name.c_str(),
                  op.value("latency_cycles", NAN), ns.is_number() ? ns.get<double>() : NAN);
    out << buf;
    if (op.contains("ops_per_clk_per_sm")) {
      std::snprintf(buf, sizeof buf, "  %7.3f %s/clk/SM", op.value("ops_per_clk_per_sm", NAN),
                    op.value("unit", "op").c_str());
      out << buf;
    }
    if (op.contains("sweep") && op["sweep"].contains("points") && !op["sweep"]["points"].empty()) {
      const nlohmann::json points = op["sweep"]["points"];
      const nlohmann::json& last = points.back();
      std::snprintf(buf, sizeof buf, "  (%s %g..%g: to %.1f cycles)",
                    op["sweep"].value("variable", "x").c_str(), points.front().value("x", NAN),
                    last.value("x", NAN), last.value("latency_cycles", NAN));
      out << buf;
    }
    if (op.contains("bytes_per_s") && op["bytes_per_s"].is_number())
      out << "  " << format_bandwidth(op["bytes_per_s"].get<double>());
    out << "\n";
  }
  for (const auto& [name, why] : skipped.items())
    out << "  " << name << ": not measured: " << (why.is_string() ? why.get<std::string>() : why.dump())
        << "\n";
}

// launch (analysis/launch_model.hpp): measured costs in us, the fits with their intervals.
// async_copy (analysis/async_model.hpp): per op one copy's latency, the bandwidth fit's peak and
// the bytes in flight per SM that reach 90% of it; the TMA chase's levels.
void print_async_copy(std::ostream& out, const nlohmann::json& section) {
  const nlohmann::json ops = section.value("ops", nlohmann::json::object());
  out << "async copies (latency of one copy from the L2, ns at the measured clock; bandwidth "
         "against bytes in flight per SM):\n";
  char buf[400];
  for (const auto& [name, op] : ops.items()) {
    if (!op.is_object()) continue;
    const nlohmann::json lat = op.value("latency", nlohmann::json::object());
    const nlohmann::json ns = lat.value("latency_ns", nlohmann::json());
    if (lat.contains("latency_cycles")) {
      std::snprintf(buf, sizeof buf, "  %-15s %7.1f cycles %8.1f ns for %5.0f B", name.c_str(),
                    lat.value("latency_cycles", NAN), ns.is_number() ? ns.get<double>() : NAN,
                    lat.value("copy_bytes", NAN));
    } else {
      std::snprintf(buf, sizeof buf, "  %-15s", name.c_str());
    }
    out << buf;
    if (lat.contains("fit")) {
      std::snprintf(buf, sizeof buf, "  (+%.1f cycles/KiB)", lat["fit"].value("b_cycles_per_kib", NAN));
      out << buf;
    }
    const nlohmann::json fit = op.value("throughput", nlohmann::json::object()).value("fit", nlohmann::json::object());
    if (fit.contains("peak_bytes_per_s") && fit["peak_bytes_per_s"].is_number()) {
      const nlohmann::json in_flight = fit.value("bytes_in_flight_per_sm_for_90pct", nlohmann::json());
      std::snprintf(buf, sizeof buf, "  peak %s, 90%% at %.0f KiB in flight/SM (confidence %.2f)",
                    format_bandwidth(fit["peak_bytes_per_s"].get<double>()).c_str(),
                    in_flight.is_number() ? in_flight.get<double>() / 1024 : NAN, fit.value("confidence", 0.0));
      out << buf;
    } else if (fit.contains("error")) {
      out << "  no bandwidth fit: " << fit["error"].get<std::string>();
    }
    if (op.value("synchronous", false)) out << "  [ld+st]";
    const nlohmann::json mc = op.value("multicast", nlohmann::json::object()).value("points", nlohmann::json::array());
    if (!mc.empty()) {
      std::snprintf(buf, sizeof buf, "  multicast to clusters of %g..%g: %.0f..%.0f cycles per round",
                    mc.front().value("cluster_size", NAN), mc.back().value("cluster_size", NAN),
                    mc.front().value("latency_cycles", NAN), mc.back().value("latency_cycles", NAN));
      out << buf;
    }
    out << "\n";
  }
  if (section.contains("tma_chase")) {
    const nlohmann::json& c = section["tma_chase"];
    if (c.contains("error")) {
      out << "  TMA chase: no fit: " << c["error"].get<std::string>() << "\n";
    } else {
      out << "  TMA chase levels:";
      const nlohmann::json levels = c.value("levels", nlohmann::json::array());
      for (const auto& l : levels) {
        std::snprintf(buf, sizeof buf, " %s %.0f cycles", l.value("name", "?").c_str(), l.value("latency_cycles", NAN));
        out << buf;
      }
      out << "\n";
    }
  }
  const nlohmann::json skipped = section.value("skipped", nlohmann::json::object());
  for (const auto& [name, why] : skipped.items())
    out << "  " << name << ": not measured: " << (why.is_string() ? why.get<std::string>() : why.dump()) << "\n";
  const nlohmann::json errors = section.value("errors", nlohmann::json::object());
  for (const auto& [probe, why] : errors.items())
    out << "  " << probe << ": no result: " << (why.is_string() ? why.get<std::string>() : why.dump()) << "\n";
}

// launch (analysis/launch_model.hpp): measured costs in us, the fits with their intervals.
void print_launch(std::ostream& out, const nlohmann::json& launch) {
  char buf[320];
  const auto us = [](const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() / 1000.0 : NAN;
  };
  out << "launch (us; 95% intervals in brackets):\n";
  const nlohmann::json overhead = launch.value("overhead", nlohmann::json::object());
  for (const auto& [name, m] : overhead.items()) {
    if (!m.is_object()) continue;
    std::snprintf(buf, sizeof buf, "  %-16s %8.2f\n", name.c_str(), us(m, "ns"));
    out << buf;
  }
  const nlohmann::json graph = launch.value("graph", nlohmann::json::object());
  for (const auto& [name, f] : graph.items()) {
    if (!f.is_object()) continue;
    if (f.contains("error")) {
      out << "  graph " << name << ": no fit: " << f["error"].get<std::string>() << "\n";
    } else if (f.contains("per_node_ns")) {
      std::snprintf(buf, sizeof buf, "  graph %-10s %8.2f per graph + %.3f per node  (confidence %.2f)\n",
                    name.c_str(), us(f, "per_graph_ns"), us(f, "per_node_ns"), f.value("confidence", 0.0));
      out << buf;
    } else {
      std::snprintf(buf, sizeof buf, "  graph %-10s %8.2f\n", name.c_str(), us(f, "ns"));
      out << buf;
    }
  }
  const nlohmann::json small = launch.value("small_kernels", nlohmann::json::object());
  if (!small.empty()) out << "  small kernels, T = a + V/b:\n";
  for (const auto& [method, f] : small.items()) {
    if (!f.is_object()) continue;
    if (f.contains("error")) {
      out << "    " << method << ": no fit: " << f["error"].get<std::string>() << "\n";
      continue;
    }
    const auto ci = f.value("ci95_overhead_ns", nlohmann::json::array());
    const double lo = ci.size() == 2 && ci[0].is_number() ? ci[0].get<double>() / 1000 : NAN;
    const double hi = ci.size() == 2 && ci[1].is_number() ? ci[1].get<double>() / 1000 : NAN;
    const std::string b = f.contains("bytes_per_s") && f["bytes_per_s"].is_number()
                              ? format_bandwidth(f["bytes_per_s"].get<double>())
                              : std::string("unresolved");
    std::snprintf(buf, sizeof buf, "    %-8s a %.2f [%.2f, %.2f]  b %s  (%zu points, confidence %.2f)\n",
                  method.c_str(), us(f, "overhead_ns"), lo, hi, b.c_str(), f.value("points", std::size_t{0}),
                  f.value("confidence", 0.0));
    out << buf;
  }
  const nlohmann::json skipped = launch.value("skipped", nlohmann::json::object());
  for (const auto& [name, why] : skipped.items())
    out << "  " << name << ": not measured: " << (why.is_string() ? why.get<std::string>() : why.dump()) << "\n";
  const nlohmann::json errors = launch.value("errors", nlohmann::json::object());
  for (const auto& [probe, why] : errors.items())
    out << "  " << probe << ": no result: " << (why.is_string() ? why.get<std::string>() : why.dump()) << "\n";
}

void print_model(std::ostream& out, const nlohmann::json& model) {
  const nlohmann::json mem = model.value("memory", nlohmann::json::object());
  std::size_t printed = 0;
  if (mem.contains("sm_map")) print_sm_map(out, mem["sm_map"]), ++printed;
  if (mem.contains("levels") || mem.contains("paths")) print_levels(out, model), ++printed;
  if (mem.contains("shared")) print_shared(out, mem["shared"]), ++printed;
  if (mem.contains("line_sector")) print_line_sector(out, mem["line_sector"]), ++printed;
  if (mem.contains("tlb")) print_tlb(out, mem["tlb"]), ++printed;
  if (model.contains("bandwidth") && !model["bandwidth"].empty())
    print_bandwidth(out, model["bandwidth"]), ++printed;
  if (model.contains("compute") && model["compute"].is_object())
    print_compute(out, model["compute"]), ++printed;
  if (model.contains("sync") && model["sync"].is_object()) print_sync(out, model["sync"]), ++printed;
  if (model.contains("atomics") && model["atomics"].is_object())
    print_atomics(out, model["atomics"]), ++printed;
  if (model.contains("async_copy") && model["async_copy"].is_object())
    print_async_copy(out, model["async_copy"]), ++printed;
  if (model.contains("launch") && model["launch"].is_object()) print_launch(out, model["launch"]), ++printed;
  if (printed == 0) out << "the model holds no result: no run record measured anything\n";
}

}  // namespace gpuprobe
