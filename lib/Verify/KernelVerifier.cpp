//===- KernelVerifier.cpp - the check harness and the driver --------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"

#include <set>

#include "OpNames.h"
#include "argus/Dialect/TagFields.h"
#include "argus/Verify/CheckKinds.h"

#include "llvm/ADT/StringExtras.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <memory>
#include <thread>

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify {
namespace detail {

std::vector<z3::expr> KernelVerifier::launchConstraints() const {
  std::vector<z3::expr> all = paramCons;
  if (!checkingAssumptionOp)
    for (const Obligation &ob : assumptionObligations)
      all.push_back(z3::implies(ob.guard, ob.cond));
  return all;
}

void KernelVerifier::baseCons(Query &Q) {
  for (auto &c : launchConstraints())
    Q.cons.push_back(c);
}

std::optional<z3::model>
KernelVerifier::findWitness(CheckResult &res, const std::vector<z3::expr> &bad,
                            const Inst &in, int skip,
                            const std::vector<z3::expr> &also) {
  std::optional<z3::model> m;
  z3::check_result r = solve(bad, m, skip);
  if (r == z3::unsat) {
    res.status = Status::Proved;
    return std::nullopt;
  }
  if (r == z3::unknown) {
    res.status = Status::Unknown;
    res.reason = "solver returned unknown (timeout " +
                 std::to_string(opts.timeoutMs) + " ms?)";
    return std::nullopt;
  }
  preferSmall(bad, in, m, skip, also);
  if (replayDisagrees(res, replay(*m)))
    return std::nullopt;
  res.status = Status::Violated;
  return m;
}

std::vector<z3::expr>
KernelVerifier::smallArguments(const std::vector<z3::expr> &small) {
  std::vector<z3::expr> bounds;
  for (auto &[name, e] : paramVars)
    bounds.push_back(z3::ule(e, bv(name.rfind("block_id.", 0) == 0 ? 3 : 256)));
  for (auto &x : small)
    bounds.push_back(z3::ule(x, bv(3)));
  return bounds;
}

z3::check_result
KernelVerifier::solveSmallFirst(const std::vector<z3::expr> &extra,
                                std::optional<z3::model> &model) {
  std::vector<z3::expr> probe = extra;
  for (auto &b : smallArguments({}))
    probe.push_back(b);
  if (solve(probe, model, -1, 1000) == z3::sat)
    return z3::sat;
  return solve(extra, model);
}

std::optional<z3::model> KernelVerifier::findWitnessSmallFirst(
    CheckResult &res, const std::vector<z3::expr> &bad, const Inst &in,
    const std::vector<z3::expr> &small, const std::vector<z3::expr> &also) {
  // The full query first: most checks hold, and a proof needs only it (the
  // small-argument probe of a check that holds is unsat too, and costs as
  // much). A witness is then looked for with small arguments first, for a
  // counterexample a user can replay by hand.
  std::optional<z3::model> m;
  z3::check_result full = solve(bad, m);
  if (full == z3::unsat) {
    res.status = Status::Proved;
    return std::nullopt;
  }
  std::vector<z3::expr> probe = bad;
  for (auto &b : smallArguments(small))
    probe.push_back(b);
  std::optional<z3::model> pm;
  if (solve(probe, pm, -1, 1000) == z3::sat)
    return findWitness(res, probe, in, -1, also);
  if (full == z3::unknown) {
    res.status = Status::Unknown;
    res.reason = "solver returned unknown (timeout " +
                 std::to_string(opts.timeoutMs) + " ms?)";
    return std::nullopt;
  }
  return findWitness(res, bad, in, -1, also);
}

CheckResult KernelVerifier::newCheck(const char *kind, Operation *reportOp,
                                     Operation *site) {
  CheckResult res;
  res.kind = kind;
  // Every kind is a row of the table (argus/Verify/CheckKinds.h): reports,
  // Python and the agent's repair rules name checks through it.
  if (!findCheckKind(kind))
    res.reason = std::string("internal error: check kind '") + kind +
                 "' is not in the check-kind table";
  res.kernel = func.getSymName().str();
  res.reportOp = reportOp;
  res.siteOp = site;
  if (site) {
    res.siteName = site->getName().getStringRef().str();
    res.siteLocation = locStr(site->getLoc());
  }
  return res;
}

/// The checks whose meaning depends on the data a shared buffer holds or on
/// the order of its accesses.
static constexpr llvm::StringLiteral kContentChecks[] = {"assert",
                                                         "reduction-coverage",
                                                         "reduction-range",
                                                         "unwritten-read",
                                                         "unsynchronized-read",
                                                         "unsynchronized-write",
                                                         "write-after-write",
                                                         "async-read-order",
                                                         "stage-release",
                                                         "tma-slot",
                                                         "wgmma-ready"};

void KernelVerifier::runCheck(ArrayRef<CheckResult *> results,
                              function_ref<void(Query &)> body) {
  unsigned q0 = queries;
  auto start = std::chrono::steady_clock::now();
  auto giveUp = [&](const std::string &reason) {
    for (CheckResult *r : results) {
      r->status = Status::Unknown;
      r->reason = reason;
      r->counterexamples.clear();
    }
  };
  // Checks of what memory holds and of its ordering are not run through a
  // buffer indexed out of range (brokenBuffers); those of addresses alone
  // (bounds, alignment, injectivity, outputs, views, index arithmetic, stage
  // ranges) are.
  for (CheckResult *r : results) {
    if (!llvm::is_contained(kContentChecks, llvm::StringRef(r->kind)))
      continue;
    if (auto broken = brokenBufferUsed(r->siteOp ? r->siteOp : r->reportOp)) {
      auto alloc = dyn_cast<AllocOp>(broken->first);
      giveUp("not checked: it goes through " +
             (alloc ? "buffer '" + alloc.getName().str() + "'"
                    : std::string("a buffer")) +
             ", whose stage index is out of range at " +
             locStr(broken->second->getLoc()) +
             " (stage-out-of-range is violated there; fix it first)");
      return;
    }
  }
  Query Q;
  q = &Q;
  if (const char *dumpDir = std::getenv("ARGUS_VERIFY_DUMP_DIR")) {
    // Which check the queries that follow in queries.log belong to.
    std::ofstream(std::string(dumpDir) + "/queries.log", std::ios::app)
        << "# " << results.front()->kind << " at "
        << results.front()->siteLocation << "\n";
  }
  try {
    // A construct outside the semantic model may change what any check
    // states: nothing is proved about such a kernel.
    if (!unmodelled.empty())
      unsupported("not modelled: " + llvm::join(unmodelled, "; "));
    baseCons(Q);
    body(Q);
    q = nullptr;
    witnessPremises(results, results.front()->siteOp);
    for (CheckResult *r : results)
      if (!findCheckKind(r->kind)) {
        r->status = Status::Unknown;
        r->reason = "internal error: check kind '" + r->kind +
                    "' is not in the check-kind table";
      }
  } catch (Unsupported &u) {
    giveUp(u.reason);
  } catch (z3::exception &e) {
    giveUp(std::string("z3: ") + e.msg());
  } catch (std::exception &e) {
    giveUp(std::string("internal error: ") + e.what());
  }
  q = nullptr;
  results.front()->queries = queries - q0;
  results.front()->milliseconds = std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - start)
                                      .count();
}

void KernelVerifier::prepare(KernelReport &rep) {
  rep.name = func.getSymName().str();
  rep.threads = threads;
  rep.warpSize = warpSize;
  try {
    collectParams();
    // The model's own scope: parameters are bounded bit-vectors.
    rep.assumptions.push_back("kernel arguments, block ids and values loaded "
                              "from tensors are below " +
                              std::to_string(kParamBound) +
                              " (the verifier's parameter range)");
    collectAssumptions(rep.assumptions);
  } catch (z3::exception &) {
  }
  collectUnmodelled();
  // What no check states, whatever the verdicts: the report says so.
  rep.unchecked.push_back(
      "values: the numbers computed from the data (floating-point results, "
      "softmax rescaling, scale factors, epilogue terms, accumulator "
      "initial values) are not checked; tags prove which elements meet, not "
      "what is computed from them (compare against a reference for that)");
  rep.unchecked.push_back(
      "termination: loops and mbarrier waits are assumed to finish, except "
      "where mbarrier-arrivals or named-barrier says 'no deadlock'");
  bool declared = false;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    declared |= bool(func.getArgAttr(i, "argus.access"));
  if (!declared)
    rep.unchecked.push_back(
        "argument roles: no tensor argument declares argus.access (in, out, "
        "inout), so which tensors the kernel may write, and that each output "
        "is written, is not checked against an intent");
  for (const std::string &u : unmodelled)
    rep.unchecked.push_back("not modelled (every check unknown): " + u);
  int64_t maxStages = 1;
  func.walk([&](AllocOp a) {
    maxStages = std::max(maxStages,
                         cast<BufferType>(a.getResult().getType()).getStages());
  });
  depth = maxStages;
}

void KernelVerifier::precompute() {
  // Outer loops first: a nested loop's fields are then computed under no
  // induction hypothesis, as the checks would.
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    try {
      if (auto loop = dyn_cast<scf::ForOp>(op))
        invariantFields(loop);
      else if (isWriteOp(op) && isSharedTile(writeDest(op)))
        checkFullStage(op);
    } catch (Unsupported &) {
      // The check that needs it reports it.
    } catch (z3::exception &) {
    }
  });
}

void KernelVerifier::adopt(const KernelVerifier &from) {
  invariant = from.invariant;
  fullStage = from.fullStage;
}

bool KernelVerifier::filledByBulkCopies(Value tile) {
  Value root = getMemoryRoot(tile);
  bool r = false;
  func.walk([&](TmaLoadOp t) { r = r || getMemoryRoot(t.getDest()) == root; });
  return r;
}

std::vector<KernelVerifier::Task> KernelVerifier::tasks() {
  // One task per check site, in program order (assertions first: they are
  // the most expensive, so the shards start with them).
  std::vector<Task> out;
  out.push_back([this](Results &r) { checkArgumentAccess(r); });
  out.push_back([this](Results &r) { checkNamedBarriers(r); });
  func.walk([&](Operation *op) {
    if (auto a = dyn_cast<TagAssertOp>(op))
      out.push_back([this, a](Results &r) { r.push_back(checkAssert(a)); });
  });
  // Declared reduction ranges are assertions too; after reduction-coverage
  // (when it runs), which finds the direction of the loops' walks.
  auto reducedRanges = [&] {
    func.walk([&](ReducedOp decl) {
      out.push_back(
          [this, decl](Results &r) { r.push_back(checkReducedRange(decl)); });
    });
  };
  if (!opts.implicitChecks) {
    reducedRanges();
    return out;
  }
  func.walk([&](Operation *op) {
    if (isa<LoadOp, CopyOp, CopyAsyncOp, TmaStoreOp>(op) &&
        isSharedTile(op->getOperand(0)))
      out.push_back(
          [this, op](Results &r) { checkRead(op, op->getOperand(0), r); });
    if (auto st = dyn_cast<TmaStoreOp>(op))
      out.push_back(
          [this, st](Results &r) { r.push_back(checkBulkStoreDrained(st)); });
    else if (isa<MmaOp, MmaAsyncOp>(op)) {
      for (Value v : {op->getOperand(0), op->getOperand(1)})
        if (isSharedTile(v))
          out.push_back([this, op, v](Results &r) { checkRead(op, v, r); });
    }
    // Reads of stages that bulk copies fill: ordered by an mbarrier phase.
    // Every op that reads shared memory: loads, mma operands, and the
    // sources of copies and bulk stores.
    SmallVector<Value, 2> sharedReads;
    if (isa<LoadOp, MmaOp, MmaAsyncOp>(op))
      sharedReads.append(op->operand_begin(), op->operand_end());
    else if (isa<CopyOp, CopyAsyncOp, TmaStoreOp>(op))
      sharedReads.push_back(op->getOperand(0));
    for (Value v : sharedReads)
      if (isSharedTile(v) && filledByBulkCopies(v))
        out.push_back([this, op, v](Results &r) {
          r.push_back(checkAsyncReadOrder(op, v));
        });
    if (auto st = dyn_cast<StageOp>(op))
      out.push_back([this, st](Results &r) {
        auto it = stageRange.find(st);
        r.push_back(it != stageRange.end() ? it->second : checkStageRange(st));
      });
    if (isWriteOp(op)) {
      out.push_back(
          [this, op](Results &r) { r.push_back(checkInjective(op)); });
      if (isSharedTile(writeDest(op))) {
        out.push_back([this, op](Results &r) { r.push_back(checkWar(op)); });
        out.push_back([this, op](Results &r) { r.push_back(checkWaw(op)); });
      }
    }
  });
  out.push_back([this](Results &r) { checkViews(r); });
  out.push_back([this](Results &r) { checkReductions(r); });
  reducedRanges();
  out.push_back([this](Results &r) { checkBounds(r); });
  out.push_back([this](Results &r) { checkAlignment(r); });
  out.push_back([this](Results &r) { checkOutputs(r); });
  out.push_back([this](Results &r) { checkMBarriers(r); });
  out.push_back([this](Results &r) { checkWgmmaReady(r); });
  out.push_back([this](Results &r) { checkWgmmaRegisterOperands(r); });
  return out;
}

} // namespace detail

namespace {

/// Runs `work(shard)` for every shard, each on its own thread (the first on
/// the caller's).
void onShards(unsigned n, llvm::function_ref<void(unsigned)> work) {
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < n; ++k)
    pool.emplace_back([&work, k] { work(k); });
  work(0);
  for (auto &t : pool)
    t.join();
}

/// Z3 builds and frees large tables for every query (the bit-blaster's and
/// the SAT solver's). With glibc's defaults the heap is trimmed after each
/// and grown again for the next, and every fresh page faults: a fifth of
/// the examples' verification time. A 64 MiB pad keeps the pages.
void keepSolverMemory() {
#if defined(__GLIBC__)
  static const bool once = [] { return mallopt(M_TOP_PAD, 64 << 20) == 1; }();
  (void)once;
#endif
}

} // namespace

KernelReport verifyKernel(func::FuncOp f, KernelAttr kernel,
                          const VerifyOptions &opts) {
  keepSolverMemory();
  auto start = std::chrono::steady_clock::now();
  // Each shard has its own Z3 context and verifier; shard k runs the tasks
  // k, k + n, ... so the result (and every counterexample) depends only on
  // the shard count, not on timing.
  unsigned n = std::max(1u, opts.threads);
  if (!f->getContext()->isMultithreadingEnabled())
    n = 1; // the IR may not be read from several threads
  std::vector<std::unique_ptr<detail::KernelVerifier>> kv;
  std::vector<KernelReport> part(n);
  std::vector<std::vector<detail::KernelVerifier::Task>> tasks(n);
  for (unsigned k = 0; k < n; ++k) {
    kv.push_back(std::make_unique<detail::KernelVerifier>(f, kernel, opts));
    kv[k]->prepare(part[k]);
    tasks[k] = kv[k]->tasks();
  }
  // The premises first: with unsatisfiable launch constraints every query
  // is unsat, so no other check is run (each would be vacuously proved).
  CheckResult premises = kv[0]->checkAssumptions();
  if (premises.status == Status::Violated) {
    KernelReport rep = std::move(part[0]);
    rep.checks.push_back(std::move(premises));
    rep.queries = kv[0]->queryCount();
    rep.milliseconds = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count();
    return rep;
  }
  // Stage indices first: the checks through a buffer indexed out of range
  // are not run (KernelVerifier::brokenBuffers).
  kv[0]->checkStageRanges();
  for (unsigned k = 1; k < n; ++k)
    kv[k]->adoptStageRanges(*kv[0]);
  // Shared analyses once, not once per shard.
  if (n > 1 && opts.implicitChecks) {
    kv[0]->precompute();
    for (unsigned k = 1; k < n; ++k)
      kv[k]->adopt(*kv[0]);
  }
  size_t numTasks = tasks[0].size();
  std::vector<std::vector<CheckResult>> results(numTasks);
  onShards(n, [&](unsigned k) {
    for (size_t i = k; i < numTasks; i += n)
      tasks[k][i](results[i]);
  });
  // Index ops whose obligations the checks relied on, in program order
  // (checking one may reach further ones).
  std::vector<CheckResult> indexChecks;
  std::set<Operation *> done;
  for (bool more = opts.implicitChecks; more;) {
    std::set<Operation *> all;
    for (auto &v : kv)
      all.insert(v->obligedOps().begin(), v->obligedOps().end());
    std::vector<Operation *> todo;
    f.walk([&](Operation *op) {
      if (all.count(op) && done.insert(op).second)
        todo.push_back(op);
    });
    more = !todo.empty();
    std::vector<CheckResult> got(todo.size());
    onShards(n, [&](unsigned k) {
      for (size_t i = k; i < todo.size(); i += n)
        got[i] = kv[k]->checkIndexOp(todo[i]);
    });
    indexChecks.insert(indexChecks.end(), got.begin(), got.end());
  }
  KernelReport rep = std::move(part[0]);
  rep.checks.push_back(std::move(premises));
  for (auto &r : results)
    rep.checks.insert(rep.checks.end(), r.begin(), r.end());
  rep.checks.insert(rep.checks.end(), indexChecks.begin(), indexChecks.end());
  rep.queries = 0;
  for (auto &v : kv)
    rep.queries += v->queryCount();
  rep.milliseconds = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  return rep;
}

} // namespace argus::verify
