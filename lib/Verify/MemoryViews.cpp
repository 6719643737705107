//===- MemoryViews.cpp - memory tiles and write footprints ----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "ConcreteIndex.h"
#include "KernelVerifier.h"
#include "OpNames.h"

#include "argus/Dialect/TagFields.h"

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::verify::detail {

MemView KernelVerifier::resolve(Value tile, const Inst &in) {
  Operation *def = tile.getDefiningOp();
  if (!def)
    unsupported("memory tile is a block argument");
  auto ty = cast<TileType>(tile.getType());
  std::vector<int64_t> shape(ty.getShape().begin(), ty.getShape().end());
  auto identity = [&] {
    std::vector<unsigned> p;
    for (unsigned k = 0; k < shape.size(); ++k)
      p.push_back(k);
    return p;
  };
  if (auto v = dyn_cast<ViewOp>(def)) {
    MemView mv;
    mv.root = v.getTensor();
    mv.name = v.getName().str();
    for (Value o : v.getOffsets())
      mv.offsets.push_back(evalIndex(o, in));
    mv.perm = identity();
    mv.shape = shape;
    mv.layout = memoryLayout(ty);
    return mv;
  }
  if (auto g = dyn_cast<GatherViewOp>(def)) {
    MemView mv;
    mv.gather = true;
    mv.root = g.getTensor();
    mv.name = g.getName().str();
    mv.perm = identity();
    mv.shape = shape;
    mv.layout = memoryLayout(ty);
    return mv;
  }
  if (auto v = dyn_cast<Im2colViewOp>(def)) {
    // A 2-D view of the (virtual) im2col matrix: its coordinates are the
    // matrix's, which is all tags and reductions see (the matrix's element
    // is the input element or a zero of the padding).
    MemView mv;
    mv.im2col = true;
    mv.root = v.getTensor();
    mv.name = v.getName().str();
    mv.offsets = {evalIndex(v.getRow(), in), evalIndex(v.getCol(), in)};
    mv.perm = identity();
    mv.shape = shape;
    mv.layout = memoryLayout(ty);
    return mv;
  }
  if (auto s = dyn_cast<StageOp>(def)) {
    auto alloc = s.getBuffer().getDefiningOp<AllocOp>();
    if (!alloc)
      unsupported("stage of a buffer that is not an argus.alloc");
    auto bt = cast<BufferType>(s.getBuffer().getType());
    MemView mv;
    mv.shared = true;
    mv.root = s.getBuffer();
    mv.name = alloc.getName().str();
    mv.stages = bt.getStages();
    mv.cosz = memoryLayout(bt.getTile()).cosize();
    mv.stage = evalIndex(s.getIndex(), in);
    mv.base = *mv.stage * bv(mv.cosz);
    mv.layout = memoryLayout(ty);
    mv.shape = shape;
    mv.perm = identity();
    return mv;
  }
  if (auto t = dyn_cast<TagOp>(def)) {
    MemView mv = resolve(t.getInput(), in);
    mv.direct.push_back({t, identity()});
    return mv;
  }
  if (auto t = dyn_cast<TransposeOp>(def)) {
    MemView mv = resolve(t.getInput(), in);
    if (shape.size() != 2)
      unsupported("transpose of a non-2-D tile");
    for (auto &k : mv.perm)
      k = 1 - k;
    for (auto &d : mv.direct)
      for (auto &k : d.perm)
        k = 1 - k;
    mv.layout = memoryLayout(ty);
    mv.shape = shape;
    return mv;
  }
  if (auto r = dyn_cast<ReinterpretOp>(def)) {
    MemView mv = resolve(r.getInput(), in);
    mv.layout = memoryLayout(ty);
    mv.shape = shape;
    return mv;
  }
  unsupported("memory tile defined by " + opDesc(def) + " is not modelled");
}

std::string KernelVerifier::checkFullStage(Operation *w) {
  auto it = fullStage.find(w);
  if (it != fullStage.end())
    return it->second;
  std::string why;
  Value dest = writeDest(w);
  auto dty = cast<TileType>(dest.getType());
  std::vector<int64_t> shape(dty.getShape().begin(), dty.getShape().end());
  int64_t n = product(shape);
  L::Layout tv = *accessLayout(w);
  if (tv.rank() != 2)
    why = "the thread layout does not have two modes";
  else if (tv.mode(0).size() > threads)
    why = "the thread layout uses " + std::to_string(tv.mode(0).size()) +
          " threads but the block has " + std::to_string(threads);
  // Every coordinate is written by some (thread, slot).
  std::vector<char> hit(n, 0);
  for (int64_t i = 0; i < tv.size() && why.empty(); ++i) {
    int64_t c = tv(i);
    if (c < 0 || c >= n)
      why = "thread layout reaches coordinate " + std::to_string(c) +
            " outside the tile";
    else
      hit[c] = 1;
  }
  for (int64_t c = 0; c < n && why.empty(); ++c)
    if (!hit[c])
      why = "no thread writes linear coordinate " + std::to_string(c);
  // The destination layout is a bijection onto one whole stage.
  if (why.empty()) {
    Value root = getMemoryRoot(dest);
    auto bt = dyn_cast<BufferType>(root.getType());
    if (!bt)
      why = "destination is not a buffer stage";
    else {
      L::SwizzledLayout l = memoryLayout(dty);
      int64_t cosz = memoryLayout(bt.getTile()).cosize();
      if (cosz != n)
        why = "the buffer's stage (" + std::to_string(cosz) +
              " offsets) is not exactly the tile";
      std::vector<char> seen(n, 0);
      for (int64_t c = 0; c < n && why.empty(); ++c) {
        int64_t o = l(c);
        if (o < 0 || o >= n || seen[o])
          why = "destination layout " + l.str() +
                " is not a bijection onto the stage";
        else
          seen[o] = 1;
      }
    }
  }
  fullStage[w] = why;
  return why;
}

} // namespace argus::verify::detail
