//===- ReductionCoverage.cpp - every reduced index accumulated once -------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The implicit check `reduction-coverage` (issue 9, item 9b): an argus.mma
// or argus.mma_async whose accumulator is carried by the scf.for around it (the
// k loop) must accumulate every index of its reduced dimension exactly once.
// The reduced index of A's element (m, kk) in iteration i is a tag field of A
// (the *reduced field*, r(i, m, kk)); the check proves, with quantifier-free
// queries, that for every row m the values accumulated run through
// 0, 1, 2, ... without a gap or a repeat:
//
//   (1) within an iteration:   r(i, m, kk + 1) == r(i, m, kk) + 1
//   (2) across iterations:     r(i + step, m, 0) == r(i, m, BK - 1) + 1
//       (for every iteration whose successor is in range)
//   (3) at the start:          r(lb, m, 0) == 0 (or the value of the
//       reduced field in the tag of a fresh accumulator, which declares
//       where the reduction starts: the keys of one attention head start at
//       its first row of K), or, when the accumulator comes from an earlier
//       loop (a pipeline's main loop before its drain loop), one more than
//       the last value that loop accumulated (the expected start of that
//       loop when it runs no iteration).
//
// (1) and (2) are one query over the successor (i', kk') of (i, kk). The
// end of the reduction (that the last value is the size of A's reduced
// dimension minus one) is not checked.
//
// A loop may also walk the tiles downward (a causal attention visits its
// diagonal key tile first, so that the masked tile is the peeled one):
// (1) as above, and across iterations r(i + step, m, 0) == r(i, m, 0) - BK,
// from the start a fresh accumulator declares (the top tile). The tiles
// are then adjacent and disjoint as well; the bottom end is not checked,
// as the top end of an upward reduction is not. A downward walk is tried
// only when the upward one fails, and only from a declared start (an
// accumulator handed on from an earlier loop continues upward).
//
//===----------------------------------------------------------------------===//

#include "ConcreteIndex.h"
#include "KernelVerifier.h"
#include "OpNames.h"

#include "argus/Dialect/TagFields.h"
#include "argus/Dialect/TagPredicate.h"

#include "llvm/Support/SaveAndRestore.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::verify::detail {

/// Whether `op` accumulates A * B into its accumulator: argus.mma, and
/// argus.mma_async (the same operands: a, b, acc).
static bool isMma(Operation *op) {
  return isa_and_nonnull<MmaOp, MmaAsyncOp>(op);
}
static Value mmaA(Operation *mma) { return mma->getOperand(0); }
static Value mmaAcc(Operation *mma) { return mma->getOperand(2); }

/// The value a wgmma_wait result stands for: the same registers, once the
/// wgmma writing them retired.
static std::optional<Value> throughWait(Value v) {
  if (auto w = v.getDefiningOp<WgmmaWaitOp>())
    return w.getValues()[cast<OpResult>(v).getResultNumber()];
  return std::nullopt;
}

/// `v` through the ops that keep an accumulator's values (tags, conversions,
/// wgmma waits).
static Value throughIdentity(Value v) {
  while (Operation *d = v.getDefiningOp()) {
    if (std::optional<Value> w = throughWait(v)) {
      v = *w;
      continue;
    }
    if (!isa<TagOp, ConvertOp, ConvertLayoutOp>(d))
      break;
    v = d->getOperand(0);
  }
  return v;
}

/// The iter_args of `loop` the accumulator value `v` (computed in the loop's
/// body) is derived from through register ops that rescale it (flash
/// attention's O * alpha).
static void carriedArgs(Value v, scf::ForOp loop, int depth,
                        llvm::SmallVectorImpl<unsigned> &out) {
  if (depth > 8)
    return;
  if (auto a = dyn_cast<BlockArgument>(v)) {
    if (a.getOwner() == loop.getBody() && a.getArgNumber() > 0 &&
        !llvm::is_contained(out, a.getArgNumber() - 1))
      out.push_back(a.getArgNumber() - 1);
    return;
  }
  Operation *d = v.getDefiningOp();
  if (!d || !loop->isAncestor(d))
    return;
  if (std::optional<Value> w = throughWait(v))
    return carriedArgs(*w, loop, depth + 1, out);
  if (isa<TagOp, ConvertOp, ConvertLayoutOp, ScaleOp, NegOp>(d))
    return carriedArgs(d->getOperand(0), loop, depth + 1, out);
  if (isa<MulOp, DivOp>(d))
    for (Value o : d->getOperands())
      carriedArgs(o, loop, depth + 1, out);
}

/// Whether the register value `v` is `target` rescaled: through the ops of
/// throughIdentity and products, quotients, scales and negations (flash
/// attention's O * alpha after the P V wgmma retired).
static bool rescaledFrom(Value v, Value target, int depth = 0) {
  v = throughIdentity(v);
  if (v == target)
    return true;
  Operation *d = v.getDefiningOp();
  if (!d || depth > 8)
    return false;
  if (isa<ScaleOp, NegOp>(d))
    return rescaledFrom(d->getOperand(0), target, depth + 1);
  if (isa<MulOp, DivOp>(d))
    return llvm::any_of(d->getOperands(), [&](Value o) {
      return rescaledFrom(o, target, depth + 1);
    });
  return false;
}

/// The iter_arg of the loop directly around `mma` that carries its
/// accumulator: the loop yields the mma's result (or it rescaled) there,
/// and the mma's accumulator is derived from it. `direct` is set when the
/// accumulator is an iter_arg (up to tags and conversions) whether or not the
/// loop yields the result.
static std::optional<unsigned> accumulatorArg(Operation *mma, scf::ForOp loop,
                                              bool &direct) {
  direct = false;
  if (auto a = dyn_cast<BlockArgument>(throughIdentity(mmaAcc(mma))))
    direct = a.getOwner() == loop.getBody() && a.getArgNumber() > 0;
  SmallVector<unsigned> args;
  carriedArgs(mmaAcc(mma), loop, 0, args);
  for (unsigned idx : args)
    if (rescaledFrom(loop.getYieldedValues()[idx], mma->getResult(0)))
      return idx;
  return std::nullopt;
}

/// The mma whose accumulator `loop` carries in iter_arg `idx` (or null).
static Operation *reductionOf(scf::ForOp loop, unsigned idx) {
  Operation *found = nullptr;
  loop.getBody()->walk([&](Operation *mma) {
    if (!isMma(mma) || mma->getParentOp() != loop.getOperation())
      return;
    bool direct = false;
    std::optional<unsigned> a = accumulatorArg(mma, loop, direct);
    if (a && *a == idx)
      found = mma;
  });
  return found;
}

/// The one value every defined leaf of an ite tree of tag values has, if
/// one: its kUndefinedTagPrefix leaves stand for a read without a writer,
/// which the unwritten-read checks report.
static std::optional<z3::expr> definedLeafValue(const z3::expr &e) {
  std::optional<z3::expr> value;
  std::set<unsigned> seen;
  std::vector<z3::expr> todo = {e};
  while (!todo.empty()) {
    z3::expr x = todo.back();
    todo.pop_back();
    if (!seen.insert(x.id()).second)
      continue;
    if (x.is_app() && x.decl().decl_kind() == Z3_OP_ITE) {
      todo.push_back(x.arg(1));
      todo.push_back(x.arg(2));
    } else if (x.is_numeral()) {
      if (value && !z3::eq(*value, x))
        return std::nullopt;
      value = x;
    } else if (!x.is_const() || !llvm::StringRef(x.decl().name().str())
                                     .starts_with(kUndefinedTagPrefix)) {
      return std::nullopt;
    }
  }
  return value;
}

void KernelVerifier::checkReductions(std::vector<CheckResult> &out) {
  func.walk([&](Operation *mma) {
    if (!isMma(mma))
      return;
    // The innermost loop around the mma that carries its accumulator.
    for (Operation *p = mma->getParentOp(); p && p != func.getOperation();
         p = p->getParentOp()) {
      auto loop = dyn_cast<scf::ForOp>(p);
      if (!loop)
        continue;
      bool direct = false;
      std::optional<unsigned> idx = accumulatorArg(mma, loop, direct);
      if (!idx && !direct)
        continue;
      CheckResult res = checkReductionCoverage(mma, loop, idx);
      if (!res.kind.empty())
        out.push_back(res);
      return;
    }
  });
}

/// The integer solver's budget in the second glance at the fields a first
/// one left (several of them): a field shown independent saves the exact
/// query that finds a dependent field's witness and the closed form's
/// second run (persistent loops put quotients by symbolic counts into A's
/// tags, which a 2 ms glance does not decide).
static constexpr unsigned kFieldGlanceMs = 60;

std::vector<std::string>
KernelVerifier::reducedFields(Operation *mma, bool glance, bool *exact) {
  if (exact)
    *exact = true;
  auto aTy = cast<TileType>(mmaA(mma).getType());
  // Fields the mma's own assertions name on `a` come first.
  std::set<std::string> asserted;
  func.walk([&](TagAssertOp op) {
    if (op.getSite() != mma)
      return;
    std::string err;
    std::unique_ptr<TagExpr> pred = parseTagPredicate(op.getPredicate(), err);
    if (!pred)
      return;
    SmallVector<const TagExpr *> refs;
    pred->collectRefs(refs);
    for (auto *r : refs)
      if (r->operand == "a")
        asserted.insert(r->field);
  });
  Query *saved = q;
  Query S;
  q = &S;
  std::vector<std::string> chosen;
  try {
    baseCons(S);
    Inst in = freshInst(mma);
    z3::expr m = rangeVar("m", aTy.getShape()[0]);
    z3::expr k1 = rangeVar("k", aTy.getShape()[1]);
    z3::expr k2 = rangeVar("k", aTy.getShape()[1]);
    Tags t1 = operandTags(mmaA(mma), {m, k1}, in, mma);
    Tags t2 = operandTags(mmaA(mma), {m, k2}, in, mma);
    z3::expr def = ctx.bool_val(true);
    for (auto &r : S.reads)
      def = def && r.defined;
    // `glanceMs`: the integer solver's budget at a glance.
    auto dependent = [&](const std::string &f, unsigned glanceMs) {
      if (f == kTensorField || !t2.count(f))
        return false;
      std::optional<z3::model> mdl;
      z3::check_result r = z3::unknown;
      {
        llvm::SaveAndRestore<bool> any(anyModel, true); // only the answer
        // At a glance, only an unsat answer (independent) counts.
        llvm::SaveAndRestore<bool> proofOnly(unsatOnly, glance || unsatOnly);
        llvm::SaveAndRestore<unsigned> budget(glanceOnlyMs, glanceMs);
        r = solve({def, t1.at(f) != t2.at(f)}, mdl, -1, glance ? kGlanceMs : 0);
      }
      if (glance) {
        if (r != z3::unsat && exact)
          *exact = false;
        return r != z3::unsat;
      }
      if (r == z3::unknown)
        unsupported("solver returned unknown while finding the reduced field "
                    "(field '" +
                    f + "')");
      return r == z3::sat;
    };
    for (bool assertedOnly : {true, false}) {
      for (auto &[f, e] : t1)
        if ((asserted.count(f) > 0) == assertedOnly && dependent(f, kGlanceMs))
          chosen.push_back(f);
      // Several fields left by a brief glance: a longer one for each (one
      // left is the reduced field or none is, which the closed form tells).
      if (glance && chosen.size() > 1) {
        if (exact)
          *exact = true;
        std::vector<std::string> left;
        for (const std::string &f : chosen)
          if (dependent(f, kFieldGlanceMs))
            left.push_back(f);
        chosen = left;
      }
      if (!chosen.empty())
        break;
    }
  } catch (...) {
    q = saved;
    throw;
  }
  q = saved;
  return chosen;
}

/// Whether two views give a tensor's coordinates the same meaning: both
/// plain views, or im2col views of one geometry.
static bool sameIm2colGeometry(Operation *a, Operation *b) {
  if (!a || !b)
    return a == b;
  auto x = cast<Im2colViewOp>(a), y = cast<Im2colViewOp>(b);
  return x.getWindow() == y.getWindow() && x.getStride() == y.getStride() &&
         x.getPad() == y.getPad() && x.getDilation() == y.getDilation();
}

std::vector<KernelVerifier::ReducedExtent>
KernelVerifier::reducedExtents(const std::string &f) {
  std::map<unsigned, std::optional<ReducedExtent>> perTensor;
  func.walk([&](TagOp op) {
    auto fields = op.getFields();
    if (!llvm::any_of(fields, [&](Attribute a) {
          return cast<StringAttr>(a).getValue() == f;
        }))
      return;
    Operation *view = viewOf(op.getInput());
    if (!view)
      return;
    std::optional<unsigned> arg = getTensorArgument(viewedTensor(view));
    if (!arg)
      return;
    // Which global coordinate of the view equals the field everywhere.
    std::optional<ReducedExtent> hit;
    Query *saved = q;
    Query S;
    q = &S;
    try {
      baseCons(S);
      Inst in = freshInst(op);
      MemView mv = resolve(op.getInput(), in);
      auto ty = cast<TileType>(op.getInput().getType());
      std::vector<int64_t> shape(ty.getShape().begin(), ty.getShape().end());
      if (!mv.shared && mv.perm.size() == shape.size() &&
          (mv.gather || mv.offsets.size() == shape.size())) {
        std::vector<z3::expr> c = coordVars("c", shape);
        z3::expr val = applyTagOp(op, c, in).at(f);
        auto clipped = dyn_cast<ViewOp>(view);
        // Global coordinate j of each element, and whether the field is that
        // term for term (`[%m0, %k0] ["m", "k"]`): such a dimension needs no
        // query, and is tried first so that the dimensions before it (a
        // satisfiable query each) are not asked about.
        std::vector<std::optional<z3::expr>> coordinate(shape.size());
        std::vector<unsigned> order, rest;
        for (unsigned j = 0; j < shape.size(); ++j) {
          if (mv.gather && j == 0)
            continue; // the gathered rows: no coordinate of the view
          z3::expr o = mv.gather
                           ? evalIndex(cast<GatherViewOp>(view).getCol(), in)
                           : mv.offsets[j];
          coordinate[j] = o + c[mv.perm[j]];
          z3::expr d = (val - *coordinate[j]).simplify();
          (d.is_numeral() && d.get_numeral_uint64() == 0 ? order : rest)
              .push_back(j);
        }
        size_t identical = order.size();
        order.insert(order.end(), rest.begin(), rest.end());
        for (size_t i = 0; i < order.size() && !hit; ++i) {
          unsigned j = order[i];
          std::optional<z3::model> mdl;
          if (i >= identical &&
              solve({val != *coordinate[j]}, mdl) != z3::unsat)
            continue;
          Value bound;
          if (clipped && j < clipped.getBounds().size())
            bound = clipped.getBounds()[j];
          bool im2col = isa<Im2colViewOp>(view);
          hit = ReducedExtent{*arg,
                              viewedTensor(view),
                              j,
                              bound,
                              im2col ? "im2col(" + viewName(view) + ")"
                                     : viewName(view),
                              im2col ? view : nullptr};
        }
      }
    } catch (const Unsupported &) {
      hit.reset();
    }
    q = saved;
    auto [it, fresh] = perTensor.try_emplace(*arg, hit);
    if (!fresh && it->second &&
        (!hit || hit->dim != it->second->dim ||
         hit->bound != it->second->bound ||
         !sameIm2colGeometry(hit->im2col, it->second->im2col)))
      it->second.reset();
  });
  std::vector<ReducedExtent> out;
  for (auto &[arg, e] : perTensor)
    if (e)
      out.push_back(*e);
  return out;
}

/// How the accumulator `v` (a reduction loop's result) goes on.
enum class Continuation {
  None,          // not accumulated further: this reduction ends here
  ReductionLoop, // initialises a reduction loop (a pipeline's drain loop),
                 // whose own check starts where this one stopped
  Other,         // an mma after the loop, or yielded to an enclosing loop
};

/// The continuation of `v` through tags, conversions and waits; a reduction
/// loop wins over any other use.
static Continuation continuationOf(Value v, int depth = 0) {
  if (depth > 8)
    return Continuation::Other;
  Continuation found = Continuation::None;
  for (OpOperand &use : v.getUses()) {
    Operation *u = use.getOwner();
    if ((isMma(u) && use.getOperandNumber() == 2) || isa<scf::YieldOp>(u))
      found = Continuation::Other;
    if (auto next = dyn_cast<scf::ForOp>(u)) {
      unsigned n = use.getOperandNumber();
      if (n >= next.getNumControlOperands() &&
          reductionOf(next, n - next.getNumControlOperands()))
        return Continuation::ReductionLoop;
    }
    if (isa<TagOp, ConvertOp, ConvertLayoutOp, WgmmaWaitOp>(u))
      for (Value r : u->getResults()) {
        Continuation c = continuationOf(r, depth + 1);
        if (c == Continuation::ReductionLoop)
          return c;
        if (c == Continuation::Other)
          found = c;
      }
  }
  return found;
}

/// The one mma that accumulates into `v` (through the ops of
/// throughIdentity), or null when none or several do.
static Operation *nextAccumulation(Value v, int depth = 0) {
  Operation *found = nullptr;
  for (OpOperand &use : v.getUses()) {
    Operation *u = use.getOwner();
    Operation *hit = nullptr;
    if (isMma(u) && use.getOperandNumber() == 2)
      hit = u;
    else if (depth < 8 &&
             isa<TagOp, ConvertOp, ConvertLayoutOp, WgmmaWaitOp>(u))
      for (Value r : u->getResults())
        if (Operation *h = nextAccumulation(r, depth + 1))
          hit = h;
    if (hit && found && hit != found)
      return nullptr;
    if (hit)
      found = hit;
  }
  return found;
}

static bool rangeDeclared(func::FuncOp func, scf::ForOp loop, Operation *mma,
                          const std::vector<std::string> &fields);

CheckResult KernelVerifier::checkReductionCoverage(Operation *mma,
                                                   scf::ForOp loop,
                                                   std::optional<unsigned> idx,
                                                   bool exactFields) {
  CheckResult res = newCheck("reduction-coverage", mma, mma);
  res.predicate = "the " + loopName(loop) +
                  " accumulates every index of the mma's reduced dimension "
                  "exactly once: for every row, A's reduced field runs "
                  "through 0, 1, 2, ... (or tile by tile downward from the "
                  "start a fresh accumulator declares), and up to the "
                  "end of the tensor dimension it is a coordinate of (or "
                  "the range an argus.reduced declares)";
  bool applicable = true, retryExact = false;
  runCheck({&res}, [&](Query &Q) {
    if (!idx)
      unsupported("the accumulator is carried by the " + loopName(loop) +
                  ", but the loop does not yield this mma's result (several "
                  "mmas or other ops accumulating per iteration are not "
                  "modelled)");
    if (mma->getParentOp() != loop.getOperation())
      unsupported("the mma is not directly in the body of the " +
                  loopName(loop) + " that carries its accumulator");
    auto aTy = cast<TileType>(mmaA(mma).getType());
    int64_t bk = aTy.getShape()[1];
    // The fields a glance does not show independent: a field the closed
    // form below proves to walk with k depends on it (its witness is the
    // costly query); when the closed form fails, the exact fields.
    bool fieldsExact = exactFields;
    std::vector<std::string> fields =
        reducedFields(mma, !exactFields, &fieldsExact);
    if (fields.empty()) {
      applicable = false; // A carries no tag of the reduced dimension
      return;
    }
    Inst in = freshInst(mma);
    Inst outer = in.without(loop);
    z3::expr lb = bv(0), ub = bv(0);
    int64_t step = 1;
    loopBounds(loop, outer, lb, ub, step);
    z3::expr iv = *in.lookup(loop);
    z3::expr m = rangeVar("m", aTy.getShape()[0]);
    z3::expr kk = rangeVar("k", bk);

    // One evaluation of A's tags: its reads' definedness and cut-off.
    struct Eval {
      z3::expr guard, defined, ok, cut;
    };
    std::vector<Eval> evals;
    // The tags of an mma operand's element, noting its reads' definedness
    // and cut-off.
    auto evalOperand = [&](Value operand, Operation *op,
                           std::vector<z3::expr> at, const Inst &inst,
                           z3::expr guard, z3::expr &defined) {
      size_t r0 = Q.reads.size();
      Tags t = operandTags(operand, at, inst, op);
      Eval e{guard, ctx.bool_val(true), ctx.bool_val(true),
             ctx.bool_val(false)};
      for (size_t r = r0; r < Q.reads.size(); ++r) {
        e.defined = e.defined && Q.reads[r].defined;
        e.ok = e.ok && (Q.reads[r].defined || Q.reads[r].cut);
        e.cut = e.cut || Q.reads[r].cut;
      }
      defined = e.defined;
      evals.push_back(e);
      return t;
    };
    auto evalA = [&](Operation *op, const Inst &inst, z3::expr k,
                     z3::expr guard, z3::expr &defined) {
      return evalOperand(mmaA(op), op, {m, k}, inst, guard, defined);
    };
    auto field = [&](const Tags &t, const std::string &f, Operation *where) {
      auto it = t.find(f);
      if (it == t.end())
        unsupported("A's element of the mma at " + locStr(where->getLoc()) +
                    " has no tag field '" + f + "' in every iteration");
      return it->second;
    };

    // Whether a loop from `lo` to `hi` by `st` runs, and its last iteration.
    auto lastIteration = [&](const z3::expr &lo, const z3::expr &hi,
                             int64_t st) {
      z3::expr trips = tripCount(lo, hi, bv(st));
      return std::make_pair(z3::ugt(trips, bv(0)),
                            lo + (trips - bv(1)) * bv(st));
    };

    // Where the accumulator starts: 0 for a fresh one, else where the loop
    // that produced it stopped (recursively, for loops without iterations).
    std::vector<std::string> startNotes;
    std::function<z3::expr(scf::ForOp, unsigned, const std::string &,
                           z3::expr &, int)>
        expectedStart = [&](scf::ForOp l, unsigned i, const std::string &f,
                            z3::expr &defined, int depthLeft) -> z3::expr {
      defined = ctx.bool_val(true);
      Value init = throughIdentity(l.getInitArgs()[i]);
      Operation *d = init.getDefiningOp();
      if (d && isa<FillOp, LoadOp>(d)) {
        // A fresh accumulator tagged with the reduced field declares where
        // the reduction starts (the keys of one head start at its first
        // row of K); otherwise it starts at 0.
        Tags declared = operandTags(l.getInitArgs()[i], {m, bv(0)}, outer, l);
        auto it = declared.find(f);
        if (it != declared.end()) {
          startNotes.push_back("declared");
          return it->second;
        }
        return bv(0);
      }
      auto prev = dyn_cast_or_null<scf::ForOp>(d);
      if (!prev || depthLeft == 0)
        unsupported(
            "the initial accumulator of the " + loopName(l) + " is " +
            (d ? "defined by " + opDesc(d) : std::string("an argument")) +
            ": where its reduction starts is not modelled");
      unsigned pi = cast<OpResult>(init).getResultNumber();
      Operation *pm = reductionOf(prev, pi);
      if (!pm)
        unsupported("the accumulator comes from the " + loopName(prev) +
                    ", whose reduction is not modelled");
      z3::expr plb = bv(0), pub = bv(0);
      int64_t pstep = 1;
      loopBounds(prev, outer, plb, pub, pstep);
      int64_t pbk = cast<TileType>(mmaA(pm).getType()).getShape()[1];
      // Proved to walk up from its start by BK per iteration: it stops
      // trips * BK further (where it started when it does not run), with
      // no read chain at its last iteration. Its reads' definedness is the
      // unwritten-read checks' business.
      if (auto it = provedWalks.find(prev); it != provedWalks.end() &&
                                            !it->second.down &&
                                            it->second.fields.count(f)) {
        z3::expr before = expectedStart(prev, pi, f, defined, depthLeft - 1);
        startNotes.push_back(loopName(prev));
        return before + tripCount(plb, pub, bv(pstep)) * bv(pbk);
      }
      auto [ran, last] = lastIteration(plb, pub, pstep);
      z3::expr pd = ctx.bool_val(true);
      Tags pt = evalA(pm, outer.with(prev, last, outer.guard && ran),
                      bv(pbk - 1), outer.guard && ran, pd);
      z3::expr rest = ctx.bool_val(true);
      z3::expr before = expectedStart(prev, pi, f, rest, depthLeft - 1);
      defined = z3::implies(ran, pd) && rest;
      startNotes.push_back(loopName(prev));
      return z3::ite(ran, field(pt, f, pm) + bv(1), before);
    };

    // The starts of the reduced fields, and whether every one is declared
    // by a fresh accumulator's tag.
    struct Start {
      z3::expr value, defined;
      std::vector<std::string> notes;
    };
    std::vector<Start> starts;
    bool declaredStart = true;
    for (const std::string &f : fields) {
      z3::expr dE = ctx.bool_val(true);
      startNotes.clear();
      z3::expr start = expectedStart(loop, *idx, f, dE, 8);
      declaredStart = declaredStart && !startNotes.empty() &&
                      startNotes.front() == "declared";
      starts.push_back({start, dE, startNotes});
    }
    auto cutSoFar = [&]() {
      z3::expr any = ctx.bool_val(false);
      for (Eval &e : evals)
        any = any || (e.guard && e.ok && e.cut);
      return any;
    };

    // (1) - (3) hold exactly when every element is where the walk puts it:
    // r(lb + t * step, m, kk) == start + t * BK + kk (upward), or
    // start - t * BK + kk (downward, tile by tile), for every iteration t in
    // range. One read chain (at a free iteration) instead of three (an
    // element, its successor in the same iteration and the next one's
    // first): asked first, as one query per direction; the step queries
    // below run only when it fails, for their counterexamples. A's element
    // (i, kk) is evaluated after the starts, so that dropping it when the
    // closed form proves the walk leaves them to the end check.
    Query::Mark beforeElement = Q.mark();
    size_t evalsBefore = evals.size();
    z3::expr d1 = ctx.bool_val(true), d2 = d1;
    Tags t1 = evalA(mma, in, kk, in.guard, d1);
    bool closedForm = false;
    {
      z3::expr t = step == 1 ? iv - lb : z3::udiv(iv - lb, bv(step));
      z3::expr anyCut = cutSoFar();
      // A kernel's declared-start loops tend to walk one way (a causal
      // attention's query tiles all walk down): the direction the previous
      // one took is asked first. Only the order of two queries depends on it.
      std::vector<int> dirs = {1, -1};
      if (declaredStart && declaredWalkDown)
        dirs = {-1, 1};
      for (int dir : dirs) {
        if (dir < 0 && !declaredStart)
          continue;
        z3::expr off = dir > 0 ? t * bv(bk) : bv(0) - t * bv(bk);
        z3::expr bad = ctx.bool_val(false);
        for (size_t i = 0; i < fields.size(); ++i)
          bad =
              bad || (d1 && starts[i].defined &&
                      field(t1, fields[i], mma) != starts[i].value + off + kk);
        std::optional<z3::model> none;
        z3::check_result answer = z3::unknown;
        {
          // Only a proof is acted on: a failing direction needs no model.
          llvm::SaveAndRestore<bool> any(anyModel, true),
              proofOnly(unsatOnly, true);
          answer = solve({bad || anyCut}, none);
        }
        if (answer == z3::unsat) {
          closedForm = true;
          provedWalks[loop] = {dir < 0, {fields.begin(), fields.end()}};
          if (declaredStart)
            declaredWalkDown = dir < 0;
          break;
        }
      }
      if (closedForm) {
        Q.rollback(beforeElement);
        evals.erase(evals.begin() + evalsBefore, evals.end());
      }
    }
    // Not proved with the fields a glance left: the step queries need the
    // fields that do depend on k (a field that does not would be reported
    // as not walking).
    if (!closedForm && !fieldsExact && reducedFields(mma) != fields) {
      retryExact = true;
      return;
    }

    // (i, kk) and its successor (i', kk').
    z3::expr lastK = kk == bv(bk - 1);
    z3::expr hasSucc = !lastK || z3::ult(iv + bv(step), ub);
    // The successor in the same iteration and the first element of the
    // next one are evaluated apart: one read chain at an iteration chosen by
    // an ite is much harder for the solver than two plain ones.
    // Proved by the closed form: no successor chains (they would enter the
    // end check's query).
    z3::expr dSame = d1, dNext = d1;
    Inst inNext = in.with(loop, iv + bv(step), in.guard && hasSucc);
    Tags tSame = t1, tNext = t1;
    if (!closedForm) {
      tSame = evalA(mma, in, kk + bv(1), in.guard && !lastK, dSame);
      tNext = evalA(mma, inNext, bv(0), in.guard && lastK && hasSucc, dNext);
    }
    d2 = z3::ite(lastK, dNext, dSame);
    // The successor's iteration and coordinate (for counterexamples).
    z3::expr iv2 = z3::ite(lastK, iv + bv(step), iv);
    z3::expr kk2 = z3::ite(lastK, bv(0), kk + bv(1));
    Inst in2 = in.with(loop, iv2, in.guard && hasSucc);
    // The first element of the first iteration: the same evaluation at
    // iv = lb, kk = 0 (iv and kk are free), so no third read chain.
    z3::expr first = iv == lb && kk == bv(0);
    const Inst &in0 = in;

    // A's element (row, k) on model M at instance `at`, with its field.
    auto elementAt = [&](const z3::model &M, const Inst &at,
                         const std::string &role, int64_t row, int64_t k,
                         const std::string &name, const z3::expr &value) {
      ElementInfo el;
      el.role = role;
      el.tileCoords = {row, k};
      el.tags[name] = sval(M, value);
      Value src = mmaA(mma);
      while (Operation *d = src.getDefiningOp()) {
        if (!isa<TagOp, ConvertOp, ConvertLayoutOp>(d))
          break;
        src = d->getOperand(0);
      }
      if (aTy.isMemory() || src.getDefiningOp<LoadOp>()) {
        Value mem = aTy.isMemory() ? mmaA(mma)
                                   : src.getDefiningOp<LoadOp>().getSource();
        MemView mv = resolve(mem, at);
        el.memory = mv.name;
      }
      if (!aTy.isMemory()) {
        L::Layout l = registerLayout(aTy);
        std::vector<int64_t> sh(aTy.getShape().begin(), aTy.getShape().end());
        if (auto h = holderOf(l, linConcrete({row, k}, sh))) {
          el.thread = h->first;
          el.slot = h->second;
        }
      }
      return el;
    };

    struct PerField {
      std::string name;
      z3::expr r1, r2, r0, start, inside, atStart;
      // The downward walk's expected successor and its violation.
      z3::expr down, insideDown;
    };
    std::vector<PerField> pf;
    z3::expr anyInside = ctx.bool_val(false), anyStart = ctx.bool_val(false);
    // The downward walk: the next iteration's tile ends where this one
    // began.
    z3::expr anyInsideDown = ctx.bool_val(false);
    for (size_t i = 0; i < fields.size(); ++i) {
      const std::string &f = fields[i];
      z3::expr start = starts[i].value, dE = starts[i].defined;
      z3::expr r1 = field(t1, f, mma), r0 = r1;
      z3::expr r2 = z3::ite(lastK, field(tNext, f, mma), field(tSame, f, mma));
      z3::expr inside = hasSucc && d1 && d2 && r2 != r1 + bv(1);
      z3::expr down = z3::ite(lastK, r1 + bv(1 - 2 * bk), r1 + bv(1));
      z3::expr insideDown = hasSucc && d1 && d2 && r2 != down;
      anyInsideDown = anyInsideDown || insideDown;
      z3::expr atStart = first && d1 && dE && r0 != start;
      pf.push_back({f, r1, r2, r0, start, inside, atStart, down, insideDown});
      anyInside = anyInside || inside;
      anyStart = anyStart || atStart;
    }
    startNotes = starts.back().notes;
    z3::expr anyCut = cutSoFar();

    // Usually the reduction is complete and no read goes past the followed
    // depth: one query proves it.
    // The end, where the reduction starts at 0 (or continues an earlier
    // loop's) and this loop is the last to accumulate: the reduced field's
    // last value reaches the last index of the tensor dimension it is a
    // coordinate of (the view's bound where the view is clipped to one). A
    // declared start is a segment of its tensor (one head's keys), whose
    // end the tensor does not give: not checked.
    // Where this check cannot see the end, an argus.reduced must declare
    // the range (its reduction-range check proves the end); otherwise the
    // check is unknown, never proved with the end unchecked.
    auto endNotChecked = [&](const std::string &why) {
      if (rangeDeclared(func, loop, mma, fields))
        return;
      res.status = Status::Unknown;
      res.reason = "where the reduction ends is not checked: " + why +
                   "; declare the range every row accumulates with "
                   "`argus.reduced %acc over \"" +
                   fields.front() + "\" from %lo to %hi`";
    };
    auto checkEnd = [&]() {
      if (declaredStart)
        return endNotChecked("the fresh accumulator declares where it "
                             "starts, and no tensor dimension gives its end");
      // The mmas after the loop that accumulate into its result (a peeled
      // last slab), in order: each must continue where the previous
      // stopped, and the last one's end is the reduction's.
      SmallVector<Operation *> after;
      Value tail = loop.getResult(*idx);
      while (Operation *next = nextAccumulation(tail)) {
        if (!next->getParentRegion()->isAncestor(loop->getParentRegion()) ||
            cast<TileType>(mmaA(next).getType()).getShape() != aTy.getShape() ||
            after.size() > 8)
          return endNotChecked(
              "the mma at " + locStr(next->getLoc()) +
              " accumulates further, in another region, with another A "
              "shape or after more than 8 mmas");
        after.push_back(next);
        tail = next->getResult(0);
      }
      Continuation further = continuationOf(tail);
      if (further == Continuation::ReductionLoop)
        return; // that loop's check sees the end
      if (further == Continuation::Other)
        return endNotChecked("the result is accumulated further (yielded to "
                             "an enclosing loop, or into several mmas)");
      Query::Mark beforeLast = Q.mark();
      size_t e0 = evals.size();
      auto [ran, lastIv] = lastIteration(lb, ub, step);
      Inst inL = in.with(loop, lastIv, in.guard && ran);
      z3::expr dL = ctx.bool_val(true);
      Tags tL = evalA(mma, inL, bv(bk - 1), in.guard && ran, dL);
      std::map<std::string, z3::expr> lastOf;
      for (const PerField &p : pf)
        if (auto it = tL.find(p.name); it != tL.end())
          lastOf.insert_or_assign(p.name,
                                  z3::ite(ran, it->second, p.start - bv(1)));
      z3::expr chainOk = ctx.bool_val(true), endGuard = in.guard && ran;
      z3::expr defined = after.empty() ? dL : z3::implies(ran, dL);
      // Proved by the closed form, with nothing accumulating after the loop:
      // the last element's fields are the formula's (it walked up from its
      // start), none of its reads is cut (the closed form's query had none
      // at any iteration), and its tensor is all the chain is wanted for.
      // When that folds to one tensor (every writer copies from views of
      // it), the end check needs no read chain.
      if (closedForm && after.empty())
        if (auto tt = tL.find(kTensorField.str()); tt != tL.end())
          if (std::optional<z3::expr> id = definedLeafValue(tt->second)) {
            Q.rollback(beforeLast);
            evals.erase(evals.begin() + e0, evals.end());
            z3::expr walked = tripCount(lb, ub, bv(step)) * bv(bk);
            for (const PerField &p : pf)
              if (auto it = lastOf.find(p.name); it != lastOf.end())
                it->second = p.start + walked - bv(1);
            tL.clear();
            tL.insert_or_assign(kTensorField.str(), *id);
            defined = ctx.bool_val(true);
          }
      Tags tEnd = tL;
      for (Operation *p : after) {
        z3::expr kk1 = rangeVar("k", bk - 1);
        z3::expr d0 = ctx.bool_val(true), d1 = d0, d2 = d0, d3 = d0;
        Tags t0 = evalA(p, outer, bv(0), in.guard, d0);
        Tags tk = evalA(p, outer, kk1, in.guard, d1);
        Tags tk1 = evalA(p, outer, kk1 + bv(1), in.guard, d2);
        Tags tl = evalA(p, outer, bv(bk - 1), in.guard, d3);
        defined = defined && d0 && d1 && d2 && d3;
        for (auto &[f, last] : lastOf) {
          chainOk = chainOk && field(t0, f, p) == last + bv(1) &&
                    field(tk1, f, p) == field(tk, f, p) + bv(1);
          last = field(tl, f, p);
        }
        tEnd = tl;
        endGuard = in.guard;
      }
      z3::expr endCut = ctx.bool_val(false);
      for (size_t i = e0; i < evals.size(); ++i)
        endCut = endCut || (evals[i].guard && evals[i].ok && evals[i].cut);
      // The tensor whose dimension the reduced field runs over: A's last
      // element's; for an A computed in registers (attention's P), B's
      // last row's (V), which the mma pairs with A's last column.
      std::optional<z3::expr> tensor;
      if (auto it = tEnd.find(kTensorField.str()); it != tEnd.end())
        tensor = it->second;
      else if (after.empty()) {
        Value b = mma->getOperand(1);
        z3::expr col = rangeVar("n", cast<TileType>(b.getType()).getShape()[1]);
        z3::expr dB = ctx.bool_val(true);
        Tags tB =
            evalOperand(b, mma, {bv(bk - 1), col}, inL, in.guard && ran, dB);
        const Eval &e = evals.back();
        endCut = endCut || (e.guard && e.ok && e.cut);
        defined = defined && z3::implies(ran, dB);
        if (auto it = tB.find(kTensorField.str()); it != tB.end())
          tensor = it->second;
      }
      if (!tensor)
        return endNotChecked("neither A's nor B's elements come from a tensor "
                             "whose dimension gives the reduced field's "
                             "extent");
      struct End {
        std::string field, view;
        unsigned dim;
        z3::expr last, extent, bad;
      };
      std::vector<End> ends;
      z3::expr anyBad = ctx.bool_val(false);
      for (const PerField &p : pf) {
        auto it = lastOf.find(p.name);
        if (it == lastOf.end())
          continue;
        for (ReducedExtent &e : reducedExtents(p.name)) {
          z3::expr extent = e.im2col ? im2colSize(e.im2col, e.dim)
                                     : tensorSize(e.tensor, e.dim);
          if (e.bound) {
            // The bound must have one value for the whole reduction.
            if (!e.bound.getParentRegion()->isAncestor(loop->getParentRegion()))
              return endNotChecked("the bound of the clipped view '" + e.name +
                                   "' changes inside the reduction");
            z3::expr b = evalIndex(e.bound, inL);
            extent = z3::ite(z3::ult(b, extent), b, extent);
          }
          // Past the extent is not missing: such reads are zeros of a
          // clipped view or out of bounds (the out-of-bounds check).
          z3::expr bad =
              *tensor == bv(e.arg) && z3::ult(it->second + bv(1), extent);
          ends.push_back({p.name, e.name, e.dim, it->second, extent, bad});
          anyBad = anyBad || bad;
        }
      }
      if (ends.empty())
        return endNotChecked(
            "the reduced field is no single coordinate of a tensor's views "
            "(views of one tensor give it different dimensions, or none is "
            "tagged with it)");
      z3::expr violation = endGuard && defined && (anyBad || !chainOk);
      std::optional<z3::model> me;
      z3::check_result re = solve({violation || endCut}, me);
      if (re == z3::unsat)
        return;
      if (re == z3::unknown || solve({violation}, me) != z3::sat) {
        res.status = Status::Unknown;
        res.reason =
            re == z3::unknown
                ? "solver returned unknown while checking where the "
                  "reduction ends"
                : "where the reduction ends: a read of its last iteration "
                  "may see a writer older than the pipeline depth the "
                  "verifier follows";
        return;
      }
      preferSmall({violation}, inL, me);
      const End *hit = nullptr;
      for (const End &e : ends)
        if (me->eval(e.bad, true).is_true()) {
          hit = &e;
          break;
        }
      bool broken = me->eval(!chainOk, true).is_true();
      std::string bad = replay(*me);
      if (bad.empty() && !hit && !broken)
        bad = "no end is violated on the model";
      if (replayDisagrees(res, bad))
        return;
      res.status = Status::Violated;
      Counterexample cx;
      fillCommon(cx, *me, inL);
      int64_t row = uval(*me, m);
      std::string note;
      llvm::raw_string_ostream os(note);
      if (broken) {
        os << (after.size() > 1 ? "the mmas" : "the mma") << " after the "
           << loopName(loop) << " (at " << locStr(after.front()->getLoc())
           << (after.size() > 1 ? ") do" : ") does") << " not continue row "
           << row
           << " where the loop stopped, one index after another: an index "
              "is skipped or accumulated twice";
        cx.notes.push_back(note);
      } else {
        int64_t last = sval(*me, hit->last);
        int64_t extent = sval(*me, hit->extent);
        if (after.empty()) {
          cx.elements.push_back(elementAt(*me, inL, "a (accumulated last)", row,
                                          bk - 1, hit->field, hit->last));
          os << "the last iteration (" << loopName(loop) << " iteration "
             << uval(*me, lastIv) << ")";
        } else {
          os << "the mma at " << locStr(after.back()->getLoc()) << " after the "
             << loopName(loop);
        }
        os << " accumulates " << hit->field << " = " << last << " (A(" << row
           << ", " << bk - 1 << ")) into row " << row
           << " of the accumulator, but " << hit->field << " is coordinate "
           << hit->dim << " of '" << hit->view << "', whose extent there is "
           << extent << ": the indices " << last + 1 << " .. " << extent - 1
           << " are never accumulated";
        cx.notes.push_back(note);
      }
      if (!broken)
        cx.notes.push_back(
            "a kernel that reduces over part of the dimension says so by "
            "viewing the tensor clipped to that part (argus.view ... clipped "
            "to [bounds])");
      readNotes(cx, *me);
      res.counterexamples.push_back(cx);
    };

    if (closedForm) {
      res.status = Status::Proved;
      checkEnd();
      return;
    }
    std::optional<z3::model> mdl;
    // Two queries, each easier than their disjunction: the start and reads
    // past the followed depth, then the steps from one index to the next.
    z3::check_result r = solve({anyStart || anyCut}, mdl);
    if (r == z3::unsat)
      r = solve({anyInside}, mdl);
    if (r == z3::unsat) {
      res.status = Status::Proved;
      checkEnd();
      return;
    }
    bool notDownEither = false;
    if (declaredStart) {
      std::optional<z3::model> down;
      z3::check_result rd = solve({anyInsideDown || anyStart || anyCut}, down);
      if (rd == z3::unsat) {
        res.status = Status::Proved;
        checkEnd();
        return;
      }
      notDownEither = rd == z3::sat;
    }
    bool startViolated = false;
    std::vector<z3::expr> extra;
    if (r != z3::unknown) {
      if (solve({anyStart}, mdl) == z3::sat) {
        startViolated = true;
        extra = {anyStart};
      } else if (solve({anyInside}, mdl) == z3::sat)
        extra = {anyInside};
    }
    // A kernel whose tiles go down (the upward counterexample crosses to a
    // lower tile) is shown the downward walk's violation instead.
    bool downMode = false;
    if (!extra.empty() && !startViolated && notDownEither) {
      bool goesDown = false;
      for (const PerField &p : pf)
        goesDown = goesDown || (mdl->eval(p.inside && lastK, true).is_true() &&
                                sval(*mdl, p.r2) < sval(*mdl, p.r1));
      std::optional<z3::model> md;
      if (goesDown && solve({anyInsideDown}, md) == z3::sat) {
        downMode = true;
        mdl = md;
        extra = {anyInsideDown};
      }
    }
    if (extra.empty()) {
      res.status = Status::Unknown;
      std::optional<z3::model> mc;
      if (r != z3::unknown && solve({anyCut}, mc) == z3::sat)
        res.reason = "a read may see a writer older than the pipeline depth "
                     "the verifier follows";
      else
        res.reason = "solver returned unknown (timeout " +
                     std::to_string(opts.timeoutMs) + " ms?)";
      return;
    }
    preferSmall(extra, in, mdl);
    std::string bad = replay(*mdl);
    // The violated field, re-checked on the model's numbers.
    const PerField *hit = nullptr;
    for (const PerField &p : pf)
      if (mdl->eval(startViolated ? p.atStart
                    : downMode    ? p.insideDown
                                  : p.inside,
                    true)
              .is_true()) {
        hit = &p;
        break;
      }
    if (bad.empty() && !hit)
      bad = "no reduced field is violated on the model";
    if (bad.empty()) {
      int64_t a = sval(*mdl, startViolated ? hit->start
                             : downMode    ? hit->down
                                           : hit->r1 + bv(1));
      int64_t b = sval(*mdl, startViolated ? hit->r0 : hit->r2);
      if (a == b)
        bad = "the accumulated value is the expected one on the model";
    }
    if (replayDisagrees(res, bad))
      return;
    res.status = Status::Violated;
    Counterexample cx;
    const Inst &at = startViolated ? in0 : in2;
    fillCommon(cx, *mdl, at);
    int64_t row = uval(*mdl, m);
    auto element = [&](const std::string &role, int64_t k,
                       const z3::expr &value) {
      return elementAt(*mdl, at, role, row, k, hit->name, value);
    };
    std::string note;
    llvm::raw_string_ostream os(note);
    if (startViolated) {
      int64_t got = sval(*mdl, hit->r0), want = sval(*mdl, hit->start);
      cx.elements.push_back(element("a", 0, hit->r0));
      os << "the first iteration (" << loopName(loop) << " iteration "
         << uval(*mdl, lb) << ") accumulates " << hit->name << " = " << got
         << " at A(" << row << ", 0) into row " << row
         << " of the accumulator; "
         << "expected " << want;
      if (startNotes.empty())
        os << " (the reduction starts at index 0)";
      else if (startNotes.front() == "declared")
        os << " (the start the initial accumulator's tag declares)";
      else
        os << " (where the " << startNotes.front()
           << " stopped, or its own start if it runs no iteration)";
    } else {
      int64_t k1 = uval(*mdl, kk), k2 = uval(*mdl, kk2);
      int64_t i1 = uval(*mdl, iv), i2 = uval(*mdl, iv2);
      int64_t prev = sval(*mdl, hit->r1), got = sval(*mdl, hit->r2);
      cx.elements.push_back(element("a", k2, hit->r2));
      ElementInfo before = element("a (accumulated before)", k1, hit->r1);
      cx.elements.push_back(before);
      os << loopName(loop) << " iteration " << i2 << " accumulates "
         << hit->name << " = " << got << " (A(" << row << ", " << k2
         << ")) into row " << row << " of the accumulator right after "
         << hit->name << " = " << prev << " (A(" << row << ", " << k1
         << ") in iteration " << i1 << "); expected ";
      if (downMode && i1 != i2) {
        // Downward: the tile below the previous one, which began at
        // prev - bk + 1.
        int64_t want = sval(*mdl, hit->down);
        os << want << " (the tiles walk downward): ";
        if (got < want)
          os << "the indices " << got + bk << " .. " << want + bk - 1
             << " are never accumulated";
        else
          os << "the index " << got << " is accumulated again or out of order";
      } else if (got > prev + 1) {
        os << prev + 1 << ": the indices " << prev + 1 << " .. " << got - 1
           << " are never accumulated";
      } else {
        os << prev + 1 << ": the index " << got
           << " is accumulated again or out of order";
      }
    }
    cx.notes.push_back(note);
    if (notDownEither && !startViolated && !downMode)
      cx.notes.push_back("nor do the tiles walk downward (each iteration's "
                         "tile ending where the previous one began)");
    cx.notes.push_back("the reduced field is a." + hit->name +
                       " (A's tag field that depends on the mma's k "
                       "coordinate)");
    readNotes(cx, *mdl);
    res.counterexamples.push_back(cx);
  });
  if (retryExact) {
    CheckResult again = checkReductionCoverage(mma, loop, idx, true);
    again.queries += res.queries;
    again.milliseconds += res.milliseconds;
    return again;
  }
  if (!applicable)
    res.kind.clear();
  return res;
}

} // namespace argus::verify::detail

namespace argus::verify::detail {

/// The mma result or loop result a reduction's value stems from, through
/// the ops of throughIdentity and rescaling ops (O * alpha, O / l); null
/// when there is none or more than one.
static Value reductionValue(Value v, int depth = 0) {
  v = throughIdentity(v);
  Operation *d = v.getDefiningOp();
  if (!d || depth > 8)
    return Value();
  if (isMma(d) || isa<scf::ForOp>(d))
    return v;
  if (isa<ScaleOp, NegOp>(d))
    return reductionValue(d->getOperand(0), depth + 1);
  if (!isa<MulOp, DivOp>(d))
    return Value();
  Value found;
  for (Value o : d->getOperands())
    if (Value r = reductionValue(o, depth + 1)) {
      if (found)
        return Value();
      found = r;
    }
  return found;
}

/// The reduction an argus.reduced declares a range of: the loop that
/// carries it (if any), then the mmas after it, each accumulating into the
/// previous one's result; `error` says why the chain is not followed.
struct ReductionChain {
  scf::ForOp loop;
  Operation *loopMma = nullptr;
  SmallVector<Operation *> after; // program order after the loop
  Value init;
  std::string error;
};

static ReductionChain reductionChain(ReducedOp decl) {
  ReductionChain c;
  Value cur = reductionValue(decl.getAcc());
  while (true) {
    if (!cur) {
      c.error = "the accumulator is not an mma's result or a reduction "
                "loop's, up to tags, conversions, waits and rescaling";
      return c;
    }
    Operation *d = cur.getDefiningOp();
    if (isMma(d)) {
      if (!d->getParentRegion()->isAncestor(decl->getParentRegion())) {
        c.error = "the mma at " + locStr(d->getLoc()) +
                  " sits in a loop or region the declaration is not in";
        return c;
      }
      c.after.insert(c.after.begin(), d);
      Value acc = throughIdentity(mmaAcc(d));
      Operation *ad = acc.getDefiningOp();
      if (ad && isa<FillOp, LoadOp>(ad)) {
        c.init = mmaAcc(d);
        return c;
      }
      cur = reductionValue(mmaAcc(d));
      continue;
    }
    c.loop = cast<scf::ForOp>(d);
    if (!c.loop->getParentRegion()->isAncestor(decl->getParentRegion())) {
      c.error = "the reduction loop at " + locStr(c.loop.getLoc()) +
                " sits in a loop or region the declaration is not in";
      return c;
    }
    unsigned idx = cast<OpResult>(cur).getResultNumber();
    c.loopMma = reductionOf(c.loop, idx);
    if (!c.loopMma) {
      c.error = "the " + loopName(c.loop) +
                " does not carry one mma's accumulator in this result";
      return c;
    }
    c.init = c.loop.getInitArgs()[idx];
    Operation *id = throughIdentity(c.init).getDefiningOp();
    if (!id || !isa<FillOp, LoadOp>(id))
      c.error = "the " + loopName(c.loop) +
                " starts from an accumulator that is not fresh (a fill or a "
                "load): chains of loops are not followed";
    return c;
  }
}

/// Whether an argus.reduced declares the range of field `f` of the
/// reduction `mma` carried by `loop` (its reduction-range check then
/// proves the end that reduction-coverage does not see).
static bool rangeDeclared(func::FuncOp func, scf::ForOp loop, Operation *mma,
                          const std::vector<std::string> &fields) {
  bool found = false;
  func.walk([&](ReducedOp decl) {
    if (found || !llvm::is_contained(fields, decl.getField().str()))
      return;
    ReductionChain c = reductionChain(decl);
    found = c.error.empty() && c.loop == loop && c.loopMma == mma;
  });
  return found;
}

CheckResult KernelVerifier::checkReducedRange(ReducedOp decl) {
  CheckResult res = newCheck("reduction-range", decl, decl);
  std::string f = decl.getField().str();
  res.predicate = "every row of the accumulator accumulated each value of "
                  "its reduced field '" +
                  f + "' in [lo, hi) exactly once";
  runCheck({&res}, [&](Query &Q) {
    ReductionChain chain = reductionChain(decl);
    if (!chain.error.empty())
      unsupported(chain.error);
    scf::ForOp loop = chain.loop;
    Operation *loopMma = chain.loopMma;
    SmallVector<Operation *> &after = chain.after;
    Value init = chain.init;
    Operation *first = loopMma ? loopMma : after.front();
    int64_t bk = cast<TileType>(mmaA(first).getType()).getShape()[1];
    int64_t rows = cast<TileType>(mmaA(first).getType()).getShape()[0];
    for (Operation *p : after)
      if (cast<TileType>(mmaA(p).getType()).getShape()[1] != bk ||
          cast<TileType>(mmaA(p).getType()).getShape()[0] != rows)
        unsupported("the mmas of the reduction differ in their A tile shape");

    Inst in = freshInst(decl);
    z3::expr m = rangeVar("m", rows);
    z3::expr lo = evalIndex(decl.getLo(), in), hi = evalIndex(decl.getHi(), in);
    auto fieldOf = [&](Operation *mma, const Inst &at, const z3::expr &k) {
      Tags t = operandTags(mmaA(mma), {m, k}, at, mma);
      auto it = t.find(f);
      if (it == t.end())
        unsupported("A's element of the mma at " + locStr(mma->getLoc()) +
                    " has no tag field '" + f + "'");
      return it->second;
    };
    // Where the reduction starts: the value the fresh accumulator's tag
    // declares, else 0.
    z3::expr start = bv(0);
    {
      Tags declared = operandTags(init, {m, bv(0)}, in, first);
      if (auto it = declared.find(f); it != declared.end())
        start = it->second;
    }
    // The loop's last iteration, and whether it runs twice (then its
    // direction shows).
    z3::expr ran = ctx.bool_val(false), twice = ran;
    z3::expr lf0 = bv(0), lf1 = bv(0);
    if (loop) {
      z3::expr lb = bv(0), ub = bv(0);
      int64_t step = 1;
      loopBounds(loop, in, lb, ub, step);
      z3::expr trips = tripCount(lb, ub, bv(step));
      ran = z3::ugt(trips, bv(0));
      twice = z3::uge(trips, bv(2));
      Inst last = in.with(loop, lb + (trips - bv(1)) * bv(step), in.guard);
      lf0 = fieldOf(loopMma, last, bv(0));
      lf1 = fieldOf(loopMma, last, bv(bk - 1));
    }
    // Upward: each mma after the loop continues where the previous
    // stopped; the values covered are [start, up). Downward (a causal walk
    // from the diagonal): each ends where the previous began; [down, top).
    z3::expr upOk = !twice || lf0 > start;
    z3::expr downOk = !twice || lf0 < start;
    z3::expr up = z3::ite(ran, lf1 + bv(1), start);
    z3::expr down = z3::ite(ran, lf0, start + bv(bk));
    for (Operation *p : after) {
      z3::expr kk = rangeVar("k", bk - 1);
      z3::expr p0 = fieldOf(p, in, bv(0)), p1 = fieldOf(p, in, bv(bk - 1));
      z3::expr inside = fieldOf(p, in, kk + bv(1)) == fieldOf(p, in, kk) + 1;
      upOk = upOk && inside && p0 == up;
      downOk = downOk && inside && p1 + bv(1) == down;
      up = p1 + bv(1);
      down = p0;
    }
    z3::expr top =
        after.empty() ? z3::ite(ran, start + bv(bk), start) : start + bv(bk);
    if (after.empty())
      down = z3::ite(ran, down, start);
    upOk = upOk && start == lo && up == hi;
    downOk = downOk && down == lo && top == hi;

    z3::expr defined = ctx.bool_val(true), ok = defined,
             anyCut = ctx.bool_val(false);
    for (auto &r : Q.reads) {
      defined = defined && r.defined;
      ok = ok && (r.defined || r.cut);
      anyCut = anyCut || r.cut;
    }
    std::optional<z3::model> mdl;
    // Either reading proves the range; the one reduction-coverage found
    // first.
    std::vector<z3::expr> readings = {upOk, downOk};
    if (auto it = provedWalks.find(loop);
        loop && it != provedWalks.end() && it->second.down)
      std::swap(readings[0], readings[1]);
    for (const z3::expr &okReading : readings)
      if (solve({in.guard && ((defined && !okReading) || (ok && anyCut))},
                mdl) == z3::unsat) {
        res.status = Status::Proved;
        return;
      }
    // The reading the loop's direction asks for (upward unless it walks
    // down), its violation.
    z3::expr badUp = in.guard && defined && !upOk;
    z3::expr badDown = in.guard && defined && !downOk;
    z3::check_result r = solve({badUp}, mdl);
    // A loop that walks down is judged by the downward reading alone: its
    // upward one fails whenever it runs twice.
    bool downward =
        r == z3::sat && mdl->eval(twice && lf0 < start, true).is_true();
    if (downward)
      r = solve({badDown}, mdl);
    if (r != z3::sat) {
      res.status = Status::Unknown;
      res.reason = r == z3::unknown
                       ? "solver returned unknown (timeout " +
                             std::to_string(opts.timeoutMs) + " ms?)"
                       : "a read may see a writer older than the pipeline "
                         "depth the verifier follows";
      return;
    }
    preferSmall({downward ? badDown : badUp}, in, mdl);
    std::string bad = replay(*mdl);
    if (replayDisagrees(res, bad))
      return;
    res.status = Status::Violated;
    Counterexample cx;
    fillCommon(cx, *mdl, in);
    int64_t row = uval(*mdl, m);
    int64_t from = sval(*mdl, downward ? down : start);
    int64_t to = sval(*mdl, downward ? top : up);
    int64_t wantLo = sval(*mdl, lo), wantHi = sval(*mdl, hi);
    std::string note;
    llvm::raw_string_ostream os(note);
    os << "row " << row << " of the accumulator accumulates " << f << " over ["
       << from << ", " << to << ")";
    if (from == wantLo && to == wantHi)
      os << " (with a gap or a repeat between the " << loopName(loop)
         << " and the mma after it)";
    os << ", but argus.reduced declares [" << wantLo << ", " << wantHi << ")";
    if (from >= to && wantLo < wantHi)
      os << ": the values " << wantLo << " .. " << wantHi - 1
         << " are never accumulated";
    else if (to < wantHi && from == wantLo)
      os << ": the values " << to << " .. " << wantHi - 1
         << " are never accumulated";
    else if (from > wantLo && to == wantHi)
      os << ": the values " << wantLo << " .. " << from - 1
         << " are never accumulated";
    cx.notes.push_back(note);
    readNotes(cx, *mdl);
    res.counterexamples.push_back(cx);
  });
  return res;
}

} // namespace argus::verify::detail
