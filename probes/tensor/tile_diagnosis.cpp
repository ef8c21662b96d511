#include "probes/tensor/tile_diagnosis.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

#include "harness/error.hpp"
#include "harness/self_check.hpp"

namespace gpuprobe::probes::tensor {
namespace {

// A tile as a correct MMA computes it, and each element's scale (|c| + sum |a b|: the check's
// tolerance is relative to it).
struct Expected {
  std::vector<double> want, scale;
};

Expected expected(const TileShape& s, const std::vector<double>& a, const std::vector<double>& b,
                  const std::vector<double>& c) {
  Expected e{tile_reference(s, a, b, c), std::vector<double>(size_t(s.m) * s.n, 0.0)};
  for (uint32_t i = 0; i < s.m; ++i)
    for (uint32_t j = 0; j < s.n; ++j) {
      double scale = std::fabs(c[size_t(i) * s.n + j]);
      for (uint32_t kk = 0; kk < s.k; ++kk)
        scale += std::fabs(a[size_t(i) * s.k + kk] * b[size_t(kk) * s.n + j]);
      e.scale[size_t(i) * s.n + j] = scale;
    }
  return e;
}

// `e` with element f taken from element from(f).
template <class From>
Expected moved(const Expected& e, From&& from) {
  Expected out = e;
  for (size_t f = 0; f < e.want.size(); ++f) {
    out.want[f] = e.want[from(f)];
    out.scale[f] = e.scale[from(f)];
  }
  return out;
}

// A rows x cols matrix (row-major) with element (r, q) taken from from(r, q) (nullopt: 0).
template <class From>
std::vector<double> remapped(const std::vector<double>& x, uint32_t rows, uint32_t cols, From&& from) {
  std::vector<double> out(x.size(), 0.0);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t q = 0; q < cols; ++q)
      if (const auto at = from(r, q)) out[size_t(r) * cols + q] = x[size_t(at->first) * cols + at->second];
  return out;
}

std::vector<double> transposed(const std::vector<double>& x, uint32_t rows, uint32_t cols) {
  std::vector<double> out(x.size());
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t q = 0; q < cols; ++q) out[size_t(q) * rows + r] = x[size_t(r) * cols + q];
  return out;
}

using At = std::optional<std::pair<uint32_t, uint32_t>>;

// An operand of `rows` x `k` (K-major, as its shared-memory image holds it) read with the
// descriptor's LBO and SBO swapped: core matrix (g, h) (8 rows, 16 bytes of K) comes from the
// address the swapped offsets give, which holds the core matrix the true offsets put there (none:
// 0).
std::vector<double> lbo_sbo_swapped(const std::vector<double>& x, uint32_t rows, uint32_t k, uint32_t bits,
                                    const TileLayout& l) {
  const uint32_t per_core = 128 / bits;  // elements in 16 bytes
  std::map<uint64_t, std::pair<uint32_t, uint32_t>> core_at;
  for (uint32_t g = 0; g < rows / 8; ++g)
    for (uint32_t h = 0; h < k / per_core; ++h)
      core_at[uint64_t(g) * l.sbo_bytes + uint64_t(h) * l.lbo_bytes] = {g, h};
  return remapped(x, rows, k, [&](uint32_t r, uint32_t q) -> At {
    const uint32_t g = r / 8, h = q / per_core;
    const auto it = core_at.find(uint64_t(g) * l.lbo_bytes + uint64_t(h) * l.sbo_bytes);
    if (it == core_at.end()) return std::nullopt;
    return std::make_pair(it->second.first * 8 + r % 8, it->second.second * per_core + q % per_core);
  });
}

const std::vector<std::string> kErrors = {"transpose",        "rows_r_r8",  "k_half",    "half16_d",
                                          "half16_in",        "lbo_sbo_a",  "lbo_sbo_b", "peer_rows_zero",
                                          "peer_b_half_zero", "one_element"};

// The tile with `error`, as a correct MMA with that error computes it (and its scales).
Expected expected_with(const std::string& error, const TileShape& s, const std::vector<double>& a,
                       const std::vector<double>& b, const std::vector<double>& c, TileElem input,
                       TileElem accumulator, const TileLayout& layout) {
  if (const std::string why = tile_error_not_applicable(error, s, input, accumulator, layout); !why.empty())
    throw Error("tile error " + error + " does not apply: " + why);
  const uint32_t m = s.m, n = s.n, k = s.k;
  if (error == "transpose")  // got's row-major element f is want's column-major element f
    return moved(expected(s, a, b, c), [&](size_t f) { return (f % m) * n + f / m; });
  if (error == "rows_r_r8")
    return moved(expected(s, a, b, c), [&](size_t f) { return ((f / n) ^ 8) * n + f % n; });
  if (error == "half16_d") return moved(expected(s, a, b, c), [&](size_t f) { return f ^ 1; });
  // A's columns permuted is B's rows permuted alike (sum_k A[i][p(k)] B[k][j] = sum_k A[i][k] B[p(k)][j]
  // for an involution p): one error for both operands.
  if (error == "k_half" || error == "half16_in")
    return expected(s,
                    remapped(a, m, k,
                             [&](uint32_t r, uint32_t q) -> At {
                               return std::make_pair(r, error == "k_half" ? (q + k / 2) % k : q ^ 1);
                             }),
                    b, c);
  const uint32_t bits = tile_elem_bits(input);
  if (error == "lbo_sbo_a") return expected(s, lbo_sbo_swapped(a, m, k, bits, layout), b, c);
  if (error == "lbo_sbo_b")
    return expected(s, a, transposed(lbo_sbo_swapped(transposed(b, k, n), n, k, bits, layout), n, k), c);
  if (error == "peer_rows_zero") {
    Expected e = expected(s, a, b, c);
    for (size_t f = size_t(m / 2) * n; f < e.want.size(); ++f) e.want[f] = 0;
    return e;
  }
  if (error == "peer_b_half_zero")
    return expected(s, a,
                    remapped(b, k, n,
                             [&](uint32_t r, uint32_t q) -> At {
                               if (q >= n / 2) return std::nullopt;
                               return std::make_pair(r, q);
                             }),
                    c);
  // one_element
  Expected e = expected(s, a, b, c);
  e.want.back() += 1 + std::fabs(e.want.back());
  return e;
}

// The elements of `got` out of the tolerance of `e`, and the map of them.
size_t mismatches(const std::vector<double>& got, const Expected& e, double tolerance_rel,
                  std::vector<bool>* map = nullptr) {
  size_t bad = 0;
  for (size_t f = 0; f < got.size(); ++f) {
    const bool wrong = !(std::fabs(got[f] - e.want[f]) <= tolerance_rel * e.scale[f]);
    bad += wrong;
    if (map) (*map)[f] = wrong;
  }
  return bad;
}

nlohmann::json rows_of(const std::vector<double>& x, uint32_t m, uint32_t n) {
  nlohmann::json rows = nlohmann::json::array();
  for (uint32_t i = 0; i < m; ++i)
    rows.push_back(std::vector<double>(x.begin() + size_t(i) * n, x.begin() + size_t(i + 1) * n));
  return rows;
}

}  // namespace

const std::vector<std::string>& tile_errors() { return kErrors; }

std::string tile_error_not_applicable(const std::string& error, const TileShape& s, TileElem input,
                                      TileElem accumulator, const TileLayout& layout) {
  const uint32_t in_bits = tile_elem_bits(input), acc_bits = tile_elem_bits(accumulator);
  if (error == "transpose") return s.m > 1 && s.n > 1 ? "" : "D is one row or column";
  if (error == "rows_r_r8") return s.m % 16 == 0 ? "" : "D has no 16-row groups";
  if (error == "k_half") return s.k % 2 == 0 ? "" : "K is odd";
  if (error == "half16_d")
    return acc_bits != 16 ? "the accumulator is not 16-bit" : s.n % 2 != 0 ? "N is odd" : "";
  if (error == "half16_in")
    return in_bits != 16 ? "the inputs are not 16-bit" : s.k % 2 != 0 ? "K is odd" : "";
  if (error == "lbo_sbo_a" || error == "lbo_sbo_b") {
    const bool a = error == "lbo_sbo_a";
    if (!(a ? layout.a_by_descriptor : layout.b_by_descriptor))
      return std::string(a ? "A" : "B") + " is not read through a shared-memory descriptor";
    if (layout.lbo_bytes == 0 || layout.sbo_bytes == 0 || layout.lbo_bytes == layout.sbo_bytes)
      return "the descriptor's LBO and SBO are not two different offsets";
    if ((a ? s.m : s.n) % 8 != 0 || (uint64_t(s.k) * in_bits) % 128 != 0)
      return "the operand is not whole core matrices of 8 rows x 16 bytes";
    return "";
  }
  if (error == "peer_rows_zero") return s.m % 2 == 0 ? "" : "M is odd";
  if (error == "peer_b_half_zero") return s.n % 2 == 0 ? "" : "N is odd";
  if (error == "one_element") return "";
  std::string known;
  for (const std::string& e : kErrors) known += (known.empty() ? "" : ", ") + e;
  throw Error("unknown tile error '" + error + "' (known: " + known + ")");
}

std::vector<double> tile_with_error(const std::string& error, const TileShape& s,
                                    const std::vector<double>& a, const std::vector<double>& b,
                                    const std::vector<double>& c, TileElem input, TileElem accumulator,
                                    const TileLayout& layout) {
  return expected_with(error, s, a, b, c, input, accumulator, layout).want;
}

nlohmann::json diagnose_tile(const TileShape& s, const std::vector<double>& a, const std::vector<double>& b,
                             const std::vector<double>& c, const std::vector<double>& got, TileElem input,
                             TileElem accumulator, const TileLayout& layout) {
  const double tolerance = tile_tolerance_rel(input, accumulator);
  const Expected want = expected(s, a, b, c);
  std::vector<bool> map(got.size());
  const size_t bad = mismatches(got, want, tolerance, &map);
  nlohmann::json mismatch_map = nlohmann::json::array();
  for (uint32_t i = 0; i < s.m; ++i) {
    std::string row(s.n, '.');
    for (uint32_t j = 0; j < s.n; ++j)
      if (map[size_t(i) * s.n + j]) row[j] = 'X';
    mismatch_map.push_back(row);
  }
  nlohmann::json searched = nlohmann::json::array();
  nlohmann::json matches;  // null unless one error explains every element
  std::string closest;
  size_t closest_bad = bad;
  for (const std::string& error : kErrors) {
    if (error == "one_element") continue;
    if (const std::string why = tile_error_not_applicable(error, s, input, accumulator, layout);
        !why.empty()) {
      searched.push_back({{"error", error}, {"applies", false}, {"why", why}});
      continue;
    }
    const size_t left = mismatches(got, expected_with(error, s, a, b, c, input, accumulator, layout),
                                   tolerance);
    searched.push_back({{"error", error}, {"applies", true}, {"mismatches", left}, {"matches", left == 0}});
    if (left == 0 && matches.is_null()) matches = error;
    if (left < closest_bad) closest = error, closest_bad = left;
  }
  nlohmann::json d = {{"shape", {s.m, s.n, s.k}},
                      {"input", tile_elem_name(input)},
                      {"accumulator", tile_elem_name(accumulator)},
                      {"tolerance_rel", tolerance},
                      {"elements", got.size()},
                      {"mismatches", bad},
                      {"matches", matches},
                      {"searched", searched},
                      {"mismatch_map", mismatch_map},
                      {"got", rows_of(got, s.m, s.n)},
                      {"want", rows_of(want.want, s.m, s.n)}};
  if (matches.is_null() && !closest.empty()) d["closest"] = {{"error", closest}, {"mismatches", closest_bad}};
  return d;
}

void throw_tile_mismatch(const std::string& reason, const TileCheck& check,
                         const std::vector<uint32_t>& raw_words) {
  const nlohmann::json& d = check.diagnosis;
  nlohmann::json evidence = {{"elements", check.elements},
                             {"mismatches", d.value("mismatches", nlohmann::json())},
                             {"max_abs_error", check.max_abs_error},
                             {"first", check.why},
                             {"matches", d.value("matches", nlohmann::json())}};
  nlohmann::json detail = d.is_object() ? d : nlohmann::json::object();
  nlohmann::json words = nlohmann::json::array();
  for (uint32_t w : raw_words) {
    char text[11];
    std::snprintf(text, sizeof text, "0x%08x", w);
    words.push_back(text);
  }
  detail["raw_words"] = words;
  throw SelfCheckFailed(reason, evidence, detail);
}

}  // namespace gpuprobe::probes::tensor
