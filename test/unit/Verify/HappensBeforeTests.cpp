//===- HappensBeforeTests.cpp - the concrete interpreter's clocks ---------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The happens-before model that the concrete interpreter checks sm_90a
// kernels with (HappensBefore.h): mbarrier phases counted as the hardware
// counts them, and the ordering of accesses by vector clocks.
//
//===----------------------------------------------------------------------===//

#include "HappensBefore.h"

#include <catch2/catch.hpp>

using namespace argus::sim;

namespace {

VectorClock clockWith(size_t c, uint64_t t) {
  VectorClock v;
  v.raise(c, t);
  return v;
}

Access accessOf(int64_t lo, int64_t hi, uint64_t time) {
  Access a;
  a.lo = lo;
  a.hi = hi;
  a.done = std::make_shared<Completion>(Completion{time});
  return a;
}

AgentClock agentOf(int64_t lo, int64_t hi, uint64_t now) {
  AgentClock a;
  a.lo = lo;
  a.hi = hi;
  a.now = now;
  return a;
}

} // namespace

TEST_CASE("a wait passes once the phase of its parity completed",
          "[happens-before]") {
  MBarrierSlot s(2, 9);
  // A fresh barrier counts as having completed the phase before its first.
  CHECK(s.passes(1));
  CHECK(!s.passes(0));
  CHECK(!s.arrive(clockWith(0, 3)));
  CHECK(!s.passes(0));
  CHECK(s.arrive(clockWith(1, 4)));
  CHECK(s.completed == 1);
  CHECK(s.passes(0));
  CHECK(!s.passes(1));
  // The completed phase releases both arrivals and its own component.
  CHECK(s.last.get(0) == 3);
  CHECK(s.last.get(1) == 4);
  CHECK(s.last.get(9) == 1);
  CHECK(s.pending == 2);
}

TEST_CASE("transaction bytes complete a phase with its arrivals",
          "[happens-before]") {
  SECTION("bytes announced, then delivered in two copies") {
    MBarrierSlot s(1, 0);
    s.expect(100);
    CHECK(!s.arrive(VectorClock()));
    CHECK(s.land(60) == 1);
    CHECK(s.completed == 0);
    CHECK(s.land(40) == 1);
    CHECK(s.completed == 1);
  }
  SECTION("a copy landing before the announcement") {
    MBarrierSlot s(1, 0);
    CHECK(s.land(100) == 1);
    CHECK(s.tx == -100);
    s.expect(100);
    CHECK(s.arrive(VectorClock()));
    CHECK(s.completed == 1);
  }
  SECTION("too few bytes announced: the copy's rest lands in the next phase") {
    MBarrierSlot s(1, 0);
    s.expect(40);
    s.arrive(VectorClock());
    CHECK(s.land(60) == 2);
    CHECK(s.completed == 1);
    CHECK(s.tx == -20);
  }
  SECTION("too many bytes announced: the phase never completes") {
    MBarrierSlot s(1, 0);
    s.expect(120);
    s.arrive(VectorClock());
    s.land(100);
    CHECK(s.completed == 0);
    CHECK(!s.passes(0));
  }
}

TEST_CASE("an access is ordered before a thread that knows its completion",
          "[happens-before]") {
  AgentClock reader = agentOf(0, 2, 10);
  Access w = accessOf(3, 4, 5);
  CHECK(!orderedBefore(w, reader, 0));
  reader.know.raise(3, 4);
  CHECK(!orderedBefore(w, reader, 0));
  reader.know.raise(3, 5);
  CHECK(orderedBefore(w, reader, 0));
  CHECK(orderedBefore(w, reader, -1));
  // In flight: never ordered.
  w.done->time = kInFlight;
  CHECK(!orderedBefore(w, reader, 0));

  // The reader's own earlier access is in program order; another thread of
  // its agent needs a barrier.
  Access own = accessOf(1, 2, 7);
  CHECK(orderedBefore(own, reader, 1));
  CHECK(!orderedBefore(own, reader, 0));
  CHECK(!orderedBefore(own, reader, -1));
  reader.barrier();
  CHECK(orderedBefore(own, reader, 0));

  // A collective access (a warpgroup's wgmma) needs every thread's time.
  Access wg = accessOf(4, 6, 3);
  reader.know.raise(4, 3);
  CHECK(!orderedBefore(wg, reader, 0));
  reader.know.raise(5, 3);
  CHECK(orderedBefore(wg, reader, 0));
}

TEST_CASE("the async proxy sees a generic write after the writer's fence",
          "[happens-before]") {
  AgentClock issuer = agentOf(0, 1, 20);
  auto fences = std::make_shared<std::vector<uint64_t>>();
  Access w = accessOf(5, 6, 8);
  w.generic = true;
  w.fences = fences;
  issuer.know.raise(5, 12);
  CHECK(orderedBefore(w, issuer, 0));
  CHECK(!orderedBefore(w, issuer, 0, true)); // no fence at all
  fences->push_back(6);                      // a fence before the write
  CHECK(!orderedBefore(w, issuer, 0, true));
  fences->push_back(14); // after it, but the issuer knows only time 12
  CHECK(!orderedBefore(w, issuer, 0, true));
  issuer.know.raise(5, 14);
  CHECK(orderedBefore(w, issuer, 0, true));
}
