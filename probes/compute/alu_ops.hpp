// The compute family's CUDA-core operations: one launch of an op's latency or throughput kernel
// (probes/compute/alu.cuh). Each backend implements AluOps (alu_cuda.cpp, alu_sim.cpp); a probe
// gets it with ctx.ops<AluOps>(). Both backends hand the per-warp records (AluWarpOut) to
// summarize_alu_launch, which turns them into the numbers and makes the self-check, so the
// arithmetic and the check exist once.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/device.hpp"
#include "harness/error.hpp"
#include "harness/launch_config.hpp"
#include "probes/compute/alu.cuh"

namespace gpuprobe::probes {

using compute::AluOp;

// latency: one dependent chain in one warp; throughput: kAluThroughputChains chains per thread,
// many warps on every SM.
enum class AluKind { latency, throughput };

// Thrown when this device cannot run one op (it lacks the instruction; the simulator has no
// model of it): the probe records the op as skipped with the reason and measures the others.
class AluOpUnavailable : public Error {
 public:
  using Error::Error;
};

const char* alu_kind_name(AluKind kind);   // "latency", "throughput"
const compute::AluOpInfo& alu_info(AluOp op);
// Throws a one-line gpuprobe::Error listing the ops when `name` is unknown.
AluOp parse_alu_op(const std::string& name);
// gpuprobe_alu_<op>_lat / _thr.
std::string alu_kernel_name(AluOp op, AluKind kind);
uint32_t alu_chains(AluKind kind);

struct AluSetup {
  AluOp op = AluOp::fma_rn_f32;
  AluKind kind = AluKind::latency;
  uint32_t block_threads = 32;  // latency: 32 (one warp, one block); throughput: a multiple of 32
  uint32_t blocks = 1;          // latency: 1; throughput: SMs x blocks per SM
};

struct AluRun {
  uint64_t iterations = 1024;   // of the unrolled loop: kAluOpsPerIteration ops per thread each
  bool store = true;            // store the results (the self-check needs them)
};

struct AluResult {
  uint64_t ops_per_chain = 0;      // iterations x ops per iteration / chains
  // Latency: the warp's cycles over its chain's ops. Throughput: per SM, the thread-ops of its
  // warps over the cycles from its first warp's start to its last warp's end; the median SM.
  double latency_cycles = 0;       // latency kernels
  double ops_per_clk_per_sm = 0;   // throughput kernels
  double ops_per_clk_per_sm_min = 0;
  double ops_per_clk_per_sm_max = 0;
  uint32_t sms = 0;                // SMs that ran warps
  double warps_per_sm = 0;         // mean over those SMs
  LaunchRecord launch;
};

// The kernel arguments of a run: start values and operands chosen so the host knows every
// chain's result (alu_ops.cpp).
compute::AluArgs alu_args(AluOp op, const AluRun& run);

// The result the host expects from chain `chain` after `ops` ops (bits, as the kernel stores
// them). Exact for the FMA, integer and conversion ops; for the MUFU ops the float64 chain.
uint64_t alu_reference_bits(AluOp op, uint32_t chain, uint64_t ops);

// Empty if `got` is an acceptable result of chain `chain` after `ops` ops, else why not. Exact
// ops: bit for bit. ex2 and rsqrt (contractions): within 1e-3 of the float64 chain. sin and tanh
// (slow to converge, and their approximation error moves the point they settle at): positive and
// at most 1.5 times the float64 chain after min(ops, 100) ops.
std::string alu_result_error(AluOp op, uint32_t chain, uint64_t ops, uint64_t got);

// The checks every backend makes before launching: the device has the op (sm_80 for bf16x2,
// sm_75 for tanh, sm_100 for f32x2; else AluOpUnavailable), the launch shape. Throws one-line
// Errors.
void check_alu_fits(const AluSetup& setup, const DeviceInfo& info);

// Turns the warps' records into the result and makes the self-check: every warp ran, on an SM,
// with end after start, and (run.store) every chain's result is acceptable; throws
// gpuprobe::Error "self-check failed ..." otherwise.
AluResult summarize_alu_launch(const AluSetup& setup, const AluRun& run,
                               const std::vector<compute::AluWarpOut>& warps);

class AluOps : public FamilyOps {
 public:
  static constexpr const char* kFamily = "compute.alu";
  virtual AluResult run(const AluSetup& setup, const AluRun& run) = 0;
};

}  // namespace gpuprobe::probes
