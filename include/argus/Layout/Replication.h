//===- Replication.h - which replica of a replicated layout writes --------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A thread-value layout (thread, slot) -> element may hold one element in
// several (thread, slot) pairs (stride-0 thread modes: row statistics held
// by the four lanes of a quad). A store of such a tile writes each element
// once, from its *first holder*: the least (thread, slot) in the order
// thread-major, slot-minor. The lowering and the verifier share this rule.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LAYOUT_REPLICATION_H
#define ARGUS_LAYOUT_REPLICATION_H

#include "argus/Layout/Layout.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace argus::layout {

/// For a rank-2 thread-value layout over `threads` x `slots`: per slot v, a
/// thread mask m_v such that (thread t, slot v) is the first holder of its
/// element exactly when (t & m_v) == 0. All zeros when no element is held
/// twice. nullopt when the first holders of some slot are not such a set
/// (replication that is not over bits of the thread index).
std::optional<std::vector<int64_t>> firstHolderMasks(const Layout &tv);

/// Whether some element is held by two (thread, slot) pairs.
bool isReplicated(const Layout &tv);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_REPLICATION_H
