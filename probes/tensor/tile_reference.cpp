#include "probes/tensor/tile_reference.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include "harness/error.hpp"
#include "probes/tensor/tile_diagnosis.hpp"

namespace gpuprobe::probes::tensor {
namespace {

// A binary floating format: exponent and mantissa bits, bias, and whether the all-ones exponent
// means infinity/NaN (IEEE-like) or holds values (e4m3 keeps only S.1111.111 as NaN; the fp6 and
// fp4 formats have neither).
struct FloatFormat {
  int exp_bits, mant_bits, bias;
  bool ieee_special;  // all-ones exponent: inf (mantissa 0) or NaN
  bool e4m3_nan;      // only the all-ones code (exponent and mantissa) is NaN
  double max_finite;
};

// Per TileElem, in the enum's order: the records' name, the bits one element takes in a register
// (fp8; fp6 and fp4 of kind::f8f6f4 sit in 8-bit containers) and the float format (none for f64,
// which is bit-cast, and the integers).
struct ElemInfo {
  const char* name;
  uint32_t bits;
  FloatFormat format;
};
constexpr ElemInfo kElems[] = {
    {"f16", 16, {5, 10, 15, true, false, 65504.0}},
    {"bf16", 16, {8, 7, 127, true, false, 3.3895313892515355e38}},
    {"tf32", 32, {8, 10, 127, true, false, 3.4011621342146535e38}},
    {"f32", 32, {8, 23, 127, true, false, 3.4028234663852886e38}},
    {"f64", 64, {}},
    {"e4m3", 8, {4, 3, 7, false, true, 448.0}},
    {"e5m2", 8, {5, 2, 15, true, false, 57344.0}},
    {"e2m1", 8, {2, 1, 1, false, false, 6.0}},
    {"e3m2", 8, {3, 2, 3, false, false, 28.0}},
    {"e2m3", 8, {2, 3, 1, false, false, 7.5}},
    {"s8", 8, {}},
    {"s4", 4, {}},
    {"s32", 32, {}},
};
static_assert(sizeof(kElems) / sizeof(kElems[0]) == static_cast<unsigned>(TileElem::s32) + 1);

const ElemInfo& elem_info(TileElem e) { return kElems[static_cast<unsigned>(e)]; }
const FloatFormat& float_format(TileElem e) { return elem_info(e).format; }

// tf32 is stored as f32 bits: its 10 mantissa bits sit at the top of f32's 23.
constexpr int kTf32Shift = 13;

double decode_float(const FloatFormat& f, uint64_t code) {
  const uint64_t mant = code & ((uint64_t{1} << f.mant_bits) - 1);
  const uint64_t exp = (code >> f.mant_bits) & ((uint64_t{1} << f.exp_bits) - 1);
  const bool negative = (code >> (f.mant_bits + f.exp_bits)) & 1;
  const uint64_t exp_max = (uint64_t{1} << f.exp_bits) - 1;
  double v;
  if (f.ieee_special && exp == exp_max) {
    v = mant == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (f.e4m3_nan && exp == exp_max && mant == (uint64_t{1} << f.mant_bits) - 1) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (exp == 0) {
    v = std::ldexp(double(mant), 1 - f.bias - f.mant_bits);
  } else {
    v = std::ldexp(1.0 + std::ldexp(double(mant), -f.mant_bits), int(exp) - f.bias);
  }
  return negative ? -v : v;
}

uint64_t encode_float(const FloatFormat& f, double value) {
  const uint64_t sign = std::signbit(value) ? uint64_t{1} << (f.exp_bits + f.mant_bits) : 0;
  const uint64_t exp_max = (uint64_t{1} << f.exp_bits) - 1;
  if (std::isnan(value)) {
    if (f.ieee_special) return (exp_max << f.mant_bits) | (uint64_t{1} << (f.mant_bits - 1));
    if (f.e4m3_nan) return (exp_max << f.mant_bits) | ((uint64_t{1} << f.mant_bits) - 1);
    throw Error(std::string("no NaN in this format"));
  }
  double a = std::fabs(value);
  const int emin = 1 - f.bias;  // the smallest normal exponent
  if (a != 0 && !std::isinf(a)) {
    int e;
    std::frexp(a, &e);  // a = fr * 2^e, fr in [0.5, 1): the leading bit is 2^(e-1)
    const int lead = std::max(e - 1, emin);
    const double quantum = std::ldexp(1.0, lead - f.mant_bits);
    a = std::nearbyint(a / quantum) * quantum;  // round to nearest even (default mode)
  }
  if (std::isinf(a) || a > f.max_finite) {
    if (f.ieee_special) return sign | (exp_max << f.mant_bits);
    a = f.max_finite;  // saturate
  }
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);
  const int exponent = e - 1;
  if (exponent < emin) {  // subnormal
    return sign | static_cast<uint64_t>(std::ldexp(a, f.mant_bits - emin));
  }
  const uint64_t mant =
      static_cast<uint64_t>(std::ldexp(std::ldexp(a, -exponent) - 1.0, f.mant_bits));
  return sign | (uint64_t(exponent + f.bias) << f.mant_bits) | mant;
}

uint64_t mask(uint32_t bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

int64_t sign_extend(uint64_t code, uint32_t bits) {
  const uint64_t m = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>(((code & mask(bits)) ^ m) - m);
}

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

}  // namespace

const char* tile_elem_name(TileElem e) { return elem_info(e).name; }

uint32_t tile_elem_bits(TileElem e) { return elem_info(e).bits; }

TileElem tile_elem_named(const std::string& name) {
  for (unsigned e = 0; e < sizeof(kElems) / sizeof(kElems[0]); ++e)
    if (name == kElems[e].name) return static_cast<TileElem>(e);
  throw Error("unknown tensor element format '" + name + "'");
}

bool tile_elem_is_integer(TileElem e) {
  return e == TileElem::s8 || e == TileElem::s4 || e == TileElem::s32;
}

double tile_decode(TileElem e, uint64_t code) {
  if (tile_elem_is_integer(e)) return double(sign_extend(code, tile_elem_bits(e)));
  switch (e) {
    case TileElem::f64: return std::bit_cast<double>(code);
    case TileElem::tf32: return decode_float(float_format(e), (code & 0xffffffffu) >> kTf32Shift);
    default: {  // the format's own bits (fp6 and fp4: the low bits of their 8-bit container)
      const FloatFormat& f = float_format(e);
      return decode_float(f, code & mask(1 + f.exp_bits + f.mant_bits));
    }
  }
}

uint64_t tile_encode(TileElem e, double value) {
  if (tile_elem_is_integer(e))
    return static_cast<uint64_t>(static_cast<int64_t>(std::llround(value))) & mask(tile_elem_bits(e));
  switch (e) {
    case TileElem::f64: return std::bit_cast<uint64_t>(value);
    case TileElem::tf32: return encode_float(float_format(e), value) << kTf32Shift;
    default: return encode_float(float_format(e), value);
  }
}

uint64_t tile_negate(TileElem e, uint64_t code) {
  const uint32_t bits = tile_elem_bits(e);
  if (tile_elem_is_integer(e)) return (~code + 1) & mask(bits);
  if (e == TileElem::tf32 || e == TileElem::f32) return (code ^ 0x80000000u) & mask(32);
  if (e == TileElem::f64) return code ^ (uint64_t{1} << 63);
  const FloatFormat& f = float_format(e);
  return (code ^ (uint64_t{1} << (f.exp_bits + f.mant_bits))) & mask(bits);
}

uint64_t tile_random(TileElem e, std::mt19937_64& rng) {
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  switch (e) {
    // Integers over a power of two, with at most the format's significant bits: exact.
    case TileElem::f16: return tile_encode(e, double(uniform(-512, 512)) / 256);
    case TileElem::bf16: return tile_encode(e, double(uniform(-128, 128)) / 64);
    case TileElem::tf32: return tile_encode(e, double(uniform(-2048, 2048)) / 1024);
    case TileElem::f32: return tile_encode(e, double(uniform(-65536, 65536)) / 16384);
    case TileElem::f64:
      return tile_encode(e, std::uniform_real_distribution<double>(-2.0, 2.0)(rng));
    case TileElem::s8: return tile_encode(e, double(uniform(-127, 127)));
    case TileElem::s4: return tile_encode(e, double(uniform(-7, 7)));
    case TileElem::s32: return tile_encode(e, double(uniform(-(1 << 20), 1 << 20)));
    default: {
      // Small-format floats: any finite code whose magnitude is at most 4 (or the format's
      // largest value): a random sign, exponent and mantissa, drawn until one fits.
      const FloatFormat& f = float_format(e);
      const uint32_t bits = 1 + f.exp_bits + f.mant_bits;
      for (;;) {
        const uint64_t code = static_cast<uint64_t>(uniform(0, int64_t(mask(bits))));
        const double v = tile_decode(e, code);
        if (std::isfinite(v) && std::fabs(v) <= 4.0) return code;
      }
    }
  }
}

uint64_t tile_get(const uint32_t* words, uint32_t index, uint32_t bits) {
  if (bits == 64) return uint64_t(words[2 * index]) | (uint64_t(words[2 * index + 1]) << 32);
  const uint32_t per_word = 32 / bits;
  const uint32_t shift = (index % per_word) * bits;
  return (words[index / per_word] >> shift) & mask(bits);
}

void tile_set(uint32_t* words, uint32_t index, uint32_t bits, uint64_t code) {
  if (bits == 64) {
    words[2 * index] = static_cast<uint32_t>(code);
    words[2 * index + 1] = static_cast<uint32_t>(code >> 32);
    return;
  }
  const uint32_t per_word = 32 / bits;
  const uint32_t shift = (index % per_word) * bits;
  uint32_t& w = words[index / per_word];
  w = static_cast<uint32_t>((w & ~(mask(bits) << shift)) | ((code & mask(bits)) << shift));
}

void image_put_bits(std::vector<uint32_t>& words, size_t bit, uint64_t code, uint32_t bits) {
  for (uint32_t i = 0; i < bits; ++i) {
    const size_t at = bit + i;
    words[at / 32] |= static_cast<uint32_t>((code >> i) & 1) << (at % 32);
  }
}

void image_put_bytes(std::vector<uint32_t>& words, size_t offset, uint64_t code, uint32_t bytes) {
  image_put_bits(words, offset * 8, code, bytes * 8);
}

double ue8m0_decode(uint32_t code) {
  code &= 0xff;
  return code == 0xff ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, int(code) - 127);
}

double ue4m3_decode(uint32_t code) { return decode_float(float_format(TileElem::e4m3), code & 0x7f); }

uint32_t ue4m3_encode(double value) {
  if (!(value >= 0)) throw Error("ue4m3 holds non-negative values only");
  return static_cast<uint32_t>(encode_float(float_format(TileElem::e4m3), value));
}

std::vector<double> tile_reference(const TileShape& s, const std::vector<double>& a,
                                   const std::vector<double>& b, const std::vector<double>& c) {
  if (a.size() != size_t(s.m) * s.k || b.size() != size_t(s.k) * s.n || c.size() != size_t(s.m) * s.n)
    throw Error("tile reference: operand sizes do not match the shape");
  std::vector<double> d(size_t(s.m) * s.n);
  for (uint32_t i = 0; i < s.m; ++i)
    for (uint32_t j = 0; j < s.n; ++j) {
      double sum = c[size_t(i) * s.n + j];
      for (uint32_t kk = 0; kk < s.k; ++kk) sum += a[size_t(i) * s.k + kk] * b[size_t(kk) * s.n + j];
      d[size_t(i) * s.n + j] = sum;
    }
  return d;
}

double tile_tolerance_rel(TileElem input, TileElem accumulator) {
  if (tile_elem_is_integer(input) && tile_elem_is_integer(accumulator)) return 0;
  if (accumulator == TileElem::f64) return 1e-12;
  if (accumulator == TileElem::f16) return 4e-3;
  switch (input) {
    case TileElem::e4m3:
    case TileElem::e5m2:
    case TileElem::e2m1:
    case TileElem::e3m2:
    case TileElem::e2m3: return 1e-3;
    default: return 1e-4;
  }
}

TileCheck check_tile(const TileShape& s, const std::vector<double>& a, const std::vector<double>& b,
                     const std::vector<double>& c, const std::vector<double>& got, TileElem input,
                     TileElem accumulator, const TileLayout& layout) {
  const std::vector<double> want = tile_reference(s, a, b, c);
  if (got.size() != want.size()) throw Error("tile check: the result has the wrong size");
  TileCheck r;
  r.elements = static_cast<uint32_t>(want.size());
  r.tolerance_rel = tile_tolerance_rel(input, accumulator);
  for (uint32_t i = 0; i < s.m; ++i)
    for (uint32_t j = 0; j < s.n; ++j) {
      const size_t at = size_t(i) * s.n + j;
      double scale = std::fabs(c[at]);
      for (uint32_t kk = 0; kk < s.k; ++kk)
        scale += std::fabs(a[size_t(i) * s.k + kk] * b[size_t(kk) * s.n + j]);
      const double err = std::fabs(got[at] - want[at]);
      const double allowed = r.tolerance_rel * scale;
      if (std::isnan(err)) r.max_abs_error = err;
      else if (!std::isnan(r.max_abs_error)) r.max_abs_error = std::max(r.max_abs_error, err);
      if (!(err <= allowed) && r.passed) {
        r.passed = false;
        r.why = "D[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + num(got[at]) +
                ", the float64 reference is " + num(want[at]) + " (allowed error " + num(allowed) +
                " = " + num(r.tolerance_rel) + " x sum of |terms| " + num(scale) + ")";
      }
    }
  if (!r.passed) r.diagnosis = diagnose_tile(s, a, b, c, got, input, accumulator, layout);
  return r;
}

}  // namespace gpuprobe::probes::tensor
