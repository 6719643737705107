//===- TileAccess.cpp - per-thread accesses of memory tiles ---------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "TileAccess.h"

#include <functional>

using namespace mlir;
using namespace mlir::argus;

UnrealizedConversionCastOp mlir::argus::gatherOf(Value mem) {
  auto c = mem.getDefiningOp<UnrealizedConversionCastOp>();
  if (c && c->hasAttr(kGatherAttr) && c.getInputs().size() == 3)
    return c;
  return {};
}

UnrealizedConversionCastOp mlir::argus::clipOf(Value mem) {
  auto c = mem.getDefiningOp<UnrealizedConversionCastOp>();
  if (c && c->hasAttr(kClipAttr) && c.getInputs().size() >= 2)
    return c;
  return {};
}

LogicalResult mlir::argus::eraseAccessMarkers(ModuleOp top) {
  SmallVector<UnrealizedConversionCastOp> markers;
  top.walk([&](UnrealizedConversionCastOp c) {
    if (c->hasAttr(kGatherAttr) || c->hasAttr(kClipAttr))
      markers.push_back(c);
  });
  for (UnrealizedConversionCastOp c : markers) {
    if (!c->use_empty())
      return c.emitError()
             << (c->hasAttr(kGatherAttr) ? "a gathered" : "a clipped")
             << " view is used by an op that cannot read it (copy, load, "
                "store only; a clipped view also feeds TMA copies)";
    c.erase();
  }
  return success();
}

std::optional<int64_t> mlir::argus::gatherRowSlot(Value tile,
                                                  const ThreadCoords &tc,
                                                  int64_t threads,
                                                  int64_t slot) {
  while (auto tag = tile.getDefiningOp<TagOp>())
    tile = tag.getInput();
  auto gv = tile.getDefiningOp<GatherViewOp>();
  if (!gv)
    return std::nullopt;
  FailureOr<::argus::layout::Layout> l =
      getRegisterLayout(gv.getIndices().getType());
  if (failed(l) || l->rank() != 2)
    return std::nullopt;
  int64_t lt = l->mode(0).size(), slots = l->mode(1).size();
  if (lt < threads)
    return std::nullopt;
  // Candidates from thread 0, then every thread.
  for (int64_t s = 0; s < slots; ++s) {
    bool all = true;
    for (int64_t t = 0; t < threads && all; ++t)
      all = (*l)(t + lt * s) == tc.staticCoord(t, slot)[0];
    if (all)
      return s;
  }
  return std::nullopt;
}

SmallVector<Value> mlir::argus::memIndices(OpBuilder &b, Location loc,
                                           Value &mem, TileType t,
                                           ValueRange coord,
                                           std::optional<int64_t> rowSlot) {
  if (t.getMemorySpace() == MemorySpace::Global) {
    if (auto g = gatherOf(mem)) {
      mem = g.getInputs()[0];
      Value id =
          rowSlot ? vector::ExtractOp::create(b, loc, g.getInputs()[1],
                                              ArrayRef<int64_t>{*rowSlot})
                        .getResult()
                  : vector::ExtractOp::create(b, loc, g.getInputs()[1],
                                              ArrayRef<OpFoldResult>{coord[0]})
                        .getResult();
      Value row = arith::IndexCastOp::create(b, loc, b.getIndexType(), id);
      Value col = arith::AddIOp::create(b, loc, g.getInputs()[2], coord[1]);
      return {row, col};
    }
    return SmallVector<Value>(coord.begin(), coord.end());
  }
  return {emitMemOffset(b, loc, memLayout(t), t.getShape(), coord)};
}

/// Whether each of the n elements of the run at `coord` (consecutive along
/// the last dimension) lies inside a clipped window: (all of them, each).
static std::pair<Value, SmallVector<Value>>
insideClip(OpBuilder &b, Location loc, UnrealizedConversionCastOp clip,
           ValueRange coord, int64_t n) {
  auto lt = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y)
        .getResult();
  };
  size_t r = coord.size();
  ValueRange ext = clip.getInputs().drop_front();
  Value rows = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (size_t k = 0; k + 1 < r; ++k)
    rows = arith::AndIOp::create(b, loc, rows, lt(coord[k], ext[k]));
  SmallVector<Value> each;
  for (int64_t j = 0; j < n; ++j) {
    Value c = j ? arith::AddIOp::create(b, loc, coord[r - 1], cidx(b, loc, j))
                      .getResult()
                : coord[r - 1];
    each.push_back(arith::AndIOp::create(b, loc, rows, lt(c, ext[r - 1])));
  }
  return {each.back(), each};
}

/// The coordinate of element j of the run at `coord`.
static SmallVector<Value> runElement(OpBuilder &b, Location loc,
                                     ValueRange coord, int64_t j) {
  SmallVector<Value> c(coord.begin(), coord.end());
  if (j)
    c.back() = arith::AddIOp::create(b, loc, c.back(), cidx(b, loc, j));
  return c;
}

Value mlir::argus::loadElems(OpBuilder &b, Location loc, Value mem, TileType t,
                             ValueRange coord, int64_t n, TypedAttr fill,
                             std::optional<int64_t> rowSlot) {
  Type elem = t.getElementType();
  auto clip = clipOf(mem);
  if (!clip) {
    SmallVector<Value> idx = memIndices(b, loc, mem, t, coord, rowSlot);
    return loadRun(b, loc, mem, idx, elem, n);
  }
  // Element j of the run, or the fill (zero by default) outside.
  Value window = clip.getInputs()[0];
  auto [all, each] = insideClip(b, loc, clip, coord, n);
  Value zero = arith::ConstantOp::create(
      b, loc, fill ? fill : cast<TypedAttr>(b.getZeroAttr(elem)));
  auto element = [&](int64_t j) {
    auto one = scf::IfOp::create(b, loc, TypeRange{elem}, each[j], true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&one.getThenRegion().front());
    scf::YieldOp::create(
        b, loc,
        memref::LoadOp::create(b, loc, window, runElement(b, loc, coord, j))
            .getResult());
    b.setInsertionPointToStart(&one.getElseRegion().front());
    scf::YieldOp::create(b, loc, zero);
    return one.getResult(0);
  };
  if (n == 1)
    return element(0);
  // The whole run inside: one access; else element by element.
  auto vt = VectorType::get({n}, elem);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{vt}, all, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(b, loc, loadRun(b, loc, window, coord, elem, n));
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  Value acc = vector::BroadcastOp::create(b, loc, vt, zero);
  for (int64_t j = 0; j < n; ++j)
    acc =
        vector::InsertOp::create(b, loc, element(j), acc, ArrayRef<int64_t>{j});
  scf::YieldOp::create(b, loc, acc);
  return ifOp.getResult(0);
}

void mlir::argus::storeElems(OpBuilder &b, Location loc, Value val, Value mem,
                             TileType t, ValueRange coord, int64_t n,
                             std::optional<int64_t> rowSlot) {
  Type elem = t.getElementType();
  auto clip = clipOf(mem);
  if (!clip) {
    SmallVector<Value> idx = memIndices(b, loc, mem, t, coord, rowSlot);
    storeRun(b, loc, val, mem, idx, elem, n);
    return;
  }
  // The whole run inside: one access; else only the elements inside.
  Value window = clip.getInputs()[0];
  auto [all, each] = insideClip(b, loc, clip, coord, n);
  OpBuilder::InsertionGuard g(b);
  if (n > 1) {
    auto ifOp = scf::IfOp::create(b, loc, all, /*withElse=*/true);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    storeRun(b, loc, val, window, coord, elem, n);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  }
  for (int64_t j = 0; j < n; ++j) {
    auto one = scf::IfOp::create(b, loc, each[j], /*withElse=*/false);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&one.getThenRegion().front());
    Value x = n == 1
                  ? val
                  : vector::ExtractOp::create(b, loc, val, ArrayRef<int64_t>{j})
                        .getResult();
    memref::StoreOp::create(b, loc, x, window, runElement(b, loc, coord, j));
  }
}

void mlir::argus::atomicElem(OpBuilder &b, Location loc, AtomicKind kind,
                             Value val, Value mem, TileType t,
                             ValueRange coord) {
  bool fp = isa<FloatType>(val.getType());
  arith::AtomicRMWKind k =
      kind == AtomicKind::Add
          ? (fp ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi)
      : kind == AtomicKind::Max ? arith::AtomicRMWKind::maxs
                                : arith::AtomicRMWKind::mins;
  OpBuilder::InsertionGuard g(b);
  if (auto clip = clipOf(mem)) {
    mem = clip.getInputs()[0];
    auto [all, each] = insideClip(b, loc, clip, coord, 1);
    auto ifOp = scf::IfOp::create(b, loc, all, /*withElse=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }
  SmallVector<Value> idx = memIndices(b, loc, mem, t, coord);
  memref::AtomicRMWOp::create(b, loc, k, val, mem, idx);
}

int64_t mlir::argus::contiguousWidth(
    const ThreadCoords &tc, int64_t threads, Type elem,
    ArrayRef<function_ref<int64_t(ArrayRef<int64_t>)>> offsets) {
  int64_t maxN = std::max<int64_t>(1, 16 / elemBytes(elem));
  for (int64_t n = maxN; n > 1; n /= 2) {
    if (tc.numSlots() % n != 0)
      continue;
    bool ok = true;
    for (int64_t t = 0; t < threads && ok; ++t)
      for (int64_t v0 = 0; v0 < tc.numSlots() && ok; v0 += n) {
        SmallVector<int64_t> c0 = tc.staticCoord(t, v0);
        for (auto offset : offsets) {
          int64_t base = offset(c0);
          if (base % n != 0) {
            ok = false;
            break;
          }
          for (int64_t k = 1; k < n && ok; ++k)
            if (offset(tc.staticCoord(t, v0 + k)) != base + k)
              ok = false;
        }
      }
    if (ok)
      return n;
  }
  return 1;
}

/// Compile-time offset of a memory tile element for the contiguity analysis:
/// global tiles are row-major with a large (unknown) row pitch.
static int64_t analysisOffset(TileType t, ArrayRef<int64_t> coord) {
  if (t.getMemorySpace() == MemorySpace::Global) {
    int64_t off = 0;
    for (size_t k = 0; k < coord.size(); ++k)
      off = off * (int64_t(1) << 24) + coord[k];
    return off;
  }
  return staticMemOffset(memLayout(t), t.getShape(), coord);
}

int64_t mlir::argus::vectorWidth(const ThreadCoords &tc, int64_t threads,
                                 ArrayRef<TileType> mems, Type elem) {
  SmallVector<std::function<int64_t(ArrayRef<int64_t>)>> fns;
  for (TileType m : mems)
    fns.push_back([m](ArrayRef<int64_t> c) { return analysisOffset(m, c); });
  SmallVector<function_ref<int64_t(ArrayRef<int64_t>)>> refs(fns.begin(),
                                                             fns.end());
  return contiguousWidth(tc, threads, elem, refs);
}
