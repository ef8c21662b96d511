#include "analysis/provenance.hpp"

#include <algorithm>

namespace gpuprobe::analysis {

const std::vector<ProbeProvenance>& provenance_table() {
  static const std::vector<ProbeProvenance> table = [] {
    std::vector<ProbeProvenance> t;
    for (const FamilySpec& f : families()) t.insert(t.end(), f.provenance.begin(), f.provenance.end());
    std::sort(t.begin(), t.end(), [](const ProbeProvenance& a, const ProbeProvenance& b) { return a.probe < b.probe; });
    return t;
  }();
  return table;
}

std::vector<std::string> checks_for(const std::string& probe) {
  std::vector<std::string> out;
  for (const auto& p : provenance_table()) {
    if (p.probe != probe) continue;
    for (const auto& name : kCheckNames)
      for (const auto& c : p.checks)
        if (c.check == name && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

}  // namespace gpuprobe::analysis
