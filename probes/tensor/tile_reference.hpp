// The tensor family's host-side tile arithmetic, shared by every tensor probe (mma.sync, wgmma,
// tcgen05): the element formats (decode, encode with round-to-nearest-even, random operands of
// modest size, negation), elements packed in 32-bit register words, the float64 reference of one
// tile D = A * B + C and the per-precision self-check against it. The instruction-specific part
// (which lane holds which element: the fragment layout) stays with each probe.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuprobe::probes::tensor {

// Element formats of tensor-core operands and accumulators. tf32 travels as f32 bits whose low 13
// mantissa bits are zero; e2m1/e3m2/e2m3 (kind::f8f6f4) are named for later forms.
enum class TileElem { f16, bf16, tf32, f32, f64, e4m3, e5m2, e2m1, e3m2, e2m3, s8, s4, s32 };

const char* tile_elem_name(TileElem e);      // "f16", "bf16", ..., the records' precision names
TileElem tile_elem_named(const std::string& name);  // the inverse; an unknown name throws
uint32_t tile_elem_bits(TileElem e);         // bits one element takes in a register: 4 to 64
bool tile_elem_is_integer(TileElem e);

// The value of an element's bits (the low tile_elem_bits bits of `code`).
double tile_decode(TileElem e, uint64_t code);
// The element nearest to `value` (round to nearest even; integers wrap modulo 2^bits). Floating
// formats saturate to infinity where they have one, else to their largest finite value.
uint64_t tile_encode(TileElem e, double value);
// The bits of -value (sign flip; integers: two's complement).
uint64_t tile_negate(TileElem e, uint64_t code);
// A random element of modest size (|value| <= 4, never NaN or infinite; integers away from the
// most negative value, so their negation exists), exactly representable in its format.
uint64_t tile_random(TileElem e, std::mt19937_64& rng);

// Element `index` of `bits` bits in an array of 32-bit register words (element 0 in the low bits
// of word 0; a 64-bit element spans two words, low word first).
uint64_t tile_get(const uint32_t* words, uint32_t index, uint32_t bits);
void tile_set(uint32_t* words, uint32_t index, uint32_t bits, uint64_t code);

// ORs the low `bits` bits of `code` into a word image (an operand's shared-memory or register
// image, zeroed first) at bit `bit`, little endian: bit b of the image is bit b % 32 of word b / 32.
void image_put_bits(std::vector<uint32_t>& words, size_t bit, uint64_t code, uint32_t bits);
// The same for the low `bytes` bytes of `code` at byte `offset`.
void image_put_bytes(std::vector<uint32_t>& words, size_t offset, uint64_t code, uint32_t bytes);

// Block-scale factors (mma.sync kind::mxf8f6f4 / mxf4 / mxf4nvf4, tcgen05 block scaling), one byte:
// ue8m0 is 2^(code - 127) (0xff NaN); ue4m3 is e4m3 without its sign bit (bit 7 ignored; 0x7f NaN).
double ue8m0_decode(uint32_t code);
double ue4m3_decode(uint32_t code);
// The ue4m3 code nearest to a non-negative value (round to nearest even, saturating at 448).
uint32_t ue4m3_encode(double value);

struct TileShape {
  uint32_t m = 0, n = 0, k = 0;
};

// D = A * B + C in float64: a is m x k, b is k x n, c and the result m x n, all row-major.
std::vector<double> tile_reference(const TileShape& s, const std::vector<double>& a,
                                   const std::vector<double>& b, const std::vector<double>& c);

// The relative tolerance of one element of D for an input/accumulator pair, against the sum of
// the magnitudes of the element's terms (sum |a_ik b_kj| + |c_ij|): 0 (exact) for integer kinds;
// 1e-12 for f64; 1e-4 for f32 accumulation of f16/bf16/tf32 products (exact products, the adder
// tree's alignment may drop low bits); 1e-3 for fp8/fp6/fp4 inputs (QMMA accumulates with fewer
// bits); 4e-3 for f16 accumulation (f16 keeps 11 significant bits).
double tile_tolerance_rel(TileElem input, TileElem accumulator);

struct TileCheck {
  bool passed = true;
  uint32_t elements = 0;
  double max_abs_error = 0;    // largest |got - reference| over the tile
  double tolerance_rel = 0;    // tile_tolerance_rel of the pair
  std::string why;             // the first element out of tolerance, when !passed
  nlohmann::json diagnosis;    // when !passed: diagnose_tile's (tile_diagnosis.hpp)
};

// How the operands reach the MMA, for the diagnosis of a failed tile (tile_diagnosis.hpp): by a
// shared-memory descriptor (no swizzle, K-major: core matrices of 8 rows x 16 bytes, row blocks
// sbo_bytes apart, a row block's K core matrices lbo_bytes apart), or in registers.
struct TileLayout {
  bool a_by_descriptor = false, b_by_descriptor = false;
  uint32_t lbo_bytes = 0, sbo_bytes = 0;
};

// Compares `got` (m x n, row-major) with the float64 reference element by element; on a mismatch
// the diagnosis (diagnose_tile) searches the likely layout errors, `layout` saying which apply.
TileCheck check_tile(const TileShape& s, const std::vector<double>& a, const std::vector<double>& b,
                     const std::vector<double>& c, const std::vector<double>& got, TileElem input,
                     TileElem accumulator, const TileLayout& layout = {});

}  // namespace gpuprobe::probes::tensor
