// The loaded-latency contract (probes/bandwidth/loaded.cuh) and its host checks
// (probes/bandwidth/stream_ops.cpp): the streamers' checksum against a word-by-word walk of what
// each lane reads, the grid and buffer sizes, and the one-line refusals and self-check failures.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "harness/chain.hpp"
#include "harness/error.hpp"
#include "probes/bandwidth/stream_ops.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using namespace gpuprobe::probes;
namespace bw = gpuprobe::probes::bandwidth;

namespace {

// What the kernel's streamer threads read, word by word (loaded.cu stream()): lane l of warp w of
// block b, group g, access k: 4 words from the byte offset
//   (b x region + g mod region) x tile + k x threads x 16 + (32 w + l) x 16.
uint32_t brute_warp_checksum(uint64_t block, uint32_t warp, uint32_t threads, uint64_t region,
                             uint64_t groups) {
  const uint64_t tile = bw::loaded_tile_bytes(threads);
  uint32_t sum = 0;
  for (uint64_t g = 0; g < groups; ++g)
    for (uint32_t k = 0; k < bw::kLoadedIlp; ++k)
      for (uint32_t lane = 0; lane < 32; ++lane) {
        const uint64_t offset = (block * region + g % region) * tile +
                                uint64_t(k) * threads * bw::kLoadedVecBytes +
                                (uint64_t(warp) * 32 + lane) * bw::kLoadedVecBytes;
        for (uint32_t j = 0; j < bw::kLoadedVecBytes / 4; ++j)
          sum += static_cast<uint32_t>(offset / 4 + j);
      }
  return sum;
}

DeviceInfo device_info(int sms) {
  DeviceInfo info;
  info.name = "test GPU";
  info.sm_count = sms;
  info.l2_bytes = 8 << 20;
  return info;
}

}  // namespace

TEST_CASE("loaded latency: each warp's checksum is what its lanes read, word by word",
          "[bandwidth][loaded]") {
  for (uint32_t threads : {32u, 64u, 256u})
    for (uint64_t region : {1ull, 3ull})
      for (uint64_t groups : {0ull, 1ull, 2ull, 3ull, 7ull})
        for (uint64_t block : {0ull, 5ull})
          for (uint32_t warp = 0; warp < threads / 32; warp += 3) {
            INFO("threads " << threads << " region " << region << " groups " << groups
                            << " block " << block << " warp " << warp);
            CHECK(bw::loaded_warp_checksum(block, warp, threads, region, groups) ==
                  brute_warp_checksum(block, warp, threads, region, groups));
          }
}

TEST_CASE("loaded latency: the launch's checksum sums its warps, and one group more changes it",
          "[bandwidth][loaded]") {
  LoadedSetup s;
  s.block_threads = 64;
  s.region_tiles = 2;
  const std::vector<uint32_t> groups = {3, 3, 0, 0, 5, 1};   // 3 blocks of 2 warps
  uint32_t want = 0;
  for (uint64_t w = 0; w < groups.size(); ++w)
    want += brute_warp_checksum(w / 2, static_cast<uint32_t>(w % 2), 64, 2, groups[w]);
  CHECK(loaded_checksum(s, groups) == want);
  std::vector<uint32_t> more = groups;
  ++more[4];
  CHECK(loaded_checksum(s, more) != want);
  // Grid and buffer: blocks per SM x SMs blocks, each its region of 64 x 4 x 16-byte tiles.
  const DeviceInfo info = device_info(10);
  s.blocks_per_sm = 3;
  CHECK(loaded_grid_blocks(s, info) == 30);
  CHECK(loaded_stream_buffer_bytes(s, info) == 30ull * 2 * 64 * 4 * 16);
}

TEST_CASE("loaded latency: setups that cannot run are refused in one line", "[bandwidth][loaded]") {
  const Chain chain = make_random_cycle(64 << 10, 128, 1);
  const DeviceInfo info = device_info(8);
  LoadedSetup s;
  s.chain = &chain;
  s.blocks_per_sm = 2;
  const uint64_t free = 1ull << 30;
  CHECK_NOTHROW(check_loaded_fits(s, info, free, 8));

  auto refused = [&](LoadedSetup bad, uint64_t free_bytes, uint32_t resident, const char* what) {
    INFO(what);
    CHECK_THROWS_WITH(check_loaded_fits(bad, info, free_bytes, resident), Catch::Contains(what));
    try {
      check_loaded_fits(bad, info, free_bytes, resident);
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
  };
  LoadedSetup no_chain = s;
  no_chain.chain = nullptr;
  refused(no_chain, free, 8, "without a chain");
  LoadedSetup far_sm = s;
  far_sm.chaser_sm = 8;
  refused(far_sm, free, 8, "does not exist");
  LoadedSetup too_many = s;
  too_many.blocks_per_sm = 9;
  refused(too_many, free, 8, "do not all fit at once");
  LoadedSetup odd_block = s;
  odd_block.block_threads = 48;
  refused(odd_block, free, 8, "not a multiple of 32");
  LoadedSetup no_region = s;
  no_region.region_tiles = 0;
  refused(no_region, free, 8, "stream region");
  refused(s, 64 << 10, 8, "of device memory");
  CHECK_THROWS_WITH(check_loaded_fits(s, device_info(1), free, 8), Catch::Contains("one SM"));

  LoadedRun run;
  run.warmup_hops = 64;
  run.timed_hops = 64;
  CHECK_NOTHROW(check_loaded_run(s, run));
  LoadedRun bad = run;
  bad.timed_hops = 65;
  CHECK_THROWS_WITH(check_loaded_run(s, bad), Catch::Contains("multiple of 32"));
  bad = run;
  bad.warmup_hops = 8;
  CHECK_THROWS_WITH(check_loaded_run(s, bad), Catch::Contains("warm-up"));
  bad = run;
  bad.start_slot = static_cast<uint32_t>(chain.slots());
  CHECK_THROWS_WITH(check_loaded_run(s, bad), Catch::Contains("not a slot"));
}

TEST_CASE("loaded latency: a wrong end, iteration count, checksum or an overrun fails the run",
          "[bandwidth][loaded]") {
  const Chain chain = make_random_cycle(64 << 10, 128, 3);
  LoadedSetup s;
  s.chain = &chain;
  LoadedRun run;
  run.start_slot = 17;
  run.warmup_hops = 64;
  run.timed_hops = 96;
  LoadedResult good;
  good.final_offset_bytes = chain.offset_bytes[walk(chain, 17, 160)];
  good.timed_iterations = 3;
  good.checksum = good.expected_checksum = 12345;
  good.streaming_sms = 7;
  CHECK_NOTHROW(check_loaded_result(s, run, good));

  LoadedResult r = good;
  r.final_offset_bytes = chain.offset_bytes[walk(chain, 17, 161)];
  CHECK_THROWS_WITH(check_loaded_result(s, run, r), Catch::Contains("self-check failed") &&
                                                        Catch::Contains("ended at offset"));
  r = good;
  r.timed_iterations = 4;
  CHECK_THROWS_WITH(check_loaded_result(s, run, r), Catch::Contains("timed iterations"));
  r = good;
  r.checksum = 12346;
  CHECK_THROWS_WITH(check_loaded_result(s, run, r), Catch::Contains("self-check failed") &&
                                                        Catch::Contains("checksum"));
  r = good;
  r.overran_warps = 2;
  CHECK_THROWS_WITH(check_loaded_result(s, run, r), Catch::Contains("time bound"));
  r = good;
  r.streaming_sms = 0;
  CHECK_THROWS_WITH(check_loaded_result(s, run, r), Catch::Contains("no block streamed"));
  run.stream = false;   // the idle point streams nothing, and that is right
  CHECK_NOTHROW(check_loaded_result(s, run, r));
}

}  // namespace GPUPROBE_TEST_FILE
