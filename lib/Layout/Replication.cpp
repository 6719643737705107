//===- Replication.cpp - which replica of a replicated layout writes ------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Layout/Replication.h"

#include <unordered_map>

using namespace argus::layout;

/// first[t * slots + v]: whether (t, v) is its element's first holder.
static std::vector<bool> firstHolders(const Layout &tv, int64_t &threads,
                                      int64_t &slots) {
  threads = tv.mode(0).size();
  slots = tv.rank() > 1 ? tv.mode(1).size() : 1;
  std::vector<bool> first(threads * slots, false);
  std::unordered_map<int64_t, bool> seen;
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t v = 0; v < slots; ++v)
      first[t * slots + v] = seen.emplace(tv(t + threads * v), true).second;
  return first;
}

bool argus::layout::isReplicated(const Layout &tv) {
  int64_t threads, slots;
  std::vector<bool> first = firstHolders(tv, threads, slots);
  for (bool f : first)
    if (!f)
      return true;
  return false;
}

std::optional<std::vector<int64_t>>
argus::layout::firstHolderMasks(const Layout &tv) {
  int64_t threads, slots;
  std::vector<bool> first = firstHolders(tv, threads, slots);
  int64_t bits = 1;
  while (bits < threads)
    bits <<= 1;
  std::vector<int64_t> masks(slots, 0);
  for (int64_t v = 0; v < slots; ++v) {
    // The writers' bits; the mask is every thread bit no writer sets.
    int64_t any = 0;
    for (int64_t t = 0; t < threads; ++t)
      if (first[t * slots + v])
        any |= t;
    int64_t m = (bits - 1) & ~any;
    for (int64_t t = 0; t < threads; ++t)
      if (first[t * slots + v] != ((t & m) == 0))
        return std::nullopt;
    masks[v] = m;
  }
  return masks;
}
