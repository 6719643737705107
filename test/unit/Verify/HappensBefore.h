//===- HappensBefore.h - clocks and mbarrier phases for the sim -*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The happens-before model of the concrete interpreter's asynchronous
// constructs (sm_90a), independent of the verifier's: every thread of the
// simulated blocks is a component of a vector clock, and so is every
// mbarrier slot (the async proxy's bulk copies that complete on it). An
// access of shared memory is ordered before a thread's later access when the
// thread's clock has reached the access's completion time on every
// component that made it. mbarrier phases are counted as the hardware
// counts them: pending arrivals and a transaction count, a phase completing
// when both reach zero, a wait passing when the phase of its parity is the
// last completed one (a fresh barrier counts as having completed the phase
// before its first).
//
// Plain C++: no MLIR, no Z3.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_TEST_HAPPENSBEFORE_H
#define ARGUS_TEST_HAPPENSBEFORE_H

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace argus::sim {

constexpr uint64_t kInFlight = std::numeric_limits<uint64_t>::max();

/// One clock value per component (missing components are 0).
class VectorClock {
public:
  uint64_t get(size_t c) const { return c < v.size() ? v[c] : 0; }
  void raise(size_t c, uint64_t t) {
    if (c >= v.size())
      v.resize(c + 1, 0);
    if (t > v[c])
      v[c] = t;
  }
  void join(const VectorClock &o) {
    for (size_t c = 0; c < o.v.size(); ++c)
      raise(c, o.v[c]);
  }

private:
  std::vector<uint64_t> v;
};

/// When an access is complete, on the clock of each component that made it:
/// kInFlight until an asynchronous access retires.
struct Completion {
  uint64_t time = kInFlight;
};

/// An access of a shared-memory cell by components [lo, hi): one thread, a
/// warpgroup's wgmma, or the async proxy of one mbarrier slot (a bulk copy).
struct Access {
  int64_t lo = 0, hi = 0;
  std::shared_ptr<Completion> done;
  /// A write by the generic proxy (a store or copy by threads): read by the
  /// async proxy only after the writers' proxy fence. `fences` is the list
  /// of the writing agent's fence times.
  bool generic = false;
  std::shared_ptr<const std::vector<uint64_t>> fences;
};

/// The clock of an agent: threads [lo, hi) that run in lockstep (one role of
/// one block). `know` is what every thread of the agent has acquired; a
/// thread's own component is the agent's `now`.
struct AgentClock {
  int64_t lo = 0, hi = 0;
  uint64_t now = 1;
  VectorClock know;

  /// The clock thread `t` releases: what it knows and its own time.
  VectorClock release(int64_t t) const {
    VectorClock r = know;
    r.raise(t, now);
    return r;
  }
  /// A barrier of the agent's threads: each knows every other's time.
  void barrier() {
    for (int64_t u = lo; u < hi; ++u)
      know.raise(u, now);
  }
};

/// Whether `a` is ordered before the current op of reader thread `t` (t < 0:
/// of every thread of the agent). With `fenced`, a generic write must also
/// be followed by a fence of its writers that the reader knows of (a read
/// by the async proxy).
bool orderedBefore(const Access &a, const AgentClock &reader, int64_t t,
                   bool fenced = false);

/// One slot of an mbarrier: the phase in progress and the clock of the last
/// completed phase.
struct MBarrierSlot {
  int64_t count = 1;      // arrivals per phase
  int64_t pending = 1;    // arrivals still missing in the phase in progress
  int64_t tx = 0;         // transaction bytes still missing (may be negative)
  uint64_t completed = 0; // phases completed so far
  size_t component = 0;   // the async proxy's bulk copies on this slot
  VectorClock accumulated, last;

  explicit MBarrierSlot(int64_t arrivals = 1, size_t comp = 0)
      : count(arrivals), pending(arrivals), component(comp) {}

  /// A wait for `parity` passes when the last completed phase has it.
  bool passes(int64_t parity) const {
    return static_cast<int64_t>(completed % 2) != (parity & 1);
  }
  /// One arrival releasing `clock`; true when it completed the phase.
  bool arrive(const VectorClock &clock);
  /// Transaction bytes announced (expect_tx, with its arrival separately).
  void expect(int64_t bytes) { tx += bytes; }
  /// A bulk copy of `bytes` lands. Returns the phase number its data
  /// belongs to (completed + 1 of the phase it completes or joins). When the
  /// copy carries the count past zero, the phase completed before its last
  /// bytes landed: they belong to the next phase.
  uint64_t land(int64_t bytes);

private:
  void complete();
};

} // namespace argus::sim

#endif // ARGUS_TEST_HAPPENSBEFORE_H
