//===- ConcreteSim.h - concrete interpreter for argus kernels ---*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// An independent, concrete re-implementation of the tag semantics: it runs
// one block of a kernel for fixed kernel arguments and block ids, thread by
// thread and element by element, with a concrete shared memory (cells with
// writer thread, async group and barrier epoch). The tests use it to confirm
// that every counterexample of the symbolic verifier really exhibits the bug
// and that correct kernels show no violation on concrete instances.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_TEST_CONCRETESIM_H
#define ARGUS_TEST_CONCRETESIM_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace argus::sim {

struct Probe {
  /// Evaluate this tag_assert at this loop iteration (outermost first) with
  /// these element coordinates per operand name.
  mlir::Operation *assertOp = nullptr;
  std::vector<int64_t> ivs;
  std::map<std::string, std::vector<int64_t>> coords;
};

struct Event {
  std::string kind; // unwritten-read, unsynchronized-read, non-injective-write,
                    // unsynchronized-write, write-after-write, view-tag,
                    // tensor-name, reduction-coverage, out-of-bounds
                    // (output-once and output-coverage: see globalWrites)
  mlir::Operation *op;
  std::vector<int64_t> ivs;
  int64_t thread;
  std::vector<int64_t> coords;
};

struct SimResult {
  bool ok = true;                        // the interpreter could run the kernel
  std::string error;                     // why not
  std::map<std::string, int64_t> counts; // events per kind
  std::set<size_t> watchHits;            // indices of watched events seen
  int probeHits = 0;                     // probes evaluated
  int probeViolations = 0;               // probes where the predicate was false
  int sampled = 0, sampledViolations = 0; // random assertion samples
  std::string lastViolation;
  /// The first hazards of the asynchronous model (sm_90a), "kind: op at
  /// location (iteration ...)": races, deadlocks, registers read while a
  /// wgmma still writes them, bulk stores not drained.
  std::vector<std::string> hazards;
  /// The instances (op, loop iterations) of this block that wrote each
  /// element of a tensor argument: (argument number, global coordinate).
  std::map<std::pair<int64_t, std::vector<int64_t>>,
           std::set<std::pair<mlir::Operation *, std::vector<int64_t>>>>
      globalWrites;
};

/// Run one block of `func` with `params` ("argN", "argN.dimK" for dynamic
/// sizes, "block_id.x", "grid_dim.x", "load@...").
/// Each probe is evaluated when reached; a watched event (thread -1 or
/// empty coords match any) is recorded in watchHits when it happens; with
/// `samples` > 0 every assertion instance is also evaluated at that many random
/// element pairings. Stops after `maxSteps` loop iterations in total.
///
/// A kernel with warp roles, mbarriers, bulk tensor copies or asynchronous
/// wgmma (sm_90a) runs under a happens-before model (HappensBefore.h): every
/// role of the block (of every block of its cluster) is an agent, the agents
/// interleave at synchronisation points as `schedule` says (0: the first
/// role first, 1: the last first, n >= 2: random, seeded by n), and a
/// blocked wait with no agent able to run is a deadlock.
SimResult simulate(mlir::func::FuncOp func,
                   const std::map<std::string, int64_t> &params,
                   const std::vector<Probe> &probes,
                   const std::vector<Event> &watches = {}, int samples = 0,
                   int64_t maxSteps = 4096, int schedule = 0);

/// Whether `func` needs the asynchronous model.
bool isAsyncKernel(mlir::func::FuncOp func);

} // namespace argus::sim

#endif // ARGUS_TEST_CONCRETESIM_H
