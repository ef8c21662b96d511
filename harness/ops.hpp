// Where backends register the operations of a probe family, and where Device::ops<Ops>() finds
// them. A family's CUDA implementation (probes/<family>/*_cuda.cpp) and its simulator
// implementation (*_sim.cpp) each hold one static OpsRegistration; an arch-specific unit
// (*.sm90a.cu) registers its own, so code that is not built for this target is never named.
// The probe objects are linked whole into every executable (an OBJECT library in CMakeLists.txt),
// so no registration is dropped by the linker; tests/harness/test_ops.cpp checks that.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <typeindex>
#include <vector>

#include "harness/device.hpp"
#include "harness/error.hpp"

namespace gpuprobe {

// Thrown when a device has no implementation of a family: the probe is skipped with this reason.
class OpsUnavailable : public Error {
 public:
  using Error::Error;
};

using OpsFactory = std::function<std::unique_ptr<FamilyOps>(Device&)>;

struct OpsEntry {
  std::type_index type;
  std::string family;    // Ops::kFamily, for messages and `gpuprobe list --ops`
  std::string backend;   // "cuda" or "sim"
  std::string where;     // the registering source file, for the link test
  OpsFactory make;
};

std::vector<OpsEntry>& ops_registry();

template <class Ops>
struct OpsRegistration {
  OpsRegistration(std::string backend, std::string where,
                  std::function<std::unique_ptr<Ops>(Device&)> make) {
    ops_registry().push_back(OpsEntry{std::type_index(typeid(Ops)), std::string(Ops::kFamily),
                                      std::move(backend), std::move(where),
                                      [make = std::move(make)](Device& d) -> std::unique_ptr<FamilyOps> {
                                        return make(d);
                                      }});
  }
};

}  // namespace gpuprobe
