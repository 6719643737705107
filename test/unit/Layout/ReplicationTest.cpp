//===- ReplicationTest.cpp - first holders of replicated layouts ----------===//
//
// firstHolderMasks checked against its definition, over whole domains: the
// (thread, slot) pairs the masks select hold every element of the layout's
// image exactly once, and each is the least holder of its element.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "argus/Layout/Replication.h"

#include <map>

using namespace argus::layout;
using namespace argus::layout::test;

/// Checks the masks of `tv` against the brute-force first holders.
static void checkMasks(const Layout &tv) {
  INFO(tv.str());
  auto masks = firstHolderMasks(tv);
  REQUIRE(masks);
  int64_t T = tv.mode(0).size(), S = tv.mode(1).size();
  REQUIRE(int64_t(masks->size()) == S);
  std::map<int64_t, std::pair<int64_t, int64_t>> first;
  std::map<int64_t, int> writes;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t v = 0; v < S; ++v) {
      int64_t e = tv(t + T * v);
      first.emplace(e, std::make_pair(t, v));
      if ((t & (*masks)[v]) == 0)
        ++writes[e];
    }
  for (auto &[e, tvp] : first) {
    CHECK(writes[e] == 1);
    CHECK(((tvp.first & (*masks)[tvp.second]) == 0));
  }
  CHECK(writes.size() == first.size());
}

TEST_CASE("first holders of replicated layouts", "[replication]") {
  // Row statistics of a wgmma C fragment over two warpgroups: the four
  // lanes of a quad hold each row.
  Layout rows = L("((4,8,4,2),2):((0,1,16,64),8)");
  CHECK(isReplicated(rows));
  checkMasks(rows);
  CHECK((*firstHolderMasks(rows))[0] == 3);
  // Replicated across warps and in the middle of the thread index.
  checkMasks(L("((2,4,2),4):((1,0,2),4)"));
  checkMasks(L("(64,4):(0,1)"));
  // Not replicated: all masks zero.
  Layout plain = L("((4,8),(2,2)):((32,1),(16,8))");
  CHECK(!isReplicated(plain));
  auto plainMasks = firstHolderMasks(plain);
  REQUIRE(plainMasks);
  for (int64_t m : *plainMasks)
    CHECK(m == 0);
}

TEST_CASE("replication within a thread's slots", "[replication]") {
  // Slot 1 repeats slot 0 in every thread: slot 1 never writes, which no
  // thread mask can say; reported as nullopt.
  Layout twice = L("(32,2):(1,0)");
  CHECK(isReplicated(twice));
  CHECK(!firstHolderMasks(twice));
}
