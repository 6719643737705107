//===- MeasurementSites.cpp - regions and sites a measurement can target --===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Analysis/MeasurementSites.h"

#include "argus/Dialect/ArgusDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

/// The innermost loop around `op` (below its function), or null.
Operation *enclosingLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p && !isa<FunctionOpInterface>(p);
       p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      return p;
  return nullptr;
}

RoleOp enclosingRole(Operation *op) { return op->getParentOfType<RoleOp>(); }

/// Walks the module's blocks in program order, tracking the regions open
/// at each op.
struct RegionWalker {
  std::vector<MeasuredRegion> &regions;
  std::vector<Operation *> &order;
  llvm::DenseMap<Operation *, size_t> &position;
  llvm::DenseMap<Operation *, llvm::SmallVector<unsigned, 2>> &within;
  llvm::StringMap<unsigned> byName;

  LogicalResult visitBlock(Block &block, llvm::SmallVector<unsigned, 2> open) {
    size_t depthAtEntry = open.size();
    for (Operation &op : block) {
      position[&op] = order.size();
      order.push_back(&op);
      if (auto begin = dyn_cast<RegionBeginOp>(op)) {
        auto [it, fresh] =
            byName.try_emplace(begin.getName(), (unsigned)regions.size());
        if (fresh) {
          MeasuredRegion r;
          r.name = begin.getName().str();
          r.id = begin.getId();
          r.inLoop = enclosingLoop(&op) != nullptr;
          if (!open.empty())
            r.parent = regions[open.back()].name;
          if (RoleOp role = enclosingRole(&op)) {
            r.role = role.getName().str();
            r.roleWarps = {role.getFirstWarp(), role.getEndWarp()};
          }
          r.begin = &op;
          regions.push_back(r);
        } else if (regions[it->second].id != (int64_t)begin.getId()) {
          return begin.emitError()
                 << "region '" << begin.getName() << "' has two IDs ("
                 << regions[it->second].id << " and " << begin.getId()
                 << "): a measurement names regions, so one name needs one ID";
        }
        open.push_back(it->second);
        within[&op] = open;
        continue;
      }
      if (auto end = dyn_cast<RegionEndOp>(op)) {
        if (open.size() == depthAtEntry ||
            regions[open.back()].id != (int64_t)end.getId())
          return end.emitError()
                 << "region.end id " << end.getId()
                 << " does not close the innermost region open in its block";
        within[&op] = open;
        regions[open.back()].end = &op;
        open.pop_back();
        continue;
      }
      within[&op] = open;
      for (Region &r : op.getRegions())
        for (Block &b : r)
          if (failed(visitBlock(b, open)))
            return failure();
    }
    if (open.size() != depthAtEntry)
      return regions[open.back()].begin->emitError()
             << "region '" << regions[open.back()].name
             << "' is never closed in its block";
    return success();
  }
};

/// The file location the LLVM debug-info translation gives `loc` (the first
/// file location in its tree: a name's child, an inlined call's callee, a
/// fused location's first), or null.
FileLineColLoc fileLocation(Location loc) {
  FileLineColLoc found;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      found = f;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

llvm::json::Value locationJSON(Operation *op) {
  llvm::json::Object o;
  o["op"] = op->getName().getStringRef().str();
  FileLineColLoc f = fileLocation(op->getLoc());
  o["file"] = f ? f.getFilename().str() : "";
  o["line"] = f ? (int64_t)f.getLine() : 0;
  o["col"] = f ? (int64_t)f.getColumn() : 0;
  return o;
}

} // namespace

FailureOr<MeasurementSites> MeasurementSites::compute(ModuleOp module) {
  MeasurementSites s;
  RegionWalker b{s.regionList, s.order, s.position, s.within, {}};
  for (Region &r : module->getRegions())
    for (Block &block : r)
      if (failed(b.visitBlock(block, {})))
        return failure();
  module.walk([&](AllocOp a) {
    s.depth = std::max(s.depth,
                       cast<BufferType>(a.getResult().getType()).getStages());
  });
  return s;
}

const MeasuredRegion *MeasurementSites::region(llvm::StringRef name) const {
  for (const MeasuredRegion &r : regionList)
    if (r.name == name)
      return &r;
  return nullptr;
}

bool MeasurementSites::inRegion(Operation *op, unsigned region) const {
  auto it = within.find(op);
  return it != within.end() && llvm::is_contained(it->second, region);
}

Operation *MeasurementSites::nextWait(
    Operation *after, llvm::function_ref<bool(Operation *)> matches) const {
  // The rest of the innermost loop's body, then its body from the start
  // (the next iteration), then what follows the loop; within one function.
  Operation *fn = after->getParentOfType<FunctionOpInterface>();
  Operation *loop = enclosingLoop(after);
  size_t at = position.lookup(after);
  auto candidate = [&](size_t i) {
    Operation *op = order[i];
    return matches(op) && op->getParentOfType<FunctionOpInterface>() == fn;
  };
  if (!loop) {
    for (size_t i = at + 1; i < order.size(); ++i)
      if (candidate(i))
        return order[i];
    return nullptr;
  }
  size_t first = position.lookup(loop), last = first;
  while (last + 1 < order.size() && loop->isAncestor(order[last + 1]))
    ++last;
  for (size_t i = at + 1; i <= last; ++i)
    if (candidate(i))
      return order[i];
  for (size_t i = first + 1; i < at; ++i)
    if (candidate(i))
      return order[i];
  for (size_t i = last + 1; i < order.size(); ++i)
    if (candidate(i))
      return order[i];
  return nullptr;
}

std::optional<int64_t> MeasurementSites::distance(Operation *issueEnd,
                                                  Operation *completion) const {
  if (!completion)
    return std::nullopt;
  if (completion == issueEnd)
    return 0;
  Operation *loop = enclosingLoop(issueEnd);
  Operation *waitLoop = enclosingLoop(completion);
  if (isa<MBarrierWaitOp>(completion))
    // A phase wait completes the copy of its own iteration: in the same loop
    // after the issue, or in another role's loop walking the same slabs.
    return (loop == waitLoop &&
            position.lookup(completion) < position.lookup(issueEnd))
               ? std::nullopt
               : std::optional<int64_t>(0);
  if (!loop || loop != waitLoop)
    return std::nullopt;
  int64_t pending = 0;
  if (auto w = dyn_cast<WaitGroupOp>(completion))
    pending = w.getPending();
  else if (auto w = dyn_cast<WgmmaWaitOp>(completion))
    pending = w.getPending();
  bool after = position.lookup(completion) > position.lookup(issueEnd);
  return pending + (after ? 0 : 1);
}

std::vector<MeasurementSite> MeasurementSites::collectSites(
    llvm::StringRef name,
    llvm::function_ref<void(Operation *, const SiteAdder &)> visit) const {
  std::vector<MeasurementSite> out;
  const MeasuredRegion *r = region(name);
  if (!r)
    return out;
  unsigned idx = r - regionList.data();
  llvm::StringMap<unsigned> counters;
  SiteAdder add = [&](llvm::StringRef kind, Operation *op, Operation *issueEnd,
                      Operation *completion) {
    MeasurementSite s;
    s.kind = kind.str();
    s.region = name.str();
    s.site = s.kind + "@" + s.region + "#" + std::to_string(counters[kind]++);
    s.op = op;
    s.issueEnd = issueEnd;
    s.completion = completion;
    s.distance = distance(issueEnd, completion);
    s.inLoop = r->inLoop || enclosingLoop(op);
    out.push_back(s);
  };
  for (Operation *op : order)
    if (inRegion(op, idx))
      visit(op, add);
  return out;
}

std::vector<MeasurementSite>
MeasurementSites::asyncSites(llvm::StringRef name) const {
  // A group runs from its first issue to its commit; both kinds may be
  // open at once.
  Operation *copies = nullptr, *wgmmas = nullptr;
  return collectSites(name, [&](Operation *op, const SiteAdder &add) {
    if (isa<CopyAsyncOp>(op) && !copies)
      copies = op;
    else if (isa<MmaAsyncOp>(op) && !wgmmas)
      wgmmas = op;
    else if (isa<CommitGroupOp>(op) && copies) {
      add("cp.async-group", copies, op,
          nextWait(op, [](Operation *w) { return isa<WaitGroupOp>(w); }));
      copies = nullptr;
    } else if (isa<WgmmaCommitOp>(op) && wgmmas) {
      add("wgmma-group", wgmmas, op,
          nextWait(op, [](Operation *w) { return isa<WgmmaWaitOp>(w); }));
      wgmmas = nullptr;
    } else if (auto tma = dyn_cast<TmaLoadOp>(op)) {
      Value ring = tma.getBarrier();
      add("tma", op, op, nextWait(op, [&](Operation *w) {
            auto wait = dyn_cast<MBarrierWaitOp>(w);
            return wait && wait.getBarrier() == ring;
          }));
    }
  });
}

std::vector<MeasurementSite>
MeasurementSites::syncSites(llvm::StringRef name) const {
  // Each barrier or wait completes itself.
  return collectSites(name, [](Operation *op, const SiteAdder &add) {
    if (isa<BarrierOp, WaitGroupOp, WgmmaWaitOp, MBarrierWaitOp>(op))
      add(op->getName().getStringRef().drop_front(strlen("argus.")), op, op,
          op);
  });
}

llvm::json::Value MeasurementSites::toJSON() const {
  auto siteJSON = [](const MeasurementSite &s) {
    llvm::json::Object o;
    o["site"] = s.site;
    o["kind"] = s.kind;
    o["region"] = s.region;
    o["at"] = locationJSON(s.op);
    o["completion"] =
        s.completion ? locationJSON(s.completion) : llvm::json::Value(nullptr);
    o["distance"] = s.distance ? llvm::json::Value(*s.distance)
                               : llvm::json::Value(nullptr);
    o["in_loop"] = s.inLoop;
    return llvm::json::Value(std::move(o));
  };
  llvm::json::Array regions;
  llvm::json::Object async, sync;
  for (const MeasuredRegion &r : regionList) {
    llvm::json::Object o;
    o["name"] = r.name;
    o["id"] = r.id;
    o["in_loop"] = r.inLoop;
    o["parent"] = r.parent.empty() ? llvm::json::Value(nullptr)
                                   : llvm::json::Value(r.parent);
    o["role"] =
        r.role.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(r.role);
    o["role_warps"] =
        r.roleWarps ? llvm::json::Value(llvm::json::Array{r.roleWarps->first,
                                                          r.roleWarps->second})
                    : llvm::json::Value(nullptr);
    o["begin"] = locationJSON(r.begin);
    o["end"] = r.end ? locationJSON(r.end) : llvm::json::Value(nullptr);
    regions.push_back(std::move(o));
    llvm::json::Array a, y;
    for (const MeasurementSite &s : asyncSites(r.name))
      a.push_back(siteJSON(s));
    for (const MeasurementSite &s : syncSites(r.name))
      y.push_back(siteJSON(s));
    async[r.name] = std::move(a);
    sync[r.name] = std::move(y);
  }
  return llvm::json::Object{{"regions", std::move(regions)},
                            {"async_sites", std::move(async)},
                            {"sync_sites", std::move(sync)},
                            {"pipeline_depth", depth}};
}

llvm::StringRef MeasurementSites::innermostRegion(Operation *op) const {
  auto w = within.find(op);
  if (w == within.end() || w->second.empty())
    return {};
  return regionList[w->second.back()].name;
}

void MeasurementSites::forEachOp(
    llvm::function_ref<void(Operation *, llvm::StringRef)> fn) const {
  for (Operation *op : order)
    if (!isa<RegionBeginOp, RegionEndOp>(op)) // no code without probes
      fn(op, innermostRegion(op));
}

std::vector<LineOwners> MeasurementSites::lineOwners() const {
  std::vector<LineOwners> lines;
  llvm::DenseMap<std::pair<StringAttr, unsigned>, size_t> index;
  forEachOp([&](Operation *op, llvm::StringRef region) {
    FileLineColLoc f = fileLocation(op->getLoc());
    if (!f)
      return;
    auto [it, fresh] =
        index.try_emplace({f.getFilename(), f.getLine()}, lines.size());
    if (fresh)
      lines.push_back({f.getFilename().str(), f.getLine(), {}});
    ++lines[it->second].opsByRegion[region];
  });
  return lines;
}

llvm::json::Value MeasurementSites::lineRegionsJSON() const {
  llvm::json::Array regions, lines;
  for (const MeasuredRegion &r : regionList)
    regions.push_back(llvm::json::Object{
        {"name", r.name},
        {"id", r.id},
        {"parent", r.parent.empty() ? llvm::json::Value(nullptr)
                                    : llvm::json::Value(r.parent)}});
  for (const LineOwners &l : lineOwners()) {
    llvm::json::Object ops;
    for (const auto &e : l.opsByRegion)
      ops[e.getKey().str()] = e.getValue();
    lines.push_back(llvm::json::Object{
        {"file", l.file}, {"line", (int64_t)l.line}, {"ops", std::move(ops)}});
  }
  return llvm::json::Object{{"schema", "argus.line_regions/1"},
                            {"regions", std::move(regions)},
                            {"lines", std::move(lines)}};
}
