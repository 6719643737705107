//===- CheckKinds.cpp - the table of the verifier's checks ----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Verify/CheckKinds.h"

namespace argus::verify {

static const CheckKind kKinds[] = {
    // Premises: what every other check rests on.
    {"assumptions", "premises",
     "the kernel's argus.assume preconditions, its launch bounds and the "
     "model's own limits are jointly satisfiable (no proof of the kernel is "
     "vacuous); the report keeps a satisfying launch",
     "argus.assume conditions over kernel arguments, tensor sizes, grid "
     "sizes and block ids; the ranges of ModelLimits.h"},
    {"argument-access", "premises",
     "every tensor argument declared argus.access = \"in\" is never written, "
     "every \"out\" one is written",
     "writes through the argument and every view, stage or loop-carried "
     "alias of it (WrittenArguments.h)"},
    // Tags.
    {"assert", "tags",
     "the argus.tag_assert predicate holds for every block, thread, slot "
     "and loop iteration",
     "tag transfer through every modelled op, memory through the latest "
     "writer, loop-carried tiles by induction (first iteration, then a step)"},
    {"view-tag", "tags",
     "a global view's tags agree with its offsets and logical coordinates",
     "argus.view offsets, argus.tag affine maps"},
    {"tensor-name", "tags",
     "view names and tensor arguments correspond one to one",
     "argus.view names and their memref operands"},
    // Memory.
    {"unwritten-read", "memory",
     "every shared-memory element read was written before, by a writer "
     "ordered before the read",
     "shared writes (copies, stores, bulk copies) and the recency chain"},
    {"unsynchronized-read", "memory",
     "the latest writer of every shared element read is ordered before the "
     "read by a barrier, a wait or an mbarrier phase",
     "argus.barrier, wait_group, mbarrier waits and proxy fences"},
    {"unsynchronized-write", "memory",
     "no shared write overwrites an element another thread may still read "
     "(write-after-read)",
     "barriers, waits and mbarrier phases between a read and the next write"},
    {"write-after-write", "memory",
     "two writes of one shared element by different threads are ordered",
     "barriers, waits and mbarrier phases"},
    {"non-injective-write", "memory",
     "no write op has two (thread, slot) pairs hitting one address",
     "the write's address layout (swizzles included)"},
    {"stage-out-of-range", "memory",
     "every argus.stage index is below the buffer's stage count",
     "index arithmetic of stage operands"},
    {"out-of-bounds", "memory",
     "every global access stays inside its tensor's sizes (clipped views "
     "masked)",
     "view offsets, tile shapes, tensor sizes, clip bounds, masks"},
    {"misaligned-vector", "memory",
     "global accesses moved as vectors are aligned to their width (NVIDIA)",
     "vector widths of the lowering's access layouts, tensor strides"},
    // Coverage.
    {"reduction-coverage", "coverage",
     "every reduced index is accumulated exactly once into each "
     "accumulator element",
     "mma / reduce k ranges, loop walks, loop-carried accumulators"},
    {"reduction-range", "coverage",
     "the range an argus.reduced declares is the one accumulated",
     "argus.reduced and the loop walks reduction-coverage proves"},
    {"output-once", "coverage",
     "no element of an output tensor is written twice",
     "global stores and bulk stores, their views and the grid"},
    {"output-coverage", "coverage",
     "every element of an output tensor is written",
     "global stores and bulk stores, their views and the grid"},
    {"atomic-race", "coverage",
     "no plain access races with an atomic accumulation into the same "
     "tensor",
     "argus.store ... atomic and other accesses of the tensor"},
    // Index arithmetic obligations.
    {"index-underflow", "index", "an index subtraction never goes below zero",
     "arith on index values"},
    {"division-by-zero", "index", "a symbolic divisor is never zero",
     "arith on index values"},
    {"index-range", "index",
     "index values stay inside the modelled range (below 2^23)",
     "arith on index values; a limit of the model"},
    // Hopper protocols.
    {"mbarrier-parity", "mbarrier",
     "every wait's parity is the one its slot's phase completes",
     "mbarrier rings: stages, phases as a function of the slot"},
    {"mbarrier-tx-bytes", "mbarrier",
     "the bytes announced equal the bytes the copies deliver on the slot",
     "arrive_expect_tx and the boxes of tma_load"},
    {"mbarrier-index", "mbarrier",
     "every index into an mbarrier ring is below its stage count",
     "index arithmetic of ring operands"},
    {"mbarrier-arrivals", "mbarrier",
     "each phase gets exactly its init count of arrivals, no thread arrives "
     "twice for a slot; liveness where the predicate says shown",
     "arrive / arrive_expect_tx per role, loops matched to waits"},
    {"tma-slot", "mbarrier",
     "the copy for slot j writes stage j % S after the release of slot "
     "j - S",
     "tma_load stages and the waits before them"},
    {"async-read-order", "mbarrier",
     "a read of a stage that bulk copies fill follows the wait for its slot",
     "mbarrier waits before generic and wgmma reads"},
    {"stage-release", "mbarrier",
     "a stage is handed back only after every read of it retired",
     "consumer arrives, wgmma groups and waits"},
    {"tma-store-drained", "async",
     "a bulk store's source is not overwritten, nor the kernel left, before "
     "the store is drained",
     "tma_store and tma_store_wait"},
    {"wgmma-ready", "async",
     "a register read of an mma_async result follows the wgmma_wait that "
     "retires its group",
     "wgmma_commit / wgmma_wait counts"},
    {"wgmma-register-operand", "async",
     "an mma_async's register A operand stays live until its group retires",
     "wgmma_wait after register-A mma_async"},
    {"cluster-lockstep", "cluster",
     "the blocks of a cluster agree on what multicast copies and cluster "
     "barriers need",
     "cluster ranks, multicast masks"},
    {"named-barrier", "sync",
     "named barriers (bar.sync / bar.arrive) are used consistently: one "
     "thread count per barrier id, arrivals that complete every generation "
     "a sync waits for, no deadlock",
     "argus.named_barrier.sync / arrive: constant ids per warpgroup, counts, "
     "the order of each warpgroup's barrier operations"},
};

llvm::ArrayRef<CheckKind> checkKinds() { return kKinds; }

const CheckKind *findCheckKind(llvm::StringRef name) {
  for (const CheckKind &k : kKinds)
    if (name == k.name)
      return &k;
  return nullptr;
}

} // namespace argus::verify
