//===- BoundsChecks.cpp - tensor sizes and bounds of global accesses ------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Each dimension of a memref kernel argument is a parameter ("argN.dimK",
// a constant for a static dimension) that `memref.dim` evaluates to, so
// `argus.assume` can relate sizes to the launch and the other arguments.
// The implicit check `out-of-bounds`: every element a load, copy,
// copy_async or store accesses through an `argus.view` has its global
// coordinate (view offsets + tile coordinate) inside the tensor's sizes, for
// every block, loop iteration and (thread, slot) of the access layout. Of a
// `gather_view` only the column is checked (its rows come from data); an
// `im2col_view` reads only inside its input (the lowering tests each
// element's input coordinate).
//
//===----------------------------------------------------------------------===//

#include "ConcreteIndex.h"
#include "KernelVerifier.h"
#include "OpNames.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::verify::detail {

void KernelVerifier::collectSizes() {
  for (BlockArgument arg : func.getArguments()) {
    auto mt = dyn_cast<MemRefType>(arg.getType());
    if (!mt)
      continue;
    for (unsigned k = 0; k < mt.getRank(); ++k) {
      std::pair<unsigned, unsigned> key{arg.getArgNumber(), k};
      if (!mt.isDynamicDim(k)) {
        // A static size beyond the index range is left unmodelled (a use
        // of it is unknown).
        if (mt.getDimSize(k) < kIndexBound)
          sizeParams.emplace(key, bv(mt.getDimSize(k)));
        continue;
      }
      std::string name = "arg" + std::to_string(arg.getArgNumber()) + ".dim" +
                         std::to_string(k);
      z3::expr v = ctx.bv_const(name.c_str(), kWidth);
      sizeParams.emplace(key, v);
      paramVars.push_back({name, v});
      std::string range = "model limit: " + name + " in [1, " +
                          std::to_string(kIndexBound) + ")";
      addLaunchCon(z3::uge(v, bv(1)), range);
      addLaunchCon(z3::ult(v, bv(kIndexBound)), range);
    }
  }
}

z3::expr KernelVerifier::tensorSize(Value memref, int64_t dim) {
  auto arg = dyn_cast<BlockArgument>(memref);
  if (!arg || arg.getOwner()->getParentOp() != func.getOperation())
    unsupported("the size of a memref that is not a kernel argument");
  auto it = sizeParams.find({arg.getArgNumber(), static_cast<unsigned>(dim)});
  if (it == sizeParams.end())
    unsupported("size " + std::to_string(dim) + " of kernel argument " +
                std::to_string(arg.getArgNumber()) +
                " is not modelled (out of range or rank)");
  return it->second;
}

z3::expr KernelVerifier::im2colSize(Operation *im2colView, int64_t dim) {
  auto v = cast<Im2colViewOp>(im2colView);
  // 64-bit arithmetic, saturated at the largest 24-bit term: every factor
  // is below 2^24, so no product of two wraps.
  const unsigned wide = 64;
  z3::expr top = ctx.bv_val(static_cast<uint64_t>((1ull << kWidth) - 1), wide);
  auto w = [&](int64_t c) {
    return ctx.bv_val(static_cast<uint64_t>(c), wide);
  };
  auto sat = [&](const z3::expr &x) {
    return z3::ite(z3::uge(x, top), top, x);
  };
  auto zx = [&](const z3::expr &x) { return z3::zext(x, wide - kWidth); };
  size_t d = v.getWindow().size();
  z3::expr n = zx(tensorSize(v.getTensor(), dim == 0 ? 0 : d + 1));
  for (size_t i = 0; i < d; ++i) {
    int64_t r = v.getWindow()[i], s = v.getStride()[i], q = v.getPad()[i],
            l = v.getDilation()[i];
    z3::expr f = w(r);
    if (dim == 0) {
      // O = (D + 2q - l(R - 1) - 1) / s + 1 output positions, none when
      // the window is larger than the padded input.
      z3::expr padded = zx(tensorSize(v.getTensor(), i + 1)) + w(2 * q);
      z3::expr span = w(l * (r - 1) + 1);
      f = z3::ite(z3::uge(padded, span), z3::udiv(padded - span, w(s)) + w(1),
                  w(0));
    }
    n = sat(n * f);
  }
  return n.extract(kWidth - 1, 0);
}

void KernelVerifier::checkBounds(std::vector<CheckResult> &out) {
  func.walk([&](Operation *op) {
    if (!isa<LoadOp, CopyOp, CopyAsyncOp, StoreOp, TmaLoadOp, TmaStoreOp>(op))
      return;
    for (Value v : op->getOperands()) {
      if (!isGlobalTile(v))
        continue;
      // A clipped view's elements outside the sizes are not accessed, nor
      // are an im2col view's outside the input (they read as zero).
      Operation *gv = globalViewOf(v);
      auto view = dyn_cast_or_null<ViewOp>(gv);
      if ((view && view.getClipped()) || isa_and_nonnull<Im2colViewOp>(gv))
        continue;
      out.push_back(checkAccessBounds(op, v));
    }
  });
}

CheckResult KernelVerifier::checkAccessBounds(Operation *op, Value global) {
  CheckResult res = newCheck("out-of-bounds", op, op);
  Operation *view = globalViewOf(global);
  bool gather = isa_and_nonnull<GatherViewOp>(view);
  res.predicate =
      gather ? "every column this access reaches is inside the gathered "
               "tensor, and every row (data: its index tensor's entries are "
               "below the bound an argus.assume_indices declares, which is "
               "at most the tensor's rows)"
             : "every element this access reaches is inside the viewed "
               "tensor: view offset + tile coordinate < size, in every "
               "dimension";
  bool isDest = isWriteOp(op) && writeDest(op) == global;
  runCheck({&res}, [&](Query &Q) {
    if (!view)
      unsupported("a global tile that is not an argus.view or gather_view "
                  "seen through tags and transposes");
    Inst in = freshInst(op);
    auto ty = cast<TileType>(global.getType());
    std::vector<int64_t> shape(ty.getShape().begin(), ty.getShape().end());
    std::optional<L::Layout> l = accessLayout(op);
    if (!l)
      unsupported("an access without a thread layout");
    z3::expr t = rangeVar("thread", l->mode(0).size());
    z3::expr s = rangeVar("slot", l->mode(1).size());
    std::vector<z3::expr> c = delin(tvLin(*l, t, s, ctx.bool_val(true)), shape);
    MemView mv = resolve(global, in);
    Value tensor = viewedTensor(view);
    auto rank = cast<MemRefType>(tensor.getType()).getRank();
    // Root coordinate k of the element: offset k + tile coordinate perm[k]
    // (a gather: only the column, dimension 1, is known).
    std::vector<std::optional<z3::expr>> off(rank), size(rank);
    if (gather) {
      if (rank != 2 || mv.perm.size() != 2)
        unsupported("a gather_view of a tensor that is not 2-D");
      off[1] = evalIndex(cast<GatherViewOp>(view).getCol(), in);
    } else {
      if (mv.offsets.size() != static_cast<size_t>(rank) ||
          mv.perm.size() != static_cast<size_t>(rank))
        unsupported("a view whose rank differs from its tensor's");
      for (int64_t k = 0; k < rank; ++k)
        off[k] = mv.offsets[k];
    }
    z3::expr bad = ctx.bool_val(false);
    for (int64_t k = 0; k < rank; ++k)
      if (off[k]) {
        size[k] = tensorSize(tensor, k);
        bad = bad || z3::uge(*off[k] + c[mv.perm[k]], *size[k]);
      }
    std::optional<z3::model> m = findWitness(res, {bad}, in);
    if (!m) {
      if (gather && res.status == Status::Proved)
        checkGatheredRows(res, cast<GatherViewOp>(view), in);
      return;
    }
    // Beyond the recorded facts: the element's tile coordinate from the
    // layout library, the global coordinate and the comparison in plain
    // integers.
    int64_t tt = uval(*m, t), ss = uval(*m, s);
    std::vector<int64_t> tc = tileCoordOf(*l, tt, ss, shape);
    std::string why;
    std::vector<int64_t> gc(rank, -1), sz(rank, -1);
    int64_t outside = -1;
    for (int64_t k = 0; k < rank; ++k) {
      if (!off[k])
        continue;
      gc[k] = uval(*m, *off[k]) + tc[mv.perm[k]];
      sz[k] = uval(*m, *size[k]);
      if (why.empty() && uval(*m, c[mv.perm[k]]) != tc[mv.perm[k]])
        why = "the layout maps thread " + std::to_string(tt) + " slot " +
              std::to_string(ss) + " elsewhere";
      if (outside < 0 && gc[k] >= sz[k])
        outside = k;
    }
    if (why.empty() && outside < 0)
      why = "the element is inside the tensor concretely";
    if (replayDisagrees(res, why))
      return;
    res.status = Status::Violated;
    Counterexample cx;
    fillCommon(cx, *m, in);
    setThread(cx, tt, ss);
    ElementInfo el =
        accessedElement(cx, isDest ? "dest" : "source", mv.name, c, *m);
    if (!gather)
      el.globalCoords = gc;
    cx.elements.push_back(el);
    auto show = [&](const std::vector<int64_t> &v, llvm::raw_ostream &os) {
      for (int64_t k = 0; k < rank; ++k)
        os << (k ? ", " : "")
           << (v[k] < 0 ? std::string("row") : std::to_string(v[k]));
    };
    std::string note;
    llvm::raw_string_ostream os(note);
    os << opDesc(op) << (isDest ? " writes " : " reads ") << mv.name << "[";
    show(gc, os);
    os << "] (tile element (";
    llvm::interleaveComma(tc, os);
    os << ")), outside its sizes [";
    show(sz, os);
    os << "]: dimension " << outside << " reaches " << gc[outside]
       << " >= " << sz[outside]
       << " (state the kernel's shape preconditions with argus.assume)";
    cx.notes.push_back(note);
    res.counterexamples.push_back(cx);
  });
  return res;
}

void KernelVerifier::checkGatheredRows(CheckResult &res, GatherViewOp gather,
                                       const Inst &in) {
  std::string name = gather.getName().str();
  std::optional<GatherSource> src = gatherSource(gather);
  if (!src || src->declared.empty()) {
    res.status = Status::Unknown;
    res.reason =
        "the rows of '" + name + "' are " + gatherRowsOrigin(src) +
        ", data the verifier cannot see; declare their range with "
        "`argus.assume_indices %tensor below %rows` (the launcher checks it)";
    return;
  }
  z3::expr rows = tensorSize(gather.getTensor(), 0);
  z3::expr bad = ctx.bool_val(true);
  for (AssumeIndicesOp d : src->declared)
    bad = bad && z3::ugt(evalIndex(d.getBound(), in), rows);
  std::optional<z3::model> m = findWitness(res, {bad}, in);
  if (!m)
    return;
  res.status = Status::Violated;
  Counterexample cx;
  fillCommon(cx, *m, in);
  std::string note;
  llvm::raw_string_ostream os(note);
  AssumeIndicesOp d = src->declared.front();
  os << "the entries of '" << src->indexView.getName()
     << "' are declared below " << uval(*m, evalIndex(d.getBound(), in)) << " ("
     << locStr(d.getLoc()) << "), but '" << name << "' has " << uval(*m, rows)
     << " rows: a gathered row past them is outside the tensor (declare a "
        "bound of at most its rows)";
  cx.notes.push_back(note);
  res.counterexamples.push_back(cx);
}

} // namespace argus::verify::detail
