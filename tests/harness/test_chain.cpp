#include <catch2/catch.hpp>

#include <set>

#include "harness/chain.hpp"
#include "harness/error.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

TEST_CASE("random cycle visits every slot exactly once before returning", "[chain]") {
  for (uint64_t footprint : {128ull, 1024ull, 4096ull * 128, 1000ull * 128 + 77}) {
    const Chain c = make_random_cycle(footprint, 128, 42);
    REQUIRE(c.slots() == footprint / 128);
    CHECK(is_single_cycle(c));
    std::set<uint32_t> seen;
    uint32_t at = c.start;
    for (uint64_t i = 0; i < c.slots(); ++i) {
      seen.insert(at);
      at = c.next[at];
    }
    CHECK(seen.size() == c.slots());
    CHECK(at == c.start);
    for (uint32_t i = 0; i < c.slots(); ++i) CHECK(c.offset_bytes[i] == i * 128ull);
  }
}

TEST_CASE("random cycles are deterministic per seed and differ across seeds", "[chain]") {
  const Chain a = make_random_cycle(64 * 1024, 128, 1);
  const Chain b = make_random_cycle(64 * 1024, 128, 1);
  const Chain c = make_random_cycle(64 * 1024, 128, 2);
  CHECK(a.next == b.next);
  CHECK(a.next != c.next);
  // No slot points to its neighbour too often: a random cycle, not a ring.
  int sequential = 0;
  for (uint32_t i = 0; i < a.slots(); ++i) sequential += (a.next[i] == i + 1);
  CHECK(sequential < 10);
}

TEST_CASE("stride rings honour the stride", "[chain]") {
  for (uint32_t stride : {8u, 32u, 128u, 1024u}) {
    const Chain c = make_stride_ring(64 * 1024, stride);
    CHECK(is_single_cycle(c));
    CHECK(c.slots() == 64 * 1024 / stride);
    for (uint32_t i = 0; i + 1 < c.slots(); ++i) {
      CHECK(c.next[i] == i + 1);
      CHECK(c.offset_bytes[c.next[i]] - c.offset_bytes[i] == stride);
    }
    CHECK(c.next[c.slots() - 1] == 0);
  }
  CHECK_THROWS_AS(make_stride_ring(1024, 12), Error);
}

TEST_CASE("scattered stride rings keep one slot per block and reach every line of a block",
          "[chain]") {
  const uint32_t stride = 1024, line = 128;
  const Chain c = make_stride_ring(1024 * 1024, stride, 9);
  CHECK(is_single_cycle(c));
  std::set<uint64_t> line_in_block;
  for (uint32_t i = 0; i < c.slots(); ++i) {
    CHECK(c.offset_bytes[i] / stride == i);  // still one slot in each stride-sized block
    CHECK(c.offset_bytes[i] % 8 == 0);
    line_in_block.insert((c.offset_bytes[i] % stride) / line);
  }
  CHECK(line_in_block.size() == stride / line);  // a plain ring would use only line 0
  CHECK(make_stride_ring(1024 * 1024, stride, 9).offset_bytes == c.offset_bytes);
  CHECK(make_stride_ring(1024 * 1024, stride, 10).offset_bytes != c.offset_bytes);
  // Below the sector size, scattering keeps hops sharing sectors: stride 16, 2 hops per 32 B.
  const Chain small = make_stride_ring(4096, 16, 9);
  for (uint32_t i = 0; i + 1 < small.slots(); i += 2)
    CHECK(small.offset_bytes[i] / 32 == small.offset_bytes[i + 1] / 32);
}

TEST_CASE("page cycles put one slot in each page, offset to spread cache sets", "[chain]") {
  const uint64_t page = 2ull << 20;
  const Chain c = make_page_cycle(512, page, 136, 7);
  CHECK(is_single_cycle(c));
  CHECK(c.span_bytes == 512 * page);
  std::set<uint64_t> in_page_offsets;
  for (uint32_t k = 0; k < c.slots(); ++k) {
    CHECK(c.offset_bytes[k] / page == k);
    CHECK(c.offset_bytes[k] % 8 == 0);
    in_page_offsets.insert(c.offset_bytes[k] % page);
  }
  CHECK(in_page_offsets.size() == 512);
}

TEST_CASE("walk predicts the final slot", "[chain]") {
  const Chain c = make_random_cycle(128 * 100, 128, 3);
  uint32_t at = c.start;
  for (int i = 0; i < 1234; ++i) at = c.next[at];
  CHECK(walk(c, c.start, 1234) == at);
  CHECK(walk(c, c.start, 100) == c.start);  // a full cycle returns to the start
  CHECK(walk(c, c.start, 0) == c.start);
}

TEST_CASE("is_single_cycle rejects two cycles and out-of-range links", "[chain]") {
  Chain two;
  two.next = {1, 0, 3, 2};
  two.offset_bytes = {0, 8, 16, 24};
  CHECK_FALSE(is_single_cycle(two));
  Chain bad;
  bad.next = {5};
  CHECK_FALSE(is_single_cycle(bad));
}

}  // namespace GPUPROBE_TEST_FILE
