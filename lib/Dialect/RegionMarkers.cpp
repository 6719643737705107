//===- RegionMarkers.cpp - region.begin / region.end verification ---------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Regions are measured by pairing markers, so they must be well formed:
// every begin has its end later in the same block, regions nest without
// crossing, and IDs are unique in a kernel (the ID is what survives
// lowering and names the region in reports).
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/ErrorKinds.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::argus;

/// The op whose body scopes region IDs: the enclosing function, else the
/// top-level op.
static Operation *getIdScope(Operation *op) {
  if (auto fn = op->getParentOfType<FunctionOpInterface>())
    return fn;
  Operation *top = op;
  while (Operation *parent = top->getParentOp())
    top = parent;
  return top;
}

/// Probe records carry the region ID in a 32-bit field (region_id in
/// runtime/include/argus/runtime/ProbeFormat.h): a larger ID would be
/// truncated there and collide with a smaller one.
static constexpr int64_t kMaxRegionId = 0xFFFFFFFFll;

static LogicalResult verifyIdFitsRecord(Operation *op, int64_t id) {
  if (id <= kMaxRegionId)
    return success();
  return op->emitOpError()
         << "region id " << id << " does not fit the 32-bit region_id of a "
         << "probe record (at most " << kMaxRegionId
         << "); hint: choose IDs below 2^32, an ID at or above it would "
            "collide with id "
         << (id & kMaxRegionId) << " in the probe records";
}

LogicalResult RegionBeginOp::verify() {
  int64_t id = getId();
  if (failed(verifyIdFitsRecord(*this, id)))
    return failure();
  // Find the matching end: later in the same block, with nested regions
  // closed in reverse order.
  SmallVector<int64_t> open;
  bool matched = false;
  for (Operation *op = getOperation()->getNextNode(); op && !matched;
       op = op->getNextNode()) {
    if (auto begin = dyn_cast<RegionBeginOp>(op)) {
      open.push_back(begin.getId());
      continue;
    }
    auto end = dyn_cast<RegionEndOp>(op);
    if (!end)
      continue;
    if (!open.empty() && open.back() == end.getId()) {
      open.pop_back();
      continue;
    }
    if (end.getId() == id) {
      if (!open.empty())
        return emitOpError()
               << "region \"" << getName() << "\" (id " << id
               << ") ends while region id " << open.back()
               << " opened inside it is still open; hint: regions nest "
                  "and never cross, close the inner region first"
               << "";
      matched = true;
      continue;
    }
    if (open.empty()) {
      // An end of an outer region inside ours: the regions cross.
      InFlightDiagnostic diag =
          emitOpError() << "region \"" << getName() << "\" (id " << id
                        << ") is interrupted by the end of region id "
                        << end.getId()
                        << " before its own end; hint: regions nest and "
                           "never cross";
      diag.attachNote(end.getLoc())
          << "region id " << end.getId() << " ends here";
      return diag;
    }
    // An inner region closing out of order; its own verifier reports it.
    llvm::erase(open, end.getId());
  }
  if (!matched)
    return emitOpErrorOfKind(*this, ErrorKind::Region)
           << "region \"" << getName() << "\" (id " << id
           << ") has no matching 'argus.region.end id " << id
           << "' later in the same block; hint: a region must "
              "begin and end in the same block (inside the "
              "same loop body)";

  // Unique IDs: report on every begin after the first with this ID.
  Operation *first = nullptr;
  getIdScope(getOperation())->walk([&](RegionBeginOp other) {
    if (other.getId() != id)
      return WalkResult::advance();
    first = other;
    return WalkResult::interrupt();
  });
  if (first && first != getOperation()) {
    InFlightDiagnostic diag =
        emitOpErrorOfKind(*this, ErrorKind::Region)
        << "region id " << id << " of region \"" << getName()
        << "\" is already used by region \""
        << cast<RegionBeginOp>(first).getName()
        << "\"; hint: region IDs must be unique within a kernel";
    diag.attachNote(first->getLoc())
        << "id " << id << " first used by region \""
        << cast<RegionBeginOp>(first).getName() << "\" here";
    return diag;
  }
  return success();
}

LogicalResult RegionEndOp::verify() {
  int64_t id = getId();
  if (failed(verifyIdFitsRecord(*this, id)))
    return failure();
  SmallVector<int64_t> closed;
  for (Operation *op = getOperation()->getPrevNode(); op;
       op = op->getPrevNode()) {
    if (auto end = dyn_cast<RegionEndOp>(op)) {
      closed.push_back(end.getId());
      continue;
    }
    auto begin = dyn_cast<RegionBeginOp>(op);
    if (!begin)
      continue;
    if (!closed.empty() && closed.back() == begin.getId()) {
      closed.pop_back();
      continue;
    }
    if (begin.getId() == id)
      return success();
    // Another open region; nesting errors are reported by its begin.
    llvm::erase(closed, begin.getId());
  }
  return emitOpErrorOfKind(*this, ErrorKind::Region)
         << "region end id " << id
         << " has no matching 'argus.region.begin' earlier in "
            "the same block";
}
