//===- HappensBefore.cpp - vector clocks and mbarrier phases for the sim --===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "HappensBefore.h"

#include <algorithm>

namespace argus::sim {

bool orderedBefore(const Access &a, const AgentClock &reader, int64_t t,
                   bool fenced) {
  uint64_t time = a.done ? a.done->time : kInFlight;
  if (time == kInFlight)
    return false;
  if (fenced && a.generic) {
    // The writers' first fence after the write: the async proxy sees the
    // write once the reader knows of that fence.
    if (!a.fences)
      return false;
    auto f = std::upper_bound(a.fences->begin(), a.fences->end(), time);
    if (f == a.fences->end())
      return false;
    time = *f;
  }
  bool single = reader.hi - reader.lo == 1;
  for (int64_t u = a.lo; u < a.hi; ++u) {
    // Program order: the reader thread's own earlier (completed) access.
    if (t >= 0 ? u == t : (single && u == reader.lo))
      continue;
    if (reader.know.get(u) < time)
      return false;
  }
  return true;
}

void MBarrierSlot::complete() {
  ++completed;
  last = accumulated;
  last.raise(component, completed);
  accumulated = VectorClock();
  pending = count;
}

bool MBarrierSlot::arrive(const VectorClock &clock) {
  accumulated.join(clock);
  --pending;
  if (pending == 0 && tx == 0) {
    complete();
    return true;
  }
  return false;
}

uint64_t MBarrierSlot::land(int64_t bytes) {
  if (pending == 0 && tx > 0 && tx < bytes) {
    // The announced bytes ran out inside this copy: the phase completes
    // and the rest of the copy lands in the next one.
    complete();
    tx -= bytes;
    return completed + 1;
  }
  tx -= bytes;
  uint64_t phase = completed + 1;
  if (pending == 0 && tx == 0)
    complete();
  return phase;
}

} // namespace argus::sim
