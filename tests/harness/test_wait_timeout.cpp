// harness/wait_timeout.hpp: what a kernel that gave up a wait leaves (harness/cuda/bounded_wait.cuh)
// becomes one line and the point's evidence; measure_points (harness/points.cpp) stores that point
// failed and ends the probe; a --resume keeps it failed without measuring it again.
#include <catch2/catch.hpp>

#include <sstream>

#include "harness/points.hpp"
#include "harness/self_check.hpp"
#include "harness/wait_timeout.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {

cuda::WaitTimeout tma_record() { return example_wait_timeout(); }

WaitTimedOut timed_out(const cuda::WaitTimeout& r) {
  const std::string reason = describe_wait_timeout(r);
  return WaitTimedOut("cudaStreamSynchronize after k failed; " + reason, reason,
                      wait_timeout_evidence(r, "gpuprobe_async_tma_1d_d4"));
}

struct Fixture {
  std::unique_ptr<Device> device = open_device("sim:v100");
  std::ostringstream log;
  ProbeContext ctx{*device, Params::parse({}, {}), RepeatPolicy{}, log, [](const nlohmann::json&) {}};
};

std::vector<PlannedPoint> three_points(int& measured, int hang_at) {
  std::vector<PlannedPoint> points;
  for (int i = 0; i < 3; ++i)
    points.push_back({{{"op", "op" + std::to_string(i)}}, [&measured, i, hang_at] {
                        ++measured;
                        if (i == hang_at) throw timed_out(tma_record());
                        return nlohmann::json{{"latency_cycles", 10.0 + i}};
                      }});
  return points;
}

}  // namespace

TEST_CASE("wait timeout: the kernel's record as one line naming every field", "[wait_timeout]") {
  const std::string line = describe_wait_timeout(tma_record());
  CHECK(line ==
        "a device-side wait timed out after 1.00 s: mbarrier_try_wait_parity at shared 0x4a0 parity 1, "
        "block (7,0,0) thread 0 on SM 12, iteration 17, expecting 4096 bytes, state 0x7ffff00010000");
  cuda::WaitTimeout grid = tma_record();
  grid.kind = static_cast<uint32_t>(cuda::WaitKind::grid_barrier);
  grid.expected_bytes = 0;
  grid.parity = 0x80000000u;
  const std::string g = describe_wait_timeout(grid);
  CHECK(g.find("grid_barrier at global 0x4a0 value 2147483648") != std::string::npos);
  CHECK(g.find("expecting") == std::string::npos);  // no transaction bytes: not said
}

TEST_CASE("wait timeout: the evidence holds every field, the state in hex, and the kernel",
          "[wait_timeout]") {
  const nlohmann::json e = wait_timeout_evidence(tma_record(), "gpuprobe_async_tma_1d_d4")["wait_timeout"];
  CHECK(e["kind"] == "mbarrier_try_wait_parity");
  CHECK(e["block"] == nlohmann::json::array({7, 0, 0}));
  CHECK(e["sm"] == 12);
  CHECK(e["barrier"] == "0x4a0");
  CHECK(e["parity"] == 1);
  CHECK(e["iteration"] == 17);
  CHECK(e["expected_bytes"] == 4096);
  CHECK(e["observed"] == "0x7ffff00010000");
  CHECK(e["waited_ns"] == 1000004096);
  CHECK(e["kernel"] == "gpuprobe_async_tma_1d_d4");
  CHECK_FALSE(wait_timeout_evidence(tma_record(), "")["wait_timeout"].contains("kernel"));
}

TEST_CASE("wait timeout: the point fails with the record, the probe ends there, and a resume "
          "keeps it failed without measuring it again",
          "[wait_timeout][points]") {
  int measured = 0;
  nlohmann::json first_series;
  {
    Fixture f;
    CHECK_THROWS_AS(measure_points(f.ctx, three_points(measured, 1)), WaitTimedOut);
    CHECK(measured == 2);  // the third point is never reached: the context is lost
    first_series = f.ctx.series();
    REQUIRE(first_series.size() == 2);
    const nlohmann::json& p = first_series[1];
    CHECK(p["op"] == "op1");
    CHECK(self_check_failed(p));
    CHECK(wait_timed_out(p));
    CHECK(p["self_check"]["reason"].get<std::string>().find("timed out after 1.00 s") != std::string::npos);
    CHECK(p["self_check"]["evidence"]["wait_timeout"]["iteration"] == 17);
    CHECK_FALSE(wait_timed_out(first_series[0]));
    CHECK(f.ctx.failed_self_checks() == std::vector<std::string>{"op1"});
  }
  // A new process resumes: op0 and the timed-out op1 are kept, op2 measured; op1 stays failed.
  Fixture f;
  f.ctx.set_resumed_points(first_series);
  measured = 0;
  measure_points(f.ctx, three_points(measured, 1));
  CHECK(measured == 1);
  REQUIRE(f.ctx.series().size() == 3);
  CHECK(f.ctx.series()[1] == first_series[1]);
  CHECK(f.ctx.series()[2]["latency_cycles"] == 12.0);
  CHECK(f.ctx.failed_self_checks() == std::vector<std::string>{"op1"});
}

TEST_CASE("wait timeout: a failed self-check that is no timeout is still measured again on resume",
          "[wait_timeout][points]") {
  Fixture f;
  nlohmann::json failed = {{"op", "op0"}, {"self_check", {{"passed", false}, {"reason", "wrong tile"}}}};
  CHECK_FALSE(wait_timed_out(failed));
  f.ctx.set_resumed_points(nlohmann::json::array({failed}));
  CHECK(f.ctx.resumed_point({{"op", "op0"}}) == nullptr);
}

}  // namespace GPUPROBE_TEST_FILE
