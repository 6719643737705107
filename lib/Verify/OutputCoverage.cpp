//===- OutputCoverage.cpp - each output element written exactly once ------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The implicit checks of what a kernel leaves in global memory (issue 9,
// item 9a), for every tensor argument it stores to:
//
//   output-once      no element is written by two instances: two blocks,
//                    two iterations of the loops around a store, or two
//                    store ops. (The threads of one instance that hold one
//                    element of a replicated register tile write it once.)
//                    One quantifier-free query per pair of stores, the second
//                    instance evaluated with renamed block ids.
//   output-coverage  every element inside the tensor's sizes is written.
//                    "For every element some instance writes it" is a
//                    quantifier alternation that Z3 rarely proves, so the
//                    check constructs the writing instance instead: each
//                    block id and induction variable is solved from one
//                    dimension of the store's offsets (offset = a * n + f0
//                    over the n-th value, so n = (e - f0) / a, a constant
//                    or a term of the arguments), and the
//                    query asks for an element the constructed instance
//                    misses. Unsat proves coverage whatever the candidate
//                    was; a model is confirmed by a second query asking
//                    whether *any* instance writes that element, so a weak
//                    candidate gives unknown, never a false alarm.
//
//   atomic-race      (tensors some `argus.store atomic` accumulates into)
//                    no element that one block accumulates atomically is
//                    stored or loaded plainly by another block: nothing
//                    orders two blocks. Atomic accumulations of one element
//                    never race among themselves and are not counted by
//                    output-once; coverage counts them as writes (an
//                    element is covered when some instance contributes).
//
// Gathered rows come from data: a tensor written through a gather_view is
// covered in its columns only; output-once compares its rows as positions
// of the index tensor, whose entries an argus.assume_indices declares
// distinct (one position, one row), and is unknown without it.
//
//===----------------------------------------------------------------------===//

#include "ConcreteIndex.h"
#include "KernelVerifier.h"
#include "OpNames.h"
#include "Subterms.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "llvm/Support/SaveAndRestore.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::verify::detail {

namespace {

/// Whether the term `e` contains the constant `x`.
bool mentions(const z3::expr &e, const z3::expr &x) {
  std::set<unsigned> seen;
  std::vector<z3::expr> todo{e};
  while (!todo.empty()) {
    z3::expr t = todo.back();
    todo.pop_back();
    if (!seen.insert(t.id()).second)
      continue;
    if (z3::eq(t, x))
      return true;
    if (t.is_app())
      for (unsigned i = 0; i < t.num_args(); ++i)
        todo.push_back(t.arg(i));
  }
  return false;
}

using ::argus::verify::detail::substituted;

/// `e` with the constant `x` replaced by `v`.
z3::expr substituted(const z3::expr &e, const z3::expr &x, const z3::expr &v) {
  z3::expr_vector f(e.ctx()), t(e.ctx());
  f.push_back(x);
  t.push_back(v);
  return z3::expr(e).substitute(f, t);
}

/// The subterms u / D and u % D of `e` whose divisor D does not mention u.
void collectDivisions(const z3::expr &e, const z3::expr &u,
                      std::vector<z3::expr> &out) {
  std::set<unsigned> seen;
  std::vector<z3::expr> todo{e};
  while (!todo.empty()) {
    z3::expr t = todo.back();
    todo.pop_back();
    if (!t.is_app() || !seen.insert(t.id()).second)
      continue;
    Z3_decl_kind k = t.decl().decl_kind();
    if ((k == Z3_OP_BUREM || k == Z3_OP_BUREM_I || k == Z3_OP_BUDIV ||
         k == Z3_OP_BUDIV_I) &&
        z3::eq(t.arg(0), u) && !mentions(t.arg(1), u)) {
      if (std::none_of(out.begin(), out.end(),
                       [&](const z3::expr &o) { return z3::eq(o, t); }))
        out.push_back(t);
      continue;
    }
    for (unsigned i = 0; i < t.num_args(); ++i)
      todo.push_back(t.arg(i));
  }
}

bool isRemainder(const z3::expr &t) {
  Z3_decl_kind k = t.decl().decl_kind();
  return k == Z3_OP_BUREM || k == Z3_OP_BUREM_I;
}

/// k with `big` = `d` * k: a product with `d` among its factors, or two
/// constants.
std::optional<z3::expr> cofactor(const z3::expr &big, const z3::expr &d) {
  if (big.is_numeral() && d.is_numeral()) {
    uint64_t b = big.get_numeral_uint64(), v = d.get_numeral_uint64();
    if (v != 0 && b % v == 0)
      return big.ctx().bv_val(b / v, big.get_sort().bv_size());
    return std::nullopt;
  }
  if (!big.is_app() || big.decl().decl_kind() != Z3_OP_BMUL)
    return std::nullopt;
  for (unsigned i = 0; i < big.num_args(); ++i) {
    if (!z3::eq(big.arg(i), d))
      continue;
    std::optional<z3::expr> k;
    for (unsigned j = 0; j < big.num_args(); ++j)
      if (j != i)
        k = k ? *k * big.arg(j) : big.arg(j);
    return k;
  }
  return std::nullopt;
}

/// A mixed-radix reading of a loop index (a persistent tile loop's tile
/// number, split into row and column, possibly in groups of rows): the
/// index's quotients and remainders by a divisor D, and by multiples D * k
/// (u / (D * k) = q / k, u % (D * k) = (q % k) * D + r), replaced by two
/// digits u = q * D + r, each split again where the terms divide it. The
/// leaf digits are solved from the offsets like any unknown.
struct RadixSplit {
  struct Level {
    z3::expr u, d, q, r;
    /// The division terms of u and what replaces them.
    std::vector<z3::expr> from, to;
    /// Divisors D * k rewritten through D: their products must not wrap.
    std::vector<z3::expr> multiples;
  };
  std::string name;          // of the digits' variables
  std::vector<Level> levels; // outermost first
  std::vector<z3::expr> leaves;

  /// `e` with the index's divisions replaced by digits.
  z3::expr digitized(z3::expr e) const {
    for (const Level &l : levels)
      e = substituted(e, l.from, l.to);
    return e;
  }
  /// `e` with every split digit replaced by its value in leaf digits.
  z3::expr value(z3::expr e) const {
    std::vector<z3::expr> from, to;
    for (const Level &l : levels) {
      from.push_back(l.u);
      to.push_back(l.q * l.d + l.r);
    }
    for (size_t pass = 0; pass <= levels.size(); ++pass)
      e = substituted(e, from, to);
    return e;
  }
  /// What makes the digits those of the index: at each level, u / D and
  /// u % D are the digits (D non-zero, its multiples not wrapping). Under
  /// it the digitized terms equal the original ones.
  z3::expr consistent() const {
    z3::expr c = levels.front().u.ctx().bool_val(true);
    for (const Level &l : levels) {
      z3::expr u = value(l.u), d = value(l.d);
      unsigned w = d.get_sort().bv_size();
      c = c && d != d.ctx().bv_val(0, w) && z3::udiv(u, d) == value(l.q) &&
          z3::urem(u, d) == value(l.r);
      for (const z3::expr &k : l.multiples)
        c = c && z3::bvmul_no_overflow(d, value(k), false);
    }
    return c;
  }
};

/// Splits `u` in `terms` (appending to `split`); false (and nothing
/// changed) when u also occurs other than through one divisor's quotients
/// and remainders.
bool splitRadix(std::vector<z3::expr> &terms, const z3::expr &u,
                RadixSplit &split, unsigned depth) {
  if (depth > 3)
    return false;
  z3::context &ctx = u.ctx();
  std::vector<z3::expr> divs;
  for (auto &t : terms)
    collectDivisions(t, u, divs);
  for (const z3::expr &div : divs) {
    z3::expr d = div.arg(1);
    unsigned w = u.get_sort().bv_size();
    std::string n = split.name + std::to_string(split.levels.size());
    RadixSplit::Level l{u,
                        d,
                        ctx.bv_const((n + ".quotient").c_str(), w),
                        ctx.bv_const((n + ".remainder").c_str(), w),
                        {},
                        {},
                        {}};
    for (const z3::expr &t : divs) {
      z3::expr dt = t.arg(1);
      bool same = z3::eq(dt, d);
      std::optional<z3::expr> k = same ? std::nullopt : cofactor(dt, d);
      if (!same && !k)
        continue;
      l.from.push_back(t);
      if (same)
        l.to.push_back(isRemainder(t) ? l.r : l.q);
      else
        l.to.push_back(isRemainder(t) ? z3::urem(l.q, *k) * d + l.r
                                      : z3::udiv(l.q, *k));
      if (k)
        l.multiples.push_back(*k);
    }
    std::vector<z3::expr> rewritten;
    bool left = false;
    for (auto &t : terms) {
      rewritten.push_back(substituted(t, l.from, l.to));
      left |= mentions(rewritten.back(), u);
    }
    if (left)
      continue;
    terms = std::move(rewritten);
    z3::expr q = l.q, r = l.r;
    split.levels.push_back(std::move(l));
    for (const z3::expr &v : {q, r})
      if (!splitRadix(terms, v, split, depth + 1))
        split.leaves.push_back(v);
    return true;
  }
  return false;
}

} // namespace

KernelVerifier::OutputWrite KernelVerifier::outputWrite(Operation *op,
                                                        Value tile) {
  OutputWrite w;
  w.op = op;
  w.dest = tile ? tile : writeDest(op);
  w.read = tile && !(isWriteOp(op) && writeDest(op) == tile);
  if (auto st = dyn_cast<StoreOp>(op))
    w.atomic = !w.read && st.getAtomic().has_value();
  w.view = globalViewOf(w.dest);
  if (!w.view)
    return w;
  w.gather = isa<GatherViewOp>(w.view);
  auto ty = cast<TileType>(w.dest.getType());
  w.shape.assign(ty.getShape().begin(), ty.getShape().end());
  std::optional<L::Layout> l = accessLayout(op);
  if (!l)
    return w;
  w.layout = l;
  // The tile elements no thread of the block writes (a layout made for
  // more threads than the block has, or one that skips elements).
  int64_t n = product(w.shape);
  int64_t lt = l->mode(0).size(), slots = l->mode(1).size();
  std::vector<bool> hit(n, false);
  for (int64_t t = 0; t < std::min(lt, threads); ++t)
    for (int64_t s = 0; s < slots; ++s) {
      int64_t lin = (*l)(t + lt * s);
      if (lin >= 0 && lin < n)
        hit[lin] = true;
    }
  for (int64_t i = 0; i < n; ++i)
    if (!hit[i])
      w.missing.push_back(i);
  return w;
}

KernelVerifier::WriteInstance
KernelVerifier::writeInstance(const OutputWrite &w, bool guardOnly) {
  std::vector<LoopVar> loops;
  Inst in = freshInst(w.op, guardOnly, &loops);
  WriteInstance wi{in, loops, {}, {}};
  Value tensor = viewedTensor(w.view);
  int64_t rank = cast<MemRefType>(tensor.getType()).getRank();
  MemView mv = resolve(w.dest, wi.in);
  wi.offsets.assign(rank, std::nullopt);
  if (w.gather) {
    if (rank != 2 || mv.perm.size() != 2)
      unsupported("a gather_view of a tensor that is not 2-D");
    auto g = cast<GatherViewOp>(w.view);
    wi.offsets[1] = evalIndex(g.getCol(), wi.in);
    if (w.positions)
      wi.offsets[0] = evalIndex(ViewOp(w.positions).getOffsets()[0], wi.in);
  } else {
    if (mv.offsets.size() != static_cast<size_t>(rank) ||
        mv.perm.size() != static_cast<size_t>(rank))
      unsupported("a view whose rank differs from its tensor's");
    for (int64_t k = 0; k < rank; ++k)
      wi.offsets[k] = mv.offsets[k];
  }
  wi.perm = mv.perm;
  wi.bounds.assign(rank, std::nullopt);
  if (auto v = dyn_cast<ViewOp>(w.view))
    for (auto [k, b] : llvm::enumerate(v.getBounds()))
      wi.bounds[k] = evalIndex(b, wi.in);
  return wi;
}

z3::expr KernelVerifier::writesElement(const OutputWrite &w,
                                       const WriteInstance &wi,
                                       const std::vector<z3::expr> &e) {
  z3::expr r = ctx.bool_val(true);
  std::vector<z3::expr> tile(w.shape.size(), bv(0));
  for (size_t k = 0; k < e.size(); ++k) {
    if (!wi.offsets[k])
      continue;
    const z3::expr &o = *wi.offsets[k];
    unsigned tk = wi.perm[k];
    r = r && z3::uge(e[k], o) && z3::ult(e[k] - o, bv(w.shape[tk]));
    if (k < wi.bounds.size() && wi.bounds[k])
      r = r && z3::ult(e[k], *wi.bounds[k]); // cut at the view's bound
    tile[tk] = e[k] - o;
  }
  if (!w.missing.empty()) {
    if (w.gather)
      unsupported("a gathered store whose layout leaves tile elements "
                  "unwritten");
    z3::expr lin = this->lin(tile, w.shape);
    for (int64_t m : w.missing)
      r = r && lin != bv(m);
  }
  return r;
}

void KernelVerifier::checkOutputs(std::vector<CheckResult> &out) {
  // The writes of each tensor argument, in program order.
  std::map<unsigned, std::vector<Operation *>> writes;
  std::vector<unsigned> order;
  func.walk([&](Operation *op) {
    if (!isWriteOp(op) || !isGlobalTile(writeDest(op)))
      return;
    Operation *view = globalViewOf(writeDest(op));
    auto arg =
        view ? dyn_cast<BlockArgument>(viewedTensor(view)) : BlockArgument();
    if (!arg || arg.getOwner()->getParentOp() != func.getOperation()) {
      CheckResult res = newCheck("output-coverage", op, op);
      res.predicate = "every element of the tensor this op writes is "
                      "written exactly once";
      res.status = Status::Unknown;
      res.reason = "the written tensor is not a kernel argument seen through "
                   "an argus.view or gather_view";
      out.push_back(res);
      return;
    }
    if (!writes.count(arg.getArgNumber()))
      order.push_back(arg.getArgNumber());
    writes[arg.getArgNumber()].push_back(op);
  });
  for (unsigned a : order) {
    std::vector<OutputWrite> ws;
    bool gather = false, plain = false;
    Operation *firstAtomic = nullptr;
    for (Operation *op : writes[a]) {
      ws.push_back(outputWrite(op));
      gather |= ws.back().gather;
      plain |= !ws.back().atomic;
      if (ws.back().atomic && !firstAtomic)
        firstAtomic = op;
    }
    std::string name = ws.front().view ? viewName(ws.front().view) : "?";
    bool once = false;
    if (gather && plain) {
      // Scattered rows: two writes meet only at one position of one index
      // tensor declared distinct (then rows are positions); else unknown.
      std::string why = gatheredPositions(ws);
      if (!why.empty()) {
        CheckResult res = newCheck("output-once", ws.front().op, ws.front().op);
        res.predicate = "no element of " + name +
                        " is written by two blocks, two loop iterations or "
                        "two store ops";
        res.status = Status::Unknown;
        res.reason = why;
        out.push_back(res);
      }
    }
    if ((!gather || ws.front().positions) && plain) {
      PairRule rule{"output-once",
                    "no element of " + name +
                        " is written by two blocks, two loop iterations or "
                        "two store ops" +
                        (firstAtomic ? " (atomic accumulations aside)" : ""),
                    [](const OutputWrite &x, const OutputWrite &y) {
                      return !x.atomic && !y.atomic;
                    },
                    false};
      out.push_back(checkAccessPairs(ws, ws.front().op, rule));
      // Counting (pigeonhole) needs every element written once: not so
      // when blocks accumulate into it.
      once = out.back().status == Status::Proved && !firstAtomic;
    }
    if (firstAtomic && !gather) {
      // Plain reads of the accumulated tensor race with the accumulation
      // of other blocks, as its plain writes do.
      std::vector<OutputWrite> acc = ws;
      func.walk([&](Operation *op) {
        if (!isa<LoadOp, CopyOp, CopyAsyncOp, TmaLoadOp>(op))
          return;
        Value src = op->getOperand(0);
        if (!isGlobalTile(src))
          return;
        Operation *view = globalViewOf(src);
        auto arg = view ? dyn_cast<BlockArgument>(viewedTensor(view))
                        : BlockArgument();
        if (arg && arg.getOwner()->getParentOp() == func.getOperation() &&
            arg.getArgNumber() == a)
          acc.push_back(outputWrite(op, src));
      });
      PairRule rule{"atomic-race",
                    "no element of " + name +
                        " that a block accumulates atomically is stored or "
                        "loaded without an atomic by another block",
                    [](const OutputWrite &x, const OutputWrite &y) {
                      return x.atomic != y.atomic;
                    },
                    true};
      out.push_back(checkAccessPairs(acc, firstAtomic, rule));
    }
    // Gathered rows: covered by position where every write's rows are the
    // positions of one distinct index tensor, else by column only.
    out.push_back(checkCoverage(ws, once));
  }
}

CheckResult KernelVerifier::checkAccessPairs(std::vector<OutputWrite> &ws,
                                             Operation *reportOp,
                                             const PairRule &rule) {
  CheckResult res = newCheck(rule.kind, reportOp, reportOp);
  std::string name = viewName(ws.front().view);
  res.predicate = rule.predicate;
  std::vector<z3::expr> loaded;
  for (auto &[n, e] : paramVars)
    if (n.rfind("load@", 0) == 0)
      loaded.push_back(e);
  runCheck({&res}, [&](Query &Q) {
    std::optional<std::string> unknown;
    res.status = Status::Proved;
    for (size_t i = 0; i < ws.size() && res.status != Status::Violated; ++i)
      for (size_t j = i; j < ws.size() && res.status != Status::Violated; ++j) {
        if (!rule.examine(ws[i], ws[j]))
          continue;
        Query P;
        q = &P;
        baseCons(P);
        const OutputWrite &w1 = ws[i], &w2 = ws[j];
        if (!w1.view || !w2.view || !w1.layout || !w2.layout)
          unsupported("a global write without a view or a thread layout");
        WriteInstance a = writeInstance(w1, false);
        // The second instance in a block of its own: block ids and values
        // loaded at entry renamed (with the same constraints).
        std::vector<z3::expr> from, to, blocks1, blocks2;
        for (auto &[key, e] : params) {
          bool isBlock = false;
          // A block's cluster id and rank are its block id too.
          bool isCluster = false;
          for (unsigned d = 0; d < 3; ++d) {
            isBlock |= key == blockIdKey(d);
            isCluster |= key == clusterIdKey(d) || key == clusterRankKey(d);
          }
          bool isLoad = false;
          for (auto &l : loaded)
            isLoad |= z3::eq(l, e);
          if (!isBlock && !isCluster && !isLoad)
            continue;
          z3::expr r = var(isBlock || isCluster ? "other_block" : "other_load");
          renamedParams.emplace(key, r);
          from.push_back(e);
          to.push_back(r);
          if (isBlock) {
            blocks1.push_back(e);
            blocks2.push_back(r);
          }
        }
        for (auto &c : launchConstraints())
          P.cons.push_back(substituted(c, from, to));
        std::optional<WriteInstance> b;
        try {
          b = writeInstance(w2, false);
        } catch (...) {
          renamedParams.clear();
          throw;
        }
        renamedParams.clear();
        z3::expr distinct = ctx.bool_val(w1.op != w2.op && !rule.otherBlock);
        if (rule.otherBlock) {
          for (size_t k = 0; k < blocks1.size(); ++k)
            distinct = distinct || blocks1[k] != blocks2[k];
        } else if (w1.op == w2.op) {
          for (size_t k = 0; k < a.loops.size(); ++k)
            distinct = distinct || a.loops[k].iv != b->loops[k].iv;
          for (size_t k = 0; k < blocks1.size(); ++k)
            distinct = distinct || blocks1[k] != blocks2[k];
        }
        Value tensor = viewedTensor(w1.view);
        int64_t rank = cast<MemRefType>(tensor.getType()).getRank();
        std::vector<z3::expr> e, size;
        for (int64_t k = 0; k < rank; ++k) {
          e.push_back(var("element"));
          // Gathered rows as positions: inside the index tensor.
          size.push_back(k == 0 && w1.positions
                             ? tensorSize(ViewOp(w1.positions).getTensor(), 0)
                             : tensorSize(tensor, k));
        }
        z3::expr bad =
            distinct && writesElement(w1, a, e) && writesElement(w2, *b, e);
        for (int64_t k = 0; k < rank; ++k)
          bad = bad && z3::ult(e[k], size[k]);
        // The element as either write's offset plus its tile coordinate:
        // o1 + (e - o1) == o2 + (e - o2) holds for all values (so it
        // changes no answer), but as an equality of two terms with
        // products it gets the arithmetic lemmas' unique-decomposition
        // instance (L3): rows b1 * S + r1 and b2 * S + r2 with r1, r2 < S
        // meet only where b1 == b2 and r1 == r2. The attention kernels'
        // exactly-once queries (two heads' rows) needed 4-6x the work
        // without it.
        for (int64_t k = 0; k < rank; ++k)
          if (k < static_cast<int64_t>(a.offsets.size()) &&
              k < static_cast<int64_t>(b->offsets.size()) && a.offsets[k] &&
              b->offsets[k]) {
            const z3::expr &o1 = *a.offsets[k], &o2 = *b->offsets[k];
            bad = bad && (o1 + (e[k] - o1)) == (o2 + (e[k] - o2));
          }
        CheckResult pair = res;
        std::optional<z3::model> m =
            findWitnessSmallFirst(pair, {bad}, a.in, blocks2, e);
        if (pair.status == Status::Unknown) {
          unknown = pair.reason;
          continue;
        }
        if (!m)
          continue;
        bool viaLoads = false;
        for (auto &l : loaded)
          for (auto &o : a.offsets)
            viaLoads |= o && mentions(*o, l);
        for (auto &l : loaded)
          for (auto &o : b->offsets)
            viaLoads |= o && mentions(*o, l);
        if (viaLoads) {
          unknown = "the stores' offsets depend on values loaded from "
                    "memory, which may differ between blocks";
          continue;
        }
        res.status = Status::Violated;
        Counterexample cx;
        fillCommon(cx, *m, a.in);
        std::vector<int64_t> ge;
        for (auto &x : e)
          ge.push_back(uval(*m, x));
        // A thread of the first instance that writes the element.
        std::vector<int64_t> tc(w1.shape.size(), 0);
        for (int64_t k = 0; k < rank; ++k)
          tc[a.perm[k]] = ge[k] - uval(*m, *a.offsets[k]);
        if (cx.thread < 0)
          if (auto h = holderOf(*w1.layout, linConcrete(tc, w1.shape), threads))
            setThread(cx, h->first, h->second);
        ElementInfo el;
        el.role = w1.read ? "source" : "dest";
        el.memory = name;
        el.tileCoords = tc;
        el.globalCoords = ge;
        el.thread = cx.thread;
        el.slot = cx.slot;
        cx.elements.push_back(el);
        auto instDesc = [&](const OutputWrite &w, const WriteInstance &wi,
                            const std::vector<z3::expr> &blocks) {
          std::string s;
          llvm::raw_string_ostream os(s);
          os << opDesc(w.op) << " in block (";
          for (size_t k = 0; k < blocks.size(); ++k)
            os << (k ? ", " : "") << uval(*m, blocks[k]);
          os << ")";
          for (auto &l : wi.loops)
            os << ", " << loopName(l.loop) << " iteration " << uval(*m, l.iv);
          return s;
        };
        std::string note;
        llvm::raw_string_ostream os(note);
        os << name << "[";
        llvm::interleaveComma(ge, os);
        auto verb = [](const OutputWrite &w) {
          return w.atomic ? "accumulated atomically"
                 : w.read ? "read"
                          : "written";
        };
        if (rule.otherBlock)
          os << "] is " << verb(w1) << " by " << instDesc(w1, a, blocks1)
             << " and " << verb(w2) << " by " << instDesc(w2, *b, blocks2)
             << ", with nothing ordering the two blocks";
        else
          os << "] is written twice: by " << instDesc(w1, a, blocks1)
             << " and by " << instDesc(w2, *b, blocks2);
        cx.notes.push_back(note);
        if (w1.positions)
          cx.notes.push_back("row " + std::to_string(ge[0]) +
                             " is the position in '" +
                             ViewOp(w1.positions).getName().str() +
                             "' whose entry names the row of " + name +
                             " (distinct entries: one position, one row)");
        res.counterexamples.push_back(cx);
      }
    q = &Q;
    if (res.status != Status::Violated && unknown) {
      res.status = Status::Unknown;
      res.reason = *unknown;
    }
  });
  return res;
}

std::string KernelVerifier::gatheredPositions(std::vector<OutputWrite> &ws) {
  std::vector<ViewOp> views;
  for (OutputWrite &w : ws) {
    auto g = dyn_cast_or_null<GatherViewOp>(w.view);
    if (!g)
      return "the tensor is written both through gathered rows and through "
             "plain views: which rows the gathered ones are is data";
    std::optional<GatherSource> src = gatherSource(g);
    if (!src || !src->distinct())
      return "the rows of '" + g.getName().str() + "' are " +
             gatherRowsOrigin(src) +
             ", which may repeat; declare them distinct with "
             "`argus.assume_indices %tensor below %rows distinct` (the "
             "launcher checks it)";
    if (!views.empty() &&
        views.front().getTensor() != src->indexView.getTensor())
      return "the gathered stores take their rows from different index "
             "tensors, whose entries may name the same row";
    views.push_back(src->indexView);
  }
  for (auto [w, v] : llvm::zip(ws, views))
    w.positions = v;
  return "";
}

/// The most blocks of one launch output-coverage enumerates when its
/// construction misses (each block adds its stores' conditions to a query).
static constexpr int64_t kEnumeratedBlocks = 256;

/// Coverage by counting, for index maps the construction cannot invert (a
/// grouped raster: tile row (pid / (G * gx)) * G + pid % G): when no element
/// is written twice (output-once, proved), every instance writes a whole
/// tile inside the tensor and the instances write as many elements as the
/// tensor holds, the written sets fill the tensor (pigeonhole). Returns ""
/// when proved, else why not. Stores in loops, under conditions, through
/// clipped views or with unwritten tile elements are not counted.
std::string
KernelVerifier::coveredByCounting(std::vector<OutputWrite> &ws,
                                  const std::vector<z3::expr> &size,
                                  std::optional<z3::model> &shortLaunch) {
  // The grid dimensions the kernel distinguishes blocks by.
  std::vector<z3::expr> grid;
  z3::expr ranges = ctx.bool_val(true);
  for (unsigned d = 0; d < 3; ++d)
    if (params.count(blockIdKey(d))) {
      grid.push_back(params.at(gridDimKey(d)));
      ranges =
          ranges && z3::ult(params.at(blockIdKey(d)), params.at(gridDimKey(d)));
    }
  int64_t perBlock = 0; // elements each block writes
  std::optional<z3::model> m;
  for (const OutputWrite &w : ws) {
    auto view = dyn_cast_or_null<ViewOp>(w.view);
    if (!view || view.getClipped() || !w.missing.empty())
      return opDesc(w.op) + " writes a clipped or partial tile";
    WriteInstance wi = writeInstance(w, true);
    if (!wi.loops.empty())
      return opDesc(w.op) + " is inside a loop";
    if (!wi.in.guard.simplify().is_true())
      return opDesc(w.op) + " is under a condition";
    perBlock += product(w.shape);
    // The whole tile inside the sizes, in every block.
    z3::expr out = ctx.bool_val(false);
    for (size_t k = 0; k < wi.offsets.size(); ++k)
      if (wi.offsets[k]) {
        z3::expr o = *wi.offsets[k], n = bv(w.shape[wi.perm[k]]);
        out = out || !z3::bvadd_no_overflow(o, n, false) ||
              z3::ugt(o + n, size[k]);
      }
    z3::check_result r = solve({ranges && out}, m);
    if (r != z3::unsat)
      return r == z3::sat ? "a tile reaches past the tensor's sizes"
                          : "solver returned unknown bounding the tiles";
  }
  // The count: blocks * perBlock == the product of the sizes. Products of
  // symbolic sizes wrap in the solver's bit-vectors, so the count is taken
  // per tensor dimension instead: each size is, exactly (no wrap-around),
  // a product of some grid dimensions (each used once) and a constant, and
  // the constants multiply to perBlock; both counts are then one integer
  // product. The constants come from one launch the assumptions allow.
  if (solveSmallFirst({}, m) != z3::sat)
    return "solver found no launch satisfying the assumptions";
  // On this launch the blocks write fewer elements than the tensor holds
  // (disjoint tiles inside it): some element is never written.
  int64_t blocks = 1, elements = 1;
  for (const z3::expr &g : grid)
    blocks *= uval(*m, g);
  for (const z3::expr &sz : size)
    elements *= uval(*m, sz);
  if (blocks * perBlock < elements) {
    shortLaunch = m;
    return "on a launch the assumptions allow, " + std::to_string(blocks) +
           " blocks write " + std::to_string(blocks * perBlock) +
           " elements of the tensor's " + std::to_string(elements);
  }
  size_t rank = size.size();
  size_t assignments = 1;
  for (size_t i = 0; i < grid.size(); ++i)
    assignments *= rank;
  for (size_t a = 0; a < assignments; ++a) {
    std::vector<std::vector<size_t>> dims(rank);
    for (size_t i = 0, x = a; i < grid.size(); ++i, x /= rank)
      dims[x % rank].push_back(i);
    std::vector<int64_t> factor(rank);
    int64_t total = 1;
    bool fits = true;
    for (size_t k = 0; k < rank && fits; ++k) {
      int64_t g = 1;
      for (size_t i : dims[k])
        g *= uval(*m, grid[i]);
      int64_t sz = uval(*m, size[k]);
      fits = g > 0 && sz % g == 0;
      factor[k] = fits ? sz / g : 0;
      total *= factor[k];
    }
    if (!fits || total != perBlock)
      continue;
    z3::expr bad = ctx.bool_val(false);
    for (size_t k = 0; k < rank; ++k) {
      z3::expr prod = bv(factor[k]);
      z3::expr exact = ctx.bool_val(true);
      for (size_t i : dims[k]) {
        exact = exact && z3::bvmul_no_overflow(prod, grid[i], false);
        prod = prod * grid[i];
      }
      bad = bad || !exact || size[k] != prod;
    }
    std::optional<z3::model> m2;
    if (solve({bad}, m2) == z3::unsat)
      return "";
  }
  return "the sizes are not the grid dimensions times the tile (" +
         std::to_string(perBlock) + " elements per block)";
}

CheckResult KernelVerifier::checkCoverage(std::vector<OutputWrite> &ws,
                                          bool writtenOnce) {
  CheckResult res = newCheck("output-coverage", ws.back().op, ws.back().op);
  std::string name = viewName(ws.front().view);
  bool gather = false, byPosition = true;
  for (auto &w : ws) {
    gather |= w.gather;
    byPosition &= bool(w.positions);
  }
  // Rows that are the positions of an index tensor declared distinct
  // (gatheredPositions): every (position, column) written means every row
  // an entry names is written whole.
  std::optional<ViewOp> positions;
  if (gather && byPosition)
    positions = ws.front().positions;
  bool atomic = false;
  for (auto &w : ws)
    atomic |= w.atomic;
  // An accumulated element is covered when some instance contributes to
  // it (its value is then the initial contents combined with every
  // contribution); one no instance reaches keeps the initial contents.
  res.predicate =
      "every element inside " + name + "'s sizes is written" +
      (atomic ? std::string(" or accumulated into by at least one block")
              : std::string()) +
      (positions ? " (by position of " + positions->getName().str() +
                       ": its entries are the rows)"
       : gather ? std::string(" (its columns: gathered rows come from data)")
                : std::string());
  runCheck({&res}, [&](Query &Q) {
    for (auto &w : ws)
      if (!w.view || !w.layout)
        unsupported("a global write without a view or a thread layout");
    Value tensor = viewedTensor(ws.front().view);
    int64_t rank = cast<MemRefType>(tensor.getType()).getRank();
    std::vector<z3::expr> e, size;
    std::vector<bool> used(rank, true);
    if (gather && !positions)
      for (int64_t k = 0; k < rank; ++k)
        used[k] = k == 1;
    z3::expr inside = ctx.bool_val(true);
    for (int64_t k = 0; k < rank; ++k) {
      e.push_back(var("element"));
      size.push_back(k == 0 && positions ? tensorSize(positions->getTensor(), 0)
                                         : tensorSize(tensor, k));
      if (used[k])
        inside = inside && z3::ult(e[k], size[k]);
      else
        Q.cons.push_back(e[k] == bv(0));
    }
    std::vector<z3::expr> loaded;
    for (auto &[n, v] : paramVars)
      if (n.rfind("load@", 0) == 0)
        loaded.push_back(v);
    // The instance of each write that should cover e. With `symbolicFirst`,
    // entangled unknowns with a symbolic slope are solved first (a head
    // index times a sequence length, then a tile index times a constant);
    // otherwise the largest constant slope first.
    // In a kernel with a thread-block cluster, a block id is a cluster id
    // and a rank in the cluster: the construction solves the cluster id
    // and tries each rank (an element is covered when one rank's instance
    // writes it).
    int64_t ranks = 1;
    for (unsigned d = 0; d < 3; ++d)
      if (params.count(blockIdKey(d)))
        ranks *= cluster[d];
    // With `rankUnknown`, the rank is one more unknown solved from the
    // offsets (a cluster's blocks take adjacent tiles: one instance instead
    // of one per rank).
    auto construct = [&](bool symbolicFirst, std::string &weak,
                         bool rankUnknown) {
      z3::expr covered = ctx.bool_val(false);
      for (const OutputWrite &w : ws)
        for (int64_t which = 0; which < (rankUnknown ? 1 : ranks); ++which) {
          WriteInstance wi = writeInstance(w, true);
          std::vector<z3::expr> cf, ct;
          std::vector<std::pair<unsigned, z3::expr>> rankVars;
          for (int64_t d = 0, rest = which; d < 3; rest /= cluster[d], ++d) {
            if (!clusteredDim(d))
              continue;
            z3::expr r = rankUnknown ? var("rank") : bv(rest % cluster[d]);
            if (rankUnknown)
              rankVars.push_back({unsigned(d), r});
            cf.insert(cf.end(),
                      {params.at(clusterRankKey(d)), params.at(blockIdKey(d))});
            ct.insert(ct.end(), {r, peerBlockId(d, r)});
          }
          auto byRank = [&](const z3::expr &t) {
            return substituted(t, cf, ct);
          };
          for (auto &o : wi.offsets)
            if (o)
              o = byRank(*o);
          for (auto &b : wi.bounds)
            if (b)
              b = byRank(*b);
          for (auto &l : wi.loops) {
            l.iv = byRank(l.iv);
            l.lb = byRank(l.lb);
            l.stepTerm = byRank(l.stepTerm);
          }
          wi.in.guard = byRank(wi.in.guard);
          struct Unknown {
            z3::expr x, lb;
            int64_t step; // 0 when symbolic
            z3::expr range;
            const LoopVar *loop;          // null for a block id
            std::optional<z3::expr> last; // a block id's last value
          };
          std::vector<Unknown> xs;
          for (unsigned d = 0; d < 3; ++d)
            if (clusteredDim(d)) {
              z3::expr cid = params.at(clusterIdKey(d));
              z3::expr n = params.at(clustersKey(d));
              xs.push_back(
                  {cid, bv(0), 1, z3::ult(cid, n), nullptr, n - bv(1)});
            } else if (params.count(blockIdKey(d))) {
              xs.push_back(
                  {params.at(blockIdKey(d)), bv(0), 1,
                   z3::ult(params.at(blockIdKey(d)), params.at(gridDimKey(d))),
                   nullptr, params.at(gridDimKey(d)) - bv(1)});
            }
          for (auto &[d, r] : rankVars)
            xs.push_back({r, bv(0), 1, z3::ult(r, bv(cluster[d])), nullptr,
                          bv(cluster[d] - 1)});
          for (auto &l : wi.loops)
            xs.push_back(
                {l.iv, l.lb, l.step, ctx.bool_val(true), &l, std::nullopt});
          // A loop index the offsets hold only through quotients and
          // remainders (a persistent loop over tiles: row t / n, column
          // t % n, or rows in groups) is read as digits, each solved from
          // the offset that holds it; the index is their reconstruction.
          // The instance with digits for the split indices' divisions, valid
          // where the digits are consistent (RadixSplit::consistent).
          struct Radix {
            size_t index;
            RadixSplit split;
            std::vector<size_t> digits;
          };
          std::vector<Radix> radix;
          WriteInstance dwi = wi;
          size_t radixFrom = xs.size();
          for (size_t i = 0; i < radixFrom; ++i) {
            if (!xs[i].loop)
              continue;
            std::vector<z3::expr> terms;
            for (auto &o : dwi.offsets)
              if (o)
                terms.push_back(*o);
            RadixSplit split;
            split.name = xs[i].x.to_string() + ".digit";
            if (!splitRadix(terms, xs[i].x, split, 0))
              continue;
            // The offsets hold leaf digits only; a guard or bound may keep
            // a digit that was split again (a condition on t / 8 itself),
            // which is its value in leaf digits.
            for (auto *ts : {&dwi.offsets, &dwi.bounds})
              for (auto &t : *ts)
                if (t)
                  t = split.value(split.digitized(*t));
            dwi.in.guard = split.value(split.digitized(dwi.in.guard));
            radix.push_back({i, std::move(split), {}});
            for (const z3::expr &d : radix.back().split.leaves) {
              radix.back().digits.push_back(xs.size());
              xs.push_back(
                  {d, bv(0), 1, ctx.bool_val(true), nullptr, std::nullopt});
            }
          }
          const std::vector<std::optional<z3::expr>> &offs = dwi.offsets;
          std::vector<z3::expr> from, to;
          std::vector<bool> done(xs.size(), false);
          auto solved = [&](const z3::expr &t) {
            return substituted(t, from, to);
          };
          auto blocked = [&](const z3::expr &t, size_t self) {
            for (size_t j = 0; j < xs.size(); ++j)
              if (j != self && !done[j] && mentions(t, xs[j].x))
                return true;
            return false;
          };
          z3::params som(ctx);
          som.set("som", true);
          // The candidate for unknown i from offset k: offset = a * n + f0 over
          // the n-th value of the unknown, so n = (e - f0) / a. With
          // `othersFirst` the other unknowns of that offset are taken at their
          // first value (a mixed radix: block * 32 + i * 16 is solved for the
          // block, the larger slope, first).
          struct Solution {
            z3::expr cand;
            int64_t slope; // 0 when symbolic
          };
          auto trySolve = [&](size_t i, int64_t k,
                              bool othersFirst) -> std::optional<Solution> {
            if (!offs[k])
              return std::nullopt;
            z3::expr f = solved(*offs[k]), lb = solved(xs[i].lb);
            if (!mentions(f, xs[i].x) || blocked(lb, i))
              return std::nullopt;
            for (size_t j = 0; othersFirst && j < xs.size(); ++j)
              if (j != i && !done[j] && mentions(f, xs[j].x)) {
                // The others at their least contribution: the first value,
                // or a block id's last where the offset falls with it.
                z3::expr lj = solved(xs[j].lb);
                if (xs[j].last) {
                  z3::expr d = (substituted(f, xs[j].x, lj + bv(1)) -
                                substituted(f, xs[j].x, lj))
                                   .simplify(som);
                  if (d.is_numeral() &&
                      d.get_numeral_uint64() >= uint64_t(kIndexBound))
                    lj = solved(*xs[j].last);
                }
                if (blocked(lj, j))
                  return std::nullopt;
                f = substituted(f, xs[j].x, lj);
              }
            if (blocked(f, i))
              return std::nullopt;
            z3::expr f0 = substituted(f, xs[i].x, lb);
            z3::expr f1 = substituted(f, xs[i].x, lb + bv(xs[i].step));
            // The slope may be symbolic (a row stride argument): the candidate
            // is only a guess, which the query checks.
            z3::expr a = (f1 - f0).simplify(som);
            int64_t av = 0;
            if (a.is_numeral()) {
              av = static_cast<int64_t>(a.get_numeral_uint64());
              // A negative constant slope (tiles walked from the last, as
              // (g - 1 - y) * 128): offset n is f0 - |a| n, so the tile
              // holding e is n = ceil((f0 - e) / |a|).
              int64_t neg = (int64_t(1) << a.get_sort().bv_size()) - av;
              if (av >= kIndexBound && neg > 0 && neg < kIndexBound)
                return Solution{lb +
                                    z3::udiv(f0 + bv(neg - 1) - e[k], bv(neg)) *
                                        bv(xs[i].step),
                                neg};
              if (av == 0 || av >= kIndexBound)
                return std::nullopt;
            }
            if (mentions(a, xs[i].x) || blocked(a, i))
              return std::nullopt;
            return Solution{lb + z3::udiv(e[k] - f0, a) * bv(xs[i].step), av};
          };
          auto resolveAs = [&](size_t i, const z3::expr &cand) {
            from.push_back(xs[i].x);
            // In the second order, simplified so that lemmas match its
            // quotients and products ((e / S) * S, not (0 + (e - 0) / S * 1)
            // * S); the first order keeps the terms the radix lemmas match.
            to.push_back(symbolicFirst ? cand.simplify() : cand);
            done[i] = true;
          };
          // A split index once its digits are solved; the loop's first
          // value, when that is a block id (a grid-stride loop), is then the
          // index % step.
          auto finishRadix = [&] {
            for (const Radix &r : radix) {
              if (done[r.index] ||
                  !llvm::all_of(r.digits, [&](size_t d) { return done[d]; }))
                continue;
              z3::expr t = solved(r.split.value(xs[r.index].x));
              resolveAs(r.index, t);
              const LoopVar *l = xs[r.index].loop;
              for (size_t j = 0; j < xs.size(); ++j)
                if (!done[j] && !xs[j].loop && z3::eq(xs[j].x, l->lb))
                  resolveAs(j, z3::urem(t, l->stepTerm));
            }
          };
          auto isSplit = [&](size_t i) {
            return llvm::any_of(radix,
                                [&](const Radix &r) { return r.index == i; });
          };
          for (size_t i = 0; i < xs.size(); ++i)
            if (xs[i].loop && xs[i].step == 0 && !done[i] && !isSplit(i))
              unsupported(
                  "the writing loop at " + locStr(xs[i].loop->loop->getLoc()) +
                  " has a symbolic step (a grid-stride loop) and its "
                  "index is not split into tile coordinates by / and %");
          for (bool progress = true; progress;) {
            progress = false;
            finishRadix();
            for (size_t i = 0; i < xs.size(); ++i)
              for (int64_t k = 0; k < rank && !done[i]; ++k)
                if (auto sol = trySolve(i, k, false)) {
                  resolveAs(i, sol->cand);
                  progress = true;
                }
            if (progress)
              continue;
            // Entangled unknowns: solve the one with the largest constant
            // slope.
            std::optional<std::pair<size_t, Solution>> best;
            for (size_t i = 0; i < xs.size(); ++i)
              for (int64_t k = 0; k < rank && !done[i]; ++k)
                if (auto sol = trySolve(i, k, true)) {
                  if (symbolicFirst && sol->slope == 0 &&
                      (!best || best->second.slope > 0))
                    best = {{i, *sol}};
                  if (sol->slope > 0 &&
                      (!best || (best->second.slope > 0 &&
                                 sol->slope > best->second.slope)))
                    best = {{i, *sol}};
                }
            if (best) {
              resolveAs(best->first, best->second.cand);
              progress = true;
            }
          }
          // What no offset depends on takes its first value; an entangled one
          // (a product of two block ids) is not solved. Digits go first: a
          // split index (and the block id it starts from) is their value.
          for (size_t n = xs.size(), k = 0; k < n; ++k) {
            size_t i = (k + radixFrom) % n;
            if (i < radixFrom)
              finishRadix();
            if (done[i])
              continue;
            for (auto &o : offs)
              if (o && mentions(solved(*o), xs[i].x) && weak.empty())
                weak = opDesc(w.op) + ": " + xs[i].x.to_string() +
                       " is not solvable from one offset";
            resolveAs(i, solved(xs[i].lb));
          }
          for (auto &l : loaded)
            for (auto &o : wi.offsets)
              if (o && mentions(*o, l))
                unsupported(
                    opDesc(w.op) +
                    ": its offsets depend on values loaded from memory, "
                    "which may differ between blocks");
          z3::expr c = dwi.in.guard && byRank(writesElement(w, dwi, e));
          for (const Radix &r : radix)
            c = c && r.split.consistent();
          for (auto &x : xs)
            c = c && x.range;
          covered = covered || solved(c);
        }
      return covered;
    };
    std::string weak;
    z3::expr covered = construct(false, weak, false);
    {
      // Unsat for either order of the entangled unknowns is the proof. The
      // order that proved the kernel's previous store is tried first (the
      // stores of one kernel share their index structure: attention's O and
      // LSE both need the symbolic-first order, whose miss costs a query).
      std::optional<z3::model> probe;
      std::optional<z3::expr> other;
      std::string weak2;
      auto proves = [&](bool symbolicFirst) {
        if (symbolicFirst && !other)
          other = construct(true, weak2, false);
        // Only a proof is acted on (a miss tries the other order, then the
        // witness search): no model is lifted.
        llvm::SaveAndRestore<bool> any(anyModel, true),
            proofOnly(unsatOnly, true);
        return solve({inside, !(symbolicFirst ? *other : covered)}, probe) ==
               z3::unsat;
      };
      bool first = symbolicOrderFirst;
      if (ranks > 1) {
        std::string weak3;
        z3::expr one = construct(first, weak3, true);
        llvm::SaveAndRestore<bool> any(anyModel, true),
            proofOnly(unsatOnly, true);
        if (solve({inside, !one}, probe) == z3::unsat) {
          res.status = Status::Proved;
          return;
        }
      }
      for (bool order : {first, !first})
        if (proves(order)) {
          symbolicOrderFirst = order;
          res.status = Status::Proved;
          return;
        }
    }
    std::optional<z3::model> m = findWitnessSmallFirst(
        res, {inside, !covered}, Inst(ctx.bool_val(true)), {}, e);
    if (!m)
      return;
    // Confirm: with the model's arguments and sizes, does any instance of
    // any write reach the element?
    std::vector<int64_t> ge;
    std::vector<std::pair<std::string, int64_t>> fixed;
    auto confirm = [&](const z3::model &at) {
      ge.clear();
      fixed.clear();
      for (auto &x : e)
        ge.push_back(uval(at, x));
      Query C;
      q = &C;
      baseCons(C);
      for (auto &[n, v] : paramVars)
        if (!blockDerived(n)) {
          C.cons.push_back(v == bv(uval(at, v)));
          fixed.push_back({n, uval(at, v)});
        }
      for (int64_t k = 0; k < rank; ++k)
        C.cons.push_back(e[k] == bv(ge[k]));
      z3::expr any = ctx.bool_val(false);
      for (const OutputWrite &w : ws) {
        WriteInstance wi = writeInstance(w, true);
        any = any || (wi.in.guard && writesElement(w, wi, e));
      }
      std::optional<z3::model> m2;
      z3::check_result r = solve({any}, m2);
      q = &Q;
      return r;
    };
    z3::check_result r = confirm(*m);
    std::string counted = "output-once is not proved";
    std::optional<z3::model> shortLaunch;
    if (r != z3::unsat && writtenOnce && !weak.empty())
      counted = coveredByCounting(ws, size, shortLaunch);
    if (shortLaunch) {
      res.status = Status::Violated;
      res.counterexamples.clear();
      Counterexample cx;
      for (auto &[n, v] : paramVars)
        if (shownAsArgument(n))
          cx.params.push_back({n, uval(*shortLaunch, v)});
      cx.notes.push_back(name + " is not covered: " + counted +
                         " (no element is written twice and every tile lies "
                         "inside it, so the rest is never written)");
      res.counterexamples.push_back(cx);
      return;
    }
    if (r != z3::unsat && counted.empty()) {
      res.status = Status::Proved;
      res.counterexamples.clear();
      return;
    }
    // Neither decided it: the model's element is written after all (the
    // construction missed its instance), but a launch of the same grid, or of
    // one block per grid dimension, may leave another element unwritten: when
    // the stores lie outside loops and are not gathered, the grid's blocks are
    // enumerated (each with the assumptions), the other arguments left free,
    // and an element none of them writes is searched for directly.
    std::vector<z3::expr> ids, gridDims;
    for (unsigned d = 0; d < 3; ++d)
      if (params.count(blockIdKey(d))) {
        ids.push_back(params.at(blockIdKey(d)));
        gridDims.push_back(params.at(gridDimKey(d)));
      }
    std::vector<std::vector<int64_t>> shapes(2);
    for (const z3::expr &g : gridDims) {
      shapes[0].push_back(uval(*m, g));
      shapes[1].push_back(1);
    }
    for (size_t a = 0;
         a < shapes.size() && r == z3::sat && !gather && loaded.empty(); ++a) {
      if (a > 0 && shapes[a] == shapes[0])
        continue;
      const std::vector<int64_t> &dims = shapes[a];
      int64_t blocks = 1;
      for (int64_t n : dims)
        blocks *= n;
      if (blocks > kEnumeratedBlocks)
        continue;
      Query D;
      q = &D;
      std::optional<z3::model> m3;
      try {
        baseCons(D);
        for (size_t d = 0; d < dims.size(); ++d)
          D.cons.push_back(gridDims[d] == bv(dims[d]));
        std::vector<WriteInstance> wis;
        bool straight = true;
        for (const OutputWrite &w : ws) {
          wis.push_back(writeInstance(w, true));
          straight = straight && wis.back().loops.empty();
        }
        if (straight) {
          z3::expr none = inside;
          for (int64_t b = 0; b < blocks; ++b) {
            z3::expr_vector from(ctx), to(ctx);
            for (size_t d = 0, x = b; d < ids.size(); x /= dims[d], ++d) {
              from.push_back(ids[d]);
              to.push_back(bv(x % dims[d]));
            }
            // A launch satisfies the assumptions in every block.
            for (z3::expr c : launchConstraints())
              none = none && c.substitute(from, to);
            for (size_t i = 0; i < ws.size(); ++i)
              none =
                  none && !(wis[i].in.guard && writesElement(ws[i], wis[i], e))
                               .substitute(from, to);
          }
          if (solveSmallFirst({none}, m3) != z3::sat)
            m3.reset();
        }
      } catch (...) {
        q = &Q;
        throw;
      }
      q = &Q;
      if (m3 && confirm(*m3) == z3::unsat) {
        m = m3;
        r = z3::unsat;
      }
    }
    if (r != z3::unsat) {
      res.status = Status::Unknown;
      res.reason =
          r == z3::sat
              ? "the verifier could not name the instance that writes each "
                "element" +
                    (weak.empty()
                         ? std::string()
                         : " (" + weak + "; by counting: " + counted + ")")
              : "solver returned unknown confirming an unwritten element";
      res.counterexamples.clear();
      return;
    }
    Counterexample cx;
    cx.params = fixed;
    ElementInfo el;
    el.role = "unwritten";
    el.memory = name;
    el.globalCoords = ge;
    cx.elements.push_back(el);
    std::string note;
    llvm::raw_string_ostream os(note);
    if (positions) {
      // Rows by position: the unwritten element is a position's column.
      el.memory = name + " (row named by " + positions->getName().str() + "[" +
                  std::to_string(ge[0]) + "])";
      cx.elements.back() = el;
      os << "position " << ge[0] << " of '" << positions->getName() << "' (of "
         << uval(*m, size[0]) << ") names a row of " << name << " whose column "
         << ge[1] << " (of " << uval(*m, size[1])
         << ") no block, iteration or store op writes";
    } else {
      os << name << "[";
      for (int64_t k = 0; k < rank; ++k)
        os << (k ? ", " : "") << (used[k] ? std::to_string(ge[k]) : "row");
      os << "] is inside its sizes [";
      for (int64_t k = 0; k < rank; ++k)
        os << (k ? ", " : "") << uval(*m, size[k]);
      os << "] but no block, iteration or store op writes it";
    }
    cx.notes.push_back(note);
    res.counterexamples.push_back(cx);
  });
  return res;
}

} // namespace argus::verify::detail
