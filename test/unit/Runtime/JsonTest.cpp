//===- JsonTest.cpp - JSON parser and writer ------------------------------===//
#include "argus/runtime/Json.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace argus::rt;

TEST_CASE("json round trip", "[json]") {
  const char *text = R"({"a": [1, -2, 3.5, 1e3, true, false, null],
    "s": "q\"\\\n\u00e9\ud83d\ude00", "o": {"big": 9007199254740993}})";
  Json j = Json::parse(text);
  CHECK(j.find("a")->asArray()[0].asInt() == 1);
  CHECK(j.find("a")->asArray()[1].asInt() == -2);
  CHECK(j.find("a")->asArray()[2].asDouble() == 3.5);
  CHECK(j.find("a")->asArray()[3].asDouble() == 1000);
  CHECK(j.find("a")->asArray()[6].isNull());
  CHECK(j.find("s")->asString() == "q\"\\\n\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(j.find("o")->find("big")->asInt() == 9007199254740993ll);
  CHECK(Json::parse(j.dump()).dump() == j.dump());
  CHECK(Json::parse(j.dump(2)).dump() == j.dump());
  CHECK(jsonNumber(0.1) == "0.1");
  CHECK(jsonNumber(NAN) == "null");
  CHECK(jsonNumber(3) == "3");
}

TEST_CASE("json errors carry positions", "[json]") {
  for (const char *bad : {"", "{", "[1,]", "{\"a\" 1}", "tru", "\"abc",
                          "{\"a\":1,\"a\":2}", "1 2", "01x", "-"}) {
    INFO(bad);
    CHECK_THROWS_AS(Json::parse(bad), JsonParseError);
  }
  try {
    Json::parse("{\n  \"a\": ?\n}");
    FAIL("no throw");
  } catch (const JsonParseError &e) {
    CHECK(e.line == 2);
    CHECK(e.col == 8);
  }
}
