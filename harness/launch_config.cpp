#include "harness/launch_config.hpp"

namespace gpuprobe {

nlohmann::json to_json(const Dim3& d) { return {d.x, d.y, d.z}; }

nlohmann::json to_json(const LaunchConfig& c) {
  nlohmann::json j = {{"grid", to_json(c.grid)},
                      {"block", to_json(c.block)},
                      {"dynamic_smem_bytes", c.dynamic_smem_bytes},
                      {"l1_carveout_percent", c.l1_carveout_percent},
                      {"cooperative", c.cooperative},
                      {"programmatic_dependent_launch", c.programmatic_dependent_launch},
                      {"pinned_sm", c.pinned_sm == kAnySm ? nlohmann::json(nullptr)
                                                           : nlohmann::json(c.pinned_sm)}};
  j["cluster"] = c.cluster.x == 0 ? nlohmann::json(nullptr) : to_json(c.cluster);
  return j;
}

nlohmann::json to_json(const LaunchRecord& r) {
  nlohmann::json j = to_json(r.config);
  j["kernel"] = r.kernel;
  j["registers_per_thread"] =
      r.registers_per_thread < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.registers_per_thread);
  j["local_bytes_per_thread"] = r.local_bytes_per_thread;
  j["static_smem_bytes"] = r.static_smem_bytes;
  j["smid"] = r.smid < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.smid);
  return j;
}

}  // namespace gpuprobe
