#include "cli/report.hpp"

#include <cstdio>
#include <string>

namespace gpuprobe {

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
  if (mem.contains("sm_map")) print_sm_map(out, mem["sm_map"]);
  if (!mem.contains("levels")) {
    if (mem.contains("sm_map")) return;
    out << "no memory hierarchy could be fitted\n";
    return;
  }
  out << "memory hierarchy (" << mem.value("levels_from", "") << "):\n";
  for (const auto& l : mem["levels"]) {
    char buf[200];
    if (l["capacity_bytes"].is_null())
      std::snprintf(buf, sizeof buf, "  %-7s %8.1f cycles %8.1f ns   capacity beyond the sweep   confidence %.2f\n",
                    l["name"].get<std::string>().c_str(), l["latency_cycles"].get<double>(),
                    l["latency_ns"].get<double>(), l["confidence"].get<double>());
    else
      std::snprintf(buf, sizeof buf, "  %-7s %8.1f cycles %8.1f ns   capacity %10.0f B   confidence %.2f\n",
                    l["name"].get<std::string>().c_str(), l["latency_cycles"].get<double>(),
                    l["latency_ns"].get<double>(), l["capacity_bytes"].get<double>(),
                    l["confidence"].get<double>());
    out << buf;
  }
  if (mem.contains("far_l2")) out << "  far L2: " << mem["far_l2"].value("reason", "") << "\n";
}

}  // namespace gpuprobe
