#include "harness/family.hpp"

#include <algorithm>

#include "harness/error.hpp"

namespace gpuprobe {
namespace {

// The registrations, made before main() (their order is the linker's); sorted on first use.
std::vector<FamilySpec (*)()>& makers() {
  static std::vector<FamilySpec (*)()> all;
  return all;
}

}  // namespace

FamilyRegistration::FamilyRegistration(FamilySpec (*make)()) { makers().push_back(make); }

const std::vector<FamilySpec>& families() {
  static const std::vector<FamilySpec> all = [] {
    std::vector<FamilySpec> out;
    for (auto make : makers()) {
      FamilySpec f = make();
      for (const FamilySpec& other : out)
        if (other.name == f.name) throw Error("probe family '" + f.name + "' is registered twice");
      out.push_back(std::move(f));
    }
    std::stable_sort(out.begin(), out.end(), [](const FamilySpec& a, const FamilySpec& b) {
      return a.order != b.order ? a.order < b.order : a.name < b.name;
    });
    return out;
  }();
  return all;
}

const FamilySpec* find_family(const std::string& name) {
  for (const FamilySpec& f : families())
    if (f.name == name) return &f;
  return nullptr;
}

const FamilySpec* family_of_probe(const std::string& probe) {
  const auto slash = probe.find('/');
  return slash == std::string::npos ? nullptr : find_family(probe.substr(0, slash));
}

}  // namespace gpuprobe
