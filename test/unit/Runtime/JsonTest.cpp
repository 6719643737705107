//===- JsonTest.cpp - The runtime's JSON helpers over nlohmann ------------===//
#include "argus/runtime/Json.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>

using namespace argus::rt;

TEST_CASE("json round trip", "[json]") {
  const char *text = R"({"a": [1, -2, 3.5, 1e3, true, false, null],
    "s": "q\"\\\n\u00e9\ud83d\ude00", "o": {"big": 9007199254740993}})";
  Json j = parseJson(text);
  CHECK(j.at("a")[0].get<int64_t>() == 1);
  CHECK(j.at("a")[1].get<int64_t>() == -2);
  CHECK(j.at("a")[2].get<double>() == 3.5);
  CHECK(j.at("a")[3].get<double>() == 1000);
  CHECK(j.at("a")[6].is_null());
  CHECK(j.at("s").get<std::string>() == "q\"\\\n\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(j.at("o").at("big").get<int64_t>() == 9007199254740993ll);
  CHECK(parseJson(dumpJson(j)).dump() == j.dump());
  CHECK(parseJson(dumpJson(j, 2)).dump() == j.dump());
  CHECK(dumpJson(Json(0.1)) == "0.1");
  CHECK(dumpJson(Json(NAN)) == "null");
  CHECK(dumpJson(Json(3)) == "3");
}

TEST_CASE("json keeps 64-bit integers exact", "[json]") {
  Json j =
      parseJson(R"({"max": 18446744073709551615, "min": -9223372036854775808,
    "big": 9223372036854775807, "over": 18446744073709551616})");
  CHECK(j.at("max").get<uint64_t>() == UINT64_MAX);
  CHECK(j.at("min").get<int64_t>() == INT64_MIN);
  CHECK(j.at("big").get<int64_t>() == INT64_MAX);
  CHECK(j.at("over").is_number_float()); // beyond 64 bits: a double
  CHECK(dumpJson(j) ==
        R"({"max":18446744073709551615,)"
        R"("min":-9223372036854775808,"big":9223372036854775807,)"
        R"("over":1.8446744073709552e+19})");
}

TEST_CASE("json objects keep insertion order", "[json]") {
  Json j = Json::object();
  j["z"] = 1;
  j["a"] = 2;
  j["m"] = 3;
  j["z"] = 4; // an existing key keeps its place
  CHECK(j.dump() == R"({"z":4,"a":2,"m":3})");
  CHECK(parseJson(R"({"b": 1, "a": 2})").dump() == R"({"b":1,"a":2})");
}

TEST_CASE("json report layout keeps scalar arrays on one line", "[json]") {
  Json j = Json::object();
  j["samples"] = Json::array({1, 2.5, 3});
  j["empty"] = Json::array();
  j["rows"] = Json::array({Json::array({1, 2}), Json::object()});
  CHECK(dumpJson(j, 1) == "{\n"
                          " \"samples\": [1, 2.5, 3],\n"
                          " \"empty\": [],\n"
                          " \"rows\": [\n"
                          "  [1, 2],\n"
                          "  {}\n"
                          " ]\n"
                          "}");
  // Invalid UTF-8 (a file name) is replaced, not a reason to fail.
  CHECK(dumpJson(Json(std::string("a\xff"))) == "\"a\xef\xbf\xbd\"");
}

TEST_CASE("json errors carry positions", "[json]") {
  for (const char *bad : {"", "{", "[1,]", "{\"a\" 1}", "tru", "\"abc",
                          "{\"a\":1,\"a\":2}", "1 2", "01x", "-"}) {
    INFO(bad);
    CHECK_THROWS_AS(parseJson(bad), JsonParseError);
  }
  try {
    parseJson("{\n  \"a\": ?\n}");
    FAIL("no throw");
  } catch (const JsonParseError &e) {
    CHECK(e.line == 2);
    CHECK(e.col == 8);
    CHECK(std::string(e.what()).rfind("JSON parse error at line 2, column 8: ",
                                      0) == 0);
  }
  try {
    parseJson("{\"a\": 1,\n \"a\": 2}");
    FAIL("no throw");
  } catch (const JsonParseError &e) {
    CHECK(e.line == 2);
    CHECK(std::string(e.what()).find("duplicate key 'a'") != std::string::npos);
  }
  std::string deep(300, '[');
  CHECK_THROWS_WITH(parseJson(deep), Catch::Contains("nesting too deep"));
}

TEST_CASE("spec paths as JSON pointers", "[json]") {
  CHECK(jsonPointerOf("$") == "");
  CHECK(jsonPointerOf("$.args[3].value") == "/args/3/value");
  CHECK(jsonPointerOf("$.probes.regions.one") == "/probes/regions/one");
  CHECK(jsonPointerOf("$.check.A") == "/check/A");
  CHECK(memberPath("$", "warm_up") == "$.warm_up");
  CHECK(memberPath("$.probes.regions", "a.b/c~d") ==
        "$.probes.regions[\"a.b/c~d\"]");
  CHECK(jsonPointerOf(memberPath("$.probes.regions", "a.b/c~d")) ==
        "/probes/regions/a.b~1c~0d");
  CHECK(jsonPointerOf(memberPath("$", "q\"]x")) == "/q\"]x");
  CHECK(findMember(parseJson(R"({"a": 1})"), "a")->get<int>() == 1);
  CHECK(findMember(parseJson(R"({"a": 1})"), "b") == nullptr);
  CHECK(findMember(parseJson("[1]"), "a") == nullptr);
}
