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

UnrealizedConversionCastOp mlir::argus::im2colOf(Value mem) {
  auto c = mem.getDefiningOp<UnrealizedConversionCastOp>();
  if (c && c->hasAttr(kIm2colAttr) && c.getInputs().size() == 3)
    return c;
  return {};
}

UnrealizedConversionCastOp mlir::argus::transposeOf(Value mem) {
  auto c = mem.getDefiningOp<UnrealizedConversionCastOp>();
  if (c && c->hasAttr(kTransposeAttr) && c.getInputs().size() == 1)
    return c;
  return {};
}

std::pair<Value, TileType> mlir::argus::transposedGlobal(Value tile) {
  while (auto tag = tile.getDefiningOp<TagOp>())
    tile = tag.getInput();
  auto tr = tile.getDefiningOp<TransposeOp>();
  if (!tr || tr.getType().getMemorySpace() != MemorySpace::Global)
    return {};
  return {tr.getInput(), tr.getInput().getType()};
}

LogicalResult mlir::argus::eraseAccessMarkers(ModuleOp top) {
  SmallVector<UnrealizedConversionCastOp> markers;
  top.walk([&](UnrealizedConversionCastOp c) {
    if (c->hasAttr(kGatherAttr) || c->hasAttr(kClipAttr) ||
        c->hasAttr(kIm2colAttr) || c->hasAttr(kTransposeAttr))
      markers.push_back(c);
  });
  // Users before what they use: a transpose marker reads a clip marker.
  for (UnrealizedConversionCastOp c : llvm::reverse(markers)) {
    if (!c->use_empty() && c->hasAttr(kTransposeAttr))
      return c.emitError() << "a transposed global view is used by an op "
                              "that cannot read it (load and store only)";
    if (!c->use_empty())
      return c.emitError()
             << (c->hasAttr(kGatherAttr)   ? "a gathered"
                 : c->hasAttr(kIm2colAttr) ? "an im2col"
                                           : "a clipped")
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

namespace {
/// Where element (p, k) of an im2col matrix lies in its channels-last
/// tensor: the tensor's indices and whether it exists there (not in the
/// padding, not past the matrix).
struct Im2colElement {
  SmallVector<Value> idx;
  Value inside;
};

class Im2colAddressing {
public:
  Im2colAddressing(OpBuilder &b, Location loc, UnrealizedConversionCastOp m)
      : tensor(m.getInputs()[0]), b(b), loc(loc), row(m.getInputs()[1]),
        col(m.getInputs()[2]) {
    ArrayRef<int64_t> g =
        cast<DenseI64ArrayAttr>(m->getAttr(kIm2colGeometry)).asArrayRef();
    d = g.size() / 4;
    window = g.take_front(d);
    stride = g.slice(d, d);
    pad = g.slice(2 * d, d);
    dilation = g.slice(3 * d, d);
    for (size_t i = 0; i < d + 2; ++i)
      dims.push_back(
          memref::DimOp::create(b, loc, tensor, static_cast<int64_t>(i)));
    for (size_t i = 0; i < d; ++i) {
      // O = (D + 2q - l(R - 1) - 1) / s + 1, zero when the window does not
      // fit: then no row exists (p < N * O fails).
      Value padded = add(dims[i + 1], 2 * pad[i]);
      Value span = cidx(b, loc, dilation[i] * (window[i] - 1) + 1);
      Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                         padded, span);
      Value o = add(arith::DivUIOp::create(
                        b, loc, arith::SubIOp::create(b, loc, padded, span),
                        cidx(b, loc, stride[i])),
                    1);
      outSize.push_back(
          arith::SelectOp::create(b, loc, fits, o, cidx(b, loc, 0)));
    }
  }

  Value channels() const { return dims[d + 1]; }

  /// The output position of row coordinate `i` of the tile: the batch
  /// index (unchecked) and the spatial positions.
  std::pair<Value, SmallVector<Value>> position(Value i) {
    Value p = arith::AddIOp::create(b, loc, row, i);
    SmallVector<Value> o(d);
    for (size_t k = d; k-- > 0;) {
      o[k] = arith::RemUIOp::create(b, loc, p, outSize[k]);
      p = arith::DivUIOp::create(b, loc, p, outSize[k]);
    }
    return {p, o};
  }

  /// The element at output position (n, o) and column coordinate `j`.
  Im2colElement element(Value n, ArrayRef<Value> o, Value j) {
    Value k = arith::AddIOp::create(b, loc, col, j);
    Value c = arith::RemUIOp::create(b, loc, k, channels());
    k = arith::DivUIOp::create(b, loc, k, channels());
    SmallVector<Value> tap(d);
    for (size_t i = d; i-- > 0;) {
      if (i == 0) {
        tap[i] = k;
        break;
      }
      tap[i] = arith::RemUIOp::create(b, loc, k, cidx(b, loc, window[i]));
      k = arith::DivUIOp::create(b, loc, k, cidx(b, loc, window[i]));
    }
    Im2colElement e;
    e.inside = ult(n, dims[0]);
    e.inside = arith::AndIOp::create(b, loc, e.inside,
                                     ult(tap[0], cidx(b, loc, window[0])));
    e.idx.push_back(n);
    for (size_t i = 0; i < d; ++i) {
      // o s + r l - q, inside when in [0, D): one unsigned compare, since
      // a negative value wraps past D.
      Value x = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, o[i], cidx(b, loc, stride[i])),
          arith::MulIOp::create(b, loc, tap[i], cidx(b, loc, dilation[i])));
      x = arith::SubIOp::create(b, loc, x, cidx(b, loc, pad[i]));
      e.inside = arith::AndIOp::create(b, loc, e.inside, ult(x, dims[i + 1]));
      e.idx.push_back(x);
    }
    e.idx.push_back(c);
    return e;
  }

  Value tensor;

private:
  Value add(Value x, int64_t c) {
    return c ? arith::AddIOp::create(b, loc, x, cidx(b, loc, c)).getResult()
             : x;
  }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }

  OpBuilder &b;
  Location loc;
  Value row, col;
  size_t d = 0;
  ArrayRef<int64_t> window, stride, pad, dilation;
  SmallVector<Value> dims, outSize;
};
} // namespace

/// Whether the n-element run from channel `c` stays in one window tap of
/// one input element at a multiple of n (C and c multiples of n): then its
/// elements are all inside or all in the padding.
static Value im2colRunAligned(OpBuilder &b, Location loc,
                              const Im2colAddressing &a, Value c, int64_t n) {
  Value mask = cidx(b, loc, n - 1);
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(
          b, loc, arith::OrIOp::create(b, loc, c, a.channels()), mask),
      cidx(b, loc, 0));
}

/// n elements of an im2col view from `coord`: one vector access when the
/// run stays in one window tap of one input element, aligned and inside;
/// else element by element.
static Value loadIm2col(OpBuilder &b, Location loc,
                        UnrealizedConversionCastOp marker, ValueRange coord,
                        int64_t n, Type elem, TypedAttr fill) {
  Im2colAddressing a(b, loc, marker);
  auto [batch, pos] = a.position(coord[0]);
  Value zero = arith::ConstantOp::create(
      b, loc, fill ? fill : cast<TypedAttr>(b.getZeroAttr(elem)));
  auto element = [&](const Im2colElement &e) {
    auto one = scf::IfOp::create(b, loc, TypeRange{elem}, e.inside, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&one.getThenRegion().front());
    scf::YieldOp::create(
        b, loc, memref::LoadOp::create(b, loc, a.tensor, e.idx).getResult());
    b.setInsertionPointToStart(&one.getElseRegion().front());
    scf::YieldOp::create(b, loc, zero);
    return one.getResult(0);
  };
  Im2colElement first = a.element(batch, pos, coord[1]);
  if (n == 1)
    return element(first);
  // One access: the channels c .. c + n - 1 of one input element, at an
  // offset that is a multiple of n (C and c multiples of n).
  Value aligned = im2colRunAligned(b, loc, a, first.idx.back(), n);
  Value whole = arith::AndIOp::create(b, loc, first.inside, aligned);
  auto vt = VectorType::get({n}, elem);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{vt}, whole, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(b, loc, loadRun(b, loc, a.tensor, first.idx, elem, n));
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  Value acc = vector::BroadcastOp::create(b, loc, vt, zero);
  for (int64_t j = 0; j < n; ++j) {
    Im2colElement e =
        j ? a.element(batch, pos,
                      arith::AddIOp::create(b, loc, coord[1], cidx(b, loc, j)))
          : first;
    acc =
        vector::InsertOp::create(b, loc, element(e), acc, ArrayRef<int64_t>{j});
  }
  scf::YieldOp::create(b, loc, acc);
  return ifOp.getResult(0);
}

std::optional<BoundedRun> mlir::argus::boundedRun(OpBuilder &b, Location loc,
                                                  Value mem, ValueRange coord,
                                                  int64_t n) {
  if (auto im2col = im2colOf(mem)) {
    Im2colAddressing a(b, loc, im2col);
    auto [batch, pos] = a.position(coord[0]);
    Im2colElement first = a.element(batch, pos, coord[1]);
    BoundedRun r{a.tensor, first.idx, Value(), Value()};
    if (n > 1)
      r.exact = im2colRunAligned(b, loc, a, first.idx.back(), n);
    r.count = arith::SelectOp::create(b, loc, first.inside, cidx(b, loc, n),
                                      cidx(b, loc, 0));
    return r;
  }
  auto clip = clipOf(mem);
  if (!clip || gatherOf(clip.getInputs()[0]))
    return std::nullopt;
  // Rows inside, and the columns c .. min(c + n, extent) - 1 of the last
  // dimension: a prefix of the run.
  size_t r = coord.size();
  ValueRange ext = clip.getInputs().drop_front();
  Value rows = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (size_t k = 0; k + 1 < r; ++k)
    rows = arith::AndIOp::create(
        b, loc, rows,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, coord[k],
                              ext[k]));
  Value last = coord[r - 1];
  Value left = arith::SelectOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, last,
                            ext[r - 1]),
      arith::SubIOp::create(b, loc, ext[r - 1], last), cidx(b, loc, 0));
  Value count = arith::MinUIOp::create(b, loc, left, cidx(b, loc, n));
  count = arith::SelectOp::create(b, loc, rows, count, cidx(b, loc, 0));
  return BoundedRun{clip.getInputs()[0],
                    SmallVector<Value>(coord.begin(), coord.end()), count,
                    Value()};
}

Value mlir::argus::loadElems(OpBuilder &b, Location loc, Value mem, TileType t,
                             ValueRange coord, int64_t n, TypedAttr fill,
                             std::optional<int64_t> rowSlot) {
  Type elem = t.getElementType();
  if (auto im2col = im2colOf(mem))
    return loadIm2col(b, loc, im2col, coord, n, elem, fill);
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

int64_t mlir::argus::transposedVectorWidth(const ThreadCoords &tc,
                                           int64_t threads, TileType input,
                                           Type elem) {
  auto fn = [input](ArrayRef<int64_t> c) {
    return analysisOffset(input, {c[1], c[0]});
  };
  function_ref<int64_t(ArrayRef<int64_t>)> ref(fn);
  return contiguousWidth(tc, threads, elem, {ref});
}
