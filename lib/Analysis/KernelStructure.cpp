//===- KernelStructure.cpp - the shape of an argus kernel -----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Analysis/KernelStructure.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::argus;

static unsigned getLoopDepth(Operation *op) {
  unsigned depth = 0;
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      ++depth;
  return depth;
}

KernelStructure::KernelStructure(FunctionOpInterface fn) : fn(fn) {
  kernel = fn->getAttrOfType<KernelAttr>(ArgusDialect::getKernelAttrName());
  // Regions nest by program order within a block (the op verifiers guarantee
  // balanced markers); an open-region stack per walk is enough.
  std::vector<Region *> open;
  llvm::StringSet<> seenTensors;
  fn->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto begin = dyn_cast<RegionBeginOp>(op)) {
      auto region =
          std::make_unique<Region>(Region{begin.getName().str(),
                                          static_cast<int64_t>(begin.getId()),
                                          begin.getLoc(),
                                          getLoopDepth(op),
                                          {}});
      Region *raw = region.get();
      (open.empty() ? regions : open.back()->children)
          .push_back(std::move(region));
      open.push_back(raw);
    } else if (auto end = dyn_cast<RegionEndOp>(op)) {
      if (!open.empty() && open.back()->id == static_cast<int64_t>(end.getId()))
        open.pop_back();
    } else if (auto alloc = dyn_cast<AllocOp>(op)) {
      buffers.push_back({alloc.getName().str(), alloc.getResult().getType()});
    } else if (auto view = dyn_cast<ViewOp>(op)) {
      if (seenTensors.insert(view.getName()).second)
        tensors.push_back(view.getName().str());
    } else if (auto gather = dyn_cast<GatherViewOp>(op)) {
      if (seenTensors.insert(gather.getName()).second)
        tensors.push_back(gather.getName().str() + " (gathered)");
    } else if (auto im2col = dyn_cast<Im2colViewOp>(op)) {
      if (seenTensors.insert(im2col.getName()).second)
        tensors.push_back(im2col.getName().str() + " (im2col)");
    } else if (auto mma = dyn_cast<MmaOp>(op)) {
      mmas.push_back({mma.getInstr().str(), mma.getLoc(), getLoopDepth(op)});
    } else if (auto assertion = dyn_cast<TagAssertOp>(op)) {
      Operation *site = assertion.getSite();
      assertions.push_back(
          {assertion.getPredicate().str(),
           site ? site->getName().getStringRef().str() : "<none>",
           site ? site->getLoc() : assertion.getLoc()});
    }
  });
}

static void printLoc(llvm::raw_ostream &os, Location loc) {
  // The DSL names ops' results: loc("acc"("file":line:col)).
  if (auto named = dyn_cast<NameLoc>(loc))
    loc = named.getChildLoc();
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << llvm::sys::path::filename(file.getFilename().getValue()) << ":"
       << file.getLine();
    return;
  }
  os << loc;
}

static void printRegion(llvm::raw_ostream &os,
                        const KernelStructure::Region &region,
                        unsigned indent) {
  os.indent(indent) << "[" << region.id << "] " << region.name;
  if (region.loopDepth)
    os << " (loop depth " << region.loopDepth << ")";
  os << "  at ";
  printLoc(os, region.loc);
  os << "\n";
  for (const auto &child : region.children)
    printRegion(os, *child, indent + 2);
}

void KernelStructure::print(llvm::raw_ostream &os) const {
  os << "kernel @" << SymbolTable::getSymbolName(fn).getValue();
  if (kernel) {
    os << "  target " << kernel.getTarget() << "  block [";
    llvm::interleaveComma(kernel.getBlock(), os);
    os << "] = " << kernel.getNumThreads() / kernel.getWarpSize()
       << " warps of " << kernel.getWarpSize();
  } else {
    os << "  (no argus.kernel attribute)";
  }
  os << "\n";

  os << "  tensors: ";
  if (tensors.empty())
    os << "none";
  llvm::interleaveComma(tensors, os);
  os << "\n";

  os << "  shared buffers:" << (buffers.empty() ? " none" : "") << "\n";
  for (const Buffer &b : buffers) {
    TileType tile = b.type.getTile();
    int64_t bytes = b.type.getStages() * tile.getNumElements() *
                    tile.getElementType().getIntOrFloatBitWidth() / 8;
    os << "    " << b.name << ": " << b.type.getStages() << " x ";
    llvm::interleave(tile.getShape(), os, "x");
    os << "x" << tile.getElementType();
    if (auto layout = dyn_cast_or_null<LayoutAttr>(tile.getLayout()))
      os << " \"" << layout.getText() << "\"";
    os << " (" << bytes << " bytes)\n";
  }

  os << "  regions:" << (regions.empty() ? " none" : "") << "\n";
  for (const auto &region : regions)
    printRegion(os, *region, 4);

  os << "  matrix-core ops:" << (mmas.empty() ? " none" : "") << "\n";
  for (const Mma &m : mmas) {
    os << "    " << m.instr;
    if (m.loopDepth)
      os << " (loop depth " << m.loopDepth << ")";
    os << "  at ";
    printLoc(os, m.loc);
    os << "\n";
  }

  os << "  tag assertions:" << (assertions.empty() ? " none" : "") << "\n";
  for (const Assertion &a : assertions) {
    os << "    at " << a.siteOp << " (";
    printLoc(os, a.loc);
    os << "): " << a.predicate << "\n";
  }
}
