//===- ProbeEmission.cpp - probed region markers to probe records ---------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Expands the region markers argus-insert-probes selected into the
// record-writing code of ProbeFormat.h (timer read, slot bookkeeping, two
// 16-byte stores) and erases every marker.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"

#include "argus/runtime/ProbeFormat.h"

#include <cstddef>

using namespace mlir;
using namespace mlir::argus;

namespace {

/// Every size and byte offset the emitted code uses, taken from the C structs
/// of ProbeFormat.h that the host runtime decodes, so the two cannot disagree.
namespace probe_format {
constexpr int64_t kHeaderSize = ARGUS_PROBE_HEADER_SIZE;
constexpr int64_t kNumSlotsOffset = offsetof(ArgusProbeHeader, num_slots);
constexpr int64_t kCapacityOffset = offsetof(ArgusProbeHeader, capacity);
constexpr int64_t kSlotSize = ARGUS_PROBE_SLOT_SIZE;
constexpr int64_t kCountOffset = offsetof(ArgusProbeSlot, count);
constexpr int64_t kDroppedOffset = offsetof(ArgusProbeSlot, dropped);
constexpr int64_t kRecordsAlign = ARGUS_PROBE_RECORDS_ALIGN;
constexpr int64_t kRecordSize = ARGUS_PROBE_RECORD_SIZE;
/// A record is written as two 16-byte vector stores of four i32 each:
/// {region_id, flags, block, warp} and {iteration, hw_id, timestamp lo, hi}.
constexpr int64_t kFirstHalfOffset = offsetof(ArgusProbeRecord, region_id);
constexpr int64_t kSecondHalfOffset = offsetof(ArgusProbeRecord, iteration);
constexpr int64_t kHalfSize = 16;
constexpr int64_t kNoIteration = ARGUS_PROBE_NO_ITERATION;
constexpr int64_t kFlagEnd = ARGUS_PROBE_FLAG_END;

// The header and slot fields are loaded (and stored) as i32.
static_assert(sizeof(ArgusProbeHeader::num_slots) == 4 &&
              sizeof(ArgusProbeHeader::capacity) == 4 &&
              sizeof(ArgusProbeSlot::count) == 4 &&
              sizeof(ArgusProbeSlot::dropped) == 4);
// The two vector stores cover the record exactly, field by field.
static_assert(kFirstHalfOffset == 0 && kSecondHalfOffset == kHalfSize &&
              2 * kHalfSize == kRecordSize);
static_assert(offsetof(ArgusProbeRecord, flags) == kFirstHalfOffset + 4 &&
              offsetof(ArgusProbeRecord, block) == kFirstHalfOffset + 8 &&
              offsetof(ArgusProbeRecord, warp) == kFirstHalfOffset + 12);
static_assert(offsetof(ArgusProbeRecord, hw_id) == kSecondHalfOffset + 4 &&
              offsetof(ArgusProbeRecord, timestamp) == kSecondHalfOffset + 8 &&
              sizeof(ArgusProbeRecord::timestamp) == 8);
// Record halves are stored with 16-byte alignment.
static_assert(kRecordsAlign % kHalfSize == 0 && kRecordSize % kHalfSize == 0);
// The records offset is rounded up with a mask.
static_assert((kRecordsAlign & (kRecordsAlign - 1)) == 0);
} // namespace probe_format

/// The kernel's probe plan (argus_probes, see argus-insert-probes).
struct ProbePlan {
  SmallVector<int64_t> warps, blocks;
  int64_t iterLo = 0, iterHi = -1;
  std::string clock = "default";
};

/// Per-kernel probe state, computed once at kernel entry: the slot of this
/// warp, the header's capacity, the address of the slot's first record, and
/// the slot's counters, kept in shared memory while the kernel runs (one
/// writer per slot: lane 0 of the warp) and written back at the end.
struct ProbeContext {
  Value buf, warp, lane, block, valid, capacity, recBase, slotPtr, counts;
};

} // namespace

static ProbePlan getProbePlan(Operation *fn) {
  ProbePlan p;
  auto plan = fn->getAttrOfType<ProbePlanAttr>("argus_probes");
  if (!plan)
    return p;
  p.warps.assign(plan.getWarps().asArrayRef().begin(),
                 plan.getWarps().asArrayRef().end());
  p.blocks.assign(plan.getBlocks().asArrayRef().begin(),
                  plan.getBlocks().asArrayRef().end());
  p.iterLo = plan.getIterationLo();
  p.iterHi = plan.getIterationHi();
  p.clock = plan.getClock().str();
  return p;
}

/// `base` advanced by `byteOff` bytes (same pointer type).
static Value bytePtr(OpBuilder &b, Location loc, Value base, Value byteOff) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{byteOff});
}

/// The address of the slot field at `fieldOffset` (the slot pointer itself
/// for the first field, so no zero-offset address is emitted).
static Value slotField(OpBuilder &b, Location loc, const ProbeContext &pc,
                       int64_t fieldOffset) {
  if (fieldOffset == 0)
    return pc.slotPtr;
  return bytePtr(b, loc, pc.slotPtr, constI64(b, loc, fieldOffset));
}

/// The address of the first or second 16-byte half of the record at `rec`.
static Value recordHalf(OpBuilder &b, Location loc, Value rec, bool second) {
  int64_t off =
      second ? probe_format::kSecondHalfOffset : probe_format::kFirstHalfOffset;
  if (off == 0)
    return rec;
  return bytePtr(b, loc, rec, constI64(b, loc, off));
}

/// Whether this thread writes its warp's slot: lane 0 of a warp with a slot.
static Value isSlotWriter(OpBuilder &b, Location loc, const ProbeContext &pc) {
  return arith::AndIOp::create(b, loc,
                               arith::CmpIOp::create(b, loc,
                                                     arith::CmpIPredicate::eq,
                                                     pc.lane, cidx(b, loc, 0)),
                               pc.valid);
}

/// Continue inside a new `if` that only the slot's writer enters (the
/// caller holds an insertion guard).
static void enterSlotWriter(OpBuilder &b, Location loc,
                            const ProbeContext &pc) {
  Value writer = isSlotWriter(b, loc, pc);
  auto ifOp = scf::IfOp::create(b, loc, writer, false);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
}

static Value linearBlockId(OpBuilder &b, Location loc, const KernelInfo &k) {
  Value bx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value by = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value bz = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  auto [gx, gy] = k.target->emitGridDimXY(b, loc, k.block);
  return arith::AddIOp::create(
      b, loc, bx,
      arith::MulIOp::create(
          b, loc, gx,
          arith::AddIOp::create(b, loc, by,
                                arith::MulIOp::create(b, loc, gy, bz))));
}

static ProbeContext emitProbePrelude(OpBuilder &b, Location loc, Value buf,
                                     const KernelInfo &k, gpu::GPUModuleOp mod,
                                     StringRef fnName) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c64 = [&](int64_t v) { return constI64(b, loc, v); };
  ProbeContext pc;
  pc.buf = buf;
  Value tid = linearThreadId(b, loc, k);
  pc.warp = arith::DivUIOp::create(b, loc, tid, cidx(b, loc, k.warpSize));
  pc.lane = arith::RemUIOp::create(b, loc, tid, cidx(b, loc, k.warpSize));
  pc.block = linearBlockId(b, loc, k);
  int64_t wpb = k.numWarps();
  using namespace probe_format;
  Value numSlots = LLVM::LoadOp::create(
      b, loc, i32, bytePtr(b, loc, buf, c64(kNumSlotsOffset)));
  pc.capacity = LLVM::LoadOp::create(
      b, loc, i32, bytePtr(b, loc, buf, c64(kCapacityOffset)));
  Value slot = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, pc.block, cidx(b, loc, wpb)),
      pc.warp);
  Value slot32 = arith::IndexCastUIOp::create(b, loc, i32, slot);
  pc.valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, slot32,
                                   numSlots);
  Value slot64 = arith::ExtUIOp::create(b, loc, i64, slot32);
  pc.slotPtr =
      bytePtr(b, loc, buf,
              arith::AddIOp::create(
                  b, loc, c64(kHeaderSize),
                  arith::MulIOp::create(b, loc, slot64, c64(kSlotSize))));
  Value numSlots64 = arith::ExtUIOp::create(b, loc, i64, numSlots);
  Value recordsOff = arith::AndIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, numSlots64, c64(kSlotSize)),
          c64(kHeaderSize + kRecordsAlign - 1)),
      c64(~(kRecordsAlign - 1)));
  Value cap64 = arith::ExtUIOp::create(b, loc, i64, pc.capacity);
  pc.recBase =
      bytePtr(b, loc, buf,
              arith::AddIOp::create(
                  b, loc, recordsOff,
                  arith::MulIOp::create(
                      b, loc, arith::MulIOp::create(b, loc, slot64, cap64),
                      c64(kRecordSize))));
  // The warp's counters in shared memory: (count, dropped) per warp.
  MemRefType countsType = sharedArrayType(2 * wpb, i32);
  std::string name = ("__argus_probe_counts_" + fnName).str();
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(mod.getBody());
    memref::GlobalOp::create(b, loc, name, b.getStringAttr("private"),
                             countsType, Attribute(), false,
                             b.getI64IntegerAttr(8));
  }
  pc.counts = memref::GetGlobalOp::create(b, loc, countsType, name);
  OpBuilder::InsertionGuard g(b);
  enterSlotWriter(b, loc, pc);
  Value c =
      LLVM::LoadOp::create(b, loc, i32, slotField(b, loc, pc, kCountOffset));
  Value d =
      LLVM::LoadOp::create(b, loc, i32, slotField(b, loc, pc, kDroppedOffset));
  Value w2 = arith::MulIOp::create(b, loc, pc.warp, cidx(b, loc, 2));
  memref::StoreOp::create(b, loc, c, pc.counts, ValueRange{w2});
  memref::StoreOp::create(
      b, loc, d, pc.counts,
      ValueRange{arith::AddIOp::create(b, loc, w2, cidx(b, loc, 1))});
  return pc;
}

/// Write the warp's counters back to its slot (before the kernel returns).
static void emitProbeEpilogue(OpBuilder &b, Location loc,
                              const ProbeContext &pc) {
  OpBuilder::InsertionGuard g(b);
  enterSlotWriter(b, loc, pc);
  Value w2 = arith::MulIOp::create(b, loc, pc.warp, cidx(b, loc, 2));
  Value c = memref::LoadOp::create(b, loc, pc.counts, ValueRange{w2});
  Value d = memref::LoadOp::create(
      b, loc, pc.counts,
      ValueRange{arith::AddIOp::create(b, loc, w2, cidx(b, loc, 1))});
  LLVM::StoreOp::create(b, loc, c,
                        slotField(b, loc, pc, probe_format::kCountOffset));
  LLVM::StoreOp::create(b, loc, d,
                        slotField(b, loc, pc, probe_format::kDroppedOffset));
}

/// Expand one probed marker into the record-writing code of ProbeFormat.h:
/// lane 0 of each selected warp reads the timer and appends a record to its
/// slot, or counts a drop when the slot is full.
static void emitProbe(OpBuilder &b, Operation *marker, int64_t id, bool isEnd,
                      const ProbeContext &pc, const KernelInfo &k,
                      const ProbePlan &plan, Operation *fnOp) {
  Location loc = marker->getLoc();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c32 = [&](int64_t v) { return constI32(b, loc, v); };
  auto toI32 = [&](Value idx) -> Value {
    return arith::IndexCastUIOp::create(b, loc, i32, idx);
  };
  Value cond = isSlotWriter(b, loc, pc);
  auto anyOf = [&](Value x, ArrayRef<int64_t> set) {
    Value r = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
    for (int64_t s : set)
      r = arith::OrIOp::create(b, loc, r,
                               arith::CmpIOp::create(b, loc,
                                                     arith::CmpIPredicate::eq,
                                                     x, cidx(b, loc, s)));
    return r;
  };
  if (!plan.warps.empty())
    cond = arith::AndIOp::create(b, loc, cond, anyOf(pc.warp, plan.warps));
  if (!plan.blocks.empty())
    cond = arith::AndIOp::create(b, loc, cond, anyOf(pc.block, plan.blocks));
  // Iteration of the innermost enclosing loop of the kernel.
  Value iter = c32(probe_format::kNoIteration);
  auto loop = marker->getParentOfType<scf::ForOp>();
  if (loop && fnOp->isProperAncestor(loop)) {
    Value rel = arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                      loop.getLowerBound());
    Value it = arith::DivUIOp::create(b, loc, rel, loop.getStep());
    iter = toI32(it);
    if (plan.iterLo > 0)
      cond = arith::AndIOp::create(
          b, loc, cond,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, it,
                                cidx(b, loc, plan.iterLo)));
    if (plan.iterHi >= 0)
      cond = arith::AndIOp::create(
          b, loc, cond,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, it,
                                cidx(b, loc, plan.iterHi)));
  }
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  // The timer first, so the record's time is as close to the marker as can be.
  auto [ts, hw] = k.target->emitProbeStamp(b, loc, plan.clock);
  Value w2 = arith::MulIOp::create(b, loc, pc.warp, cidx(b, loc, 2));
  Value count = memref::LoadOp::create(b, loc, pc.counts, ValueRange{w2});
  Value full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, count,
                                     pc.capacity);
  auto fullIf = scf::IfOp::create(b, loc, full, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&fullIf.getThenRegion().front());
    Value w21 = arith::AddIOp::create(b, loc, w2, cidx(b, loc, 1));
    Value dropped = memref::LoadOp::create(b, loc, pc.counts, ValueRange{w21});
    memref::StoreOp::create(b, loc,
                            arith::AddIOp::create(b, loc, dropped, c32(1)),
                            pc.counts, ValueRange{w21});
  }
  b.setInsertionPointToStart(&fullIf.getElseRegion().front());
  Value off =
      arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, count),
                            constI64(b, loc, probe_format::kRecordSize));
  Value rec = bytePtr(b, loc, pc.recBase, off);
  // Two 16-byte stores: {id, flags, block, warp}, {iteration, hw, ts}.
  auto v4 = VectorType::get({4}, i32);
  Value tsLo = arith::TruncIOp::create(b, loc, i32, ts);
  Value tsHi = arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, ts, constI64(b, loc, 32)));
  Value first = vector::FromElementsOp::create(
      b, loc, v4,
      ValueRange{c32(id), c32(isEnd ? probe_format::kFlagEnd : 0),
                 toI32(pc.block), toI32(pc.warp)});
  Value second = vector::FromElementsOp::create(
      b, loc, v4, ValueRange{iter, hw, tsLo, tsHi});
  LLVM::StoreOp::create(b, loc, first,
                        recordHalf(b, loc, rec, /*second=*/false),
                        /*alignment=*/probe_format::kHalfSize);
  LLVM::StoreOp::create(b, loc, second,
                        recordHalf(b, loc, rec, /*second=*/true),
                        /*alignment=*/probe_format::kHalfSize);
  memref::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, count, c32(1)),
                          pc.counts, ValueRange{w2});
}

void mlir::argus::expandProbes(gpu::GPUFuncOp gfn, gpu::GPUModuleOp mod) {
  KernelInfo k = getKernelInfo(gfn);
  ProbePlan plan = getProbePlan(gfn);
  Block &entry = gfn.getBody().front();
  Location loc = gfn.getLoc();
  SmallVector<Operation *> markers;
  gfn.walk([&](Operation *op) {
    if (isa<RegionBeginOp, RegionEndOp>(op))
      markers.push_back(op);
  });
  // Outlining kept the plan only when probes are on (and then appended the
  // probe buffer as the last argument).
  bool withProbes = gfn->hasAttr("argus_probes");
  std::optional<ProbeContext> pc;
  bool anyProbe = withProbes && llvm::any_of(markers, [](Operation *m) {
                    return m->hasAttr("argus_probe");
                  });
  if (anyProbe) {
    // The prelude goes right after the argument set-up, before the body.
    Operation *firstBodyOp = nullptr;
    for (Operation &op : entry)
      if (!isa<LLVM::PoisonOp, LLVM::InsertValueOp, LLVM::ConstantOp,
               LLVM::MulOp, UnrealizedConversionCastOp, arith::IndexCastOp>(
              op)) {
        firstBodyOp = &op;
        break;
      }
    OpBuilder pb(firstBodyOp);
    pc = emitProbePrelude(pb, loc, entry.getArguments().back(), k, mod,
                          gfn.getName());
    OpBuilder eb(entry.getTerminator());
    emitProbeEpilogue(eb, loc, *pc);
  }
  for (Operation *m : markers) {
    if (pc && m->hasAttr("argus_probe")) {
      OpBuilder pb(m);
      if (auto begin = dyn_cast<RegionBeginOp>(m))
        emitProbe(pb, m, begin.getId(), false, *pc, k, plan, gfn);
      else
        emitProbe(pb, m, cast<RegionEndOp>(m).getId(), true, *pc, k, plan, gfn);
    }
    m->erase();
  }
}
