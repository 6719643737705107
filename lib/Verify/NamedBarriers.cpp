//===- NamedBarriers.cpp - the named-barrier check ------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Named barriers (`bar.sync` / `bar.arrive` with an id and a thread count)
// order the warpgroups of a ping-pong schedule. The model gives them no
// memory ordering (no proof rests on them: order data with argus.barrier or
// mbarriers), so what they can break is progress: a missing arrive, an
// arrive on the wrong id, a wrong count or an order where each warpgroup
// waits for the other hangs the kernel, while every other check holds.
//
// The check runs the barrier protocol of one block on concrete launches: a
// launch of small arguments the assumptions admit and one of larger ones
// (trip counts of a few and of many iterations). Each warp's sequence of
// barrier operations comes from walking the kernel with its thread id, the
// launch's arguments and concrete loop bounds (conditions must be
// warp-uniform); the warps then run against the hardware's semantics: each
// warp adds its threads to the barrier's generation, a generation completes
// when its count is reached and releases the warps in bar.sync, and every
// operation of a generation must name the same count. A warp that waits
// forever is a deadlock: **violated**, with the warps, ids, generations and
// program points. When the walk read no launch parameter (the same
// sequences for every launch and block) a clean run is a proof; otherwise
// it is **unknown** (deadlock freedom for every launch is not shown) with
// what was run. Deadlocks that need an mbarrier wait and a named barrier
// together are outside this check (mbarrier-arrivals follows the rings).
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/SaveAndRestore.h"

#include <deque>
#include <set>

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

namespace {

/// One barrier operation of a warp, in its program order.
struct BarrierEvent {
  Operation *op;
  int64_t id, count;
  bool sync;
  std::string iterations; ///< "j=3, ..." of the enclosing loops
};

/// Why a walk stopped (the check is then unknown).
struct WalkFailure {
  std::string reason;
};

/// Concrete evaluation of the index values and conditions that decide which
/// barrier operations a warp executes.
class ConcreteWalk {
public:
  ConcreteWalk(func::FuncOp func, const std::map<std::string, int64_t> &params,
               int64_t warpSize)
      : func(func), params(params), warpSize(warpSize) {}

  /// Every barrier event of warp `warp`, in order.
  std::vector<BarrierEvent> events(int64_t warp) {
    std::vector<BarrierEvent> out;
    lanes = {warp * warpSize, warp * warpSize + warpSize - 1};
    this->warp = warp;
    walk(func.getBody().front(), out);
    return out;
  }
  /// Whether a launch parameter or a block id decided anything.
  bool readParameter = false;

private:
  func::FuncOp func;
  const std::map<std::string, int64_t> &params;
  int64_t warpSize;
  int64_t warp = 0;
  std::pair<int64_t, int64_t> lanes; // first and last thread of the warp
  int64_t tid = 0;                   // the thread being evaluated
  llvm::DenseMap<Value, int64_t> ivs;
  std::vector<std::pair<Operation *, int64_t>> loopStack;
  size_t steps = 0;

  [[noreturn]] static void fail(const llvm::Twine &why) {
    throw WalkFailure{why.str()};
  }

  int64_t param(const std::string &name) {
    auto it = params.find(name);
    if (it == params.end())
      fail("the launch parameter " + name + " is not known");
    readParameter = true;
    return it->second;
  }

  int64_t eval(Value v) {
    if (auto it = ivs.find(v); it != ivs.end())
      return it->second;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->getParentOp() == func.getOperation())
        return param("arg" + std::to_string(arg.getArgNumber()));
      fail("a loop-carried value decides a named barrier at " +
           locStr(arg.getOwner()->getParentOp()->getLoc()));
    }
    Operation *d = v.getDefiningOp();
    auto bin = [&](auto f) {
      return f(eval(d->getOperand(0)), eval(d->getOperand(1)));
    };
    auto nonzero = [&](int64_t x) {
      if (x == 0)
        fail("a division by zero at " + locStr(d->getLoc()));
      return x;
    };
    auto floorDiv = [](int64_t a, int64_t b) {
      int64_t q = a / b;
      return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
    };
    if (auto c = dyn_cast<arith::ConstantOp>(d)) {
      if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
        return ia.getValue().getSExtValue();
      fail("a non-integer constant decides a named barrier");
    }
    if (isa<arith::AddIOp>(d))
      return bin([](int64_t a, int64_t b) { return a + b; });
    if (isa<arith::SubIOp>(d))
      return bin([](int64_t a, int64_t b) { return a - b; });
    if (isa<arith::MulIOp>(d))
      return bin([](int64_t a, int64_t b) { return a * b; });
    if (isa<arith::DivUIOp, arith::DivSIOp>(d))
      return bin([&](int64_t a, int64_t b) { return a / nonzero(b); });
    if (isa<arith::FloorDivSIOp>(d))
      return bin([&](int64_t a, int64_t b) { return floorDiv(a, nonzero(b)); });
    if (isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(d))
      return bin(
          [&](int64_t a, int64_t b) { return -floorDiv(-a, nonzero(b)); });
    if (isa<arith::RemUIOp, arith::RemSIOp>(d))
      return bin([&](int64_t a, int64_t b) { return a % nonzero(b); });
    if (isa<arith::MinUIOp, arith::MinSIOp>(d))
      return bin([](int64_t a, int64_t b) { return std::min(a, b); });
    if (isa<arith::MaxUIOp, arith::MaxSIOp>(d))
      return bin([](int64_t a, int64_t b) { return std::max(a, b); });
    if (isa<arith::AndIOp>(d))
      return bin([](int64_t a, int64_t b) { return a & b; });
    if (isa<arith::OrIOp>(d))
      return bin([](int64_t a, int64_t b) { return a | b; });
    if (isa<arith::XOrIOp>(d))
      return bin([](int64_t a, int64_t b) { return a ^ b; });
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
            arith::ExtSIOp, arith::TruncIOp>(d))
      return eval(d->getOperand(0));
    if (auto s = dyn_cast<arith::SelectOp>(d))
      return eval(s.getCondition()) ? eval(s.getTrueValue())
                                    : eval(s.getFalseValue());
    if (auto c = dyn_cast<arith::CmpIOp>(d))
      return arith::applyCmpPredicate(c.getPredicate(),
                                      llvm::APInt(64, eval(c.getLhs()), true),
                                      llvm::APInt(64, eval(c.getRhs()), true));
    if (auto t = dyn_cast<gpu::ThreadIdOp>(d)) {
      if (t.getDimension() != gpu::Dimension::x)
        fail("gpu.thread_id " + stringifyDimension(t.getDimension()) +
             " decides a named barrier (1-D blocks are followed)");
      return tid;
    }
    if (auto b = dyn_cast<gpu::BlockIdOp>(d))
      return param("block_id." + stringifyDimension(b.getDimension()).str());
    if (auto g = dyn_cast<gpu::GridDimOp>(d))
      return param("grid_dim." + stringifyDimension(g.getDimension()).str());
    if (auto dim = dyn_cast<memref::DimOp>(d)) {
      auto arg = dyn_cast<BlockArgument>(dim.getSource());
      std::optional<int64_t> k = dim.getConstantIndex();
      auto mt = dyn_cast<MemRefType>(dim.getSource().getType());
      if (arg && k && mt && !mt.isDynamicDim(*k))
        return mt.getDimSize(*k);
      if (arg && k)
        return param("arg" + std::to_string(arg.getArgNumber()) + ".dim" +
                     std::to_string(*k));
    }
    fail("'" + d->getName().getStringRef() + "' at " + locStr(d->getLoc()) +
         " decides a named barrier and is not evaluated");
  }

  /// `v` for the warp: the same for its first and last thread, or the
  /// walk stops (a warp-divergent barrier or branch).
  int64_t uniform(Value v, Operation *at) {
    tid = lanes.first;
    int64_t a = eval(v);
    tid = lanes.second;
    int64_t b = eval(v);
    if (a != b)
      fail("a value that differs between the threads of warp " +
           std::to_string(warp) + " decides " + opDesc(at));
    return a;
  }

  std::string iterations() const {
    std::string s;
    for (auto &[loop, i] : loopStack)
      s += (s.empty() ? "" : ", ") + loopName(loop) + " = " + std::to_string(i);
    return s;
  }

  void walk(Block &block, std::vector<BarrierEvent> &out) {
    for (Operation &op : block) {
      if (++steps > 200000)
        fail("more than 200000 operations in one warp's walk");
      if (auto role = dyn_cast<RoleOp>(op)) {
        if (warp >= role.getFirstWarp() && warp < role.getEndWarp())
          walk(role.getBody().front(), out);
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        if (!containsBarrier(loop))
          continue;
        int64_t lb = uniform(loop.getLowerBound(), loop),
                ub = uniform(loop.getUpperBound(), loop),
                st = uniform(loop.getStep(), loop);
        if (st <= 0)
          fail("a loop with a step that is not positive at " +
               locStr(loop.getLoc()));
        for (int64_t i = lb; i < ub; i += st) {
          ivs[loop.getInductionVar()] = i;
          loopStack.push_back({loop, i});
          walk(*loop.getBody(), out);
          loopStack.pop_back();
        }
        ivs.erase(loop.getInductionVar());
        continue;
      }
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        if (!containsBarrier(ifOp))
          continue;
        if (uniform(ifOp.getCondition(), ifOp))
          walk(ifOp.getThenRegion().front(), out);
        else if (!ifOp.getElseRegion().empty())
          walk(ifOp.getElseRegion().front(), out);
        continue;
      }
      if (auto s = dyn_cast<NamedBarrierSyncOp>(op)) {
        out.push_back({&op, uniform(s.getSlot(), &op), (int64_t)s.getThreads(),
                       true, iterations()});
        continue;
      }
      if (auto a = dyn_cast<NamedBarrierArriveOp>(op)) {
        out.push_back({&op, uniform(a.getSlot(), &op), (int64_t)a.getThreads(),
                       false, iterations()});
        continue;
      }
      if (op.getNumRegions() && containsBarrier(&op))
        fail("a named barrier inside '" + op.getName().getStringRef() +
             "' at " + locStr(op.getLoc()) + " is not followed");
    }
  }

  static bool containsBarrier(Operation *op) {
    bool found = false;
    op->walk([&](Operation *x) {
      found |= isa<NamedBarrierSyncOp, NamedBarrierArriveOp>(x);
    });
    return found;
  }
};

/// The first problem of running the warps' barrier events, empty when they
/// all run to the end.
std::vector<std::string>
simulate(const std::vector<std::vector<BarrierEvent>> &warps,
         int64_t warpSize) {
  struct Generation {
    int64_t arrived = 0, count = 0, number = 0;
    const BarrierEvent *first = nullptr;
    std::vector<size_t> waiting;
  };
  std::map<int64_t, Generation> bars;
  std::vector<size_t> pc(warps.size(), 0);
  std::vector<bool> blocked(warps.size(), false);
  auto where = [&](size_t w, const BarrierEvent &e) {
    return "warp " + std::to_string(w) + " at " + opDesc(e.op) +
           (e.iterations.empty() ? "" : " (" + e.iterations + ")");
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t w = 0; w < warps.size(); ++w) {
      while (!blocked[w] && pc[w] < warps[w].size()) {
        const BarrierEvent &e = warps[w][pc[w]];
        Generation &g = bars[e.id];
        if (g.arrived == 0) {
          g.count = e.count;
          g.first = &e;
        } else if (g.count != e.count) {
          return {"barrier " + std::to_string(e.id) + ", generation " +
                      std::to_string(g.number) + ": " + where(w, e) +
                      " counts " + std::to_string(e.count) + " threads",
                  "but the generation began with " + std::to_string(g.count) +
                      " at " + opDesc(g.first->op) +
                      " (one count per barrier generation: the hardware's "
                      "behaviour is undefined otherwise)"};
        }
        g.arrived += warpSize;
        ++pc[w];
        progress = true;
        if (e.sync) {
          blocked[w] = true;
          g.waiting.push_back(w);
        }
        if (g.arrived >= g.count) {
          for (size_t x : g.waiting)
            blocked[x] = false;
          g.waiting.clear();
          g.arrived = 0;
          ++g.number;
        }
      }
    }
  }
  std::vector<std::string> stuck;
  for (size_t w = 0; w < warps.size(); ++w) {
    if (!blocked[w])
      continue;
    const BarrierEvent &e = warps[w][pc[w] - 1];
    const Generation &g = bars[e.id];
    stuck.push_back(where(w, e) + " waits forever on barrier " +
                    std::to_string(e.id) + ", generation " +
                    std::to_string(g.number) + ": " +
                    std::to_string(g.arrived) + " of " +
                    std::to_string(g.count) + " threads arrived");
  }
  if (!stuck.empty())
    stuck.insert(stuck.begin(),
                 "deadlock: every warp left is waiting at a named barrier "
                 "(a missing arrive, an arrive on another id, a count larger "
                 "than the threads that arrive, or an order in which each "
                 "warpgroup waits for the other)");
  return stuck;
}

} // namespace

void KernelVerifier::checkNamedBarriers(std::vector<CheckResult> &out) {
  Operation *first = nullptr;
  func.walk([&](Operation *op) {
    if (!first && isa<NamedBarrierSyncOp, NamedBarrierArriveOp>(op))
      first = op;
  });
  if (!first)
    return;
  CheckResult res = newCheck("named-barrier", first, first);
  res.predicate = "the named barriers complete every generation a bar.sync "
                  "waits for, with one thread count per generation (no "
                  "deadlock)";
  runCheck({&res}, [&](Query &Q) {
    // Launches to run: small arguments first (a counterexample one can
    // replay by hand), then larger ones (loops of many iterations).
    std::vector<std::map<std::string, int64_t>> launches;
    for (int64_t atLeast : {int64_t(0), int64_t(64)}) {
      std::vector<z3::expr> extra;
      for (auto &[name, e] : paramVars) {
        bool block = name.rfind("block_id.", 0) == 0;
        extra.push_back(z3::ule(e, bv(block ? 1 : atLeast ? 4096 : 256)));
        if (atLeast && !block && name.rfind("grid_dim.", 0) != 0 &&
            name.rfind("cluster", 0) != 0)
          extra.push_back(z3::uge(e, bv(atLeast)));
      }
      std::optional<z3::model> m;
      llvm::SaveAndRestore<bool> any(anyModel, true);
      if (solve(extra, m, -1, 2000) != z3::sat || !m)
        continue;
      std::map<std::string, int64_t> launch;
      for (auto &[name, e] : paramVars)
        launch[name] = uval(*m, e);
      if (launches.empty() || launches.back() != launch)
        launches.push_back(std::move(launch));
    }
    if (launches.empty())
      unsupported("no launch of the named barriers could be chosen within "
                  "the budget");
    int64_t warps = threads / warpSize;
    bool paramFree = true;
    // Whether the generation each operation joins is the same in every
    // schedule: only bar.sync (a warp cannot arrive twice in a generation)
    // and counts of all the warps that use the id. A bar.arrive lets its
    // warp run ahead into a later operation on the id, which may join the
    // same generation in another interleaving: one run then shows that
    // schedule only. (A deadlock or count mismatch in the run is a real
    // one either way: the hardware may take that schedule.)
    std::string scheduleDependent;
    std::string ran;
    for (const auto &launch : launches) {
      ConcreteWalk walk(func, launch, warpSize);
      std::vector<std::vector<BarrierEvent>> seqs;
      try {
        for (int64_t w = 0; w < warps; ++w)
          seqs.push_back(walk.events(w));
      } catch (WalkFailure &f) {
        unsupported("named barriers not followed: " + f.reason);
      }
      paramFree &= !walk.readParameter;
      std::map<int64_t, std::set<int64_t>> users;
      for (int64_t w = 0; w < warps; ++w)
        for (const BarrierEvent &e : seqs[w])
          users[e.id].insert(w);
      for (int64_t w = 0; w < warps && scheduleDependent.empty(); ++w)
        for (const BarrierEvent &e : seqs[w]) {
          if (!e.sync)
            scheduleDependent = "a bar.arrive (" + opDesc(e.op) + ")";
          else if (e.count != warpSize * int64_t(users[e.id].size()))
            scheduleDependent = opDesc(e.op) + " counts " +
                                std::to_string(e.count) + " threads of the " +
                                std::to_string(warpSize * users[e.id].size()) +
                                " that use barrier " + std::to_string(e.id);
          if (!scheduleDependent.empty())
            break;
        }
      size_t n = 0;
      for (auto &s : seqs)
        n += s.size();
      std::string args;
      for (auto &[name, v] : launch)
        args += (args.empty() ? "" : ", ") + name + "=" + std::to_string(v);
      ran += (ran.empty() ? "" : "; ") + std::string("launch ") +
             (args.empty() ? "(no parameters)" : args) + ": " +
             std::to_string(n) + " barrier operations";
      std::vector<std::string> problem = simulate(seqs, warpSize);
      if (!problem.empty()) {
        res.status = Status::Violated;
        Counterexample cx;
        for (auto &[name, v] : launch) {
          if (name.rfind("block_id.", 0) == 0)
            cx.blockIds[name.substr(9)] = v;
          else
            cx.params.push_back({name, v});
        }
        cx.notes = problem;
        res.counterexamples.push_back(std::move(cx));
        return;
      }
      if (paramFree)
        break; // the same sequences for every launch
    }
    if (paramFree && scheduleDependent.empty()) {
      res.status = Status::Proved;
      res.witness = "the barrier operations of every warp do not depend on "
                    "the launch, and only bar.sync of all the warps using "
                    "an id (the same generations in every schedule); ran " +
                    ran;
      return;
    }
    res.status = Status::Unknown;
    res.reason = "deadlock freedom of the named barriers is shown only for "
                 "the launches run (" +
                 ran + ") in one schedule, not for every " +
                 (paramFree ? std::string("schedule: ") + scheduleDependent +
                                  " makes the generation an operation joins "
                                  "depend on the interleaving"
                            : std::string("launch: the warps' barrier "
                                          "operations depend on its "
                                          "parameters"));
    (void)Q;
  });
  out.push_back(std::move(res));
}

} // namespace argus::verify::detail
