//===- ExchangeLowering.cpp - reduce, broadcast, convert_layout -----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Ops that move register-tile elements between threads. Each is planned at
// compile time over all (thread, slot) pairs: in registers when every thread
// already holds what it needs, across a warp with xor shuffles (reduce), and
// otherwise through the kernel's shared scratch.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"
#include "TileAccess.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

#include <limits>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::argus;

/// Row-major linear index of a coordinate.
static int64_t rowMajor(ArrayRef<int64_t> c, ArrayRef<int64_t> shape) {
  int64_t r = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    r = r * shape[d] + c[d];
  return r;
}

static Value rowMajorValue(OpBuilder &b, Location loc, ValueRange c,
                           ArrayRef<int64_t> shape) {
  Value r = c[0];
  for (size_t d = 1; d < shape.size(); ++d)
    r = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, r, cidx(b, loc, shape[d])), c[d]);
  return r;
}

template <typename T>
static SmallVector<T> dropDim(ArrayRef<T> c, int64_t dim) {
  SmallVector<T> r(c.begin(), c.end());
  r.erase(r.begin() + dim);
  return r;
}

/// Whether two run-time coordinates are equal (an i1).
static Value sameCoord(OpBuilder &b, Location loc, ArrayRef<Value> x,
                       ArrayRef<Value> y) {
  Value eq = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (size_t d = 0; d < x.size(); ++d)
    eq = arith::AndIOp::create(
        b, loc, eq,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x[d], y[d]));
  return eq;
}

//===----------------------------------------------------------------------===//
// The shared scratch
//===----------------------------------------------------------------------===//

static std::string scratchName(StringRef fn, Type elem) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << "__argus_xchg_" << fn << "_" << elem;
  return name;
}

/// The shared scratch of the kernel for element type `elem`: one buffer per
/// kernel and element type, sized by the largest exchange (created before
/// the conversion, see createExchangeScratch). Exchanges use it one after
/// the other: each ends with a barrier. Emits the error when there is none,
/// or when the op runs in a warp role: the block barriers would deadlock.
static Value getScratch(OpBuilder &b, Location loc, Operation *op, Type elem) {
  if (getKernelInfo(op).roleThreads) {
    op->emitOpError()
        << "needs the shared scratch and block barriers (bar.sync 0), which "
           "the other warp roles never reach (deadlock); hint: use layouts "
           "in which every thread already holds its outputs (an exchange in "
           "registers and shuffles), or move the op out of the role";
    return Value();
  }
  auto fn = op->getParentOfType<gpu::GPUFuncOp>();
  auto mod = op->getParentOfType<gpu::GPUModuleOp>();
  std::string name = scratchName(fn.getName(), elem);
  auto g = dyn_cast_or_null<memref::GlobalOp>(
      SymbolTable::lookupSymbolIn(mod, name));
  if (!g) {
    op->emitOpError() << "no shared scratch for the exchange";
    return Value();
  }
  return memref::GetGlobalOp::create(b, loc, g.getType(), name);
}

/// Whether threads of different warps hold elements of one row of `t`
/// along `dim` (a scan then combines warp totals in the shared scratch).
static bool rowSpansWarps(TileType t, int64_t dim, int64_t warpSize) {
  std::optional<L::Layout> l = regLayout(t);
  if (!l)
    return false;
  int64_t threads = l->mode(0).size(), slots = l->mode(1).size();
  std::map<SmallVector<int64_t>, int64_t> warpOfRow;
  for (int64_t th = 0; th < threads; ++th)
    for (int64_t v = 0; v < slots; ++v) {
      SmallVector<int64_t> c = splitColex((*l)(th + threads * v), t.getShape());
      auto [it, fresh] =
          warpOfRow.emplace(dropDim<int64_t>(c, dim), th / warpSize);
      if (!fresh && it->second != th / warpSize)
        return true;
    }
  return false;
}

void mlir::argus::createExchangeScratch(gpu::GPUFuncOp gfn,
                                        gpu::GPUModuleOp mod) {
  KernelInfo k = getKernelInfo(gfn);
  int64_t warps = k.numWarps();
  llvm::MapVector<Type, int64_t> need;
  gfn.walk([&](Operation *op) {
    int64_t n = 0;
    Type e;
    if (auto c = dyn_cast<ConvertLayoutOp>(op)) {
      n = numElements(c.getInput().getType());
      e = c.getType().getElementType();
    } else if (auto c = dyn_cast<BroadcastOp>(op)) {
      n = numElements(c.getInput().getType());
      e = c.getType().getElementType();
    } else if (auto c = dyn_cast<ReduceOp>(op)) {
      n = warps * numElements(c.getType());
      e = c.getType().getElementType();
    } else if (auto c = dyn_cast<ScanOp>(op)) {
      // Only rows that span warps meet in the scratch: rows * runs * warps
      // per row <= the tile's elements (ScanPlan).
      if (!rowSpansWarps(c.getType(), c.getDim(), k.warpSize))
        return;
      n = numElements(c.getType());
      e = c.getType().getElementType();
    } else {
      return;
    }
    need[e] = std::max(need[e], n);
  });
  OpBuilder b(mod.getBody(), mod.getBody()->begin());
  for (auto [e, n] : need)
    memref::GlobalOp::create(b, gfn.getLoc(), scratchName(gfn.getName(), e),
                             b.getStringAttr("private"), sharedArrayType(n, e),
                             Attribute(),
                             /*constant=*/false, b.getI64IntegerAttr(16));
}

/// convert_layout followed only by a narrowing convert exchanges the
/// narrow values instead (the conversion is elementwise, so it commutes
/// with the redistribution): half the shared scratch for f32 -> f16.
void mlir::argus::narrowExchanges(gpu::GPUFuncOp gfn) {
  SmallVector<ConvertLayoutOp> cls;
  gfn.walk([&](ConvertLayoutOp c) { cls.push_back(c); });
  for (ConvertLayoutOp cl : cls) {
    if (!cl->hasOneUse())
      continue;
    auto cv = dyn_cast<ConvertOp>(*cl->getUsers().begin());
    if (!cv)
      continue;
    TileType in = cl.getInput().getType(), out = cv.getType();
    if (out.getElementType().getIntOrFloatBitWidth() >=
        in.getElementType().getIntOrFloatBitWidth())
      continue;
    OpBuilder b(cl);
    auto narrowIn =
        TileType::get(in.getContext(), in.getShape(), out.getElementType(),
                      in.getMemorySpace(), in.getLayout());
    Value c = ConvertOp::create(b, cl.getLoc(), narrowIn, cl.getInput());
    Value x = ConvertLayoutOp::create(b, cl.getLoc(), out, c);
    cv.replaceAllUsesWith(x);
    cv.erase();
    cl.erase();
  }
}

//===----------------------------------------------------------------------===//
// Redistribution: broadcast, convert_layout
//===----------------------------------------------------------------------===//

/// Largest n (<= 16 bytes) such that every group of n consecutive slots of
/// every thread is n consecutive, n-aligned row-major elements of `shape`.
static int64_t rowMajorVectorWidth(const ThreadCoords &tc, int64_t threads,
                                   ArrayRef<int64_t> shape, Type elem) {
  auto offset = [&](ArrayRef<int64_t> c) { return rowMajor(c, shape); };
  return contiguousWidth(tc, threads, elem, {offset});
}

/// Every thread writes its slots to the scratch at their row-major index
/// (replicated elements are written with equal values).
static void writeTileToScratch(OpBuilder &b, Location loc, Value vec,
                               const ThreadCoords &tc, int64_t threads,
                               ArrayRef<int64_t> shape, Value scratch) {
  Type elem = cast<VectorType>(vec.getType()).getElementType();
  int64_t n = rowMajorVectorWidth(tc, threads, shape, elem);
  for (int64_t v = 0; v < tc.numSlots(); v += n) {
    Value idx = rowMajorValue(b, loc, tc.coord(b, loc, v), shape);
    Value x = extractSlots(b, loc, vec, v, n);
    storeRun(b, loc, x, scratch, idx, elem, n);
  }
}

/// Output slot v of every thread takes input slot cands[v][i] when the
/// input coordinate of that slot (projected) is the output coordinate.
/// Returns false when some thread holds no input slot for some output slot,
/// or there are too many candidates.
static bool planRegisterGather(const ThreadCoords &tin,
                               const ThreadCoords &tout, int64_t threads,
                               int64_t dim, bool broadcast,
                               SmallVector<SmallVector<int64_t>> &cands) {
  cands.assign(tout.numSlots(), {});
  for (int64_t t = 0; t < threads; ++t) {
    // input coordinate -> first slot holding it, for this thread
    std::map<SmallVector<int64_t>, int64_t> held;
    for (int64_t u = tin.numSlots() - 1; u >= 0; --u)
      held[tin.staticCoord(t, u)] = u;
    for (int64_t v = 0; v < tout.numSlots(); ++v) {
      SmallVector<int64_t> c = tout.staticCoord(t, v);
      if (broadcast)
        c = dropDim<int64_t>(c, dim);
      auto it = held.find(c);
      if (it == held.end())
        return false;
      if (!llvm::is_contained(cands[v], it->second)) {
        cands[v].push_back(it->second);
        if (cands[v].size() > 4)
          return false;
      }
    }
  }
  return true;
}

/// Redistribute the register tile `in` (layout `tin`) to the layout `tout`;
/// with `broadcast`, output coordinates drop dimension `dim` to find their
/// input element. In registers when every thread already holds what it
/// needs (the slot is chosen by comparing coordinates at run time when it
/// depends on the thread), else through the shared scratch.
static Value redistribute(ConversionPatternRewriter &b, Location loc,
                          Operation *op, Value in, TileType inT,
                          const ThreadCoords &tin, TileType outT,
                          VectorType outVT, const ThreadCoords &tout,
                          int64_t threads, bool broadcast, int64_t dim) {
  SmallVector<SmallVector<int64_t>> cands;
  Value acc = zeroVector(b, loc, outVT);
  if (planRegisterGather(tin, tout, threads, dim, broadcast, cands)) {
    for (int64_t v = 0; v < tout.numSlots(); ++v) {
      Value x = extractSlots(b, loc, in, cands[v][0], 1);
      if (cands[v].size() > 1) {
        SmallVector<Value> oc = tout.coord(b, loc, v);
        if (broadcast)
          oc = dropDim<Value>(oc, dim);
        for (size_t i = 1; i < cands[v].size(); ++i) {
          SmallVector<Value> ic = tin.coord(b, loc, cands[v][i]);
          Value eq = sameCoord(b, loc, ic, oc);
          x = arith::SelectOp::create(
              b, loc, eq, extractSlots(b, loc, in, cands[v][i], 1), x);
        }
      }
      acc = vector::InsertOp::create(b, loc, x, acc, v);
    }
    return acc;
  }
  Value scratch = getScratch(b, loc, op, inT.getElementType());
  if (!scratch)
    return Value();
  writeTileToScratch(b, loc, in, tin, threads, inT.getShape(), scratch);
  gpu::BarrierOp::create(b, loc);
  int64_t n = broadcast ? 1
                        : rowMajorVectorWidth(tout, threads, outT.getShape(),
                                              outT.getElementType());
  for (int64_t v = 0; v < tout.numSlots(); v += n) {
    SmallVector<Value> oc = tout.coord(b, loc, v);
    if (broadcast)
      oc = dropDim<Value>(oc, dim);
    Value idx = rowMajorValue(b, loc, oc, inT.getShape());
    Value x = loadRun(b, loc, scratch, idx, outT.getElementType(), n);
    acc = insertSlots(b, loc, x, acc, v, n);
  }
  gpu::BarrierOp::create(b, loc);
  return acc;
}

namespace {

/// The thread id and the (thread, slot) coordinates of an exchange's input
/// and output register tiles.
struct ExchangeCoords {
  Value tid;
  ThreadCoords in, out;
  /// Both layouts cover every thread of the block.
  bool overBlock(const KernelInfo &k) const {
    return in.numThreads() == k.numThreads() &&
           out.numThreads() == k.numThreads();
  }
};

} // namespace

/// nullopt when a tile has no register layout.
static std::optional<ExchangeCoords> exchangeCoords(OpBuilder &b, Location loc,
                                                    const KernelInfo &k,
                                                    TileType inT,
                                                    TileType outT) {
  std::optional<L::Layout> li = regLayout(inT), lo = regLayout(outT);
  if (!li || !lo)
    return std::nullopt;
  Value tid = linearThreadId(b, loc, k);
  return ExchangeCoords{tid, ThreadCoords(b, loc, *li, inT.getShape(), tid),
                        ThreadCoords(b, loc, *lo, outT.getShape(), tid)};
}

namespace {

/// argus.convert_layout and argus.broadcast (which also drops `dim` from
/// the output coordinate to find its input element).
template <typename OpT> struct RedistributeLowering : ArgusPattern<OpT> {
  using ArgusPattern<OpT>::ArgusPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = this->kernel(op);
    Location loc = op.getLoc();
    TileType inT = op.getInput().getType(), outT = op.getType();
    std::optional<ExchangeCoords> xc =
        exchangeCoords(rewriter, loc, k, inT, outT);
    if (!xc)
      return failure();
    auto outVT = cast<VectorType>(this->getTypeConverter()->convertType(outT));
    if (!xc->overBlock(k))
      return op.emitOpError() << "lowering needs layouts over all "
                              << k.numThreads() << " threads of the block";
    constexpr bool broadcast = std::is_same_v<OpT, BroadcastOp>;
    int64_t dim = 0;
    if constexpr (broadcast)
      dim = int64_t(op.getDim());
    Value r =
        redistribute(rewriter, loc, op, adaptor.getInput(), inT, xc->in, outT,
                     outVT, xc->out, k.numThreads(), broadcast, dim);
    if (!r)
      return failure(); // getScratch said why
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reduction
//===----------------------------------------------------------------------===//

/// The static plan of a reduction (see ReduceLowering).
struct ReducePlan {
  /// Slots of each in-thread group (same output coordinate in every thread).
  SmallVector<SmallVector<int64_t>> groups;
  /// Lane xor masks combined with shuffles.
  SmallVector<int64_t> masks;
  /// Some output coordinate is held by several warps.
  bool crossWarp = false;
  /// Register distribution: output slot -> candidate groups.
  SmallVector<SmallVector<int64_t>> cands;
  bool inRegisters = false;
};

} // namespace

/// The lane offsets reached by xor-ing any subset of `masks`.
static SmallVector<int64_t> xorOrbit(ArrayRef<int64_t> masks) {
  SmallVector<int64_t> orbit{0};
  for (int64_t a : masks) {
    size_t n = orbit.size();
    for (size_t i = 0; i < n; ++i)
      orbit.push_back(orbit[i] ^ a);
  }
  return orbit;
}

static FailureOr<ReducePlan>
planReduce(const ThreadCoords &tin, const ThreadCoords &tout, int64_t threads,
           int64_t warpSize, int64_t dim, ArrayRef<int64_t> inShape,
           ArrayRef<int64_t> outShape, std::string &why) {
  ReducePlan p;
  int64_t S = tin.numSlots();
  auto key = [&](int64_t t, int64_t u) {
    return rowMajor(dropDim<int64_t>(tin.staticCoord(t, u), dim), outShape);
  };
  auto elemId = [&](int64_t t, int64_t u) {
    return rowMajor(tin.staticCoord(t, u), inShape);
  };
  // 1. In-thread groups, from thread 0, checked for every thread.
  SmallVector<int64_t> groupOf(S, -1);
  for (int64_t u = 0; u < S; ++u) {
    for (size_t g = 0; g < p.groups.size() && groupOf[u] < 0; ++g)
      if (key(0, p.groups[g][0]) == key(0, u))
        groupOf[u] = g;
    if (groupOf[u] < 0) {
      groupOf[u] = p.groups.size();
      p.groups.push_back({});
    }
    p.groups[groupOf[u]].push_back(u);
  }
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t u = 0; u < S; ++u)
      for (int64_t w = u + 1; w < S; ++w)
        if ((key(t, u) == key(t, w)) != (groupOf[u] == groupOf[w])) {
          why = "the slots that share an output coordinate differ between "
                "threads";
          return failure();
        }
  // Distinct elements per (thread, group); replicated slots count once.
  auto elems = [&](int64_t t, int64_t g) {
    std::set<int64_t> s;
    for (int64_t u : p.groups[g])
      s.insert(elemId(t, u));
    return s;
  };
  for (int64_t t = 0; t < threads; ++t)
    for (size_t g = 0; g < p.groups.size(); ++g)
      if (int64_t(elems(t, g).size()) != int64_t(p.groups[g].size())) {
        why = "a thread holds an element twice";
        return failure();
      }
  // 2. Lane masks: the key is kept and the combined lanes hold disjoint
  // elements.
  for (int64_t m = 1; m < warpSize; m <<= 1) {
    SmallVector<int64_t> orbit = xorOrbit(p.masks);
    bool ok = true;
    for (int64_t t = 0; t < threads && ok; ++t) {
      int64_t tm = t ^ m;
      if (tm >= threads) {
        ok = false;
        break;
      }
      for (size_t g = 0; g < p.groups.size() && ok; ++g) {
        if (key(tm, p.groups[g][0]) != key(t, p.groups[g][0])) {
          ok = false;
          break;
        }
        std::set<int64_t> mine;
        for (int64_t x : orbit) {
          std::set<int64_t> s = elems(t ^ x, g);
          mine.insert(s.begin(), s.end());
        }
        for (int64_t x : orbit)
          for (int64_t e : elems(tm ^ x, g))
            if (mine.count(e))
              ok = false;
      }
    }
    if (ok)
      p.masks.push_back(m);
  }
  SmallVector<int64_t> orbit = xorOrbit(p.masks);
  // Per warp and output coordinate: the elements the warp holds, and the
  // elements each lane has combined; they must agree.
  std::map<std::pair<int64_t, int64_t>, std::set<int64_t>> perWarp;
  std::map<int64_t, std::set<int64_t>> warpsOfKey;
  for (int64_t t = 0; t < threads; ++t)
    for (size_t g = 0; g < p.groups.size(); ++g) {
      std::set<int64_t> s = elems(t, g);
      perWarp[{t / warpSize, key(t, p.groups[g][0])}].insert(s.begin(),
                                                             s.end());
      warpsOfKey[key(t, p.groups[g][0])].insert(t / warpSize);
    }
  for (int64_t t = 0; t < threads; ++t)
    for (size_t g = 0; g < p.groups.size(); ++g) {
      std::set<int64_t> got;
      for (int64_t x : orbit) {
        std::set<int64_t> s = elems(t ^ x, g);
        got.insert(s.begin(), s.end());
      }
      if (got != perWarp[{t / warpSize, key(t, p.groups[g][0])}]) {
        why = "the lanes of a warp that hold one output element cannot be "
              "combined with xor shuffles";
        return failure();
      }
    }
  // 3. Across warps: the warps' element sets of a key must be disjoint.
  for (auto &[k, ws] : warpsOfKey) {
    if (ws.size() < 2)
      continue;
    p.crossWarp = true;
    std::set<int64_t> seen;
    for (int64_t w : ws)
      for (int64_t e : perWarp[{w, k}])
        if (!seen.insert(e).second) {
          why = "several warps hold the same element";
          return failure();
        }
  }
  // 4. Register distribution.
  if (!p.crossWarp) {
    p.inRegisters = true;
    p.cands.assign(tout.numSlots(), {});
    for (int64_t t = 0; t < threads && p.inRegisters; ++t)
      for (int64_t v = 0; v < tout.numSlots() && p.inRegisters; ++v) {
        int64_t want = rowMajor(tout.staticCoord(t, v), outShape);
        int64_t found = -1;
        for (size_t g = 0; g < p.groups.size() && found < 0; ++g)
          if (key(t, p.groups[g][0]) == want)
            found = g;
        if (found < 0) {
          p.inRegisters = false;
        } else if (!llvm::is_contained(p.cands[v], found)) {
          p.cands[v].push_back(found);
          if (p.cands[v].size() > 4)
            p.inRegisters = false;
        }
      }
  }
  return p;
}

static Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x,
                     Value y) {
  bool fp = isa<FloatType>(x.getType());
  switch (kind) {
  case ReduceKind::Sum:
    return fp ? Value(arith::AddFOp::create(b, loc, x, y))
              : Value(arith::AddIOp::create(b, loc, x, y));
  case ReduceKind::Max:
    return fp ? Value(arith::MaximumFOp::create(b, loc, x, y))
              : Value(arith::MaxSIOp::create(b, loc, x, y));
  case ReduceKind::Min:
    return fp ? Value(arith::MinimumFOp::create(b, loc, x, y))
              : Value(arith::MinSIOp::create(b, loc, x, y));
  case ReduceKind::Prod:
    return fp ? Value(arith::MulFOp::create(b, loc, x, y))
              : Value(arith::MulIOp::create(b, loc, x, y));
  }
  return x;
}

static Value identity(OpBuilder &b, Location loc, ReduceKind kind, Type t) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    double v = kind == ReduceKind::Sum    ? 0.0
               : kind == ReduceKind::Prod ? 1.0
               : kind == ReduceKind::Max
                   ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::infinity();
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, v));
  }
  unsigned w = t.getIntOrFloatBitWidth();
  APInt v = kind == ReduceKind::Sum    ? APInt(w, 0)
            : kind == ReduceKind::Prod ? APInt(w, 1)
            : kind == ReduceKind::Max  ? APInt::getSignedMinValue(w)
                                       : APInt::getSignedMaxValue(w);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
}

namespace {

/// argus.reduce: (1) each thread combines its slots per output coordinate,
/// (2) xor shuffles combine the lanes of a warp that hold the same output
/// coordinates, (3) if several warps hold an output coordinate, their
/// partials meet in the shared scratch, (4) the result layout is filled
/// from registers when every thread holds its outputs, else from the
/// scratch. Every step is checked at compile time over all (thread, slot).
struct ReduceLowering : ArgusPattern<ReduceOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    TileType inT = op.getInput().getType(), outT = op.getType();
    std::optional<ExchangeCoords> xc =
        exchangeCoords(rewriter, loc, k, inT, outT);
    if (!xc)
      return failure();
    auto outVT = cast<VectorType>(getTypeConverter()->convertType(outT));
    int64_t dim = op.getDim();
    int64_t T = k.numThreads();
    Value tid = xc->tid;
    const ThreadCoords &tin = xc->in, &tout = xc->out;
    if (!xc->overBlock(k))
      return op.emitOpError()
             << "lowering needs layouts over all " << T << " threads";
    std::string why;
    FailureOr<ReducePlan> plan = planReduce(
        tin, tout, T, k.warpSize, dim, inT.getShape(), outT.getShape(), why);
    if (failed(plan))
      return op.emitOpError() << "cannot be lowered: " << why;
    ReduceKind kind = op.getKind();
    Value in = adaptor.getInput();
    Type elem = outT.getElementType();
    SmallVector<Value> part;
    for (auto &g : plan->groups) {
      Value x = extractSlots(rewriter, loc, in, g[0], 1);
      for (size_t i = 1; i < g.size(); ++i)
        x = combine(rewriter, loc, kind, x,
                    extractSlots(rewriter, loc, in, g[i], 1));
      part.push_back(x);
    }
    for (int64_t m : plan->masks)
      for (Value &x : part) {
        Value y =
            gpu::ShuffleOp::create(rewriter, loc, x, int32_t(m),
                                   int32_t(k.warpSize), gpu::ShuffleMode::XOR)
                .getShuffleResult();
        x = combine(rewriter, loc, kind, x, y);
      }
    auto keyCoord = [&](int64_t slot) {
      return dropDim<Value>(tin.coord(rewriter, loc, slot), dim);
    };
    Value acc = zeroVector(rewriter, loc, outVT);
    if (plan->inRegisters) {
      for (int64_t v = 0; v < tout.numSlots(); ++v) {
        auto &c = plan->cands[v];
        Value x = part[c[0]];
        if (c.size() > 1) {
          SmallVector<Value> oc = tout.coord(rewriter, loc, v);
          for (size_t i = 1; i < c.size(); ++i) {
            SmallVector<Value> kc = keyCoord(plan->groups[c[i]][0]);
            Value eq = sameCoord(rewriter, loc, kc, oc);
            x = arith::SelectOp::create(rewriter, loc, eq, part[c[i]], x);
          }
        }
        acc = vector::InsertOp::create(rewriter, loc, x, acc, v);
      }
      rewriter.replaceOp(op, acc);
      return success();
    }
    Value scratch = getScratch(rewriter, loc, op, elem);
    if (!scratch)
      return failure(); // getScratch said why
    int64_t outSize = numElements(outT);
    int64_t warps = plan->crossWarp ? k.numWarps() : 1;
    Value warpOff = cidx(rewriter, loc, 0);
    if (plan->crossWarp) {
      // Identity first: a warp that holds no element of an output writes
      // nothing there.
      Value id = identity(rewriter, loc, kind, elem);
      for (int64_t i = 0; i < warps * outSize; i += T) {
        Value idx =
            arith::AddIOp::create(rewriter, loc, tid, cidx(rewriter, loc, i));
        if (i + T <= warps * outSize) {
          memref::StoreOp::create(rewriter, loc, id, scratch, idx);
          continue;
        }
        auto inside =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, idx,
                                  cidx(rewriter, loc, warps * outSize));
        auto ifOp = scf::IfOp::create(rewriter, loc, inside, false);
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
        memref::StoreOp::create(rewriter, loc, id, scratch, idx);
      }
      gpu::BarrierOp::create(rewriter, loc);
      warpOff = arith::MulIOp::create(
          rewriter, loc,
          arith::DivUIOp::create(rewriter, loc, tid,
                                 cidx(rewriter, loc, k.warpSize)),
          cidx(rewriter, loc, outSize));
    }
    for (size_t g = 0; g < part.size(); ++g) {
      Value idx = arith::AddIOp::create(
          rewriter, loc, warpOff,
          rowMajorValue(rewriter, loc, keyCoord(plan->groups[g][0]),
                        outT.getShape()));
      memref::StoreOp::create(rewriter, loc, part[g], scratch, idx);
    }
    gpu::BarrierOp::create(rewriter, loc);
    for (int64_t v = 0; v < tout.numSlots(); ++v) {
      Value o = rowMajorValue(rewriter, loc, tout.coord(rewriter, loc, v),
                              outT.getShape());
      Value x;
      for (int64_t w = 0; w < warps; ++w) {
        Value y = memref::LoadOp::create(
            rewriter, loc, scratch,
            ValueRange{arith::AddIOp::create(
                rewriter, loc, o, cidx(rewriter, loc, w * outSize))});
        x = x ? combine(rewriter, loc, kind, x, y) : y;
      }
      acc = vector::InsertOp::create(rewriter, loc, x, acc, v);
    }
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.replaceOp(op, acc);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Inclusive scan
//===----------------------------------------------------------------------===//

/// The static plan of a scan (see ScanLowering). Along `dim`, a row of N
/// elements is cut into R rounds of G runs of L consecutive elements: run
/// `rank` of round j, positions [j G L + rank L, j G L + (rank + 1) L), is
/// held by the threads whose rank (t / stride) % G is `rank`; the other
/// bits of the thread id pick the row (or a replica).
struct ScanPlan {
  /// Per in-thread group (one row): the slots of round j in order, runs[g][j].
  SmallVector<SmallVector<SmallVector<int64_t>>> runs;
  int64_t rounds = 1, runLength = 1;
  /// Ranks per row, the thread-id stride between them, and their split
  /// into ranks per warp (shuffles) and warps per row (shared scratch).
  int64_t ranks = 1, stride = 1, warpRanks = 1, warps = 1;
};

} // namespace

static FailureOr<ScanPlan> planScan(const ThreadCoords &tin, int64_t threads,
                                    int64_t warpSize, int64_t dim,
                                    ArrayRef<int64_t> shape, std::string &why) {
  ScanPlan p;
  int64_t S = tin.numSlots(), N = shape[dim];
  SmallVector<int64_t> keyShape = dropDim<int64_t>(shape, dim);
  auto key = [&](int64_t t, int64_t u) {
    return rowMajor(dropDim<int64_t>(tin.staticCoord(t, u), dim), keyShape);
  };
  auto pos = [&](int64_t t, int64_t u) { return tin.staticCoord(t, u)[dim]; };
  // 1. In-thread groups (one row each) and their runs, from thread 0.
  SmallVector<SmallVector<int64_t>> groups;
  SmallVector<int64_t> groupOf(S, -1);
  for (int64_t u = 0; u < S; ++u) {
    for (size_t g = 0; g < groups.size() && groupOf[u] < 0; ++g)
      if (key(0, groups[g][0]) == key(0, u))
        groupOf[u] = g;
    if (groupOf[u] < 0) {
      groupOf[u] = groups.size();
      groups.push_back({});
    }
    groups[groupOf[u]].push_back(u);
  }
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t u = 0; u < S; ++u)
      for (int64_t w = u + 1; w < S; ++w)
        if ((key(t, u) == key(t, w)) != (groupOf[u] == groupOf[w])) {
          why = "the slots that share a row differ between threads";
          return failure();
        }
  for (auto &g : groups) {
    llvm::stable_sort(
        g, [&](int64_t a, int64_t b) { return pos(0, a) < pos(0, b); });
    SmallVector<SmallVector<int64_t>> runs{{g[0]}};
    for (size_t i = 1; i < g.size(); ++i) {
      if (pos(0, g[i]) == pos(0, g[i - 1])) {
        why = "a thread holds an element twice";
        return failure();
      }
      if (pos(0, g[i]) == pos(0, g[i - 1]) + 1)
        runs.back().push_back(g[i]);
      else
        runs.push_back({g[i]});
    }
    p.runs.push_back(runs);
  }
  p.rounds = p.runs[0].size();
  p.runLength = p.runs[0][0].size();
  for (auto &runs : p.runs)
    for (auto &r : runs)
      if (int64_t(runs.size()) != p.rounds ||
          int64_t(r.size()) != p.runLength) {
        why = "the runs of consecutive elements a thread holds along the "
              "scanned dimension differ in number or length";
        return failure();
      }
  if (N % (p.rounds * p.runLength) != 0 ||
      !llvm::isPowerOf2_64(N / (p.rounds * p.runLength))) {
    why = "the threads that share a row are not a power of two";
    return failure();
  }
  p.ranks = N / (p.rounds * p.runLength);
  // 2. The thread-id stride between the ranks of a row, checked on every
  // (thread, slot): position = j G L + rank L + i and the row does not
  // depend on the rank.
  auto fits = [&](int64_t stride) {
    int64_t G = p.ranks, L = p.runLength;
    if (G > 1 && threads % (stride * G) != 0)
      return false;
    for (int64_t t = 0; t < threads; ++t) {
      int64_t rank = (t / stride) % G;
      int64_t t0 = t - rank * stride;
      for (auto &runs : p.runs)
        for (int64_t j = 0; j < p.rounds; ++j)
          for (int64_t i = 0; i < L; ++i) {
            int64_t u = runs[j][i];
            if (pos(t, u) != j * G * L + rank * L + i ||
                key(t, u) != key(t0, u))
              return false;
          }
    }
    return true;
  };
  bool found = false;
  for (int64_t stride = 1; stride < std::max<int64_t>(threads, 2) && !found;
       stride *= 2) {
    if (fits(stride)) {
      p.stride = stride;
      found = true;
    }
    if (p.ranks == 1)
      break;
  }
  if (!found) {
    why = "the threads that share a row are not ranked along the row by a "
          "power-of-two stride of the thread id, each holding the same runs "
          "of consecutive elements";
    return failure();
  }
  if (p.ranks > 1) {
    p.warpRanks =
        p.stride >= warpSize ? 1 : std::min(p.ranks, warpSize / p.stride);
    p.warps = p.ranks / p.warpRanks;
  }
  return p;
}

namespace {

/// argus.scan (ScanPlan): (1) each thread scans its runs in order, (2) the
/// run totals of each round are scanned across the ranks of a warp with
/// Hillis-Steele shuffles (log2 steps) and made exclusive with one more
/// shuffle, (3) when a row spans warps, each warp's round totals meet in
/// the shared scratch and every thread combines those of the warps before
/// it, (4) every element combines the totals of the earlier rounds, the
/// earlier warps, the earlier ranks of its warp and its run's prefix.
struct ScanLowering : ArgusPattern<ScanOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    TileType inT = op.getInput().getType();
    std::optional<ExchangeCoords> xc =
        exchangeCoords(rewriter, loc, k, inT, inT);
    if (!xc)
      return failure();
    auto vt = cast<VectorType>(getTypeConverter()->convertType(inT));
    // A layout over fewer threads than the block (a small tile): the
    // threads past it hold nothing; they shuffle along (shuffles are
    // warp-wide) but never touch the scratch.
    int64_t dim = op.getDim(), T = xc->in.numThreads();
    if (T > k.numThreads())
      return op.emitOpError()
             << "lowering needs a layout over at most the " << k.numThreads()
             << " threads of the block, not " << T
             << "; hint: argus.convert_layout the input to a layout of the "
                "block (argus.copy_layout)";
    std::string why;
    FailureOr<ScanPlan> plan =
        planScan(xc->in, T, k.warpSize, dim, inT.getShape(), why);
    if (failed(plan))
      return op.emitOpError()
             << "cannot be lowered for this register layout: " << why
             << "; hint: argus.convert_layout the input to a blocked layout "
                "(argus.copy_layout of the tile over the block), scan, and "
                "convert back";
    const ScanPlan &p = *plan;
    ReduceKind kind = op.getKind();
    Type elem = inT.getElementType();
    Value in = adaptor.getInput();
    auto &b = rewriter;
    Value id = identity(b, loc, kind, elem);
    Value tid = xc->tid;
    auto idx = [&](int64_t v) { return cidx(b, loc, v); };
    auto i32 = [&](Value v) {
      return arith::IndexCastOp::create(b, loc, b.getI32Type(), v).getResult();
    };
    Value lane = arith::RemUIOp::create(b, loc, tid, idx(k.warpSize));
    Value rank = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, tid, idx(p.stride)),
        idx(p.ranks));
    Value rankInWarp = arith::RemUIOp::create(b, loc, rank, idx(p.warpRanks));
    Value warpRank = arith::DivUIOp::create(b, loc, rank, idx(p.warpRanks));
    Value width = constI32(b, loc, k.warpSize);
    // Shuffles move 32-bit values: narrower elements travel widened.
    auto shuffleFrom = [&](Value x, Value srcLane) -> Value {
      Type t = x.getType();
      bool narrow = t.getIntOrFloatBitWidth() < 32;
      if (narrow)
        x = isa<FloatType>(t)
                ? Value(arith::ExtFOp::create(b, loc, b.getF32Type(), x))
                : Value(arith::ExtSIOp::create(b, loc, b.getI32Type(), x));
      Value y = gpu::ShuffleOp::create(b, loc, x, i32(srcLane), width,
                                       gpu::ShuffleMode::IDX)
                    .getShuffleResult();
      if (!narrow)
        return y;
      return isa<FloatType>(t) ? Value(arith::TruncFOp::create(b, loc, t, y))
                               : Value(arith::TruncIOp::create(b, loc, t, y));
    };
    auto ge = [&](Value x, int64_t c) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, x, idx(c))
          .getResult();
    };
    // (1) Runs: prefixes within each run, and the run totals.
    size_t G = p.runs.size();
    SmallVector<SmallVector<SmallVector<Value>>> local(G);
    SmallVector<SmallVector<Value>> offset(G);
    SmallVector<SmallVector<Value>> total(G); // round totals of the row
    for (size_t g = 0; g < G; ++g)
      for (int64_t j = 0; j < p.rounds; ++j) {
        SmallVector<Value> run;
        for (int64_t u : p.runs[g][j]) {
          Value x = extractSlots(b, loc, in, u, 1);
          run.push_back(run.empty() ? x : combine(b, loc, kind, run.back(), x));
        }
        local[g].push_back(run);
        Value x = run.back();
        Value excl = id, warpTotal = x;
        if (p.warpRanks > 1) {
          // (2) Inclusive scan of the run totals over the warp's ranks.
          for (int64_t d = 1; d < p.warpRanks; d *= 2) {
            Value has = ge(rankInWarp, d);
            Value src = arith::SelectOp::create(
                b, loc, has,
                arith::SubIOp::create(b, loc, lane, idx(d * p.stride)), lane);
            Value y = shuffleFrom(x, src);
            x = arith::SelectOp::create(b, loc, has,
                                        combine(b, loc, kind, y, x), x);
          }
          Value has = ge(rankInWarp, 1);
          Value src = arith::SelectOp::create(
              b, loc, has, arith::SubIOp::create(b, loc, lane, idx(p.stride)),
              lane);
          excl = arith::SelectOp::create(b, loc, has, shuffleFrom(x, src), id);
          Value last = arith::OrIOp::create(b, loc, lane,
                                            idx((p.warpRanks - 1) * p.stride));
          warpTotal = shuffleFrom(x, last);
        }
        offset[g].push_back(excl);
        total[g].push_back(warpTotal);
      }
    // (3) Across warps: warp totals per (row, round) in the scratch.
    if (p.warps > 1) {
      Value scratch = getScratch(b, loc, op, elem);
      if (!scratch)
        return failure(); // getScratch said why
      SmallVector<int64_t> keyShape = dropDim<int64_t>(inT.getShape(), dim);
      if (keyShape.empty())
        keyShape.push_back(1);
      auto base = [&](size_t g, int64_t j) {
        SmallVector<Value> kc =
            dropDim<Value>(xc->in.coord(b, loc, p.runs[g][0][0]), dim);
        Value row = kc.empty() ? idx(0) : rowMajorValue(b, loc, kc, keyShape);
        return arith::MulIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, row, idx(p.rounds)),
                idx(j)),
            idx(p.warps));
      };
      Value writer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           rankInWarp, idx(p.warpRanks - 1));
      Value active;
      if (T < k.numThreads()) {
        active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                       idx(T));
        writer = arith::AndIOp::create(b, loc, writer, active);
      }
      auto ifOp = scf::IfOp::create(b, loc, writer, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        for (size_t g = 0; g < G; ++g)
          for (int64_t j = 0; j < p.rounds; ++j)
            memref::StoreOp::create(b, loc, total[g][j], scratch,
                                    ValueRange{arith::AddIOp::create(
                                        b, loc, base(g, j), warpRank)});
      }
      gpu::BarrierOp::create(b, loc);
      for (size_t g = 0; g < G; ++g)
        for (int64_t j = 0; j < p.rounds; ++j) {
          Value at = base(g, j), before = id, all = id;
          if (active) // a thread past the layout reads a valid slot
            at = arith::SelectOp::create(b, loc, active, at, idx(0));
          for (int64_t w = 0; w < p.warps; ++w) {
            Value y = memref::LoadOp::create(
                b, loc, scratch,
                ValueRange{arith::AddIOp::create(b, loc, at, idx(w))});
            all = combine(b, loc, kind, all, y);
            Value earlier = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ult, idx(w), warpRank);
            before = arith::SelectOp::create(
                b, loc, earlier, combine(b, loc, kind, before, y), before);
          }
          offset[g][j] = combine(b, loc, kind, before, offset[g][j]);
          total[g][j] = all;
        }
      gpu::BarrierOp::create(b, loc);
    }
    // (4) Earlier rounds, then the element's own prefix.
    Value acc = zeroVector(b, loc, vt);
    for (size_t g = 0; g < G; ++g) {
      Value rounds = id;
      for (int64_t j = 0; j < p.rounds; ++j) {
        Value off = p.ranks > 1 || j > 0
                        ? combine(b, loc, kind, rounds, offset[g][j])
                        : Value();
        for (size_t i = 0; i < p.runs[g][j].size(); ++i) {
          Value x = local[g][j][i];
          if (off)
            x = combine(b, loc, kind, off, x);
          acc = vector::InsertOp::create(b, loc, x, acc, p.runs[g][j][i]);
        }
        rounds = combine(b, loc, kind, rounds, total[g][j]);
      }
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

} // namespace

void mlir::argus::populateExchangeLoweringPatterns(
    const TypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<ReduceLowering, ScanLowering, RedistributeLowering<BroadcastOp>,
               RedistributeLowering<ConvertLayoutOp>>(tc,
                                                      patterns.getContext());
}
