//===- Interpreter.cpp - run argus kernels on the CPU ---------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The tile-level interpreter (Interpreter.h). Every argus op is block
// collective, so a block runs as one sequential program over whole tiles:
// register tiles are row-major arrays of their logical elements, memory
// tiles are references (a window of a host buffer, or a stage of a shared
// buffer addressed through its layout). Asynchronous copies land when a
// wait retires their group, so a read before the wait sees the old data.
//
//===----------------------------------------------------------------------===//

#include "argus/Interpret/Interpreter.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/TileLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>

#include <ucontext.h>

using namespace mlir;
using namespace mlir::argus;

namespace argus::interp {

//===----------------------------------------------------------------------===//
// Element rounding
//===----------------------------------------------------------------------===//

static double roundSem(const llvm::fltSemantics &sem, double v) {
  llvm::APFloat f(v);
  bool lost = false;
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

double roundTf32(double v) {
  float f = static_cast<float>(v);
  if (!std::isfinite(f))
    return f;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  // Keep 10 of the 23 mantissa bits, to nearest even.
  uint32_t lsb = (bits >> 13) & 1u;
  bits += 0xFFFu + lsb;
  bits &= ~0x1FFFu;
  std::memcpy(&f, &bits, 4);
  return f;
}

double roundTo(Type t, double v) {
  if (t.isF32())
    return static_cast<double>(static_cast<float>(v));
  if (t.isF64() || t.isIndex())
    return v;
  if (auto ft = dyn_cast<FloatType>(t))
    return roundSem(ft.getFloatSemantics(), v);
  if (auto it = dyn_cast<IntegerType>(t)) {
    unsigned w = it.getWidth();
    if (w == 1)
      return v != 0 ? 1 : 0;
    if (std::isnan(v))
      return 0;
    int64_t x = static_cast<int64_t>(v);
    if (w < 64) {
      uint64_t m = (uint64_t(1) << w) - 1;
      uint64_t u = static_cast<uint64_t>(x) & m;
      if (it.isUnsigned())
        return static_cast<double>(u);
      if (u >> (w - 1))
        return static_cast<double>(static_cast<int64_t>(u) -
                                   static_cast<int64_t>(m) - 1);
      return static_cast<double>(u);
    }
    return static_cast<double>(x);
  }
  return v;
}

namespace {

/// A register tile: its logical elements in row-major order.
struct Tile {
  std::vector<int64_t> shape;
  Type elt;
  std::vector<double> v;
};

/// A memory tile: a reference to elements of a host buffer or shared stage.
struct MemTile {
  enum Kind { View, Gather, Im2col, Shared } kind = View;
  std::vector<int64_t> shape; // the tile's logical shape
  Type elt;
  // Global tiles.
  int arg = -1;
  std::vector<int64_t> offsets; // per tensor dimension
  bool clipped = false;
  std::vector<int64_t> bounds; // empty: the tensor's sizes
  std::vector<int> perm;       // tile dim i is view dim perm[i]
  std::vector<int64_t> rows;   // gather: tensor row of each tile row
  // im2col
  std::vector<int64_t> window, stride, pad, dilation;
  // Shared tiles.
  std::shared_ptr<struct SharedStore> store;
  TileType type;
};

/// A shared-memory stage: its elements and which were ever written (a read
/// of one never written is an error).
struct SharedStore {
  std::string name;
  std::vector<double> v;
  std::vector<uint8_t> init;
};

struct Buffer {
  std::vector<std::shared_ptr<SharedStore>> stages;
  TileType tile;
};

struct Val {
  enum Kind { None, Int, Flt, TileV, Mem, Buf } kind = None;
  int64_t i = 0;
  double f = 0;
  std::shared_ptr<Tile> t;
  std::shared_ptr<MemTile> m;
  std::shared_ptr<Buffer> b;
  std::shared_ptr<struct Ring> ring;
};

/// One mbarrier: `expected` arrivals and the transaction bytes complete a
/// phase; `completed` counts completed phases (the phase parity is its low
/// bit).
struct MBar {
  int64_t expected = 0, pending = 0, tx = 0, completed = 0;
};

struct Ring {
  std::string name;
  std::vector<MBar> bars;
};

/// A warp role run as a cooperative task (its own stack, switched with
/// swapcontext at waits).
struct Task {
  RoleOp role;
  int64_t threads = 0;
  ucontext_t ctx;
  std::vector<char> stack;
  bool started = false, done = false, failed = false, blocked = false;
  std::function<bool()> ready;
  Operation *waitOp = nullptr;
  std::string waitWhat;
  std::vector<int64_t> ivs; // induction variables of the enclosing loops
  std::string err;
};

struct AsyncCopy {
  std::shared_ptr<MemTile> dst;
  Tile data;
};

class BlockRun {
public:
  BlockRun(func::FuncOp fn, std::vector<KernelArg> &args,
           std::array<int64_t, 3> grid, std::array<int64_t, 3> blockId,
           const Options &options, int64_t &steps)
      : fn(fn), args(args), grid(grid), blockId(blockId), options(options),
        steps(steps),
        rng(options.scheduleSeed ^ (blockId[0] * 0x9E3779B97F4A7C15ull) ^
            (blockId[1] << 20) ^ (blockId[2] << 40)) {}

  LogicalResult run(std::string &error);
  void setWriters(int32_t linear, std::vector<std::string> *ops,
                  llvm::DenseMap<Operation *, int32_t> *ids) {
    blockLinear = linear;
    writerOps = ops;
    writerIds = ids;
  }

private:
  func::FuncOp fn;
  std::vector<KernelArg> &args;
  std::array<int64_t, 3> grid, blockId;
  const Options &options;
  int64_t &steps;
  llvm::DenseMap<Value, Val> env;
  std::string err;
  // trackWriters: the op being executed and the ids of writing ops.
  Operation *curOp = nullptr;
  int32_t blockLinear = 0;
  std::vector<std::string> *writerOps = nullptr;
  llvm::DenseMap<Operation *, int32_t> *writerIds = nullptr;

  void recordWriter(const MemTile &m, int64_t where) {
    if (!options.trackWriters || m.kind == MemTile::Shared || !curOp)
      return;
    KernelArg &a = args[m.arg];
    auto [it, inserted] =
        writerIds->try_emplace(curOp, static_cast<int32_t>(writerOps->size()));
    if (inserted) {
      std::string loc;
      llvm::raw_string_ostream os(loc);
      curOp->getLoc().print(os);
      writerOps->push_back("'" + curOp->getName().getStringRef().str() +
                           "' at " + os.str());
    }
    a.writerBlock[where] = blockLinear;
    a.writerOp[where] = it->second;
    a.writerThread[where] = curThreads ? (*curThreads)[curElement] : -1;
  }
  // trackWriters: the thread of each element of the value being stored
  // (row-major), per store op.
  llvm::DenseMap<Operation *, std::vector<int32_t>> threadTables;
  const std::vector<int32_t> *curThreads = nullptr;
  int64_t curElement = 0;

  /// The first thread holding each element (row-major) of register tile
  /// type `tt`, or null when the layout is unknown.
  const std::vector<int32_t> *holders(Operation *op, TileType tt) {
    auto [it, inserted] = threadTables.try_emplace(op);
    if (inserted) {
      FailureOr<::argus::layout::Layout> l = getRegisterLayout(tt);
      std::vector<int32_t> &tab = it->second;
      tab.assign(tt.getNumElements(), -1);
      if (succeeded(l) && l->rank() == 2) {
        int64_t threads = l->mode(0).size();
        std::vector<int64_t> vals = l->values();
        ArrayRef<int64_t> shape = tt.getShape();
        for (int64_t idx = 0; idx < static_cast<int64_t>(vals.size()); ++idx) {
          // Colexicographic logical coordinate -> row-major element.
          int64_t c = vals[idx], e = 0, stride = 1;
          std::vector<int64_t> coord(shape.size());
          for (size_t d = 0; d < shape.size(); ++d) {
            coord[d] = c % shape[d];
            c /= shape[d];
          }
          for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
            e += coord[d] * stride;
            stride *= shape[d];
          }
          if (e >= 0 && e < static_cast<int64_t>(tab.size()) && tab[e] < 0)
            tab[e] = static_cast<int32_t>(idx % threads);
        }
      }
    }
    return &it->second;
  }
  std::vector<AsyncCopy> uncommitted;
  std::deque<std::vector<AsyncCopy>> groups;
  // Warp roles.
  std::vector<std::unique_ptr<Task>> tasks;
  Task *cur = nullptr;
  ucontext_t mainCtx;
  bool aborting = false;
  std::vector<int64_t> mainIvs;
  llvm::DenseMap<int64_t, std::pair<int64_t, int64_t>> namedBars; // count, gen
  std::mt19937_64 rng;

  std::vector<int64_t> &ivs() { return cur ? cur->ivs : mainIvs; }
  int64_t warpSize() {
    auto k = fn->getAttrOfType<KernelAttr>("argus.kernel");
    return k ? k.getWarpSize() : 32;
  }
  int64_t blockThreads() {
    auto k = fn->getAttrOfType<KernelAttr>("argus.kernel");
    return k ? k.getNumThreads() : 1;
  }
  /// The threads that run `op`: its role's, or the block's.
  int64_t threadsOf(Operation *op) {
    if (auto r = op->getParentOfType<RoleOp>())
      return r.getNumWarps() * warpSize();
    return blockThreads();
  }
  LogicalResult waitUntil(Operation *op, std::function<bool()> cond,
                          const std::string &what);
  LogicalResult runRoles(ArrayRef<RoleOp> roles);
  static void taskEntry();
  LogicalResult mma(Operation *op, StringRef instr, Value a, Value b, Value acc,
                    Value result);
  LogicalResult execHopper(Operation *op, bool &handled);
  LogicalResult arrive(Operation *op, Ring &ring, int64_t stage, int64_t count,
                       int64_t tx);

  LogicalResult fail(Operation *op, const Twine &msg) {
    std::string loc;
    llvm::raw_string_ostream os(loc);
    op->getLoc().print(os);
    err = ("'" + op->getName().getStringRef() + "' at " + os.str() + ": " +
           msg + " (block (" + Twine(blockId[0]) + ", " + Twine(blockId[1]) +
           ", " + Twine(blockId[2]) + "))")
              .str();
    return failure();
  }

  LogicalResult execBlock(Block &block, SmallVectorImpl<Val> *yielded);
  LogicalResult exec(Operation *op, SmallVectorImpl<Val> *yielded,
                     bool &terminated);
  LogicalResult execArith(Operation *op, bool &handled);
  LogicalResult execArgus(Operation *op, bool &handled);

  int64_t intOf(Value v) { return env[v].i; }
  double fltOf(Value v) { return env[v].f; }
  std::shared_ptr<Tile> tileOf(Value v) { return env[v].t; }
  std::shared_ptr<MemTile> memOf(Value v) { return env[v].m; }
  void setInt(Value v, int64_t x) {
    Val r;
    r.kind = Val::Int;
    r.i = x;
    env[v] = r;
  }
  void setFlt(Value v, double x) {
    Val r;
    r.kind = Val::Flt;
    r.f = x;
    env[v] = r;
  }
  void setTile(Value v, std::shared_ptr<Tile> t) {
    Val r;
    r.kind = Val::TileV;
    r.t = std::move(t);
    env[v] = r;
  }
  void setMem(Value v, std::shared_ptr<MemTile> m) {
    Val r;
    r.kind = Val::Mem;
    r.m = std::move(m);
    env[v] = r;
  }

  std::shared_ptr<Tile> newTile(Value result) {
    auto tt = cast<TileType>(result.getType());
    auto t = std::make_shared<Tile>();
    t->shape.assign(tt.getShape().begin(), tt.getShape().end());
    t->elt = tt.getElementType();
    t->v.assign(tt.getNumElements(), 0.0);
    return t;
  }

  /// Where each element of `m` (row-major order) lives: an index into the
  /// host buffer / shared store, or -1 for an element that does not exist.
  LogicalResult locate(Operation *op, const MemTile &m,
                       std::vector<int64_t> &where);
  LogicalResult readTile(Operation *op, const MemTile &m, Tile &out,
                         double other);
  LogicalResult writeTile(Operation *op, const MemTile &m, const Tile &in,
                          std::optional<AtomicKind> atomic);
  double *storage(const MemTile &m) {
    if (m.kind == MemTile::Shared)
      return m.store->v.data();
    return args[m.arg].buffer.data;
  }
  void markWritten(const MemTile &m) {
    if (m.kind != MemTile::Shared)
      args[m.arg].written = true;
  }
  void retireGroups(size_t keep) {
    while (groups.size() > keep) {
      for (AsyncCopy &c : groups.front()) {
        std::vector<int64_t> where;
        if (succeeded(locate(nullptr, *c.dst, where))) {
          markWritten(*c.dst);
          double *s = storage(*c.dst);
          for (size_t e = 0; e < where.size(); ++e)
            if (where[e] >= 0) {
              s[where[e]] = roundTo(c.dst->elt, c.data.v[e]);
              if (c.dst->kind == MemTile::Shared)
                c.dst->store->init[where[e]] = 1;
              recordWriter(*c.dst, where[e]);
            }
        }
      }
      groups.pop_front();
    }
  }
};

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

static int64_t product(ArrayRef<int64_t> s) {
  int64_t n = 1;
  for (int64_t x : s)
    n *= x;
  return n;
}

LogicalResult BlockRun::locate(Operation *op, const MemTile &m,
                               std::vector<int64_t> &where) {
  int64_t n = product(m.shape);
  where.assign(n, -1);
  if (m.kind == MemTile::Shared) {
    auto layoutAttr = dyn_cast_or_null<LayoutAttr>(m.type.getLayout());
    if (!layoutAttr)
      return op ? fail(op, "a shared tile without a layout") : failure();
    std::vector<int64_t> offs =
        memoryTileOffsets(layoutAttr.getLayout(), m.type.getShape());
    int64_t maxOff = 0;
    for (int64_t o : offs)
      maxOff = std::max(maxOff, o);
    if (maxOff >= static_cast<int64_t>(m.store->v.size())) {
      m.store->v.resize(maxOff + 1, std::numeric_limits<double>::quiet_NaN());
      m.store->init.resize(maxOff + 1, 0);
    }
    where = std::move(offs);
    return success();
  }
  const HostBuffer &buf = args[m.arg].buffer;
  ArrayRef<int64_t> sizes = buf.shape;
  size_t rank = sizes.size();
  std::vector<int64_t> strides(rank, 1);
  for (int d = static_cast<int>(rank) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * sizes[d + 1];
  std::vector<int64_t> coord(m.shape.size(), 0);
  std::vector<int64_t> t(rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    // coord: row-major coordinate e of the tile.
    int64_t r = e;
    for (int d = static_cast<int>(m.shape.size()) - 1; d >= 0; --d) {
      coord[d] = r % m.shape[d];
      r /= m.shape[d];
    }
    bool inside = true;
    if (m.kind == MemTile::View) {
      // The view's own coordinate (before transposes), on the trailing
      // tensor dimensions.
      t.assign(m.offsets.begin(), m.offsets.end());
      size_t lead = rank - m.shape.size();
      for (size_t i = 0; i < m.shape.size(); ++i)
        t[lead + m.perm[i]] += coord[i];
      for (size_t d = 0; d < rank; ++d) {
        int64_t hi = sizes[d];
        if (!m.bounds.empty())
          hi = std::min(hi, m.bounds[d]);
        if (t[d] < 0 || t[d] >= hi)
          inside = false;
      }
      if (!inside && !m.clipped && op)
        return fail(
            op, "element (" + Twine(coord[0]) +
                    (coord.size() > 1 ? ", " + Twine(coord[1]) : Twine("")) +
                    ") of an unclipped view of argument " + Twine(m.arg) +
                    " lies outside the tensor");
    } else if (m.kind == MemTile::Gather) {
      int64_t row = coord[m.perm[0] == 0 ? 0 : 1];
      int64_t col = coord[m.perm[0] == 0 ? 1 : 0];
      t = {m.rows[row], m.offsets[1] + col};
      if (t[0] < 0 || t[0] >= sizes[0] || t[1] < 0 || t[1] >= sizes[1]) {
        if (op)
          return fail(op, "gathered row " + Twine(t[0]) + " column " +
                              Twine(t[1]) + " lies outside the tensor");
        inside = false;
      }
    } else { // Im2col
      int64_t p = m.offsets[0] + coord[m.perm[0] == 0 ? 0 : 1];
      int64_t k = m.offsets[1] + coord[m.perm[0] == 0 ? 1 : 0];
      size_t sd = rank - 2; // spatial dims
      int64_t C = sizes[rank - 1];
      std::vector<int64_t> outSz(sd);
      int64_t rowsTotal = sizes[0], colsTotal = C;
      for (size_t i = 0; i < sd; ++i) {
        outSz[i] = (sizes[1 + i] + 2 * m.pad[i] -
                    m.dilation[i] * (m.window[i] - 1) - 1) /
                       m.stride[i] +
                   1;
        rowsTotal *= outSz[i];
        colsTotal *= m.window[i];
      }
      if (p >= rowsTotal || k >= colsTotal) {
        inside = false;
      } else {
        t.assign(rank, 0);
        t[rank - 1] = k % C;
        int64_t kk = k / C;
        int64_t pp = p;
        for (int i = static_cast<int>(sd) - 1; i >= 0; --i) {
          int64_t ri = kk % m.window[i];
          kk /= m.window[i];
          int64_t oi = pp % outSz[i];
          pp /= outSz[i];
          t[1 + i] = oi * m.stride[i] + ri * m.dilation[i] - m.pad[i];
          if (t[1 + i] < 0 || t[1 + i] >= sizes[1 + i])
            inside = false;
        }
        t[0] = pp;
      }
    }
    if (!inside)
      continue;
    int64_t lin = 0;
    for (size_t d = 0; d < rank; ++d)
      lin += t[d] * strides[d];
    where[e] = lin;
  }
  return success();
}

LogicalResult BlockRun::readTile(Operation *op, const MemTile &m, Tile &out,
                                 double other) {
  std::vector<int64_t> where;
  if (failed(locate(op, m, where)))
    return failure();
  out.shape = m.shape;
  out.elt = m.elt;
  out.v.resize(where.size());
  if (m.kind == MemTile::Shared)
    for (size_t e = 0; e < where.size(); ++e)
      if (!m.store->init[where[e]]) {
        std::string coord;
        int64_t r = static_cast<int64_t>(e);
        for (int d = static_cast<int>(m.shape.size()) - 1; d >= 0; --d) {
          coord = std::to_string(r % m.shape[d]) + (coord.empty() ? "" : ", ") +
                  coord;
          r /= m.shape[d];
        }
        return fail(op, "reads element (" + coord + ") of shared stage " +
                            m.store->name + ", which nothing wrote");
      }
  double *s = storage(m);
  for (size_t e = 0; e < where.size(); ++e)
    out.v[e] = where[e] >= 0 ? s[where[e]] : other;
  return success();
}

LogicalResult BlockRun::writeTile(Operation *op, const MemTile &m,
                                  const Tile &in,
                                  std::optional<AtomicKind> atomic) {
  if (m.kind == MemTile::Im2col || m.kind == MemTile::Gather) {
    if (m.kind == MemTile::Im2col)
      return fail(op, "an im2col view is read-only");
  }
  std::vector<int64_t> where;
  if (failed(locate(op, m, where)))
    return failure();
  markWritten(m);
  double *s = storage(m);
  for (size_t e = 0; e < where.size(); ++e) {
    if (where[e] < 0)
      continue;
    if (m.kind == MemTile::Shared)
      m.store->init[where[e]] = 1;
    curElement = static_cast<int64_t>(e);
    recordWriter(m, where[e]);
    double v = in.v[e];
    double &d = s[where[e]];
    if (atomic) {
      switch (*atomic) {
      case AtomicKind::Add:
        v = d + v;
        break;
      case AtomicKind::Max:
        v = std::max(d, v);
        break;
      case AtomicKind::Min:
        v = std::min(d, v);
        break;
      }
    }
    d = roundTo(m.elt, v);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult BlockRun::run(std::string &error) {
  Block &entry = fn.getBody().front();
  for (auto [i, a] : llvm::enumerate(entry.getArguments())) {
    Val v;
    KernelArg &k = args[i];
    if (k.kind == KernelArg::Buffer) {
      v.kind = Val::Int;
      v.i = static_cast<int64_t>(i); // the argument number
    } else if (k.kind == KernelArg::Int) {
      v.kind = Val::Int;
      v.i = k.i;
    } else {
      v.kind = Val::Flt;
      v.f = k.f;
    }
    env[a] = v;
  }
  if (failed(execBlock(entry, nullptr))) {
    error = err;
    return failure();
  }
  return success();
}

LogicalResult BlockRun::execBlock(Block &block, SmallVectorImpl<Val> *yielded) {
  for (auto it = block.begin(); it != block.end(); ++it) {
    Operation &op = *it;
    if (auto role = dyn_cast<RoleOp>(&op)) {
      // Consecutive roles run together, as cooperative tasks.
      SmallVector<RoleOp> roles;
      auto last = it;
      for (auto j = it; j != block.end() && isa<RoleOp>(*j); ++j) {
        roles.push_back(cast<RoleOp>(*j));
        last = j;
      }
      if (cur)
        return fail(&op, "a role inside a role");
      if (failed(runRoles(roles)))
        return failure();
      it = last;
      continue;
    }
    bool terminated = false;
    if (failed(exec(&op, yielded, terminated)))
      return failure();
    if (terminated)
      break;
  }
  return success();
}

static bool isFloatLike(Type t) { return isa<FloatType>(t); }

LogicalResult BlockRun::exec(Operation *op, SmallVectorImpl<Val> *yielded,
                             bool &terminated) {
  ++steps;
  curOp = op;
  if (options.stepBudget > 0 && steps > options.stepBudget)
    return fail(op, "the step budget of " + Twine(options.stepBudget) +
                        " ops is spent");
  if (isa<func::ReturnOp>(op)) {
    terminated = true;
    return success();
  }
  if (auto y = dyn_cast<scf::YieldOp>(op)) {
    if (yielded) {
      yielded->clear();
      for (Value v : y.getOperands())
        yielded->push_back(env[v]);
    }
    terminated = true;
    return success();
  }
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    int64_t lb = intOf(forOp.getLowerBound()),
            ub = intOf(forOp.getUpperBound()), st = intOf(forOp.getStep());
    if (st <= 0)
      return fail(op, "loop step " + Twine(st) + " is not positive");
    SmallVector<Val> carried;
    for (Value v : forOp.getInitArgs())
      carried.push_back(env[v]);
    Block &body = *forOp.getBody();
    ivs().push_back(lb);
    for (int64_t iv = lb; iv < ub; iv += st) {
      ivs().back() = iv;
      setInt(body.getArgument(0), iv);
      for (auto [j, c] : llvm::enumerate(carried))
        env[body.getArgument(j + 1)] = c;
      SmallVector<Val> out;
      if (failed(execBlock(body, &out)))
        return failure();
      carried = out;
    }
    ivs().pop_back();
    for (auto [j, r] : llvm::enumerate(forOp.getResults()))
      env[r] = carried[j];
    return success();
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    bool c = intOf(ifOp.getCondition()) != 0;
    Region &r = c ? ifOp.getThenRegion() : ifOp.getElseRegion();
    SmallVector<Val> out;
    if (!r.empty() && failed(execBlock(r.front(), &out)))
      return failure();
    for (auto [j, res] : llvm::enumerate(ifOp.getResults()))
      env[res] = out[j];
    return success();
  }
  if (auto bid = dyn_cast<gpu::BlockIdOp>(op)) {
    setInt(bid, blockId[static_cast<int>(bid.getDimension())]);
    return success();
  }
  if (auto gd = dyn_cast<gpu::GridDimOp>(op)) {
    setInt(gd, grid[static_cast<int>(gd.getDimension())]);
    return success();
  }
  if (auto bd = dyn_cast<gpu::BlockDimOp>(op)) {
    auto k = fn->getAttrOfType<KernelAttr>("argus.kernel");
    int d = static_cast<int>(bd.getDimension());
    int64_t n = 1;
    if (k && d < static_cast<int>(k.getBlock().size()))
      n = k.getBlock()[d];
    setInt(bd, n);
    return success();
  }
  if (auto dim = dyn_cast<memref::DimOp>(op)) {
    auto idx = getConstantIntValue(dim.getIndex());
    int64_t d = idx ? *idx : intOf(dim.getIndex());
    const HostBuffer &b = args[intOf(dim.getSource())].buffer;
    if (d < 0 || d >= static_cast<int64_t>(b.shape.size()))
      return fail(op, "dimension " + Twine(d) + " out of range");
    setInt(dim, b.shape[d]);
    return success();
  }
  if (auto ld = dyn_cast<memref::LoadOp>(op)) {
    const HostBuffer &b = args[intOf(ld.getMemref())].buffer;
    int64_t lin = 0;
    for (auto [d, ix] : llvm::enumerate(ld.getIndices())) {
      int64_t i = intOf(ix);
      if (i < 0 || i >= b.shape[d])
        return fail(op, "index " + Twine(i) + " of dimension " + Twine(d) +
                            " is outside the tensor (size " +
                            Twine(b.shape[d]) + ")");
      lin = lin * b.shape[d] + i;
    }
    double x = b.data[lin];
    if (isFloatLike(ld.getType()))
      setFlt(ld, x);
    else
      setInt(ld, static_cast<int64_t>(x));
    return success();
  }
  bool handled = false;
  if (failed(execArith(op, handled)))
    return failure();
  if (handled)
    return success();
  if (failed(execArgus(op, handled)))
    return failure();
  if (handled)
    return success();
  return fail(op, "the interpreter does not support this op");
}

//===----------------------------------------------------------------------===//
// arith
//===----------------------------------------------------------------------===//

static int64_t wrapInt(Type t, int64_t x) {
  if (auto it = dyn_cast<IntegerType>(t)) {
    unsigned w = it.getWidth();
    if (w >= 64)
      return x;
    uint64_t m = (uint64_t(1) << w) - 1, u = static_cast<uint64_t>(x) & m;
    if (w == 1)
      return static_cast<int64_t>(u);
    if (u >> (w - 1))
      return static_cast<int64_t>(u) - static_cast<int64_t>(m) - 1;
    return static_cast<int64_t>(u);
  }
  return x;
}

static uint64_t unsignedOf(Type t, int64_t x) {
  if (auto it = dyn_cast<IntegerType>(t))
    if (it.getWidth() < 64)
      return static_cast<uint64_t>(x) & ((uint64_t(1) << it.getWidth()) - 1);
  return static_cast<uint64_t>(x);
}

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

static bool cmpInt(arith::CmpIPredicate p, Type t, int64_t a, int64_t b) {
  uint64_t ua = unsignedOf(t, a), ub = unsignedOf(t, b);
  switch (p) {
  case arith::CmpIPredicate::eq:
    return a == b;
  case arith::CmpIPredicate::ne:
    return a != b;
  case arith::CmpIPredicate::slt:
    return a < b;
  case arith::CmpIPredicate::sle:
    return a <= b;
  case arith::CmpIPredicate::sgt:
    return a > b;
  case arith::CmpIPredicate::sge:
    return a >= b;
  case arith::CmpIPredicate::ult:
    return ua < ub;
  case arith::CmpIPredicate::ule:
    return ua <= ub;
  case arith::CmpIPredicate::ugt:
    return ua > ub;
  case arith::CmpIPredicate::uge:
    return ua >= ub;
  }
  return false;
}

static bool cmpFlt(arith::CmpFPredicate p, double a, double b) {
  bool uno = std::isnan(a) || std::isnan(b);
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::AlwaysFalse:
    return false;
  case P::AlwaysTrue:
    return true;
  case P::OEQ:
    return !uno && a == b;
  case P::OGT:
    return !uno && a > b;
  case P::OGE:
    return !uno && a >= b;
  case P::OLT:
    return !uno && a < b;
  case P::OLE:
    return !uno && a <= b;
  case P::ONE:
    return !uno && a != b;
  case P::ORD:
    return !uno;
  case P::UEQ:
    return uno || a == b;
  case P::UGT:
    return uno || a > b;
  case P::UGE:
    return uno || a >= b;
  case P::ULT:
    return uno || a < b;
  case P::ULE:
    return uno || a <= b;
  case P::UNE:
    return uno || a != b;
  case P::UNO:
    return uno;
  }
  return false;
}

LogicalResult BlockRun::execArith(Operation *op, bool &handled) {
  handled = true;
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    Attribute v = c.getValue();
    if (auto ia = dyn_cast<IntegerAttr>(v)) {
      setInt(c, ia.getType().isIndex()
                    ? ia.getInt()
                    : wrapInt(ia.getType(), ia.getValue().getSExtValue()));
      return success();
    }
    if (auto fa = dyn_cast<FloatAttr>(v)) {
      setFlt(c, fa.getValueAsDouble());
      return success();
    }
    return fail(op, "only scalar integer and float constants are supported");
  }
  Type rt = op->getNumResults() == 1 ? op->getResult(0).getType() : Type();
  auto bin = [&](auto f) {
    int64_t a = intOf(op->getOperand(0)), b = intOf(op->getOperand(1));
    setInt(op->getResult(0), wrapInt(rt, f(a, b)));
    return success();
  };
  auto binf = [&](auto f) {
    double a = fltOf(op->getOperand(0)), b = fltOf(op->getOperand(1));
    setFlt(op->getResult(0), roundTo(rt, f(a, b)));
    return success();
  };
  auto divCheck = [&]() -> bool { return intOf(op->getOperand(1)) == 0; };
  if (isa<arith::AddIOp>(op))
    return bin([](int64_t a, int64_t b) { return a + b; });
  if (isa<arith::SubIOp>(op))
    return bin([](int64_t a, int64_t b) { return a - b; });
  if (isa<arith::MulIOp>(op))
    return bin([](int64_t a, int64_t b) { return a * b; });
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
          arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op)) {
    if (divCheck())
      return fail(op, "division by zero");
    Type ot = op->getOperand(0).getType();
    int64_t a = intOf(op->getOperand(0)), b = intOf(op->getOperand(1));
    uint64_t ua = unsignedOf(ot, a), ub = unsignedOf(ot, b);
    int64_t r = 0;
    if (isa<arith::DivSIOp>(op))
      r = a / b;
    else if (isa<arith::DivUIOp>(op))
      r = static_cast<int64_t>(ua / ub);
    else if (isa<arith::RemSIOp>(op))
      r = a % b;
    else if (isa<arith::RemUIOp>(op))
      r = static_cast<int64_t>(ua % ub);
    else if (isa<arith::CeilDivSIOp>(op))
      r = -floorDiv(-a, b);
    else if (isa<arith::CeilDivUIOp>(op))
      r = static_cast<int64_t>((ua + ub - 1) / ub);
    else
      r = floorDiv(a, b);
    setInt(op->getResult(0), wrapInt(rt, r));
    return success();
  }
  if (isa<arith::MinSIOp>(op))
    return bin([](int64_t a, int64_t b) { return std::min(a, b); });
  if (isa<arith::MaxSIOp>(op))
    return bin([](int64_t a, int64_t b) { return std::max(a, b); });
  if (isa<arith::MinUIOp, arith::MaxUIOp>(op)) {
    Type ot = op->getOperand(0).getType();
    int64_t a = intOf(op->getOperand(0)), b = intOf(op->getOperand(1));
    bool lt = unsignedOf(ot, a) < unsignedOf(ot, b);
    setInt(op->getResult(0), isa<arith::MinUIOp>(op) == lt ? a : b);
    return success();
  }
  if (isa<arith::AndIOp>(op))
    return bin([](int64_t a, int64_t b) { return a & b; });
  if (isa<arith::OrIOp>(op))
    return bin([](int64_t a, int64_t b) { return a | b; });
  if (isa<arith::XOrIOp>(op))
    return bin([](int64_t a, int64_t b) { return a ^ b; });
  if (isa<arith::ShLIOp>(op))
    return bin([](int64_t a, int64_t b) { return b >= 64 ? 0 : a << b; });
  if (isa<arith::ShRSIOp>(op))
    return bin(
        [](int64_t a, int64_t b) { return a >> std::min<int64_t>(b, 63); });
  if (isa<arith::ShRUIOp>(op)) {
    Type ot = op->getOperand(0).getType();
    uint64_t a = unsignedOf(ot, intOf(op->getOperand(0)));
    int64_t b = intOf(op->getOperand(1));
    setInt(op->getResult(0),
           wrapInt(rt, b >= 64 ? 0 : static_cast<int64_t>(a >> b)));
    return success();
  }
  if (auto c = dyn_cast<arith::CmpIOp>(op)) {
    setInt(c, cmpInt(c.getPredicate(), c.getLhs().getType(), intOf(c.getLhs()),
                     intOf(c.getRhs())));
    return success();
  }
  if (auto c = dyn_cast<arith::CmpFOp>(op)) {
    setInt(c, cmpFlt(c.getPredicate(), fltOf(c.getLhs()), fltOf(c.getRhs())));
    return success();
  }
  if (auto s = dyn_cast<arith::SelectOp>(op)) {
    if (!s.getCondition().getType().isInteger(1))
      return fail(op, "only scalar selects are supported");
    Val v = env[intOf(s.getCondition()) ? s.getTrueValue() : s.getFalseValue()];
    env[s.getResult()] = v;
    return success();
  }
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(op)) {
    setInt(op->getResult(0), wrapInt(rt, intOf(op->getOperand(0))));
    return success();
  }
  if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op)) {
    Type ot = op->getOperand(0).getType();
    setInt(op->getResult(0), wrapInt(rt, static_cast<int64_t>(unsignedOf(
                                             ot, intOf(op->getOperand(0))))));
    return success();
  }
  if (isa<arith::SIToFPOp>(op)) {
    setFlt(op->getResult(0),
           roundTo(rt, static_cast<double>(intOf(op->getOperand(0)))));
    return success();
  }
  if (isa<arith::UIToFPOp>(op)) {
    Type ot = op->getOperand(0).getType();
    setFlt(op->getResult(0), roundTo(rt, static_cast<double>(unsignedOf(
                                             ot, intOf(op->getOperand(0))))));
    return success();
  }
  if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    double x = fltOf(op->getOperand(0));
    if (!std::isfinite(x))
      return fail(op, "converting a non-finite value to an integer");
    setInt(op->getResult(0), wrapInt(rt, static_cast<int64_t>(x)));
    return success();
  }
  if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    setFlt(op->getResult(0), roundTo(rt, fltOf(op->getOperand(0))));
    return success();
  }
  if (isa<arith::NegFOp>(op)) {
    setFlt(op->getResult(0), -fltOf(op->getOperand(0)));
    return success();
  }
  if (isa<arith::AddFOp>(op))
    return binf([](double a, double b) { return a + b; });
  if (isa<arith::SubFOp>(op))
    return binf([](double a, double b) { return a - b; });
  if (isa<arith::MulFOp>(op))
    return binf([](double a, double b) { return a * b; });
  if (isa<arith::DivFOp>(op))
    return binf([](double a, double b) { return a / b; });
  if (isa<arith::MaxNumFOp>(op))
    return binf([](double a, double b) { return std::fmax(a, b); });
  if (isa<arith::MinNumFOp>(op))
    return binf([](double a, double b) { return std::fmin(a, b); });
  if (isa<arith::MaximumFOp>(op))
    return binf([](double a, double b) {
      return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
    });
  if (isa<arith::MinimumFOp>(op))
    return binf([](double a, double b) {
      return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
    });
  handled = false;
  return success();
}

//===----------------------------------------------------------------------===//
// argus
//===----------------------------------------------------------------------===//

static double applyUnary(Operation *op, double x) {
  if (isa<ExpOp>(op))
    return std::exp(x);
  if (isa<Exp2Op>(op))
    return std::exp2(x);
  if (isa<NegOp>(op))
    return -x;
  if (isa<AbsOp>(op))
    return std::fabs(x);
  if (isa<ReluOp>(op))
    return x > 0 ? x : 0.0;
  if (isa<SqrtOp>(op))
    return std::sqrt(x);
  if (isa<RsqrtOp>(op))
    return 1.0 / std::sqrt(x);
  if (isa<LogOp>(op))
    return std::log(x);
  if (isa<Log2Op>(op))
    return std::log2(x);
  if (isa<TanhOp>(op))
    return std::tanh(x);
  if (isa<SigmoidOp>(op))
    return 1.0 / (1.0 + std::exp(-x));
  if (isa<GeluOp>(op))
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  return NAN;
}

static bool isUnary(Operation *op) {
  return isa<ExpOp, Exp2Op, NegOp, AbsOp, ReluOp, SqrtOp, RsqrtOp, LogOp,
             Log2Op, TanhOp, SigmoidOp, GeluOp>(op);
}

static double reduceStep(ReduceKind k, double a, double b) {
  switch (k) {
  case ReduceKind::Sum:
    return a + b;
  case ReduceKind::Prod:
    return a * b;
  case ReduceKind::Max:
    return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
  case ReduceKind::Min:
    return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
  }
  return a;
}

/// Operand rounding of a matrix instruction: tf32 instructions read f32
/// operands as tf32.
static bool isTf32Instr(StringRef instr) {
  return instr.contains("tf32") || instr.contains("xf32");
}

LogicalResult BlockRun::execArgus(Operation *op, bool &handled) {
  handled = true;
  // Markers, annotations and block-collective no-ops.
  if (isa<RegionBeginOp, RegionEndOp, TagAssertOp, ReducedOp, BarrierOp,
          AssumeIndicesOp>(op))
    return success();
  if (auto tag = dyn_cast<TagOp>(op)) {
    Val v = env[tag.getInput()];
    env[tag.getResult()] = v;
    return success();
  }
  if (auto as = dyn_cast<AssumeOp>(op)) {
    if (!intOf(as.getCondition()))
      return fail(op, "the launch violates the kernel's assumption \"" +
                          as.getMessage() + "\"");
    return success();
  }
  if (auto v = dyn_cast<ViewOp>(op)) {
    auto m = std::make_shared<MemTile>();
    auto tt = cast<TileType>(v.getType());
    m->kind = MemTile::View;
    m->shape.assign(tt.getShape().begin(), tt.getShape().end());
    m->elt = tt.getElementType();
    m->arg = static_cast<int>(intOf(v.getTensor()));
    for (Value o : v.getOffsets())
      m->offsets.push_back(intOf(o));
    size_t rank = args[m->arg].buffer.shape.size();
    if (m->offsets.size() != rank || m->shape.size() > rank)
      return fail(op, "view offsets do not match the tensor's rank");
    m->clipped = v.getClipped();
    for (Value b : v.getBounds())
      m->bounds.push_back(intOf(b));
    for (size_t i = 0; i < m->shape.size(); ++i)
      m->perm.push_back(static_cast<int>(i));
    setMem(v, m);
    return success();
  }
  if (auto g = dyn_cast<GatherViewOp>(op)) {
    auto m = std::make_shared<MemTile>();
    auto tt = cast<TileType>(g.getType());
    m->kind = MemTile::Gather;
    m->shape.assign(tt.getShape().begin(), tt.getShape().end());
    m->elt = tt.getElementType();
    m->arg = static_cast<int>(intOf(g.getTensor()));
    if (m->shape.size() != 2 || args[m->arg].buffer.shape.size() != 2)
      return fail(op, "only 2-D gathers are supported");
    m->offsets = {0, intOf(g.getCol())};
    m->perm = {0, 1};
    for (double r : tileOf(g.getIndices())->v)
      m->rows.push_back(static_cast<int64_t>(r));
    setMem(g, m);
    return success();
  }
  if (auto g = dyn_cast<Im2colViewOp>(op)) {
    auto m = std::make_shared<MemTile>();
    auto tt = cast<TileType>(g.getType());
    m->kind = MemTile::Im2col;
    m->shape.assign(tt.getShape().begin(), tt.getShape().end());
    m->elt = tt.getElementType();
    m->arg = static_cast<int>(intOf(g.getTensor()));
    m->offsets = {intOf(g.getRow()), intOf(g.getCol())};
    m->perm = {0, 1};
    m->window.assign(g.getWindow().begin(), g.getWindow().end());
    m->stride.assign(g.getStride().begin(), g.getStride().end());
    m->pad.assign(g.getPad().begin(), g.getPad().end());
    m->dilation.assign(g.getDilation().begin(), g.getDilation().end());
    setMem(g, m);
    return success();
  }
  if (auto a = dyn_cast<AllocOp>(op)) {
    auto bt = cast<BufferType>(a.getType());
    auto b = std::make_shared<Buffer>();
    b->tile = bt.getTile();
    for (int64_t s = 0; s < bt.getStages(); ++s) {
      b->stages.push_back(std::make_shared<SharedStore>());
      b->stages.back()->name = (a.getName() + "[" + Twine(s) + "]").str();
    }
    Val v;
    v.kind = Val::Buf;
    v.b = b;
    env[a.getResult()] = v;
    return success();
  }
  if (auto s = dyn_cast<StageOp>(op)) {
    auto b = env[s.getBuffer()].b;
    int64_t i = intOf(s.getIndex());
    if (i < 0 || i >= static_cast<int64_t>(b->stages.size()))
      return fail(op, "stage " + Twine(i) + " of a buffer of " +
                          Twine(b->stages.size()) + " stages");
    auto m = std::make_shared<MemTile>();
    auto tt = cast<TileType>(s.getType());
    m->kind = MemTile::Shared;
    m->shape.assign(tt.getShape().begin(), tt.getShape().end());
    m->elt = tt.getElementType();
    m->store = b->stages[i];
    m->type = tt;
    setMem(s, m);
    return success();
  }
  if (isa<TransposeOp, ReinterpretOp>(op)) {
    auto in = memOf(op->getOperand(0));
    auto tt = cast<TileType>(op->getResult(0).getType());
    auto m = std::make_shared<MemTile>(*in);
    m->shape.assign(tt.getShape().begin(), tt.getShape().end());
    m->elt = tt.getElementType();
    if (m->kind == MemTile::Shared) {
      m->type = tt; // the result's layout addresses the same store
    } else if (isa<TransposeOp>(op)) {
      if (m->shape.size() != 2)
        return fail(op, "only 2-D transposes are supported");
      std::swap(m->perm[0], m->perm[1]);
    } else {
      return fail(op, "reinterpreting a global tile is not supported");
    }
    setMem(op->getResult(0), m);
    return success();
  }
  if (auto ld = dyn_cast<LoadOp>(op)) {
    double other = 0;
    if (auto o = ld.getOther()) {
      if (auto fa = dyn_cast<FloatAttr>(*o))
        other = fa.getValueAsDouble();
      else if (auto ia = dyn_cast<IntegerAttr>(*o))
        other = static_cast<double>(ia.getInt());
    }
    auto t = newTile(ld.getResult());
    if (failed(readTile(op, *memOf(ld.getSource()), *t, other)))
      return failure();
    t->elt = cast<TileType>(ld.getType()).getElementType();
    setTile(ld.getResult(), t);
    return success();
  }
  if (auto st = dyn_cast<StoreOp>(op)) {
    std::optional<AtomicKind> atomic;
    if (auto a = st.getAtomic())
      atomic = *a;
    if (options.trackWriters)
      curThreads = holders(op, cast<TileType>(st.getValue().getType()));
    LogicalResult r =
        writeTile(op, *memOf(st.getDest()), *tileOf(st.getValue()), atomic);
    curThreads = nullptr;
    return r;
  }
  if (auto cp = dyn_cast<CopyOp>(op)) {
    Tile t;
    if (failed(readTile(op, *memOf(cp.getSource()), t, 0)))
      return failure();
    return writeTile(op, *memOf(cp.getDest()), t, std::nullopt);
  }
  if (auto cp = dyn_cast<CopyAsyncOp>(op)) {
    AsyncCopy c;
    if (failed(readTile(op, *memOf(cp.getSource()), c.data, 0)))
      return failure();
    c.dst = memOf(cp.getDest());
    std::vector<int64_t> where; // check the destination now
    if (failed(locate(op, *c.dst, where)))
      return failure();
    uncommitted.push_back(std::move(c));
    return success();
  }
  if (isa<CommitGroupOp>(op)) {
    groups.push_back(std::move(uncommitted));
    uncommitted.clear();
    return success();
  }
  if (auto w = dyn_cast<WaitGroupOp>(op)) {
    retireGroups(w.getPending());
    return success();
  }
  if (isa<ConvertLayoutOp>(op)) {
    Val v = env[op->getOperand(0)];
    env[op->getResult(0)] = v;
    return success();
  }
  if (auto f = dyn_cast<FillOp>(op)) {
    auto t = newTile(f.getResult());
    double x = roundTo(t->elt, f.getValue().convertToDouble());
    std::fill(t->v.begin(), t->v.end(), x);
    setTile(f.getResult(), t);
    return success();
  }
  if (auto s = dyn_cast<SplatOp>(op)) {
    auto t = newTile(s.getResult());
    Val &sv = env[s.getValue()];
    double x = sv.kind == Val::Flt ? sv.f : static_cast<double>(sv.i);
    x = roundTo(t->elt, x);
    std::fill(t->v.begin(), t->v.end(), x);
    setTile(s.getResult(), t);
    return success();
  }
  if (auto io = dyn_cast<IotaOp>(op)) {
    auto t = newTile(io.getResult());
    int64_t d = io.getDim();
    int64_t inner = 1;
    for (size_t i = d + 1; i < t->shape.size(); ++i)
      inner *= t->shape[i];
    for (size_t e = 0; e < t->v.size(); ++e)
      t->v[e] = roundTo(t->elt, static_cast<double>((e / inner) % t->shape[d]));
    setTile(io.getResult(), t);
    return success();
  }
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>(op)) {
    auto a = tileOf(op->getOperand(0)), b = tileOf(op->getOperand(1));
    auto t = newTile(op->getResult(0));
    bool isInt = !isFloatLike(t->elt);
    for (size_t e = 0; e < t->v.size(); ++e) {
      double x = a->v[e], y = b->v[e], r;
      if (isa<AddOp>(op))
        r = x + y;
      else if (isa<SubOp>(op))
        r = x - y;
      else if (isa<MulOp>(op))
        r = x * y;
      else if (isa<DivOp>(op)) {
        if (isInt) {
          if (y == 0)
            return fail(op, "integer division by zero at element " + Twine(e));
          r = std::trunc(x / y);
        } else {
          r = x / y;
        }
      } else if (isa<MaxOp>(op))
        r = std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
      else
        r = std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
      t->v[e] = roundTo(t->elt, r);
    }
    setTile(op->getResult(0), t);
    return success();
  }
  if (isUnary(op)) {
    auto a = tileOf(op->getOperand(0));
    auto t = newTile(op->getResult(0));
    for (size_t e = 0; e < t->v.size(); ++e)
      t->v[e] = roundTo(t->elt, applyUnary(op, a->v[e]));
    setTile(op->getResult(0), t);
    return success();
  }
  if (auto sc = dyn_cast<ScaleOp>(op)) {
    auto a = tileOf(sc.getInput());
    auto t = newTile(sc.getResult());
    double f = sc.getFactor().convertToDouble();
    for (size_t e = 0; e < t->v.size(); ++e)
      t->v[e] = roundTo(t->elt, a->v[e] * f);
    setTile(sc.getResult(), t);
    return success();
  }
  if (auto cv = dyn_cast<ConvertOp>(op)) {
    auto a = tileOf(cv.getInput());
    auto t = newTile(cv.getResult());
    bool toInt = !isFloatLike(t->elt);
    for (size_t e = 0; e < t->v.size(); ++e) {
      double x = a->v[e];
      if (toInt && isFloatLike(a->elt)) {
        if (std::isnan(x))
          x = 0;
        x = std::trunc(x);
      }
      t->v[e] = roundTo(t->elt, x);
    }
    setTile(cv.getResult(), t);
    return success();
  }
  if (auto c = dyn_cast<CmpOp>(op)) {
    auto a = tileOf(c.getLhs()), b = tileOf(c.getRhs());
    auto t = newTile(c.getResult());
    for (size_t e = 0; e < t->v.size(); ++e) {
      double x = a->v[e], y = b->v[e];
      bool uno = std::isnan(x) || std::isnan(y), r = false;
      switch (c.getPredicate()) {
      case CmpPredicate::Lt:
        r = !uno && x < y;
        break;
      case CmpPredicate::Le:
        r = !uno && x <= y;
        break;
      case CmpPredicate::Gt:
        r = !uno && x > y;
        break;
      case CmpPredicate::Ge:
        r = !uno && x >= y;
        break;
      case CmpPredicate::Eq:
        r = !uno && x == y;
        break;
      case CmpPredicate::Ne:
        r = uno || x != y;
        break;
      }
      t->v[e] = r ? 1 : 0;
    }
    setTile(c.getResult(), t);
    return success();
  }
  if (auto s = dyn_cast<SelectOp>(op)) {
    auto m = tileOf(s.getMask()), a = tileOf(s.getLhs()),
         b = tileOf(s.getRhs());
    auto t = newTile(s.getResult());
    for (size_t e = 0; e < t->v.size(); ++e)
      t->v[e] = m->v[e] != 0 ? a->v[e] : b->v[e];
    setTile(s.getResult(), t);
    return success();
  }
  if (isa<ReduceOp, ScanOp>(op)) {
    auto a = tileOf(op->getOperand(0));
    int64_t d = isa<ReduceOp>(op) ? cast<ReduceOp>(op).getDim()
                                  : cast<ScanOp>(op).getDim();
    ReduceKind k = isa<ReduceOp>(op) ? cast<ReduceOp>(op).getKind()
                                     : cast<ScanOp>(op).getKind();
    auto t = newTile(op->getResult(0));
    int64_t outer = 1, inner = 1, len = a->shape[d];
    for (int64_t i = 0; i < d; ++i)
      outer *= a->shape[i];
    for (size_t i = d + 1; i < a->shape.size(); ++i)
      inner *= a->shape[i];
    bool scan = isa<ScanOp>(op);
    if (!scan && static_cast<int64_t>(t->v.size()) != outer * inner)
      return fail(op, "the result does not have the input's shape without "
                      "the reduced dimension");
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        double acc = 0;
        for (int64_t j = 0; j < len; ++j) {
          double x = a->v[(o * len + j) * inner + i];
          acc = j == 0 ? x : roundTo(t->elt, reduceStep(k, acc, x));
          if (scan)
            t->v[(o * len + j) * inner + i] = acc;
        }
        if (!scan)
          t->v[o * inner + i] = len == 0 ? 0 : acc;
      }
    setTile(op->getResult(0), t);
    return success();
  }
  if (auto bc = dyn_cast<BroadcastOp>(op)) {
    auto a = tileOf(bc.getInput());
    auto t = newTile(bc.getResult());
    int64_t d = bc.getDim();
    int64_t outer = 1, inner = 1, len = t->shape[d];
    for (int64_t i = 0; i < d; ++i)
      outer *= t->shape[i];
    for (size_t i = d + 1; i < t->shape.size(); ++i)
      inner *= t->shape[i];
    if (static_cast<int64_t>(a->v.size()) != outer * inner)
      return fail(op, "the input does not have the result's shape without "
                      "the broadcast dimension");
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < len; ++j)
        for (int64_t i = 0; i < inner; ++i)
          t->v[(o * len + j) * inner + i] = a->v[o * inner + i];
    setTile(bc.getResult(), t);
    return success();
  }
  if (auto m = dyn_cast<MmaOp>(op))
    return mma(op, m.getInstr(), m.getA(), m.getB(), m.getAcc(), m.getResult());
  if (failed(execHopper(op, handled)))
    return failure();
  if (handled)
    return success();
  handled = false;
  return success();
}

LogicalResult BlockRun::mma(Operation *op, StringRef instr, Value aV, Value bV,
                            Value accV, Value resultV) {
  {
    auto operand = [&](Value v, Tile &out) -> LogicalResult {
      Val &x = env[v];
      if (x.kind == Val::TileV) {
        out = *x.t;
        return success();
      }
      return readTile(op, *x.m, out, 0);
    };
    Tile A, B;
    if (failed(operand(aV, A)) || failed(operand(bV, B)))
      return failure();
    auto acc = tileOf(accV);
    if (A.shape.size() != 2 || B.shape.size() != 2 || acc->shape.size() != 2 ||
        A.shape[1] != B.shape[0] || A.shape[0] != acc->shape[0] ||
        B.shape[1] != acc->shape[1])
      return fail(op, "operand shapes are not MxK, KxN, MxN");
    int64_t M = A.shape[0], K = A.shape[1], N = B.shape[1];
    if (isTf32Instr(instr)) {
      for (double &x : A.v)
        x = roundTf32(x);
      for (double &x : B.v)
        x = roundTf32(x);
    }
    // B column-major for the k loop.
    std::vector<double> bt(K * N);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        bt[n * K + k] = B.v[k * N + n];
    auto t = newTile(resultV);
    bool f32 = t->elt.isF32();
    bool isInt = !isFloatLike(t->elt);
    for (int64_t m = 0; m < M; ++m) {
      const double *a = &A.v[m * K];
      for (int64_t n = 0; n < N; ++n) {
        const double *b = &bt[n * K];
        double c = acc->v[m * N + n];
        if (f32) {
          for (int64_t k = 0; k < K; ++k)
            c = static_cast<float>(c + a[k] * b[k]);
        } else if (isInt) {
          for (int64_t k = 0; k < K; ++k)
            c += a[k] * b[k];
          c = roundTo(t->elt, c);
        } else {
          for (int64_t k = 0; k < K; ++k)
            c = roundTo(t->elt, c + a[k] * b[k]);
        }
        t->v[m * N + n] = c;
      }
    }
    setTile(resultV, t);
    return success();
  }
}

//===----------------------------------------------------------------------===//
// Hopper: warp roles, mbarriers, TMA, async wgmma, named barriers
//===----------------------------------------------------------------------===//

static thread_local BlockRun *gRun = nullptr;
static thread_local Task *gTask = nullptr;

void BlockRun::taskEntry() {
  BlockRun *run = gRun;
  Task *t = gTask;
  if (failed(run->execBlock(t->role.getBody().front(), nullptr))) {
    t->failed = true;
    t->err = run->err;
  }
  t->done = true;
  swapcontext(&t->ctx, &run->mainCtx);
}

LogicalResult BlockRun::waitUntil(Operation *op, std::function<bool()> cond,
                                  const std::string &what) {
  while (!cond()) {
    if (!cur)
      return fail(op, "deadlock: " + what +
                          " outside a role, and no role can complete it");
    Task *me = cur;
    me->blocked = true;
    me->ready = cond;
    me->waitOp = op;
    me->waitWhat = what;
    swapcontext(&me->ctx, &mainCtx);
    me->blocked = false;
    if (aborting)
      return fail(op, "aborted");
  }
  return success();
}

LogicalResult BlockRun::runRoles(ArrayRef<RoleOp> roles) {
  tasks.clear();
  for (RoleOp r : roles) {
    auto t = std::make_unique<Task>();
    t->role = r;
    t->threads = r.getNumWarps() * warpSize();
    t->stack.resize(1 << 20);
    getcontext(&t->ctx);
    t->ctx.uc_stack.ss_sp = t->stack.data();
    t->ctx.uc_stack.ss_size = t->stack.size();
    t->ctx.uc_link = &mainCtx;
    makecontext(&t->ctx, &BlockRun::taskEntry, 0);
    tasks.push_back(std::move(t));
  }
  size_t n = tasks.size(), last = n - 1;
  std::string failure;
  auto resume = [&](Task *t) {
    cur = t;
    gRun = this;
    gTask = t;
    t->started = true;
    swapcontext(&mainCtx, &t->ctx);
    cur = nullptr;
  };
  while (true) {
    SmallVector<size_t> runnable;
    bool allDone = true;
    for (size_t k = 1; k <= n; ++k) {
      size_t i = (last + k) % n; // round robin after the last one run
      Task *t = tasks[i].get();
      if (t->done)
        continue;
      allDone = false;
      if (!t->blocked || t->ready())
        runnable.push_back(i);
    }
    if (allDone)
      break;
    if (runnable.empty()) {
      std::string msg = "deadlock: no role can run;";
      for (auto &t : tasks) {
        if (t->done)
          continue;
        std::string loc;
        llvm::raw_string_ostream os(loc);
        t->waitOp->getLoc().print(os);
        msg += " role '" + t->role.getName().str() + "' waits at '" +
               t->waitOp->getName().getStringRef().str() + "' " + os.str() +
               " (" + t->waitWhat + ", loop iterations [";
        for (size_t j = 0; j < t->ivs.size(); ++j)
          msg += (j ? ", " : "") + std::to_string(t->ivs[j]);
        msg += "]);";
      }
      msg.pop_back();
      failure = msg + " (block (" + std::to_string(blockId[0]) + ", " +
                std::to_string(blockId[1]) + ", " + std::to_string(blockId[2]) +
                "))";
      break;
    }
    size_t pick = runnable.front();
    if (options.scheduleSeed)
      pick = runnable[rng() % runnable.size()];
    last = pick;
    Task *t = tasks[pick].get();
    resume(t);
    if (t->failed) {
      failure = "role '" + t->role.getName().str() + "': " + t->err;
      break;
    }
  }
  if (!failure.empty()) {
    // Unwind the roles that wait (their frames release what they hold).
    aborting = true;
    for (auto &t : tasks)
      if (t->started && !t->done)
        resume(t.get());
    aborting = false;
    tasks.clear();
    err = failure;
    return LogicalResult::failure();
  }
  tasks.clear();
  return success();
}

LogicalResult BlockRun::arrive(Operation *op, Ring &ring, int64_t stage,
                               int64_t count, int64_t tx) {
  if (stage < 0 || stage >= static_cast<int64_t>(ring.bars.size()))
    return fail(op, "barrier " + Twine(stage) + " of a ring of " +
                        Twine(ring.bars.size()));
  MBar &b = ring.bars[stage];
  b.tx += tx;
  b.pending -= count;
  if (b.pending < 0)
    return fail(op, "more arrivals on " + Twine(ring.name) + "[" +
                        Twine(stage) + "] than its phase expects (" +
                        Twine(b.expected) + ")");
  if (b.pending == 0 && b.tx <= 0) {
    ++b.completed;
    b.pending = b.expected;
    b.tx = 0;
  }
  return success();
}

LogicalResult BlockRun::execHopper(Operation *op, bool &handled) {
  handled = true;
  if (isa<TensorMapOp, FenceProxyAsyncOp, TmaStoreWaitOp, WgmmaCommitOp>(op))
    return success();
  if (auto ma = dyn_cast<MBarrierAllocOp>(op)) {
    auto ring = std::make_shared<Ring>();
    ring->name = ma.getName().str();
    int64_t stages = cast<MBarrierType>(ma.getType()).getStages();
    MBar b;
    b.expected = b.pending = static_cast<int64_t>(ma.getArrivals());
    ring->bars.assign(stages, b);
    Val v;
    v.kind = Val::None;
    v.ring = ring;
    env[ma.getResult()] = v;
    return success();
  }
  if (auto a = dyn_cast<MBarrierArriveOp>(op)) {
    if (a.getCluster())
      return fail(op, "cluster arrivals are not supported by the interpreter");
    return arrive(op, *env[a.getBarrier()].ring, intOf(a.getStage()),
                  threadsOf(op), 0);
  }
  if (auto a = dyn_cast<MBarrierArriveExpectTxOp>(op))
    return arrive(op, *env[a.getBarrier()].ring, intOf(a.getStage()), 1,
                  static_cast<int64_t>(a.getBytes()));
  if (auto w = dyn_cast<MBarrierWaitOp>(op)) {
    auto ring = env[w.getBarrier()].ring;
    int64_t stage = intOf(w.getStage()), parity = intOf(w.getParity()) & 1;
    if (stage < 0 || stage >= static_cast<int64_t>(ring->bars.size()))
      return fail(op, "barrier " + Twine(stage) + " of a ring of " +
                          Twine(ring->bars.size()));
    MBar *b = &ring->bars[stage];
    // try_wait.parity P returns once the phase of parity P has completed:
    // the current phase's parity differs from P.
    return waitUntil(
        op, [b, parity] { return (b->completed & 1) != parity; },
        ring->name + "[" + std::to_string(stage) + "] parity " +
            std::to_string(parity));
  }
  if (auto t = dyn_cast<TmaLoadOp>(op)) {
    if (t.getMulticast())
      return fail(op, "multicast TMA loads are not supported by the "
                      "interpreter");
    Tile data;
    MemTile src = *memOf(t.getSource());
    src.clipped = true; // the hardware's out-of-bounds fill
    if (failed(readTile(op, src, data, 0)) ||
        failed(writeTile(op, *memOf(t.getDest()), data, std::nullopt)))
      return failure();
    int64_t bytes = static_cast<int64_t>(data.v.size()) *
                    ((src.elt.getIntOrFloatBitWidth() + 7) / 8);
    Ring &ring = *env[t.getBarrier()].ring;
    int64_t stage = intOf(t.getStage());
    if (stage < 0 || stage >= static_cast<int64_t>(ring.bars.size()))
      return fail(op, "barrier " + Twine(stage) + " out of range");
    MBar &b = ring.bars[stage];
    b.tx -= bytes;
    if (b.pending == 0 && b.tx <= 0) {
      ++b.completed;
      b.pending = b.expected;
      b.tx = 0;
    }
    return success();
  }
  if (auto t = dyn_cast<TmaStoreOp>(op)) {
    Tile data;
    if (failed(readTile(op, *memOf(t.getSource()), data, 0)))
      return failure();
    MemTile dst = *memOf(t.getDest());
    dst.clipped = true; // TMA stores clip
    return writeTile(op, dst, data, std::nullopt);
  }
  if (auto m = dyn_cast<MmaAsyncOp>(op))
    return mma(op, m.getInstr(), m.getA(), m.getB(), m.getAcc(), m.getResult());
  if (auto w = dyn_cast<WgmmaWaitOp>(op)) {
    for (auto [r, v] : llvm::zip(w.getResults(), w.getValues())) {
      Val x = env[v];
      env[r] = x;
    }
    return success();
  }
  if (isa<NamedBarrierSyncOp, NamedBarrierArriveOp>(op)) {
    int64_t slot = intOf(op->getOperand(0));
    int64_t need =
        isa<NamedBarrierSyncOp>(op)
            ? static_cast<int64_t>(cast<NamedBarrierSyncOp>(op).getThreads())
            : static_cast<int64_t>(cast<NamedBarrierArriveOp>(op).getThreads());
    auto &[count, gen] = namedBars[slot];
    count += threadsOf(op);
    int64_t myGen = gen;
    if (count >= need) {
      count -= need;
      ++gen;
      return success();
    }
    if (isa<NamedBarrierArriveOp>(op))
      return success();
    int64_t *g = &namedBars[slot].second;
    return waitUntil(
        op, [g, myGen] { return *g != myGen; },
        "named barrier " + std::to_string(slot));
  }
  handled = false;
  return success();
}

} // namespace

Result runLaunch(func::FuncOp fn, std::vector<KernelArg> &args,
                 std::array<int64_t, 3> grid, const Options &options) {
  Result res;
  if (fn.getBody().empty()) {
    res.ok = false;
    res.error = "the kernel has no body";
    return res;
  }
  if (fn.getNumArguments() != args.size()) {
    res.ok = false;
    res.error = (fn.getName() + " takes " + Twine(fn.getNumArguments()) +
                 " arguments, got " + Twine(args.size()))
                    .str();
    return res;
  }
  for (auto [i, a] : llvm::enumerate(fn.getArgumentTypes())) {
    bool isBuf = isa<MemRefType>(a);
    if (isBuf != (args[i].kind == KernelArg::Buffer)) {
      res.ok = false;
      res.error = ("argument " + Twine(i) + " must be " +
                   (isBuf ? "an array" : "a scalar"))
                      .str();
      return res;
    }
    if (auto mt = dyn_cast<MemRefType>(a))
      if (mt.getRank() != static_cast<int64_t>(args[i].buffer.shape.size())) {
        res.ok = false;
        res.error =
            ("argument " + Twine(i) + " must have rank " + Twine(mt.getRank()))
                .str();
        return res;
      }
  }
  for (auto [i, a] : llvm::enumerate(fn.getArgumentTypes()))
    if (auto mt = dyn_cast<MemRefType>(a)) {
      HostBuffer &b = args[i].buffer;
      int64_t n = product(b.shape);
      Type elt = mt.getElementType();
      for (int64_t e = 0; e < n; ++e)
        b.data[e] = roundTo(elt, b.data[e]);
    }
  llvm::DenseMap<Operation *, int32_t> writerIds;
  if (options.trackWriters)
    for (KernelArg &a : args)
      if (a.kind == KernelArg::Buffer) {
        int64_t n = product(a.buffer.shape);
        a.writerBlock.assign(n, -1);
        a.writerOp.assign(n, -1);
        a.writerThread.assign(n, -1);
      }
  int64_t steps = 0;
  for (int64_t z = 0; z < grid[2]; ++z)
    for (int64_t y = 0; y < grid[1]; ++y)
      for (int64_t x = 0; x < grid[0]; ++x) {
        BlockRun run(fn, args, grid, {x, y, z}, options, steps);
        run.setWriters(static_cast<int32_t>(x + grid[0] * (y + grid[1] * z)),
                       &res.writerOps, &writerIds);
        std::string error;
        if (failed(run.run(error))) {
          res.ok = false;
          res.error = error;
          res.steps = steps;
          return res;
        }
      }
  res.steps = steps;
  return res;
}

} // namespace argus::interp
