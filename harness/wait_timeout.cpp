#include "harness/wait_timeout.hpp"

#include <cstdio>

#include "harness/self_check.hpp"

namespace gpuprobe {

namespace {

const char* kind_name(uint32_t kind) {
  switch (static_cast<cuda::WaitKind>(kind)) {
    case cuda::WaitKind::mbarrier_try_wait_parity: return "mbarrier_try_wait_parity";
    case cuda::WaitKind::mbarrier_test_wait: return "mbarrier_test_wait";
    case cuda::WaitKind::grid_barrier: return "grid_barrier";
    case cuda::WaitKind::generation_flag: return "generation_flag";
  }
  return "unknown";
}

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

bool on_shared_memory(uint32_t kind) {
  return kind == static_cast<uint32_t>(cuda::WaitKind::mbarrier_try_wait_parity) ||
         kind == static_cast<uint32_t>(cuda::WaitKind::mbarrier_test_wait);
}

}  // namespace

nlohmann::json wait_timeout_evidence(const cuda::WaitTimeout& r, const std::string& kernel) {
  nlohmann::json w = {{"kind", kind_name(r.kind)},
                      {"block", {r.block[0], r.block[1], r.block[2]}},
                      {"thread", r.thread},
                      {"sm", r.sm},
                      {"barrier", hex(r.barrier)},
                      {"parity", r.parity},
                      {"iteration", r.iteration},
                      {"expected_bytes", r.expected_bytes},
                      {"observed", hex(r.observed)},
                      {"waited_ns", r.waited_ns}};
  if (!kernel.empty()) w["kernel"] = kernel;
  return {{"wait_timeout", w}};
}

std::string describe_wait_timeout(const cuda::WaitTimeout& r) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f", static_cast<double>(r.waited_ns) * 1e-9);
  std::string text = std::string("a device-side wait timed out after ") + seconds + " s: " +
                     kind_name(r.kind) + " at " + (on_shared_memory(r.kind) ? "shared " : "global ") +
                     hex(r.barrier) + (on_shared_memory(r.kind) ? " parity " : " value ") + std::to_string(r.parity) +
                     ", block (" + std::to_string(r.block[0]) + "," + std::to_string(r.block[1]) + "," +
                     std::to_string(r.block[2]) + ") thread " + std::to_string(r.thread) + " on SM " +
                     std::to_string(r.sm) + ", iteration " + std::to_string(r.iteration);
  if (r.expected_bytes != 0) text += ", expecting " + std::to_string(r.expected_bytes) + " bytes";
  return text + ", state " + hex(r.observed);
}

cuda::WaitTimeout example_wait_timeout() {
  cuda::WaitTimeout r{};
  r.magic = cuda::kWaitTimeoutMagic;
  r.kind = static_cast<uint32_t>(cuda::WaitKind::mbarrier_try_wait_parity);
  r.block[0] = 7;
  r.sm = 12;
  r.barrier = 0x4a0;
  r.parity = 1;
  r.iteration = 17;
  r.expected_bytes = 4096;
  r.observed = 0x7ffff00010000ull;
  r.waited_ns = 1000004096;
  return r;
}

bool wait_timed_out(const nlohmann::json& point) {
  return self_check_failed(point) && point["self_check"].contains("evidence") &&
         point["self_check"]["evidence"].is_object() &&
         point["self_check"]["evidence"].contains("wait_timeout");
}

}  // namespace gpuprobe
