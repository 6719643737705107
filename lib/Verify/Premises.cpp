//===- Premises.cpp - no proof is vacuous ---------------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Every query assumes the launch constraints: the kernel's argus.assume
// preconditions, the launch's own facts (block ids below the grid, whole
// clusters) and the model's ranges (ModelLimits.h). Were they jointly
// unsatisfiable, every query would be unsat and every check "proved": a
// DSL kernel pinning grid_dim.x to 131072, above the model's 2^16, proved a
// store one column out of bounds. So before any check:
//
//   assumptions   the launch constraints have a model (a launch the proof
//                 is about, kept as the witness); otherwise the unsat core
//                 names the conflicting constraints and no check is run.
//
// and after each check whose results are proved, the site itself must be
// reachable under them (some launch, block and loop iterations execute it):
// a proof about an op that never runs is reported unknown ("vacuous").
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

#include "llvm/Support/SaveAndRestore.h"

#include <chrono>
#include <set>

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

void KernelVerifier::addLaunchCon(const z3::expr &c, std::string why) {
  paramCons.push_back(c);
  paramWhy.push_back(std::move(why));
}

/// "name=value, ..." of `vars` on `m` (model completion on).
static std::string
describe(const z3::model &m,
         const std::vector<std::pair<std::string, z3::expr>> &vars) {
  std::string out;
  for (auto &[name, e] : vars) {
    z3::expr v = m.eval(e, true);
    if (!v.is_numeral())
      continue;
    out += (out.empty() ? "" : ", ") + name + "=" +
           std::to_string(v.get_numeral_uint64());
  }
  return out;
}

CheckResult KernelVerifier::checkAssumptions() {
  CheckResult res = newCheck("assumptions", func, nullptr);
  res.siteName = func->getName().getStringRef().str();
  res.siteLocation = locStr(func.getLoc());
  res.predicate = "the kernel's preconditions, launch bounds and the model's "
                  "ranges are jointly satisfiable";
  auto start = std::chrono::steady_clock::now();
  unsigned q0 = queries;
  auto proved = [&](const z3::model &m) {
    res.status = Status::Proved;
    res.witness = describe(m, paramVars);
    if (res.witness.empty())
      res.witness = "any launch (the kernel has no parameters)";
  };
  try {
    // Satisfiable in the usual case: the staged solver finds a model among
    // small arguments at once. Only a contradiction needs the tracked
    // solver below, for its core.
    {
      Query Q;
      q = &Q;
      baseCons(Q);
      std::optional<z3::model> m;
      z3::check_result r;
      {
        llvm::SaveAndRestore<bool> any(anyModel, true);
        r = solveSmallFirst({}, m);
      }
      q = nullptr;
      if (r == z3::sat && m)
        proved(*m);
    }
    if (res.status != Status::Proved)
      decideWithCore(res, proved);
  } catch (z3::exception &e) {
    res.status = Status::Unknown;
    res.reason = std::string("z3: ") + e.msg();
  } catch (Unsupported &u) {
    res.status = Status::Unknown;
    res.reason = u.reason;
  }
  q = nullptr;
  res.queries = queries - q0;
  res.milliseconds = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  return res;
}

void KernelVerifier::decideWithCore(
    CheckResult &res, llvm::function_ref<void(const z3::model &)> proved) {
  z3::solver s(ctx, "QF_BV");
  limitSolver(s, opts.timeoutMs);
  z3::expr_vector lits(ctx);
  std::vector<std::string> whys;
  auto add = [&](const z3::expr &c, const std::string &why) {
    z3::expr lit =
        ctx.bool_const(("premise!" + std::to_string(lits.size())).c_str());
    s.add(z3::implies(lit, c));
    lits.push_back(lit);
    whys.push_back(why);
  };
  for (size_t i = 0; i < paramCons.size(); ++i)
    add(paramCons[i], i < paramWhy.size() ? paramWhy[i] : "launch bound");
  for (const Obligation &ob : assumptionObligations)
    add(z3::implies(ob.guard, ob.cond),
        "model limit: index values below 2^" + std::to_string(kWidth - 1) +
            " in an assumption's arithmetic (" + ob.what + " at " +
            locStr(ob.op->getLoc()) + ")");
  ++queries;
  z3::check_result r = s.check(lits);
  if (r == z3::sat) {
    proved(s.get_model());
  } else if (r == z3::unsat) {
    res.status = Status::Violated;
    z3::expr_vector core = s.unsat_core();
    Counterexample cx;
    std::set<std::string> seen;
    for (unsigned i = 0; i < core.size(); ++i)
      for (unsigned j = 0; j < lits.size(); ++j)
        if (z3::eq(core[i], lits[j]) && seen.insert(whys[j]).second)
          cx.notes.push_back("conflicting: " + whys[j]);
    cx.notes.push_back(
        "no launch satisfies these together, so every check of the kernel "
        "would be proved vacuously; none was run (fix the assumption, or "
        "keep its sizes inside the model's ranges: docs/Verifier.md, "
        "\"The model's limits\")");
    res.counterexamples.push_back(std::move(cx));
  } else {
    res.status = Status::Unknown;
    res.reason = "the solver could not decide whether the assumptions are "
                 "satisfiable (" +
                 s.reason_unknown() + ")";
  }
}

void KernelVerifier::witnessPremises(ArrayRef<CheckResult *> results,
                                     Operation *site) {
  bool anyProved = false;
  // A check that states its own evidence (a concrete run, a structural
  // fact) keeps it.
  for (CheckResult *r : results)
    anyProved |= r->status == Status::Proved && r->witness.empty();
  if (!anyProved || !site || site == func.getOperation())
    return;
  // The instance's conditions come from the site's enclosing loops and
  // branches only: every op of one region shares them, and one query.
  mlir::Region *where = site->getParentRegion();
  auto it = siteWitnesses.find(where);
  if (it == siteWitnesses.end())
    it = siteWitnesses.emplace(where, reachability(site)).first;
  for (CheckResult *r : results) {
    if (r->status != Status::Proved || !r->witness.empty())
      continue;
    if (!it->second.vacuous) {
      r->witness = it->second.witness;
      continue;
    }
    r->status = Status::Unknown;
    r->reason = "vacuous: " + site->getName().getStringRef().str() + " at " +
                locStr(site->getLoc()) +
                " never executes for any launch the assumptions admit (its "
                "loops are empty or its branch is never taken), so the proof "
                "says nothing";
  }
}

KernelVerifier::SiteWitness KernelVerifier::reachability(Operation *site) {
  // A query of its own: the check's terms are not needed to reach the site.
  Query *saved = q;
  Query Q;
  q = &Q;
  baseCons(Q);
  SiteWitness out;
  try {
    std::vector<LoopVar> loops;
    Inst in = freshInst(site, /*guardOnly=*/true, &loops);
    if (in.guard.is_true() && loops.empty()) {
      out.witness = "every launch: the op runs unconditionally at the "
                    "kernel's top level";
    } else {
      std::optional<z3::model> m;
      z3::check_result r;
      {
        // Any instance does; its existence, not which one, is the point.
        llvm::SaveAndRestore<bool> any(anyModel, true);
        r = solveSmallFirst({in.guard}, m);
      }
      if (r == z3::sat && m) {
        std::vector<std::pair<std::string, z3::expr>> vars = paramVars;
        for (const LoopVar &l : loops)
          vars.push_back({loopName(l.loop), l.iv});
        out.witness = "reached at " + describe(*m, vars);
      } else if (r == z3::unsat) {
        out.vacuous = true;
      } else {
        out.witness = "not shown: no instance of the site found within the "
                      "budget";
      }
    }
  } catch (Unsupported &u) {
    out.witness = "not shown: " + u.reason;
  } catch (z3::exception &e) {
    out.witness = std::string("not shown: z3: ") + e.msg();
  }
  q = saved;
  return out;
}

} // namespace argus::verify::detail
