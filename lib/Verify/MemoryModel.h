//===- MemoryModel.h - memory tiles, write events, synchronisation -*- C++ -*-//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The vocabulary of the memory model: which ops read and write which memory
// root, a memory tile resolved to its root in one instance (`MemView`), the
// possible latest writers of a read (`Candidate`) with the barriers and
// commit / wait groups between them and the read (`SyncEvent`).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_MEMORYMODEL_H
#define ARGUS_LIB_VERIFY_MEMORYMODEL_H

#include "Query.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Layout/Layout.h"
#include "argus/Layout/Swizzle.h"

#include "llvm/ADT/ArrayRef.h"

namespace argus::verify::detail {

//===----------------------------------------------------------------------===//
// Memory ops
//===----------------------------------------------------------------------===//

bool isWriteOp(mlir::Operation *op);
/// The tile a write op (copy, copy_async, store, tma_store) writes.
mlir::Value writeDest(mlir::Operation *op);
bool isSharedTile(mlir::Value v);
/// A tile in global memory.
bool isGlobalTile(mlir::Value v);
/// The argus.view, gather_view or im2col_view a global tile comes from, through
/// tags and transposes; null when something else (a reinterpret) is on the
/// way.
mlir::Operation *globalViewOf(mlir::Value tile);
/// The tensor (memref) an argus.view or argus.gather_view views.
mlir::Value viewedTensor(mlir::Operation *view);
/// The name an argus.view or argus.gather_view gives its tensor's elements.
std::string viewName(mlir::Operation *view);
/// Ops that read shared memory through the async proxy (bulk stores,
/// asynchronous wgmma): generic-proxy writes they read must be fenced.
bool readsThroughAsyncProxy(mlir::Operation *op);
/// Whether `op` reads shared memory whose root is `root`.
bool readsRoot(mlir::Operation *op, mlir::Value root);
/// The (thread, slot) -> tile coordinate layout by which `op` accesses its
/// memory tile: the thread layout of copies, the register layout of the
/// loaded or stored value; none for `argus.mma` (its operands are read
/// whole by every thread).
std::optional<::argus::layout::Layout> accessLayout(mlir::Operation *op);

/// Which accesses of a root a backwards walk collects.
enum class AccessKind { Writes, Reads };

//===----------------------------------------------------------------------===//
// Memory tiles
//===----------------------------------------------------------------------===//

struct DirectTag {
  mlir::argus::TagOp op;
  std::vector<unsigned> perm; // tag-level coord k = tile coord perm[k]
};

/// A memory tile resolved to its root (tensor or buffer) in one instance.
struct MemView {
  bool shared = false, gather = false;
  /// An argus.im2col_view: `offsets` are in the im2col matrix, not in the
  /// tensor.
  bool im2col = false;
  mlir::Value root;
  std::string name;
  std::optional<z3::expr> stage, base;
  int64_t stages = 1, cosz = 0;
  ::argus::layout::SwizzledLayout layout;
  std::vector<int64_t> shape;
  std::vector<z3::expr> offsets;
  std::vector<unsigned> perm; // root coord k = tile coord perm[k]
  std::vector<DirectTag> direct;
};

/// Whether two views address one buffer's stages through the same layout,
/// stages a power of two apart: when that layout is a bijection onto a
/// stage (checkFullStage of a write through either), two accesses hit one
/// address iff they are in the same stage at the same tile coordinate, so
/// the solver need not invert the layout (a swizzle).
bool sameStageLayout(const MemView &a, const MemView &b);

/// The view op (argus.view, gather_view or im2col_view) a memory tile looks
/// through tags, transposes and reinterprets to; null when there is none
/// (globalViewOf stops at a reinterpret).
mlir::Operation *viewOf(mlir::Value tile);

/// Where a gather's row indices come from: a register tile loaded from a
/// plain view of a 1-D kernel argument (row r of the gather is entry
/// `indexView`'s offset + r), and the argus.assume_indices declaring that
/// argument's entries (none: nothing is known about them).
struct GatherSource {
  mlir::argus::ViewOp indexView;
  llvm::SmallVector<mlir::argus::AssumeIndicesOp> declared;
  /// Whether a declaration makes the entries pairwise distinct.
  bool distinct() const {
    return llvm::any_of(declared, [](auto d) { return d.getDistinct(); });
  }
};
/// The source of `gather`'s indices; nullopt when they are computed or
/// loaded some other way.
std::optional<GatherSource> gatherSource(mlir::argus::GatherViewOp gather);
/// What names a gather's rows, for diagnostics: "entries of 'ids'", or
/// that the indices come from no view of a kernel argument.
std::string gatherRowsOrigin(const std::optional<GatherSource> &src);

//===----------------------------------------------------------------------===//
// Write events and synchronisation
//===----------------------------------------------------------------------===//

struct SyncEvent {
  /// Wait / Commit: cp.async groups; WgmmaWait / WgmmaCommit: wgmma groups;
  /// BulkWait / BulkCommit: bulk store groups (a tma_store commits its
  /// own); ProxyFence: fence.proxy.async.
  enum Kind {
    Barrier,
    Wait,
    Commit,
    WgmmaWait,
    WgmmaCommit,
    BulkWait,
    BulkCommit,
    ProxyFence
  } kind;
  int64_t n = 0;
  z3::expr guard;
  mlir::Operation *op;
  /// A barrier inside a warp role: it synchronises that role's threads only.
  bool roleScoped = false;
};

/// One possible latest writer (or, for write-after-read, earlier reader) of
/// an access.
struct Candidate {
  mlir::Operation *op;
  Inst inst;
  bool cutoff = false;
  std::vector<SyncEvent> events; // between the candidate and the access
  /// Set when the access is inside a warp role and the candidate runs
  /// before it at the kernel's top level: the role's first thread and
  /// thread count. The candidate's threads count from the block's first,
  /// the access's from the role's, and the role's barriers order only the
  /// candidate threads that belong to the role.
  std::optional<std::pair<int64_t, int64_t>> accessRole;
};

/// The group that retires an asynchronous access of `op`: cp.async groups
/// for copy_async, wgmma groups for the shared operands of mma_async, bulk
/// groups for tma_store (which closes its own); none for synchronous ops.
struct AsyncGroup {
  SyncEvent::Kind commit, wait;
  bool selfCommits;
};
std::optional<AsyncGroup> asyncGroupOf(mlir::Operation *op);

/// Whether a barrier executes among `events[from..]` (with `blockWideOnly`,
/// one outside warp roles).
z3::expr anyBarrier(z3::context &ctx, llvm::ArrayRef<SyncEvent> events,
                    size_t from = 0, bool blockWideOnly = false);

/// Whether a barrier among `cd.events[from..]` orders the candidate's
/// thread `ct` (in the candidate's numbering) before the access.
z3::expr barrierOrders(z3::context &ctx, const Candidate &cd,
                       const z3::expr &ct, size_t from = 0);

/// Whether the candidate's thread `ct` is the accessing thread `at` (each in
/// its own numbering: see Candidate::accessRole).
z3::expr sameThread(z3::context &ctx, const Candidate &cd, const z3::expr &ct,
                    const z3::expr &at);

/// Whether the write of `writer` is not ordered before a read by thread
/// `reader`: async copies must be retired by a wait_group (and, for another
/// thread, followed by a barrier); other writes need a barrier when the
/// threads differ. Program order orders one thread's accesses only: a
/// gfx942 wavefront performs its LDS operations in order, but the lowering
/// goes through LLVM, whose per-thread memory model may reorder one lane's
/// store and another lane's load, so same-wavefront pairs stay races.
z3::expr unsynchronised(z3::context &ctx, const Candidate &writer,
                        const z3::expr &writerThread,
                        const z3::expr &readerThread);

/// Whether a generic-proxy write of `writer` is not made visible to an
/// async-proxy read (a bulk store, a wgmma operand) by thread
/// `readerThread`: after the write completed, the writing thread must run
/// fence.proxy.async, and a barrier must follow unless it issues the read.
z3::expr notFencedForAsyncProxy(z3::context &ctx, const Candidate &writer,
                                const z3::expr &writerThread,
                                const z3::expr &readerThread);

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_MEMORYMODEL_H
