// What a tensor probe says when its tile self-check fails: the evidence of one mismatched tile
// D = A * B + C, for the sidecar (harness/self_check.hpp): got and want, a mismatch map, and a
// search over the layout errors a first run on new hardware most likely makes, naming the one
// under which the stored tile is exactly what a correct MMA computes. Each error is expressed on
// the host's row-major tiles (m x k A, k x n B, m x n C and D):
//   transpose         D stored column-major: got element f (row-major) is want's element f in
//                     column-major order (got[i][j] == want[j][i] when m == n)
//   rows_r_r8         rows r and r+8 of every 16-row group swapped (the upper and lower halves of
//                     a fragment's rows: mma.sync's c0,c1 <-> c2,c3)
//   k_half            A read with its two K halves swapped: D = A' B + C, A'[i][k] = A[i][k ^ K/2]
//                     (the same product as B read with its K halves swapped: one error for both)
//   half16_d          the two 16-bit halves of each packed D word swapped (16-bit accumulators:
//                     columns j and j ^ 1)
//   half16_in         the two 16-bit halves of each packed A word swapped (16-bit inputs: A's
//                     columns k and k ^ 1; the same product as B's rows k and k ^ 1 swapped)
//   lbo_sbo_a         A read from shared memory with the descriptor's leading- and stride-byte
//                     offsets swapped (TileLayout: its core matrices of 8 rows x 16 bytes read
//                     from where the other offset puts them; outside the image reads 0); lbo_sbo_b
//                     the same for B (stored N x K, K-major)
//   peer_rows_zero    the upper half of D's rows zero (the peer CTA's half of a cta_group::2 D,
//                     or a second M half, never written)
//   peer_b_half_zero  B's upper half of columns zero (the peer CTA's half of a split B never
//                     read): those columns of D are C
//   one_element       D's last element off by 1 + |itself| (a planted error only, never a finding)
// An error that cannot apply to a tile (a shape too small, no descriptor, 32-bit elements) is
// listed as not applicable, with why.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/tensor/tile_reference.hpp"

namespace gpuprobe::probes::tensor {

// The names above, in the order the search tries them (one_element last, never searched).
const std::vector<std::string>& tile_errors();

// Why `error` cannot apply to this tile ("" when it can). An unknown name throws.
std::string tile_error_not_applicable(const std::string& error, const TileShape& s, TileElem input,
                                      TileElem accumulator, const TileLayout& layout);

// The tile a correct MMA with the layout error `error` would store: m x n, row-major, in float64
// (the caller encodes it in the accumulator format). Throws where the error does not apply.
std::vector<double> tile_with_error(const std::string& error, const TileShape& s,
                                    const std::vector<double>& a, const std::vector<double>& b,
                                    const std::vector<double>& c, TileElem input, TileElem accumulator,
                                    const TileLayout& layout);

// The diagnosis of a tile `got` that failed check_tile: {shape: [m, n, k], input, accumulator,
// elements, mismatches, mismatch_map (m strings of n characters: '.' within the tolerance, 'X'
// out of it), got, want (m rows of n), searched: [{error, applies, why?, mismatches?, matches?}],
// matches: the first error under which every element is within the tolerance, or null}.
nlohmann::json diagnose_tile(const TileShape& s, const std::vector<double>& a, const std::vector<double>& b,
                             const std::vector<double>& c, const std::vector<double>& got, TileElem input,
                             TileElem accumulator, const TileLayout& layout);

// Throws the SelfCheckFailed of a failed tile check (check.diagnosis filled): the point's
// evidence {elements, mismatches, max_abs_error, first (check.why), matches}, the sidecar's the
// diagnosis and the raw words as the kernel stored them (`raw_words`, hex).
[[noreturn]] void throw_tile_mismatch(const std::string& reason, const TileCheck& check,
                                      const std::vector<uint32_t>& raw_words);

}  // namespace gpuprobe::probes::tensor
