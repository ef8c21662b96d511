#include <catch2/catch.hpp>

#include "harness/error.hpp"
#include "harness/launch_config.hpp"
#include "harness/params.hpp"

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
  CHECK_THROWS_AS(parse_bytes("0.3K"), Error);  // 307.2 bytes
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
  CHECK_THROWS_WITH(Params::parse(specs, {{"ratio", "x"}}), Catch::Contains("expected a number"));
  CHECK_THROWS_WITH(Params::parse(specs, {{"op", "zz"}}), Catch::Contains("one of ca, cg"));
  CHECK_THROWS_WITH(Params::parse(specs, {{"strides-bytes", "8,,16"}}), Catch::Contains("list"));
}

TEST_CASE("an sm parameter takes an SM number, any or all, and nothing else", "[params]") {
  const std::vector<ParamSpec> specs = {{"sm", ParamSpec::Kind::sm, "0", "the SM", {}}};
  CHECK(Params::parse(specs, {}).get_sm("sm") == 0);
  CHECK(Params::parse(specs, {{"sm", "17"}}).get_sm("sm") == 17);
  CHECK(Params::parse(specs, {{"sm", "any"}}).get_sm("sm") == kAnySm);
  CHECK(Params::parse(specs, {{"sm", "all"}}).get_sm("sm") == Params::kSmAll);
  for (const char* bad : {"-1", "some", "3x", "5000", ""}) {
    INFO(bad);
    CHECK_THROWS_WITH(Params::parse(specs, {{"sm", bad}}),
                      Catch::Contains("expected an SM number, any or all"));
  }
}

}  // namespace GPUPROBE_TEST_FILE
