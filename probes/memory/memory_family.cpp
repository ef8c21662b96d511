// The memory family (harness/family.hpp): the pointer chases through the hierarchy, shared memory,
// line and sector, the TLB; its model section and metrics are analysis/memory_model.cpp's.
#include "analysis/memory_model.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/plan.hpp"

namespace gpuprobe::probes {
namespace {

using namespace plan;

bool from_l1(const Params& p) {
  const std::string& op = p.get_text("cache-op");
  return op != "cg" && op != "cv";
}

double estimate(const std::string& probe, const Params& p) {
  // The parameter `name`, or the H100's `h100` where it is 0.
  auto or_h100 = [&](const char* name, uint64_t h100) {
    return p.get_u64(name) != 0 ? p.get_u64(name) : h100;
  };
  if (probe == "memory/tlb") {
    // One hop per page (slots = span / page), each missing the caches (DRAM latency at worst).
    const uint64_t page = p.get_u64("page-bytes");
    return chase_sweep_seconds(p, page, or_h100("max-span-bytes", kFreeBytes / 100 * 85), page, false,
                               kDramCycles);
  }
  const uint64_t min_bytes = p.get_u64("min-footprint-bytes");
  if (probe == "memory/chase")
    return chase_sweep_seconds(p, min_bytes, or_h100("max-footprint-bytes", 4 * kL2Bytes),
                               p.get_u64("slot-bytes"), from_l1(p));
  if (probe == "memory/chase_shared")  // 227 KiB: the H100's opt-in shared memory per block
    return chase_sweep_seconds(p, min_bytes, or_h100("max-footprint-bytes", 227u << 10),
                               p.get_u64("slot-bytes"), true, kSharedCycles);
  // memory/stride
  const uint64_t max_bytes = or_h100("max-footprint-bytes", std::min<uint64_t>(8u << 20, kL2Bytes / 2));
  double s = 0;
  for (uint64_t stride : p.get_u64_list("strides-bytes"))
    s += chase_sweep_seconds(p, min_bytes, max_bytes, stride, from_l1(p));
  return s;
}

std::vector<PlannedRun> runs(RunProfile profile) {
  if (profile == RunProfile::full)
    return {run("memory/chase", {{"cache-op", "default"}}, "memory_chase_default.json"),
            run("memory/chase", {{"cache-op", "ca"}}, "memory_chase_ca.json"),
            run("memory/chase", {{"cache-op", "cg"}}, "memory_chase_cg.json"),
            run("memory/chase", {{"cache-op", "nc"}}, "memory_chase_nc.json"),
            run("memory/chase_shared", {}, "memory_chase_shared.json"),
            run("memory/stride", {}, "memory_stride.json"),
            run("memory/tlb", {}, "memory_tlb.json")};
  // --quick: the plain-load chase takes 5 footprints per octave (the far-L2 plateau, one octave
  // wide, needs at least that many: at 4 it is lost) and the .ca/.cg/.nc chases are left out.
  return {run("memory/chase", {{"cache-op", "default"}, {"points-per-octave", "5"}, {"sampled-hops", "128"}},
              "memory_chase_default.json"),
          run("memory/chase_shared", {}, "memory_chase_shared.json"),
          run("memory/stride", {{"strides-bytes", "16,32,64,128,256"}, {"points-per-octave", "2"}},
              "memory_stride.json"),
          run("memory/tlb", {{"points-per-octave", "2"}}, "memory_tlb.json")};
}

constexpr const char* kChasePoint = "probes/memory/chase_point.cpp";
constexpr const char* kClosedLoop = "tests/harness/sim/test_closed_loop.cpp";

ProbeProvenance chase(const char* probe, const char* kernel_file, std::vector<CheckEvidence> more = {}) {
  return generic_probe(probe, kernel_file, closed_loop_naming(kClosedLoop, probe),
                       self_check_evidence(kChasePoint), std::move(more));
}

FamilySpec memory_family() {
  return {
      .name = "memory",
      .title = "Memory hierarchy",
      .order = 10,
      .plan = runs,
      .estimate_h100_seconds = estimate,
      .add_run = analysis::add_memory_from_run,
      .finish = analysis::finish_memory,
      .metrics = analysis::memory_metrics,
      .provenance = {
          chase("memory/chase", "chase.cu",
                {real_data_check("tests/analysis/test_real_curves.cpp", "/real/gpu-benches/gpu-latency/")}),
          chase("memory/chase_shared", "chase_shared.cu"), chase("memory/stride", "chase.cu"),
          chase("memory/tlb", "chase.cu")}};
}

const FamilyRegistration kFamily(memory_family);

}  // namespace
}  // namespace gpuprobe::probes
