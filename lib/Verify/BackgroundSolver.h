//===- BackgroundSolver.h - one query stage on a second core ----*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Two stages of a query that neither dominates (a brief bit-blasting attempt
// and the integer solver's full budget) run at once: the verifier's thread
// runs one, a thread of its own runs the other on a second Z3 context (Z3
// contexts are not shared between threads). The query is translated into
// the second context before the thread starts and the values of its model
// are read back after it ends, so no Z3 object crosses threads while it is
// in use.
//
// Either side may interrupt the other through Z3's per-solver interrupt,
// which stops only a check that is running (no later check is affected):
// the verifier's thread stops the background query once its own stage
// decided, and a background `unsat` (or, when asked, `sat`) stops the
// foreground check that is registered with `Foreground`.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_BACKGROUNDSOLVER_H
#define ARGUS_LIB_VERIFY_BACKGROUNDSOLVER_H

#include <z3++.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace argus::verify::detail {

/// The values of `terms` in `m` (Booleans as 0 or 1), nullopt where one is
/// not a numeral there.
std::vector<std::optional<uint64_t>> modelValues(const z3::model &m,
                                                 const z3::expr_vector &terms);

/// Z3's resource counter (`rlimit count`) of the context of `s`: what the
/// context's checks have spent so far.
double resourceCount(z3::solver &s);

class BackgroundSolver {
public:
  /// Builds the background stage's solver in the given context.
  using MakeSolver = std::function<z3::solver(z3::context &)>;

  struct Answer {
    z3::check_result result = z3::unknown;
    /// When sat: each requested term's value in the model (Booleans as 0
    /// or 1), or nullopt when it is not a numeral there.
    std::vector<std::optional<uint64_t>> values;
    /// Z3's resource units the check spent, and its wall clock.
    double work = 0, milliseconds = 0;
  };

  BackgroundSolver() = default;
  BackgroundSolver(const BackgroundSolver &) = delete;
  BackgroundSolver &operator=(const BackgroundSolver &) = delete;
  /// Stops and joins a query still running.
  ~BackgroundSolver();

  /// Starts deciding the conjunction of `assertions` (terms of the caller's
  /// context) with the solver `make` builds, limited to `rlimit` resource
  /// units and `timeoutMs` of wall clock; the values of `terms` are read
  /// from its model. One query at a time: the previous one must have been
  /// waited for.
  /// With `satDecides`, a sat answer interrupts the foreground check too
  /// (its answer is then not needed either).
  void start(const z3::expr_vector &assertions, const z3::expr_vector &terms,
             MakeSolver make, unsigned rlimit, unsigned timeoutMs,
             bool satDecides = false);
  /// Asks the running query to stop (its answer is not needed); wait()
  /// still has to be called.
  void cancel();
  /// Waits for the query and returns its answer.
  Answer wait();
  /// Whether the running query has already given an answer that makes the
  /// foreground check unnecessary (unsat, or sat when started with
  /// `satDecides`): the check need not start.
  bool decided() const { return decisive; }

  /// While alive, registers `s` (a check of the caller's thread, in context
  /// `ctx`) to be interrupted when the background query decides (see
  /// decided()).
  class Foreground {
  public:
    Foreground(BackgroundSolver *bg, z3::context &ctx, z3::solver &s);
    ~Foreground();
    Foreground(const Foreground &) = delete;
    Foreground &operator=(const Foreground &) = delete;

  private:
    BackgroundSolver *bg;
  };

private:
  void run(const MakeSolver &make, unsigned rlimit, unsigned timeoutMs);

  std::unique_ptr<z3::context> ctx; // created with the first query
  // The running query's terms in `ctx`: made and released by the caller's
  // thread while no query runs, only read by the worker.
  std::optional<z3::expr_vector> assertions, terms;
  std::thread worker;
  Answer answer;
  double countBefore = 0;

  // Guards the two solvers that may be interrupted from the other thread.
  std::mutex mutex;
  std::atomic<bool> cancelled{false}, decisive{false};
  bool satDecides = false;
  Z3_solver running = nullptr; // the background check, while it runs
  Z3_context foregroundCtx = nullptr;
  Z3_solver foreground = nullptr;
};

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_BACKGROUNDSOLVER_H
