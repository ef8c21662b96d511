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

// Registers `backend`'s Ops as Impl(device), Impl's constructor taking the backend's device
// (cuda::CudaDevice&, sim::SimDevice&): `const auto kRegistration = register_ops<LaunchOps,
// SimLaunchOps, sim::SimDevice>("sim", __FILE__);`.
template <class Ops, class Impl, class Backend>
OpsRegistration<Ops> register_ops(std::string backend, std::string where) {
  return OpsRegistration<Ops>(std::move(backend), std::move(where),
                              [](Device& d) { return std::make_unique<Impl>(dynamic_cast<Backend&>(d)); });
}

// The Ops of a family whose one operation is `prepare(setup)` (memory/chase, bandwidth/stream,
// bandwidth/loaded_latency), on a backend whose prepared run is Prepared(device, setup).
// check(device, setup), where given, first throws what the backend cannot do.
namespace detail {
template <class F>
struct PrepareOf;
template <class C, class P, class S>
struct PrepareOf<std::unique_ptr<P> (C::*)(const S&)> {
  using Prepared = P;
  using Setup = S;
};
}  // namespace detail

template <class Ops, class Backend, class Prepared>
class PrepareOps final : public Ops {
  using Sig = detail::PrepareOf<decltype(&Ops::prepare)>;

 public:
  using Setup = typename Sig::Setup;
  using Check = void (*)(Backend& device, const Setup& setup);
  PrepareOps(Backend& device, Check check) : device_(device), check_(check) {}
  std::unique_ptr<typename Sig::Prepared> prepare(const Setup& setup) override {
    if (check_ != nullptr) check_(device_, setup);
    return std::make_unique<Prepared>(device_, setup);
  }

 private:
  Backend& device_;
  Check check_;
};

// Registers `backend`'s PrepareOps: `const auto kRegistration = register_prepare_ops<ChaseOps,
// cuda::CudaDevice, CudaPreparedChase>("cuda", __FILE__);`.
template <class Ops, class Backend, class Prepared>
OpsRegistration<Ops> register_prepare_ops(std::string backend, std::string where,
                                          typename PrepareOps<Ops, Backend, Prepared>::Check check = nullptr) {
  return OpsRegistration<Ops>(std::move(backend), std::move(where), [check](Device& d) {
    return std::make_unique<PrepareOps<Ops, Backend, Prepared>>(dynamic_cast<Backend&>(d), check);
  });
}

}  // namespace gpuprobe
