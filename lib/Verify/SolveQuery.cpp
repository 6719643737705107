//===- SolveQuery.cpp - how the verifier decides one query ----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Every check ends in quantifier-free bit-vector queries. No one procedure
// decides them all quickly: bit selections of layouts and swizzles are
// free for a bit-blaster and hard for arithmetic solvers, while the tile
// arithmetic of coverage, ranges and rings (`e - 128 * (e / 128) < 128`
// over 24-bit adders) takes a SAT solver seconds and a simplex-based
// integer solver milliseconds. A query goes through stages, each with a
// deterministic budget of Z3's resource counter, until one decides it:
//
//   1. the abstraction: symbolic products, quotients and remainders
//      replaced by fresh variables (the arithmetic lemmas tie them
//      together); without such terms it is the query itself;
//   2. the abstraction as exact linear integer arithmetic
//      (IntegerTranslation.h), when its terms translate, under Z3's LIA
//      strategy: a glance (which decides half of them), then, if it did
//      not, a brief bit-blasting attempt (which decides the queries with
//      many bit selections: a layout's thread and lane decompositions)
//      while the integer solver's full budget runs on a second core
//      (BackgroundSolver.h), with the answer of running them in that order;
//   3. the abstraction, bit-blasted with a larger budget;
//   4. the full query, bit-blasted.
//
// Unsat at any stage proves the query unsat (every model of the query is
// one of its abstraction). A model of the abstraction is tried on the full
// query, first with every variable fixed to the model's value (a
// propagation), then with only the inputs of its products and quotients
// fixed (a search without multiplier circuits): a model found so is the
// query's, and stage 4 is skipped, so witnesses are mostly found without
// multiplier circuits.
//
//===----------------------------------------------------------------------===//

#include "Ackermann.h"
#include "ArithmeticLemmas.h"
#include "ConstantDivision.h"
#include "IntegerTranslation.h"
#include "KernelVerifier.h"
#include "LinearRefinement.h"
#include "Subterms.h"

#include "llvm/Support/SaveAndRestore.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>

namespace argus::verify::detail {

/// Whether `e` is a product, quotient, remainder or multiplication-overflow
/// test of two symbolic operands.
static bool isNonlinear(const z3::expr &e) {
  if (!e.is_app() || e.num_args() != 2)
    return false;
  switch (e.decl().decl_kind()) {
  case Z3_OP_BMUL:
  case Z3_OP_BUMUL_NO_OVFL:
    return !e.arg(0).is_numeral() && !e.arg(1).is_numeral();
  case Z3_OP_BUDIV:
  case Z3_OP_BUDIV_I:
  case Z3_OP_BUREM:
  case Z3_OP_BUREM_I:
    return !e.arg(1).is_numeral();
  default:
    return false;
  }
}

namespace {
/// Rewrites Z3's internal division ops (bvudiv_i, bvurem_i, which its
/// simplifier produces) to bvudiv and bvurem, and orders the operands of
/// multiplication-overflow tests. They are the same functions
/// (Z3 interprets division by zero as SMT-LIB does, x / 0 = all ones and
/// x % 0 = x, in both), but are different terms: the abstraction of
/// nonlinear terms would make them two unrelated variables and the
/// arithmetic lemmas, written with bvudiv and bvurem, would miss them.
class DivisionNormalizer {
public:
  z3::expr operator()(const z3::expr &e) {
    if (!e.is_app() || e.num_args() == 0)
      return e;
    auto it = memo.find(e.id());
    if (it != memo.end())
      return it->second.second;
    z3::expr_vector args(e.ctx());
    bool changed = false;
    for (unsigned i = 0; i < e.num_args(); ++i) {
      z3::expr a = (*this)(e.arg(i));
      changed = changed || !z3::eq(a, e.arg(i));
      args.push_back(a);
    }
    z3::expr r = e;
    switch (e.decl().decl_kind()) {
    case Z3_OP_BUDIV_I:
      r = z3::udiv(args[0], args[1]);
      break;
    case Z3_OP_BUREM_I:
      r = z3::urem(args[0], args[1]);
      break;
    case Z3_OP_BUMUL_NO_OVFL:
      // One operand order: the abstraction makes the test of a product of
      // two symbolic values a Boolean variable, and `a * d` and `d * a`
      // (an index op's obligation, a lemma's premise) must be one.
      if (args[1].id() < args[0].id())
        r = z3::bvmul_no_overflow(args[1], args[0], false);
      else if (changed)
        r = e.decl()(args);
      break;
    default:
      if (changed)
        r = e.decl()(args);
    }
    memo.emplace(e.id(), std::make_pair(e, r));
    return r;
  }

private:
  // The original term is kept alive so that its id stays its own.
  std::map<unsigned, std::pair<z3::expr, z3::expr>> memo;
};
} // namespace

static const char *answer(z3::check_result r) {
  return r == z3::sat ? "sat" : r == z3::unsat ? "unsat" : "unknown";
}

/// With ARGUS_VERIFY_DUMP_DIR set: one line of queries.log per solver call,
/// its answer, work and time.
static void logLine(const std::string &what, z3::check_result r, double work,
                    double ms) {
  const char *dumpDir = std::getenv("ARGUS_VERIFY_DUMP_DIR");
  if (!dumpDir)
    return;
  std::ofstream(std::string(dumpDir) + "/queries.log", std::ios::app)
      << what << " work " << work << " " << answer(r) << " " << ms << " ms\n";
}

/// With ARGUS_VERIFY_DUMP_DIR set: `assertions` as SMT-LIB in `file` of
/// the dump directory, after the comment lines `header`.
static void dumpSmt2(const std::string &file, const z3::expr_vector &assertions,
                     const std::string &header = "") {
  const char *dumpDir = std::getenv("ARGUS_VERIFY_DUMP_DIR");
  if (!dumpDir)
    return;
  z3::solver dump(assertions.ctx());
  for (unsigned i = 0; i < assertions.size(); ++i)
    dump.add(assertions[i]);
  std::ofstream(std::string(dumpDir) + "/" + file) << header << dump.to_smt2();
}

static void logQuery(const std::string &what, z3::check_result r,
                     std::chrono::steady_clock::time_point start,
                     z3::solver &s) {
  if (!std::getenv("ARGUS_VERIFY_DUMP_DIR"))
    return;
  // Z3's resource counter is the context's: this query's work is what it
  // added since the last query.
  static thread_local double lastCount = 0;
  double count = resourceCount(s);
  double work = count >= lastCount ? count - lastCount : count;
  lastCount = count;
  logLine(what, r, work,
          std::chrono::duration<double, std::milli>(
              std::chrono::steady_clock::now() - start)
              .count());
}

/// Z3's work per millisecond of a query's budget: a query may spend
/// `ms * kWorkPerMs` units of Z3's resource counter (its `rlimit`), so
/// whether it finishes depends neither on the machine's speed nor on its
/// load; the wall clock (four times the budget) stops only a query
/// whose units are exceptionally slow. Both the bit-blaster and the integer
/// solver spend 2 000 to 10 000 units per millisecond on the examples'
/// queries on an idle core; the largest that succeeds about 3 * 10^7 units.
static constexpr uint64_t kWorkPerMs = 5000;

/// Budgets of the stages before the full bit-vector query (milliseconds
/// at kWorkPerMs): they decide most queries, and cost little when they
/// do not.
static constexpr unsigned kProbeMs = 10;
static constexpr unsigned kIntegerMs = 100;
static constexpr unsigned kIntegerWallSlack = 12;
/// A first glance of the integer solver (10 000 units) decides half of the
/// examples' integer queries; the queries it cannot decide get the brief
/// bit-blasting attempt before the integer solver's full budget: those with
/// many bit selections (a layout's thread and lane decompositions, where
/// the integer solver splits on every quotient and counts work sparsely,
/// down to 400 units per millisecond) are the bit-blaster's.
static constexpr unsigned kIntegerGlanceMs = kGlanceMs;
static constexpr unsigned kIntegerGlanceWallSlack = 50;
/// The glance decides almost no integer query with this many variables or
/// more (read chains: 5 of 105 such queries of the 14 examples, against 369
/// of 467 smaller ones): those go straight to the race below.
static constexpr size_t kGlanceMostVariables = 40;
/// Lifting a model: with every variable fixed the query is a propagation;
/// with only the products' inputs fixed it is a search without multiplier
/// circuits, which takes a fifth to a tenth of the full query's work for the
/// attention kernels' witnesses (2-5 * 10^5 units against 1.5-2.4 * 10^6).
static constexpr unsigned kLiftMs = 20;
static constexpr unsigned kLiftInputsMs = 200;
/// The abstraction's own cap (stage 3), so that a query it cannot decide
/// leaves time for the full one.
static constexpr unsigned kAbstractionMs = 8000;

namespace {
/// The number of variables (uninterpreted constants, of any sort) in
/// `assertions`; forEachSubterm visits each subterm once.
size_t variableCount(const z3::expr_vector &assertions) {
  size_t n = 0;
  forEachSubterm(assertions, [&](const z3::expr &e) {
    n += e.num_args() == 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED;
  });
  return n;
}

/// A stage's limits: Z3 resource units and wall-clock milliseconds (0 and
/// UINT_MAX: none).
struct Budget {
  unsigned rlimit = 0, timeoutMs = std::numeric_limits<unsigned>::max();
};
Budget budgetOf(unsigned ms, unsigned wallSlack) {
  if (ms == std::numeric_limits<unsigned>::max())
    return {}; // timeout-ms=0: no limit
  constexpr uint64_t most = std::numeric_limits<unsigned>::max() - 1;
  return {static_cast<unsigned>(std::min(ms * kWorkPerMs, most)),
          static_cast<unsigned>(std::min(uint64_t(ms) * wallSlack, most))};
}

/// Z3's LIA strategy after equation solving and value propagation (which
/// remove most quotient and wrap-around variables): its plain SMT core takes
/// seconds on some of these queries (persistent tile loops, whose quotients
/// by the grid size are abstracted).
z3::solver integerSolver(z3::context &c) {
  return (z3::tactic(c, "simplify") & z3::tactic(c, "propagate-values") &
          z3::tactic(c, "solve-eqs") & z3::tactic(c, "lia"))
      .mk_solver();
}
} // namespace

void KernelVerifier::limitSolver(z3::solver &s, unsigned ms,
                                 unsigned wallSlack) {
  Budget b = budgetOf(ms, wallSlack);
  if (!b.rlimit)
    return;
  z3::params p(ctx);
  p.set("rlimit", b.rlimit);
  p.set("timeout", b.timeoutMs);
  s.set(p);
}

namespace {

/// Variables that, once constant, leave no product, quotient or remainder
/// of two symbolic values among `nonlinear`: a divisor's, or a factor's
/// (the one with fewer variables), unless the other side is constant
/// already.
std::set<unsigned> multiplierInputs(const z3::expr_vector &nonlinear) {
  std::set<unsigned> fixed;
  auto varsOf = [](const z3::expr &e) {
    std::set<unsigned> vs;
    z3::expr_vector roots(e.ctx());
    roots.push_back(e);
    forEachSubterm(roots, [&](const z3::expr &t) {
      if (t.num_args() == 0 && t.decl().decl_kind() == Z3_OP_UNINTERPRETED)
        vs.insert(t.id());
    });
    return vs;
  };
  auto within = [&](const std::set<unsigned> &vs) {
    return std::all_of(vs.begin(), vs.end(),
                       [&](unsigned v) { return fixed.count(v) != 0; });
  };
  for (unsigned i = 0; i < nonlinear.size(); ++i) {
    z3::expr e = nonlinear[i];
    std::set<unsigned> a = varsOf(e.arg(0)), b = varsOf(e.arg(1));
    if (within(a) || within(b))
      continue;
    Z3_decl_kind k = e.decl().decl_kind();
    bool division = k != Z3_OP_BMUL && k != Z3_OP_BUMUL_NO_OVFL;
    const std::set<unsigned> &pick = division || b.size() <= a.size() ? b : a;
    fixed.insert(pick.begin(), pick.end());
  }
  return fixed;
}

/// The uninterpreted constants (bit-vector and Boolean) of `as`.
std::vector<z3::expr> variablesOf(const z3::expr_vector &as) {
  std::vector<z3::expr> vars;
  forEachSubterm(as, [&](const z3::expr &e) {
    if (e.num_args() == 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
        (e.is_bv() || e.is_bool()))
      vars.push_back(e);
  });
  return vars;
}

} // namespace

z3::check_result KernelVerifier::decide(z3::solver &s, const std::string &what,
                                        std::optional<z3::model> &model) {
  auto start = std::chrono::steady_clock::now();
  z3::check_result r = s.check();
  logQuery(what, r, start, s);
  if (r == z3::sat)
    model = s.get_model();
  return r;
}

std::optional<z3::model>
KernelVerifier::lift(const z3::expr_vector &query,
                     const std::vector<z3::expr> &vars,
                     const std::function<z3::expr(const z3::expr &)> &valueOf,
                     const std::string &what, const std::set<unsigned> *only,
                     BackgroundSolver *racing, z3::check_result *answer) {
  if (answer)
    *answer = z3::unknown;
  if (racing && racing->decided())
    return std::nullopt; // its answer is the one used
  z3::solver s(ctx, queryLogic);
  limitSolver(s, only ? kLiftInputsMs : kLiftMs);
  for (unsigned i = 0; i < query.size(); ++i)
    s.add(query[i]);
  for (const z3::expr &v : vars) {
    if (only && !only->count(v.id()))
      continue;
    z3::expr value = valueOf(v);
    if (value.is_numeral() || value.is_true() || value.is_false())
      s.add(v == value);
  }
  std::optional<z3::model> m;
  z3::check_result r;
  {
    BackgroundSolver::Foreground registered(racing, ctx, s);
    r = decide(s, what + (only ? " lifted inputs" : " lifted"), m);
  }
  if (answer)
    *answer = r;
  if (r != z3::sat)
    return std::nullopt;
  return m;
}

z3::check_result KernelVerifier::solve(const std::vector<z3::expr> &extra,
                                       std::optional<z3::model> &model,
                                       int skip, unsigned timeoutMs) {
  // A condition that simplifies to false (no candidate, a guard that folds)
  // has no witness: no solver call, whose fixed cost (bit-blasting every
  // constraint of the query) is most of a small query's time.
  for (auto &c : extra)
    if (c.simplify().is_false())
      return z3::unsat;
  // A fresh (non-incremental) solver per query: Z3's bit-blasting tactic is
  // much faster here than its incremental core.
  DivisionNormalizer norm;
  z3::expr_vector all(ctx);
  for (auto &c : q->cons)
    all.push_back(norm(c));
  for (size_t i = 0; i < q->obligations.size(); ++i)
    if (static_cast<int>(i) != skip)
      all.push_back(
          norm(z3::implies(q->obligations[i].guard, q->obligations[i].cond)));
  for (auto &c : extra)
    all.push_back(norm(c));
  // Facts of symbolic divisions and products the bit-blaster cannot find
  // in time (valid, so they change no answer).
  for (auto &l : arithmeticLemmas(ctx, all))
    all.push_back(norm(l));
  // Quotients by constants as their defining equations, not dividers (the
  // same models).
  z3::expr_vector query = eliminateConstantDivisions(ctx, all);
  ++queries;
  std::string name = "q" + std::to_string(queries);
  unsigned limit =
      timeoutMs ? std::min(timeoutMs, opts.timeoutMs) : opts.timeoutMs;
  auto within = [&](unsigned ms) { return std::min(ms, limit); };

  // 1. The abstraction: products, quotients and remainders of two symbolic
  // values (multiplier and divider circuits when bit-blasted) replaced by
  // fresh variables. Without such terms it is the query itself.
  z3::expr_vector from(ctx), to(ctx);
  forEachSubterm(query, [&](const z3::expr &e) {
    if (!isNonlinear(e))
      return;
    from.push_back(e);
    std::string v = "nonlinear!" + std::to_string(from.size());
    to.push_back(e.is_bool() ? ctx.bool_const(v.c_str())
                             : ctx.constant(v.c_str(), e.get_sort()));
  });
  // Applications of uninterpreted functions (the contents of loaded
  // tensors) too, with their congruence (Ackermann.h).
  FunctionApplications apps = functionApplications(query);
  bool exact = from.empty() && apps.empty();
  z3::expr_vector abstracted(ctx), abstractedTo(ctx);
  for (const z3::expr_vector *v : {&from, &apps.applied})
    for (unsigned i = 0; i < v->size(); ++i)
      abstracted.push_back((*v)[i]);
  for (const z3::expr_vector *v : {&to, &apps.vars})
    for (unsigned i = 0; i < v->size(); ++i)
      abstractedTo.push_back((*v)[i]);
  z3::expr_vector abstraction(ctx);
  for (unsigned i = 0; i < query.size(); ++i)
    abstraction.push_back(
        exact ? query[i] : query[i].substitute(abstracted, abstractedTo));
  for (const z3::expr &l : congruenceLemmas(apps, abstracted, abstractedTo))
    abstraction.push_back(l);
  // The bit-blasting logic of the full query.
  llvm::SaveAndRestore<const char *> logic(queryLogic,
                                           apps.empty() ? "QF_BV" : "QF_UFBV");
  // A debugging aid: every query as SMT-LIB (which term each fresh
  // variable of the abstraction stands for in its comments).
  dumpSmt2(name + ".smt2", query);
  if (!exact && std::getenv("ARGUS_VERIFY_DUMP_DIR")) {
    std::string header;
    for (unsigned i = 0; i < abstracted.size(); ++i) {
      std::string t = abstracted[i].to_string();
      std::replace(t.begin(), t.end(), '\n', ' ');
      header += "; " + abstractedTo[i].to_string() + " := " + t + "\n";
    }
    dumpSmt2(name + ".abstract.smt2", abstraction, header);
  }

  // Whether the abstraction is known satisfiable (its models were tried on
  // the query): then only the full query can decide.
  bool abstractionSat = false;
  // A model of the abstraction (values of the variables) made a model of
  // the query when it satisfies it: first with every variable fixed (a
  // propagation); then with only the inputs of the products and quotients
  // fixed, which leaves a query without multiplier or divider circuits for
  // the bit-blaster to search. The variables and inputs are found once, for
  // the queries that get a model.
  std::optional<std::vector<z3::expr>> vars;
  std::optional<std::set<unsigned>> inputs;
  auto accept = [&](const std::function<z3::expr(const z3::expr &)> &valueOf) {
    abstractionSat = true;
    if (unsatOnly)
      return false; // no model wanted: not lifted (unknown below)
    if (!vars) {
      vars = variablesOf(query);
      inputs = multiplierInputs(from);
    }
    if (auto m = lift(query, *vars, valueOf, name)) {
      model = m;
      return true;
    }
    // With the multiplier inputs fixed: a bit-blasted search here and the
    // same search in integers on a second core (the abstraction with linear
    // lemmas for the products at those inputs: LinearRefinement.h). A model
    // of either is the query's; the integer one is preferred (it is found
    // in a fifth of the time when there is one, while an unsat answer comes
    // sooner from the bit-blaster), so the witness does not depend on which
    // finishes first: an integer answer ends the bit-blasted search, a
    // bit-blasted unsat the integer one.
    BackgroundSolver *racing = nullptr;
    std::optional<IntegerTerms> linearTerms;
    if (!exact) {
      BitVectorValues values;
      auto note = [&](const z3::expr &v) {
        z3::expr x = valueOf(v);
        if (x.is_numeral() || x.is_true() || x.is_false())
          values.set(v, x);
      };
      for (const z3::expr &v : *vars)
        note(v);
      for (unsigned i = 0; i < to.size(); ++i)
        note(to[i]);
      LinearRefinement refinement(ctx, abstraction, from, to);
      if (std::optional<IntegerQuery> fixed =
              refinement.linearized(values, *inputs)) {
        linearTerms.emplace(*fixed);
        Budget b = budgetOf(within(kLiftInputsMs), 4);
        liftBackground.start(fixed->assertions, linearTerms->terms,
                             integerSolver, b.rlimit, b.timeoutMs,
                             /*satDecides=*/true);
        racing = &liftBackground;
      }
    }
    z3::check_result bitBlastedAnswer = z3::unknown;
    std::optional<z3::model> found =
        lift(query, *vars, valueOf, name, &*inputs, racing, &bitBlastedAnswer);
    if (racing) {
      if (bitBlastedAnswer == z3::unsat)
        racing->cancel();
      BackgroundSolver::Answer in = racing->wait();
      logLine(name + " lifted in integers", in.result, in.work,
              in.milliseconds);
      if (in.result == z3::sat) {
        BitVectorValues iv = linearTerms->values(in.values);
        auto m = lift(
            query, *vars, [&](const z3::expr &v) { return iv.valueOr(v); },
            name);
        if (m)
          found = m;
        else if (bitBlastedAnswer == z3::unknown) // interrupted: once more
          found = lift(query, *vars, valueOf, name, &*inputs);
      }
    }
    if (found) {
      model = found;
      return true;
    }
    return false;
  };
  // A stage's answer, when it decides the query.
  using Answer = std::optional<z3::check_result>;
  // `racing`: the background solver runs another stage of this query,
  // which an answer here stops and whose unsat stops this check.
  auto bitBlasted = [&](unsigned ms, const char *what,
                        BackgroundSolver *racing = nullptr) -> Answer {
    z3::solver s(ctx, "QF_BV");
    limitSolver(s, within(ms));
    for (unsigned i = 0; i < abstraction.size(); ++i)
      s.add(abstraction[i]);
    std::optional<z3::model> m;
    z3::check_result r;
    {
      BackgroundSolver::Foreground registered(racing, ctx, s);
      r = decide(s, name + " " + what, m);
    }
    if (racing && r != z3::unknown)
      racing->cancel();
    if (r == z3::unsat)
      return z3::unsat;
    if (r == z3::sat) {
      if (exact) {
        model = m;
        return z3::sat;
      }
      if (accept([&](const z3::expr &v) { return m->eval(v, false); }))
        return z3::sat;
    }
    return std::nullopt;
  };
  std::optional<IntegerQuery> integers = toLinearIntegers(ctx, abstraction);
  if (integers) // the integer translation too, to try tactics on
    dumpSmt2(name + ".integer.smt2", integers->assertions);
  // The integer query's terms that give the variables their values, found
  // for the queries whose integer stage gets a model or runs in the
  // background.
  std::optional<IntegerTerms> wantedTerms;
  auto wanted = [&]() -> const IntegerTerms & {
    if (!wantedTerms)
      wantedTerms.emplace(*integers);
    return *wantedTerms;
  };
  // A model of the integer query (values of the abstraction's variables)
  // lifted to the query.
  auto integerModel = [&](const BitVectorValues &values) -> Answer {
    bool lifted = accept([&](const z3::expr &v) { return values.valueOr(v); });
    return lifted ? Answer(z3::sat) : std::nullopt;
  };
  auto integerSolved = [&](unsigned ms, unsigned wallSlack,
                           bool capped = true) -> Answer {
    z3::solver s = integerSolver(ctx);
    // The LIA strategy counts work more sparsely than the bit-blaster (down
    // to about 1 000 units per millisecond on queries it cannot decide), so
    // its wall clock is looser: the resource count, not the machine's load,
    // ends it.
    limitSolver(s, capped ? within(ms) : ms, wallSlack);
    for (unsigned i = 0; i < integers->assertions.size(); ++i)
      s.add(integers->assertions[i]);
    std::optional<z3::model> m;
    z3::check_result r =
        decide(s, name + (ms == kIntegerGlanceMs ? " glance" : " integer"), m);
    if (r == z3::unsat)
      return z3::unsat;
    if (r != z3::sat)
      return std::nullopt;
    return integerModel(wanted().values(modelValues(*m, wanted().terms)));
  };

  // 2. Integers at a glance; then the bit-blaster briefly while the integer
  // solver's full budget runs on a second core. The answers are the ones of
  // running the two in that order: the bit-blaster's, when it decides (the
  // integer solver is stopped), else the integer solver's; an unsat of the
  // integer solver ends the bit-blaster early (both would be unsat).
  bool glanceOnly = limit <= kIntegerGlanceMs;
  if (integers) {
    if (glanceOnly ||
        variableCount(integers->assertions) < kGlanceMostVariables)
      if (Answer a = integerSolved(glanceOnly ? glanceOnlyMs : kIntegerGlanceMs,
                                   kIntegerGlanceWallSlack, !glanceOnly))
        return *a;
    if (glanceOnly)
      return z3::unknown; // a glance was asked for
  }
  if (!abstractionSat) {
    BackgroundSolver *racing = nullptr;
    if (integers) {
      Budget b = budgetOf(within(kIntegerMs), kIntegerWallSlack);
      background.start(integers->assertions, wanted().terms, integerSolver,
                       b.rlimit, b.timeoutMs, /*satDecides=*/anyModel);
      racing = &background;
    }
    // Without a racing integer stage or an abstraction, the probe is the
    // full query under a smaller budget: a probe that runs out would only
    // be asked again from scratch.
    Answer probe;
    if (racing ? !racing->decided() : !exact)
      probe = bitBlasted(kProbeMs, "probe", racing);
    if (racing) {
      BackgroundSolver::Answer in = racing->wait();
      logLine(name + " integer", in.result, in.work, in.milliseconds);
      if (!probe && !abstractionSat) {
        if (in.result == z3::unsat)
          return z3::unsat;
        if (in.result == z3::sat)
          if (Answer a = integerModel(wanted().values(in.values)))
            return *a;
      }
    }
    if (probe)
      return *probe;
  }
  // Only an unsat answer was wanted, and the abstraction has a model.
  if (unsatOnly && abstractionSat)
    return z3::unknown;
  // 3. The abstraction, bit-blasted.
  if (!exact && !abstractionSat)
    if (Answer a = bitBlasted(kAbstractionMs, "abstracted"))
      return *a;
  // 4. The full query.
  z3::solver s(ctx, queryLogic);
  limitSolver(s, limit);
  for (unsigned i = 0; i < query.size(); ++i)
    s.add(query[i]);
  return decide(s, name, model);
}

} // namespace argus::verify::detail
