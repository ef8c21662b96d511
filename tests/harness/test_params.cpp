#include <catch2/catch.hpp>

#include "harness/error.hpp"
#include "harness/launch_config.hpp"
#include "harness/params.hpp"
#include "harness/probe.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using K = ParamSpec::Kind;

namespace {
const std::vector<ParamSpec> specs = {
    {"count", K::integer, "4", "", {}},
    {"size-bytes", K::bytes, "1K", "", {}},
    {"ratio", K::real, "0.5", "", {}},
    {"op", K::choice, "ca", "", {"ca", "cg"}},
    {"strides-bytes", K::list, "8,16", "", {}},
};
}

TEST_CASE("sizes take binary units", "[params]") {
  CHECK(parse_bytes("4096") == 4096);
  CHECK(parse_bytes("64K") == 65536);
  CHECK(parse_bytes("2MiB") == 2097152);
  CHECK(parse_bytes("1.5G") == 1610612736);
  CHECK(parse_bytes("8B") == 8);
  CHECK_THROWS_WITH(parse_bytes("12Q"), Catch::Contains("unknown unit"));
  CHECK_THROWS_AS(parse_bytes("K"), Error);
  CHECK_THROWS_WITH(parse_bytes("0.3K"), Catch::Contains("not a whole number"));  // 307.2 bytes
  // Whole, but past what a size holds: said so, not "not a whole number".
  CHECK_THROWS_WITH(parse_bytes("18446744073709551616"), Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_bytes("17179869184G"), Catch::Contains("too large"));
}

TEST_CASE("defaults, overrides and one-line errors", "[params]") {
  const auto d = Params::parse(specs, {});
  CHECK(d.get_u64("count") == 4);
  CHECK(d.get_u64("size-bytes") == 1024);
  CHECK(d.get_real("ratio") == 0.5);
  CHECK(d.get_text("op") == "ca");
  CHECK(d.get_u64_list("strides-bytes") == std::vector<uint64_t>{8, 16});

  const auto o = Params::parse(specs, {{"count", "9"}, {"op", "cg"}, {"strides-bytes", "1K,2K"}});
  CHECK(o.get_u64("count") == 9);
  CHECK(o.get_text("op") == "cg");
  CHECK(o.get_u64_list("strides-bytes") == std::vector<uint64_t>{1024, 2048});
  CHECK(o.to_json()["count"] == "9");

  CHECK_THROWS_WITH(Params::parse(specs, {{"nope", "1"}}),
                    Catch::Contains("unknown parameter --nope") && Catch::Contains("--count"));
  CHECK_THROWS_WITH(Params::parse(specs, {{"count", "-3"}}), Catch::Contains("non-negative integer"));
  CHECK_THROWS_WITH(Params::parse(specs, {{"ratio", "x"}}), Catch::Contains("expected a decimal number"));
  CHECK_THROWS_WITH(Params::parse(specs, {{"op", "zz"}}), Catch::Contains("one of ca, cg"));
  CHECK_THROWS_WITH(Params::parse(specs, {{"strides-bytes", "8,,16"}}), Catch::Contains("list"));
}

TEST_CASE("an sm parameter takes an SM number, any or all, and nothing else", "[params]") {
  const std::vector<ParamSpec> specs = {{"sm", ParamSpec::Kind::sm, "0", "the SM", {}}};
  CHECK(Params::parse(specs, {}).get_sm("sm") == 0);
  CHECK(Params::parse(specs, {{"sm", "17"}}).get_sm("sm") == 17);
  CHECK(Params::parse(specs, {{"sm", "any"}}).get_sm("sm") == kAnySm);
  CHECK(Params::parse(specs, {{"sm", "all"}}).get_sm("sm") == Params::kSmAll);
  for (const char* bad : {"-1", "some", "3x", ""}) {
    INFO(bad);
    CHECK_THROWS_WITH(Params::parse(specs, {{"sm", bad}}),
                      Catch::Contains("expected an SM number, any or all"));
  }
  // Beyond any GPU: the message says what an SM number is.
  CHECK_THROWS_WITH(Params::parse(specs, {{"sm", "99999"}}),
                    Catch::Contains("0 to the device's SM count - 1, at most 1023"));
}

TEST_CASE("every value is checked by its kind, with or without a maximum", "[params]") {
  const std::vector<ParamSpec> specs = {
      {"near-bytes", K::bytes, "0", "", {}},  // no maximum: still a size
      {"region-us", K::real, "0", "", {}, 3600},
      {"hops", K::integer, "4096", "", {}, 1 << 20, 32, 32},
      {"bytes", K::list, "64K,80K", "", {}, 8, 16, 16},
      {"nodes", K::list, "1,2", "", {}, 8, 1},
  };
  CHECK(Params::parse(specs, {{"near-bytes", "2M"}}).get_u64("near-bytes") == 2u << 20);
  for (const char* bad :
       {"abc", "", "-1", "nan", "1e30", "18446744073709551616", "1.5", "0x10", " 7", "7 "}) {
    INFO("'" << bad << "'");
    CHECK_THROWS_WITH(Params::parse(specs, {{"near-bytes", bad}}), Catch::StartsWith("bad value '"));
  }
  // A real is a decimal number: no hex, no blanks, nothing strtod would also take; within its maximum.
  CHECK(Params::parse(specs, {{"region-us", "1.5e2"}}).get_real("region-us") == 150);
  for (const char* bad : {"0x10", " 7", "7 ", "inf", "nan", "1e400", "-1", "3601", "1,5"}) {
    INFO("'" << bad << "'");
    CHECK_THROWS_WITH(Params::parse(specs, {{"region-us", bad}}), Catch::Contains("--region-us"));
  }
  // min and multiple: for a number, and for each entry of a list.
  CHECK_THROWS_WITH(Params::parse(specs, {{"hops", "0"}}), Catch::Contains("at least 32"));
  CHECK_THROWS_WITH(Params::parse(specs, {{"hops", "33"}}), Catch::Contains("a multiple of 32"));
  CHECK(Params::parse(specs, {{"hops", "64"}}).get_u64("hops") == 64);
  CHECK_THROWS_WITH(Params::parse(specs, {{"bytes", "64K,65"}}),
                    Catch::Contains("entry '65' must be a multiple of 16"));
  CHECK_THROWS_WITH(Params::parse(specs, {{"nodes", "0,1"}}),
                    Catch::Contains("entry '0' must be at least 1"));
  // An entry given twice would be one point measured twice.
  CHECK_THROWS_WITH(Params::parse(specs, {{"nodes", "3,3"}}), Catch::Contains("entry '3' is given twice"));
  CHECK_THROWS_WITH(Params::parse(specs, {{"bytes", "64K,65536"}}), Catch::Contains("given twice"));
}

TEST_CASE("every registered probe's parameters refuse garbage when parsed, before a device opens",
          "[params]") {
  // What the hostile fuzz gave every parameter (docs: README "Limits"): each a one-line error from
  // Params::parse, which the command line runs before it opens the device.
  for (const ProbeSpec& probe : probe_registry()) {
    for (const ParamSpec& spec : probe.params) {
      if (spec.kind == K::choice) continue;  // a choice refuses what is not one of them
      // Its default parses (and, for a list, has no entry twice).
      CHECK_NOTHROW(Params::parse(probe.params, {{spec.name, spec.default_value}}));
      for (const char* bad : {"abc", "", "-1", "nan", "0x10", " 7", "1,,2"}) {
        INFO(probe.id << " --" << spec.name << " '" << bad << "'");
        CHECK_THROWS_AS(Params::parse(probe.params, {{spec.name, bad}}), Error);
      }
    }
  }
}

}  // namespace GPUPROBE_TEST_FILE
