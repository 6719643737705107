//===- Query.h - one SMT query under construction ---------------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The state every check builds: the constraints of one quantifier-free
// bit-vector query, the dynamic instance (loop iterations, guard) of the op
// being interpreted, the concrete facts the counterexample replay re-checks,
// and the shared-memory reads met on the way (for provenance notes).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_QUERY_H
#define ARGUS_LIB_VERIFY_QUERY_H

#include "argus/Verify/ModelLimits.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <z3++.h>

namespace argus::verify::detail {

/// Thrown by the interpreter when it cannot model something: the check
/// becomes unknown with this reason.
struct Unsupported {
  std::string reason;
};

[[noreturn]] inline void unsupported(const llvm::Twine &why) {
  throw Unsupported{why.str()};
}

/// Bit-vector width of every term. Index values stay below kIndexBound (no
/// wrap-around: an obligation of every index op, checked on its own), so
/// signed and unsigned readings agree.
constexpr unsigned kWidth = 24;
constexpr int64_t kIndexBound = int64_t(1) << 23;
constexpr unsigned kParamBits = 16;
constexpr int64_t kParamBound = int64_t(1) << kParamBits;
// The launchers check these ranges (argus/Verify/ModelLimits.h): keep them
// the model's.
static_assert(kParamBound == argus::verify::kScalarBound &&
                  kParamBound == argus::verify::kGridBound &&
                  kParamBound == argus::verify::kLoadedBound &&
                  kIndexBound == argus::verify::kSizeBound,
              "ModelLimits.h must state the model's ranges");

/// Dynamic context: the value of each enclosing loop's induction variable
/// and the condition under which this instance executes.
struct Inst {
  std::vector<std::pair<mlir::Operation *, z3::expr>> ivs;
  z3::expr guard;
  explicit Inst(z3::expr g) : guard(g) {}
  std::optional<z3::expr> lookup(mlir::Operation *loop) const {
    for (auto &[l, e] : ivs)
      if (l == loop)
        return e;
    return std::nullopt;
  }
  Inst with(mlir::Operation *loop, z3::expr iv, z3::expr g) const {
    Inst r = without(loop);
    r.ivs.push_back({loop, iv});
    r.guard = g;
    return r;
  }
  /// This instance, executing only where `cond` also holds (a branch).
  Inst under(const z3::expr &cond) const {
    Inst r = *this;
    r.guard = guard && cond;
    return r;
  }
  Inst without(mlir::Operation *loop) const {
    Inst r = *this;
    r.ivs.erase(std::remove_if(r.ivs.begin(), r.ivs.end(),
                               [&](auto &p) { return p.first == loop; }),
                r.ivs.end());
    return r;
  }
};

/// Tag field name -> its value as a term.
using Tags = std::map<std::string, z3::expr>;

/// The name prefix of the value a read's tag field takes where no writer
/// may be the latest (readShared; unwritten-read reports such reads).
inline constexpr llvm::StringLiteral kUndefinedTagPrefix = "undef_";

/// A concrete re-evaluation of one symbolic step on a model. Returns an
/// empty string when the model agrees.
struct Fact {
  z3::expr guard;
  std::function<std::string(const z3::model &)> check;
};

/// One shared-memory read and its possible latest writers, kept for the
/// provenance notes of counterexamples.
struct ReadRec {
  mlir::Operation *reader;
  std::string memory;
  std::vector<z3::expr> coords;
  z3::expr stage, addr;
  z3::expr defined, cut, unsync;
  struct Cand {
    mlir::Operation *op;
    bool cutoff;
    z3::expr sel;
    std::vector<z3::expr> wcoords;
    std::optional<z3::expr> wt, wv;
    std::vector<std::pair<mlir::Operation *, z3::expr>> ivs;
    std::vector<z3::expr> srcGlobal;
    std::string srcName;
  };
  std::vector<Cand> cands;
};

/// A condition the model relies on that the kernel must guarantee (an
/// index subtraction that does not underflow, an index value inside the
/// modelled range): assumed by every query, and checked on its own at `op`.
struct Obligation {
  z3::expr guard, cond;
  mlir::Operation *op;
  std::string what;
};

struct Query {
  std::vector<z3::expr> cons;
  std::vector<Obligation> obligations;
  std::map<std::pair<unsigned, int64_t>, std::pair<z3::expr, z3::expr>> divs;
  std::map<unsigned, z3::expr> divRoots;
  std::vector<ReadRec> reads;
  std::vector<Fact> facts;
  std::vector<z3::expr> reductionVars;
  /// The entries of loaded tensors the query reads (applications of a
  /// loadedTensors function), for the counterexample.
  std::vector<z3::expr> loads;

  /// What the query holds at a point, to drop what is added after it: the
  /// evaluation of terms that only a decided query needed, which would
  /// otherwise burden every later query of the check.
  struct Mark {
    size_t cons, obligations, reads, facts, reductionVars, loads;
    std::map<std::pair<unsigned, int64_t>, std::pair<z3::expr, z3::expr>> divs;
    std::map<unsigned, z3::expr> divRoots;
  };
  Mark mark() const {
    return {
        cons.size(),          obligations.size(), reads.size(), facts.size(),
        reductionVars.size(), loads.size(),       divs,         divRoots};
  }
  /// Back to `m`. Terms built after the mark must not enter a later query:
  /// their definitions are gone.
  void rollback(const Mark &m) {
    cons.erase(cons.begin() + m.cons, cons.end());
    obligations.erase(obligations.begin() + m.obligations, obligations.end());
    reads.erase(reads.begin() + m.reads, reads.end());
    facts.erase(facts.begin() + m.facts, facts.end());
    reductionVars.erase(reductionVars.begin() + m.reductionVars,
                        reductionVars.end());
    loads.erase(loads.begin() + m.loads, loads.end());
    divs = m.divs;
    divRoots = m.divRoots;
  }
};

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_QUERY_H
