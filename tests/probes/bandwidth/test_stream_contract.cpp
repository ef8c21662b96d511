// The bandwidth kernels' contract (probes/bandwidth/stream.cuh): the closed-form checksums the
// host compares a launch against must equal what the kernels' access order actually reads.
// The brute force below re-states the kernels' walk (stream.cu for_each_tile, stream_shared.cu)
// thread by thread, independently of the closed forms.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "probes/bandwidth/stream.cuh"

namespace GPUPROBE_TEST_FILE {

namespace bw = gpuprobe::probes::bandwidth;

namespace {

// What a global read launch sums: every block, every thread, every pass, every tile of the
// window, ilp vectors of vec_bytes, each word of the pattern (word i holds i), modulo 2^32.
uint32_t brute_force_stream(const bw::StreamGeometry& g, uint32_t blocks, uint32_t threads,
                            uint32_t vec_bytes, uint32_t ilp) {
  const uint64_t tile = bw::tile_bytes(threads, vec_bytes, ilp);
  const uint64_t wrap = g.footprint_tiles * tile;
  uint32_t sum = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    const uint64_t start = (uint64_t(b) * g.block_step_tiles) % g.footprint_tiles;
    for (uint32_t t = 0; t < threads; ++t) {
      for (uint32_t p = 0; p < g.passes; ++p) {
        uint64_t offset = start * tile + uint64_t(t) * vec_bytes;
        for (uint64_t n = 0; n < g.tiles_per_block; ++n) {
          for (uint32_t k = 0; k < ilp; ++k) {
            const uint64_t at = offset + uint64_t(k) * threads * vec_bytes;
            REQUIRE(at + vec_bytes <= wrap);  // never past the buffer
            for (uint32_t j = 0; j < vec_bytes / 4; ++j) sum += static_cast<uint32_t>(at / 4 + j);
          }
          offset += tile;
          if (offset >= wrap) offset -= wrap;
        }
      }
    }
  }
  return sum;
}

uint32_t brute_force_shared(uint32_t blocks, uint32_t threads, uint32_t stride, uint32_t vec_bytes,
                            uint32_t ilp, uint32_t iterations) {
  const uint64_t smem = bw::shared_stream_bytes(stride, vec_bytes, ilp);
  uint32_t sum = 0;
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t t = 0; t < threads; ++t)
      for (uint32_t i = 0; i < iterations; ++i)
        for (uint32_t k = 0; k < ilp; ++k) {
          const uint64_t at = uint64_t(t % 32) * stride * vec_bytes + uint64_t(k) * 128;
          REQUIRE(at + vec_bytes <= smem);  // inside the shared memory the host sizes
          for (uint32_t j = 0; j < vec_bytes / 4; ++j) sum += static_cast<uint32_t>(at / 4 + j);
        }
  return sum;
}

}  // namespace

TEST_CASE("pattern_sum is the sum of consecutive word indices modulo 2^32", "[bandwidth]") {
  for (uint64_t first : {0ull, 1ull, 7ull, 1000ull, 0xfffffff0ull, 0x1'0000'0005ull}) {
    for (uint64_t count : {0ull, 1ull, 2ull, 3ull, 31ull, 64ull, 1001ull}) {
      uint32_t brute = 0;
      for (uint64_t i = 0; i < count; ++i) brute += static_cast<uint32_t>(first + i);
      INFO("first " << first << " count " << count);
      CHECK(bw::pattern_sum(first, count) == brute);
    }
  }
}

TEST_CASE("the stream checksum matches the kernels' walk for every level's geometry",
          "[bandwidth]") {
  struct Case {
    const char* what;
    bw::StreamGeometry g;
    uint32_t blocks, threads, vec_bytes, ilp;
  };
  const Case cases[] = {
      // L1: each block re-reads its own window.
      {"L1 own windows", {12, 3, 3, 4}, 4, 64, 16, 4},
      // L2: windows of 5 tiles, stepping 2: neighbours overlap, the last ones wrap.
      {"L2 overlapping, wrapping", {9, 5, 2, 3}, 7, 32, 8, 2},
      // A window longer than the buffer wraps more than once.
      {"window wraps twice", {3, 8, 1, 1}, 2, 32, 4, 1},
      // HBM: one pass over disjoint windows.
      {"HBM one pass", {40, 5, 5, 1}, 8, 128, 32, 8},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const uint64_t tile_words = bw::tile_bytes(c.threads, c.vec_bytes, c.ilp) / 4;
    CHECK(bw::expected_stream_checksum(c.g, c.blocks, tile_words) ==
          brute_force_stream(c.g, c.blocks, c.threads, c.vec_bytes, c.ilp));
  }
}

TEST_CASE("a wrong geometry changes the checksum (it can catch a missing tile)", "[bandwidth]") {
  const bw::StreamGeometry g{12, 3, 3, 2};
  const uint64_t tile_words = bw::tile_bytes(64, 16, 4) / 4;
  bw::StreamGeometry fewer = g;
  fewer.tiles_per_block = 2;
  CHECK(bw::expected_stream_checksum(g, 4, tile_words) !=
        bw::expected_stream_checksum(fewer, 4, tile_words));
  CHECK(brute_force_stream(fewer, 4, 64, 16, 4) != bw::expected_stream_checksum(g, 4, tile_words));
}

TEST_CASE("the shared checksum matches the shared kernels' accesses", "[bandwidth]") {
  for (uint32_t vec_bytes : {4u, 8u, 16u}) {
    for (uint32_t ilp : {1u, 2u, 8u}) {
      for (uint32_t stride : {1u, 2u, 3u, 32u, bw::kSharedMaxStrideElems}) {
        INFO("vec " << vec_bytes << " ilp " << ilp << " stride " << stride);
        CHECK(bw::expected_shared_checksum(3, 96, stride, vec_bytes, ilp, 5) ==
              brute_force_shared(3, 96, stride, vec_bytes, ilp, 5));
      }
    }
  }
}

TEST_CASE("the largest shared launch fits the smallest opt-in shared memory (V100: 96 KB)",
          "[bandwidth]") {
  CHECK(bw::shared_stream_bytes(bw::kSharedMaxStrideElems, 16, bw::kMaxIlp) <= 96u * 1024);
}

}  // namespace GPUPROBE_TEST_FILE
