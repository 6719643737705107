//===- ConcreteSim.cpp - concrete interpreter for argus kernels -----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "ConcreteSim.h"
#include "HappensBefore.h"
#include "SimAgents.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/ReplicaUniformity.h"
#include "argus/Dialect/TagFields.h"
#include "argus/Dialect/TagPredicate.h"
#include "argus/Dialect/TileLayouts.h"
#include "argus/Layout/Replication.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::sim {
namespace {

/// Tag fields and their values: a map kept as one sorted vector (an
/// element's tags are copied at every step; one allocation instead of a node
/// per field).
class Tags {
public:
  using Entry = std::pair<std::string, int64_t>;
  using iterator = std::vector<Entry>::iterator;
  using const_iterator = std::vector<Entry>::const_iterator;

private:
  // First entry not below `k`, of the vector or of a const view of it.
  template <typename Vector>
  static auto lowerBound(Vector &v, const std::string &k) {
    return std::lower_bound(
        v.begin(), v.end(), k,
        [](const Entry &e, const std::string &x) { return e.first < x; });
  }

public:
  int64_t &operator[](const std::string &k) {
    auto it = lowerBound(v, k);
    if (it == v.end() || it->first != k)
      it = v.insert(it, {k, 0});
    return it->second;
  }
  size_t count(const std::string &k) const { return find(k) != v.end(); }
  int64_t at(const std::string &k) const {
    auto it = find(k);
    if (it == v.end())
      throw std::out_of_range("no tag field " + k);
    return it->second;
  }
  const_iterator find(const std::string &k) const {
    auto it = lowerBound(v, k);
    return it != v.end() && it->first == k ? it : v.end();
  }
  iterator erase(const_iterator it) { return v.erase(it); }
  iterator begin() { return v.begin(); }
  iterator end() { return v.end(); }
  const_iterator begin() const { return v.begin(); }
  const_iterator end() const { return v.end(); }
  bool operator==(const Tags &o) const { return v == o.v; }
  bool operator!=(const Tags &o) const { return v != o.v; }

private:
  std::vector<Entry> v;
};

struct Fail : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t evalExpr(AffineExpr a, const std::vector<int64_t> &dims,
                 const std::vector<int64_t> &syms) {
  if (auto x = dyn_cast<AffineDimExpr>(a))
    return dims[x.getPosition()];
  if (auto x = dyn_cast<AffineSymbolExpr>(a))
    return syms[x.getPosition()];
  if (auto x = dyn_cast<AffineConstantExpr>(a))
    return x.getValue();
  auto b = cast<AffineBinaryOpExpr>(a);
  int64_t l = evalExpr(b.getLHS(), dims, syms),
          r = evalExpr(b.getRHS(), dims, syms);
  switch (a.getKind()) {
  case AffineExprKind::Add:
    return l + r;
  case AffineExprKind::Mul:
    return l * r;
  case AffineExprKind::FloorDiv:
    return fdiv(l, r);
  case AffineExprKind::CeilDiv:
    return -fdiv(-l, r);
  default:
    return l - fdiv(l, r) * r;
  }
}

/// The fields of `op` at tag coordinate `dims` with symbol values `syms`.
std::map<std::string, int64_t> mapTags(TagOp op,
                                       const std::vector<int64_t> &dims,
                                       const std::vector<int64_t> &syms) {
  std::map<std::string, int64_t> t;
  AffineMap map = op.getMap();
  for (unsigned j = 0; j < map.getNumResults(); ++j)
    t[cast<StringAttr>(op.getFields()[j]).getValue().str()] =
        evalExpr(map.getResult(j), dims, syms);
  return t;
}

/// The same index value: one SSA value, or the same pure op applied to the
/// same values (what CSE would merge).
bool sameValue(Value a, Value b, int depth = 0) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth > 8 || x->getName() != y->getName() ||
      x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getNumOperands() != y->getNumOperands() || x->getNumRegions() ||
      !isMemoryEffectFree(x) ||
      cast<OpResult>(a).getResultNumber() !=
          cast<OpResult>(b).getResultNumber())
    return false;
  for (unsigned i = 0; i < x->getNumOperands(); ++i)
    if (!sameValue(x->getOperand(i), y->getOperand(i), depth + 1))
      return false;
  return true;
}

struct Reg {
  std::vector<int64_t> shape;
  std::vector<std::optional<Tags>> e; // by colexicographic linear coordinate
  /// An accumulator's reduction so far: reduced field -> row -> the last
  /// index accumulated into that row (none: nothing accumulated yet).
  std::map<std::string, std::map<int64_t, int64_t>> reduced;
  /// The result of an asynchronous wgmma: written until its group retires.
  /// Once carried through a loop or a branch it is readable only through
  /// a wgmma_wait's result (the lowering orders the reads by that value).
  std::shared_ptr<Completion> pending;
  bool carried = false;
  /// The element values of an integer or mask tile where known (iota,
  /// splat, constants and what is computed from them): masks pick branches.
  std::vector<std::optional<int64_t>> val;
  /// With a declared range (argus.reduced): each row's reduced indices so
  /// far, sorted, in any order of accumulation.
  std::map<std::string, std::map<int64_t, std::vector<int64_t>>> seen;
};

struct Mem {
  bool shared = false, gather = false;
  bool clipped = false; // a boundary tile: elements outside do not exist
  const void *root = nullptr;
  std::string name;
  int64_t base = 0;
  L::SwizzledLayout layout;
  std::vector<int64_t> shape;
  std::vector<int64_t> offsets;
  std::vector<Value> offsetValues;
  std::vector<unsigned> perm; // root coordinate k = tile coordinate perm[k]
  int64_t tensor = -1;        // function-argument number of the root
  std::vector<int64_t> sizes; // the root tensor's sizes (global views)
  /// A clipped view's end per dimension: the size, or its `to` bound.
  std::vector<int64_t> clipAt;
  int64_t col = 0; // a gather's column offset
  /// A gather's rows: the position of each row's index in the index
  /// tensor (-1 where not known), which names the row of a gathered output.
  std::vector<int64_t> rowPositions;
  struct Direct {
    TagOp op;
    std::vector<int64_t> syms;
    std::vector<unsigned> perm;
  };
  std::vector<Direct> direct;
};

struct Cell {
  Tags tags;
  int64_t thread;
  bool landed;
  int64_t group;
  int64_t landBarrier;
  int64_t readEpoch = -1;    // barrier count of the readers below
  std::set<int64_t> readers; // threads that read since that barrier
};

int64_t numel(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}
std::vector<int64_t> coordsOf(int64_t lin, const std::vector<int64_t> &s) {
  std::vector<int64_t> c;
  for (int64_t d : s) {
    c.push_back(lin % d);
    lin /= d;
  }
  return c;
}
int64_t linOf(const std::vector<int64_t> &c, const std::vector<int64_t> &s) {
  int64_t l = 0, m = 1;
  for (size_t k = 0; k < s.size(); ++k) {
    l += c[k] * m;
    m *= s[k];
  }
  return l;
}

L::SwizzledLayout memLayoutOf(TileType t) {
  if (auto la = dyn_cast_or_null<LayoutAttr>(t.getLayout()))
    return la.getLayout();
  std::vector<L::IntTuple> el(t.getShape().begin(), t.getShape().end());
  return L::SwizzledLayout(L::Layout::compactRowMajor(L::IntTuple::tuple(el)));
}

/// A shared-memory cell of the asynchronous model: its tags, the access that
/// wrote it and the reads since.
struct AsyncCell {
  std::shared_ptr<const Tags> tags;
  std::shared_ptr<Access> write;
  std::vector<std::shared_ptr<Access>> reads;
  /// For a bulk copy's data: the slot its issuer waited on last before it
  /// (the ring whose release let it overwrite the cell); when it was written.
  const MBarrierSlot *guard = nullptr;
  uint64_t writtenAt = 0;
};

std::string describe(Operation *op, const std::vector<int64_t> &ivs) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << (op ? op->getName().getStringRef() : "kernel");
  if (op)
    os << " at " << op->getLoc();
  if (!ivs.empty()) {
    os << " (iteration";
    for (int64_t i : ivs)
      os << " " << i;
    os << ")";
  }
  return s;
}

/// The shared state of a run of the asynchronous model (sm_90a): the
/// blocks' shared memory and mbarriers, what the run found, and the agents
/// (one per role of each block, plus each block's entry code).
class World {
public:
  explicit World(int schedule)
      : agents(schedule, [this](const std::string &where) {
          record("deadlock", where);
        }) {}

  Agents agents;
  SimResult res;
  int64_t blockThreads = 0, clusterSize = 1, requestedRank = 0;
  std::map<std::pair<int64_t, const void *>, std::vector<AsyncCell>> buffers;
  std::map<std::tuple<int64_t, const void *, int64_t>, MBarrierSlot> barriers;
  size_t nextComponent = 0;
  /// For each slot that guards cells: the agents that read them in the
  /// phase in progress and the agents that arrived in it.
  struct PhaseUse {
    std::set<size_t> readers, arrivers;
  };
  std::map<const MBarrierSlot *, PhaseUse> phaseUse;
  /// Whether an agent read cells a slot guards since it last arrived on it.
  std::map<std::pair<const MBarrierSlot *, size_t>, bool> readSinceArrive;
  /// Ops run so far by all agents: the order of events across agents.
  uint64_t tick = 0;

  static constexpr size_t kShown = 8;
  void record(const std::string &kind, const std::string &where) {
    ++res.counts[kind];
    if (res.hazards.size() < kShown)
      res.hazards.push_back(kind + ": " + where);
  }

  /// Runs the agents; an agent's failure ends the run.
  void run() {
    agents.run();
    if (!agents.error().empty()) {
      res.ok = false;
      res.error = agents.error();
    }
  }
};

class Sim {
public:
  Sim(func::FuncOp f, const std::map<std::string, int64_t> &p,
      const std::vector<Probe> &pr, const std::vector<Event> &w, int samples,
      int64_t maxSteps)
      : func(f), params(p), probes(pr), watches(w), samples(samples),
        maxSteps(maxSteps) {}

  SimResult run() {
    try {
      runEntry();
    } catch (Fail &f) {
      res.ok = false;
      res.error = f.what();
    }
    return res;
  }

  /// Runs as an agent of `w`: the threads [lo, hi) (clock components) of
  /// the block of rank `r` in its cluster.
  void join(World *w, size_t id, int64_t r, int64_t lo, int64_t hi) {
    world = w;
    agentId = id;
    rank = r;
    sink = &w->res;
    clock.lo = lo;
    clock.hi = hi;
  }

  /// The kernel's body with its arguments bound.
  void runEntry() {
    for (BlockArgument a : func.getArguments()) {
      auto it = params.find("arg" + std::to_string(a.getArgNumber()));
      if (it != params.end())
        ints[a.getAsOpaquePointer()] = it->second;
    }
    exec(func.getBody().front());
  }

private:
  func::FuncOp func;
  std::map<std::string, int64_t> params;
  std::vector<Probe> probes;
  std::vector<Event> watches;
  int samples;
  int64_t maxSteps, steps = 0;
  SimResult res;
  SimResult *sink = &res;
  std::map<const void *, int64_t> ints;
  std::map<const void *, Reg> regs;
  std::map<const void *, Mem> mems;
  std::map<std::pair<const void *, int64_t>, Cell> smem;
  std::map<std::string, const void *> viewTensors;
  std::map<const void *, std::string> viewNames;
  int64_t barriers = 0, committed = 0;
  std::vector<int64_t> ivStack;
  /// The loops being run, outermost first, with their ranges (their current
  /// iterations are ivStack).
  struct Running {
    Operation *op;
    int64_t ub, step;
  };
  std::vector<Running> loops;
  std::mt19937_64 rng{12345};

  // The asynchronous model: the agent this interpreter runs as, its clock,
  // its fences and its groups of asynchronous operations in flight.
  World *world = nullptr;
  size_t agentId = 0;
  int64_t rank = 0;
  AgentClock clock;
  std::shared_ptr<std::vector<uint64_t>> fences =
      std::make_shared<std::vector<uint64_t>>();
  std::vector<std::shared_ptr<Completion>> wgmmaOpen;
  std::deque<std::vector<std::shared_ptr<Completion>>> wgmmaGroups;
  std::deque<std::shared_ptr<Completion>> bulkGroups, cpGroups;
  std::shared_ptr<Completion> cpOpen;
  Operation *current = nullptr;
  /// The slot this agent waited on last, and when it last arrived on each.
  const MBarrierSlot *lastWait = nullptr;
  std::map<const MBarrierSlot *, uint64_t> lastArrive;
  /// Its asynchronous reads in flight (wgmma operands, bulk store sources)
  /// with the slots that guard the cells they read.
  std::vector<
      std::pair<std::shared_ptr<Completion>, std::set<const MBarrierSlot *>>>
      readsInFlight;
  /// Register tiles a wgmma reads as its A operand until its group retires:
  /// their registers must not be written again before (the next
  /// iteration's fragment, a loop-carried value rebound).
  std::map<const void *, std::shared_ptr<Completion>> registersInFlight;
  /// Per op instance: the accesses of each thread (and whether it writes)
  /// and the orderings already decided.
  std::map<std::pair<int64_t, bool>, std::shared_ptr<Access>> opAccesses;
  std::map<std::tuple<const Access *, int64_t, bool>, bool> orderCache;

  int64_t blockThreads() {
    return func->getAttrOfType<KernelAttr>("argus.kernel").getNumThreads();
  }

  int64_t I(Value v) {
    auto it = ints.find(v.getAsOpaquePointer());
    if (it == ints.end())
      throw Fail("no integer value");
    return it->second;
  }
  /// A register value as the current op reads it: a wgmma result still in
  /// flight is a hazard.
  Reg &R(Value v) {
    Reg &r = rawR(v);
    if (r.pending && (r.carried || r.pending->time == kInFlight))
      event("wgmma-pending-read", current, -1, {});
    return r;
  }
  /// A register value's tags, without reading it (assertions, the
  /// accumulator a wgmma chains to, a wgmma_wait's operands).
  Reg &rawR(Value v) {
    auto it = regs.find(v.getAsOpaquePointer());
    if (it == regs.end())
      throw Fail("no register value");
    return it->second;
  }
  Mem &M(Value v) {
    auto it = mems.find(v.getAsOpaquePointer());
    if (it == mems.end())
      throw Fail("no memory value");
    return it->second;
  }

  /// The function-argument number of a viewed memref (-1 if none).
  int64_t tensorArg(Value tensor) {
    auto a = dyn_cast<BlockArgument>(tensor);
    return a && a.getOwner()->getParentOp() == func.getOperation()
               ? a.getArgNumber()
               : -1;
  }

  /// Size `k` of a memref kernel argument: static, or the parameter
  /// "argN.dimK" (the verifier's name).
  int64_t sizeOf(Value tensor, int64_t k) {
    auto mt = cast<MemRefType>(tensor.getType());
    if (!mt.isDynamicDim(k))
      return mt.getDimSize(k);
    int64_t a = tensorArg(tensor);
    std::string n = "arg" + std::to_string(a) + ".dim" + std::to_string(k);
    auto it = params.find(n);
    if (a < 0 || it == params.end())
      throw Fail("no size " + n);
    return it->second;
  }
  std::vector<int64_t> sizesOf(Value tensor) {
    std::vector<int64_t> s;
    for (int64_t k = 0; k < cast<MemRefType>(tensor.getType()).getRank(); ++k)
      s.push_back(sizeOf(tensor, k));
    return s;
  }

  /// An access of thread `t` to tile element `c` of a global tile: its
  /// global coordinate (a gather: its column) is inside the tensor.
  void bounds(Operation *op, const Mem &m, const std::vector<int64_t> &c,
              int64_t t) {
    if (m.shared || m.clipped)
      return;
    for (size_t k = 0; k < m.sizes.size(); ++k) {
      if (m.gather && k != 1)
        continue; // gathered rows come from data
      int64_t g = (m.gather ? m.col : m.offsets[k]) + c[m.perm[k]];
      if (g < 0 || g >= m.sizes[k]) {
        event("out-of-bounds", op, t, c);
        return;
      }
    }
  }

  /// Names and tensors of views met so far: one name per tensor and one
  /// tensor per name.
  void bindName(Operation *op, const std::string &name, Value tensor) {
    const void *t = tensor.getAsOpaquePointer();
    auto n = viewTensors.emplace(name, t).first;
    auto r = viewNames.emplace(t, name).first;
    if (n->second != t || r->second != name)
      event("tensor-name", op, -1, {});
  }

  /// A tag on a global view must agree with each element's global
  /// coordinate: the map at the tile coordinate equals the map at the
  /// global coordinate with the symbols that are the view's offsets at 0
  /// (here: the same value or what CSE would merge; the verifier proves
  /// the equality with a solver, which may accept more).
  void checkViewTag(TagOp op, const Mem &m, const std::vector<int64_t> &syms) {
    std::vector<int64_t> atOrigin = syms;
    for (unsigned i = 0; i < syms.size(); ++i)
      for (Value o : m.offsetValues)
        if (sameValue(op.getSymbols()[i], o))
          atOrigin[i] = 0;
    for (int64_t i = 0; i < numel(m.shape); ++i) {
      std::vector<int64_t> c = coordsOf(i, m.shape), g(c.size());
      for (size_t k = 0; k < m.perm.size(); ++k)
        g[m.perm[k]] = m.offsets[k] + c[m.perm[k]];
      if (mapTags(op, c, syms) != mapTags(op, g, atOrigin))
        event("view-tag", op, -1, c);
    }
  }

  void event(const char *kind, Operation *op, int64_t t,
             const std::vector<int64_t> &c) {
    if (world)
      world->record(kind, world->res.hazards.size() < World::kShown
                              ? describe(op, ivStack)
                              : std::string());
    else
      ++sink->counts[kind];
    for (size_t i = 0; i < watches.size(); ++i) {
      const Event &w = watches[i];
      if (w.kind == kind && w.op == op && w.ivs == ivStack &&
          (w.thread < 0 || w.thread == t) &&
          (w.coords.empty() || w.coords == c))
        sink->watchHits.insert(i);
    }
  }

  L::Layout tvOf(Operation *op, Value regValue = Value()) {
    if (auto c = dyn_cast<CopyOp>(op))
      return c.getThreads().getLayout().layout;
    if (auto c = dyn_cast<CopyAsyncOp>(op))
      return c.getThreads().getLayout().layout;
    auto l = getRegisterLayout(cast<TileType>(regValue.getType()));
    if (failed(l))
      throw Fail("register layout");
    return *l;
  }

  Tags directTags(const Mem &m, const std::vector<int64_t> &c) {
    Tags t;
    for (Mem::Direct d : m.direct) {
      std::vector<int64_t> tc;
      for (unsigned k : d.perm)
        tc.push_back(c[k]);
      for (auto &[f, v] : mapTags(d.op, tc, d.syms))
        t[f] = v;
    }
    return t;
  }

  int64_t addr(const Mem &m, const std::vector<int64_t> &c) {
    return m.base + m.layout(linOf(c, m.shape));
  }

  /// Read one element of a memory tile as thread `t` (t < 0: no sync check).
  std::optional<Tags> readMem(const Mem &m, const std::vector<int64_t> &c,
                              int64_t t, Operation *op) {
    if (!m.shared) {
      // Global memory: the view's tags and the implicit source tensor.
      Tags t = directTags(m, c);
      if (m.tensor >= 0)
        t["tensor"] = m.tensor;
      // The element's global coordinates and the tensor's sizes, for the
      // end of a reduction (a gather's rows come from data).
      for (size_t k = 0; k < m.perm.size() && k < m.sizes.size(); ++k) {
        if (m.gather && k == 0)
          continue;
        static const std::vector<std::string> coord = {"@0", "@1", "@2", "@3"},
                                              size = {"@size0", "@size1",
                                                      "@size2", "@size3"};
        if (k >= coord.size())
          throw Fail("a view of rank above 4");
        t[coord[k]] = (m.gather ? m.col : m.offsets[k]) + c[m.perm[k]];
        t[size[k]] = m.sizes[k];
      }
      return t;
    }
    if (!m.direct.empty())
      return directTags(m, c);
    if (world) {
      AsyncCell &cell = cellAt(rank, m.root, addr(m, c));
      if (t >= 0)
        asyncRead(cell, op, t, c, false, threadAccess(t, false));
      if (!cell.tags)
        return std::nullopt;
      return *cell.tags;
    }
    auto it = smem.find({m.root, addr(m, c)});
    if (it == smem.end()) {
      if (t >= 0)
        event("unwritten-read", op, t, c);
      return std::nullopt;
    }
    Cell &cell = it->second;
    if (t >= 0) {
      if (cell.readEpoch != barriers) {
        cell.readEpoch = barriers;
        cell.readers.clear();
      }
      cell.readers.insert(t);
    }
    if (t >= 0 &&
        (!cell.landed || (t != cell.thread && barriers <= cell.landBarrier)))
      event("unsynchronized-read", op, t, c);
    return cell.tags;
  }

  void
  write(Operation *op, const Mem &d, const L::Layout &tv,
        const std::function<std::optional<Tags>(const std::vector<int64_t> &,
                                                int64_t)> &value,
        bool async) {
    int64_t s0 = tv.mode(0).size();
    std::set<std::vector<int64_t>> seen;
    // A replicated tile whose replicas are equal is stored from each
    // element's first holder only (as lowered).
    std::optional<std::vector<int64_t>> holders;
    auto st = dyn_cast<StoreOp>(op);
    if (st && !d.shared && L::isReplicated(tv) &&
        isReplicaUniform(st.getValue()))
      holders = L::firstHolderMasks(tv);
    for (int64_t i = 0; i < tv.size(); ++i) {
      int64_t t = i % s0;
      if (holders && (t & (*holders)[i / s0]) != 0)
        continue;
      std::vector<int64_t> c = coordsOf(tv(i), d.shape);
      std::vector<int64_t> key;
      if (d.shared)
        key = {addr(d, c)};
      else {
        key = c;
      }
      bounds(op, d, c, t);
      bool again = !seen.insert(key).second;
      if (again)
        event("non-injective-write", op, t, c);
      std::optional<Tags> v = value(c, t);
      if (!d.shared && t < blockThreads())
        globalWrite(op, d, c);
      if (!d.shared)
        continue;
      if (world) {
        if (v)
          asyncWrite(cellAt(rank, d.root, addr(d, c)), op, t, component(t), c,
                     async ? cpAccess(t) : threadAccess(t, true),
                     std::make_shared<const Tags>(*v));
        continue;
      }
      auto old = smem.find({d.root, addr(d, c)});
      // An earlier write of another op (or instance) not ordered before
      // this one: still in flight, or by another thread with no barrier
      // since it landed.
      if (old != smem.end() && !again &&
          (!old->second.landed ||
           (old->second.thread != t && barriers <= old->second.landBarrier)))
        event("write-after-write", op, t, c);
      if (old != smem.end() && old->second.readEpoch == barriers) {
        for (int64_t r : old->second.readers)
          if (r != t) {
            event("unsynchronized-write", op, t, c);
            break;
          }
      }
      if (!v)
        continue;
      smem[{d.root, addr(d, c)}] = Cell{*v, t, !async, committed, barriers};
    }
  }

  /// Element `c` of global tile `d` is written by the current instance
  /// (recorded for the block whose run was asked for; a gather's row is
  /// named by its index's position in the index tensor, -1 if unknown; an
  /// element a clipped view cuts off is not written).
  void globalWrite(Operation *op, const Mem &d, const std::vector<int64_t> &c) {
    std::vector<int64_t> g(c.size(), -1);
    if (d.gather && c[0] < static_cast<int64_t>(d.rowPositions.size()))
      g[0] = d.rowPositions[c[0]];
    for (size_t k = 0; k < d.perm.size(); ++k)
      if (!d.gather || k == 1) {
        g[k] = (d.gather ? d.col : d.offsets[k]) + c[d.perm[k]];
        if (d.clipped && k < d.clipAt.size() && g[k] >= d.clipAt[k])
          return;
      }
    if (!world || rank == world->requestedRank)
      sink->globalWrites[{d.tensor, g}].insert({op, ivStack});
  }

  // --- The asynchronous model ------------------------------------------

  int64_t component(int64_t t) const { return t < 0 ? -1 : clock.lo + t; }

  AsyncCell &cellAt(int64_t r, const void *root, int64_t a) {
    std::vector<AsyncCell> &v = world->buffers[{r, root}];
    if (static_cast<int64_t>(v.size()) <= a)
      v.resize(a + 1);
    return v[a];
  }

  bool ordered(const Access &a, int64_t comp, bool fenced) {
    auto k = std::make_tuple(&a, comp, fenced);
    auto it = orderCache.find(k);
    if (it != orderCache.end())
      return it->second;
    return orderCache[k] = orderedBefore(a, clock, comp, fenced);
  }

  /// The access of role thread `t` in the current op (a write by the
  /// generic proxy records the agent's fences).
  std::shared_ptr<Access> threadAccess(int64_t t, bool write) {
    std::shared_ptr<Access> &a = opAccesses[{t, write}];
    if (!a) {
      a = std::make_shared<Access>();
      a->lo = component(t);
      a->hi = a->lo + 1;
      a->done = std::make_shared<Completion>(Completion{clock.now});
      a->generic = write;
      a->fences = fences;
    }
    return a;
  }

  /// A cp.async write of role thread `t`: complete when a wait_group
  /// retires its group.
  std::shared_ptr<Access> cpAccess(int64_t t) {
    if (!cpOpen)
      cpOpen = std::make_shared<Completion>();
    auto a = threadAccess(t, true);
    a->done = cpOpen;
    return a;
  }

  /// A read of `cell` by role thread `t` (t < 0: by the agent's threads
  /// together, a wgmma); through the async proxy, the generic writes it
  /// sees must have been fenced.
  void asyncRead(AsyncCell &cell, Operation *op, int64_t t,
                 const std::vector<int64_t> &c, bool asyncProxy,
                 const std::shared_ptr<Access> &rec) {
    if (!cell.write)
      event("unwritten-read", op, t, c);
    else if (!ordered(*cell.write, component(t), false))
      event("unsynchronized-read", op, t, c);
    else if (asyncProxy && !ordered(*cell.write, component(t), true))
      event("proxy-fence", op, t, c);
    // This agent already handed back the slot that lets the cell be
    // overwritten, after these data were written: it reads released data.
    auto released = lastArrive.find(cell.guard);
    if (cell.guard && released != lastArrive.end() &&
        released->second > cell.writtenAt)
      event("read-after-release", op, t, c);
    if (asyncProxy && cell.guard && !readsInFlight.empty())
      readsInFlight.back().second.insert(cell.guard);
    if (cell.guard) {
      world->phaseUse[cell.guard].readers.insert(agentId);
      world->readSinceArrive[{cell.guard, agentId}] = true;
    }
    if (rec)
      cell.reads.push_back(rec);
  }

  /// A write of `cell` ordered after what clock component `comp` knows:
  /// the earlier write and every read since must be ordered before it.
  void asyncWrite(AsyncCell &cell, Operation *op, int64_t t, int64_t comp,
                  const std::vector<int64_t> &c, std::shared_ptr<Access> w,
                  std::shared_ptr<const Tags> tags,
                  const MBarrierSlot *guard = nullptr) {
    if (cell.write && !ordered(*cell.write, comp, false))
      event("write-after-write", op, t, c);
    for (const std::shared_ptr<Access> &r : cell.reads)
      if (!ordered(*r, comp, false)) {
        event("unsynchronized-write", op, t, c);
        break;
      }
    cell.tags = std::move(tags);
    cell.write = std::move(w);
    cell.reads.clear();
    cell.guard = guard;
    cell.writtenAt = world->tick;
  }

  /// Arrivals of this agent on `slot`: a read in flight of a cell the slot
  /// guards is released before it retires; one arrive completing a phase and
  /// more (or going past the count while bytes are pending) breaks the
  /// phase accounting.
  void arrivals(MBarrierSlot &slot, Operation *op, int64_t from, int64_t to) {
    for (auto &[done, guards] : readsInFlight)
      if (done->time == kInFlight && guards.count(&slot))
        event("release-before-retire", op, -1, {});
    // A release of a slot guarding cells, again, with nothing read since.
    auto read = world->readSinceArrive.find({&slot, agentId});
    if (read != world->readSinceArrive.end()) {
      if (!read->second && lastArrive.count(&slot))
        event("release-without-read", op, -1, {});
      read->second = false;
    }
    // A phase must not complete before every agent that read the cells it
    // guards has arrived (a count too small for the readers).
    auto use = world->phaseUse.find(&slot);
    uint64_t before = slot.completed;
    for (int64_t u = from; u < to; ++u) {
      uint64_t was = slot.completed;
      if (use != world->phaseUse.end())
        use->second.arrivers.insert(agentId);
      slot.arrive(clock.release(u));
      if (slot.completed == was || use == world->phaseUse.end())
        continue;
      for (size_t r : use->second.readers)
        if (!use->second.arrivers.count(r))
          event("phase-without-reader", op, -1, {});
      use->second = World::PhaseUse();
    }
    if (slot.completed > before + 1 || slot.pending < 0 ||
        (slot.completed > before && slot.pending != slot.count))
      event("mbarrier-overrun", op, -1, {});
    lastArrive[&slot] = world->tick;
  }

  /// Starts tracking an asynchronous read that `done` retires.
  void readInFlight(const std::shared_ptr<Completion> &done) {
    readsInFlight.erase(
        std::remove_if(readsInFlight.begin(), readsInFlight.end(),
                       [](auto &r) { return r.first->time != kInFlight; }),
        readsInFlight.end());
    readsInFlight.push_back({done, {}});
  }

  /// The values defined in a loop body die at the end of its iteration
  /// (their registers are free for the next): not while a wgmma reads them.
  void endOfIteration(Block &body) {
    for (auto it = registersInFlight.begin(); it != registersInFlight.end();) {
      Value v = Value::getFromOpaquePointer(it->first);
      if (v.getParentBlock() != &body) {
        ++it;
        continue;
      }
      if (it->second->time == kInFlight)
        event("register-reused-in-flight", body.getTerminator(), -1, {});
      it = registersInFlight.erase(it);
    }
  }

  /// Register tile `v` is written again: not while a wgmma reads it.
  void redefine(Value v) {
    auto it = registersInFlight.find(v.getAsOpaquePointer());
    if (it == registersInFlight.end())
      return;
    if (it->second->time == kInFlight)
      event("register-reused-in-flight", current, -1, {});
    registersInFlight.erase(it);
  }

  void syncPoint() {
    if (world)
      world->agents.yield(agentId);
  }

  /// Slot `stage` of mbarrier ring `bar` in the block of rank `r`.
  MBarrierSlot &slotOf(int64_t r, Value bar, Value stage, Operation *op) {
    int64_t s = I(stage);
    auto it = world->barriers.find({r, bar.getAsOpaquePointer(), s});
    if (it == world->barriers.end()) {
      event("stage-out-of-range", op, -1, {s});
      throw Fail("mbarrier slot " + std::to_string(s) + " does not exist");
    }
    return it->second;
  }

  /// The blocks of the cluster an op with `cluster` reaches (else this one).
  std::vector<int64_t> reached(bool cluster) {
    std::vector<int64_t> r;
    for (int64_t b = 0; b < (cluster ? world->clusterSize : 1); ++b)
      r.push_back(cluster ? b : rank);
    return r;
  }

  /// Retires every group but the `keep` most recent at the current time.
  template <typename Group>
  void retire(std::deque<Group> &groups, uint64_t keep) {
    auto done = [&](std::shared_ptr<Completion> &c) { c->time = clock.now; };
    while (groups.size() > keep) {
      if constexpr (std::is_same_v<Group, std::shared_ptr<Completion>>)
        done(groups.front());
      else
        for (auto &c : groups.front())
          done(c);
      groups.pop_front();
    }
  }

  /// The ops of the asynchronous model; false when `op` is not one.
  bool stepAsync(Operation *op) {
    auto key = [&](Value v) { return v.getAsOpaquePointer(); };
    if (auto r = dyn_cast<RoleOp>(op)) {
      // A role runs as an agent of its own, from what this one knows.
      auto child = std::make_shared<Sim>(*this);
      int64_t base = clock.lo - (clock.lo % world->blockThreads),
              ws =
                  func->getAttrOfType<KernelAttr>("argus.kernel").getWarpSize();
      child->clock.lo = base + r.getFirstWarp() * ws;
      child->clock.hi = base + r.getEndWarp() * ws;
      child->fences = std::make_shared<std::vector<uint64_t>>();
      child->agentId = world->agents.spawn(
          [child, r]() mutable {
            child->exec(r.getBody().front());
            if (!child->bulkGroups.empty() &&
                child->bulkGroups.back()->time == kInFlight)
              child->event("tma-store-drained", r, -1, {});
          },
          false);
      return true;
    }
    if (auto a = dyn_cast<MBarrierAllocOp>(op)) {
      int64_t stages = cast<MBarrierType>(a.getType()).getStages();
      for (int64_t s = 0; s < stages; ++s)
        world->barriers.emplace(
            std::make_tuple(rank, key(a.getResult()), s),
            MBarrierSlot(a.getArrivals(), world->nextComponent++));
      return true;
    }
    if (isa<TensorMapOp, NamedBarrierSyncOp, NamedBarrierArriveOp>(op))
      return true; // named barriers order issue only, no data
    if (auto w = dyn_cast<MBarrierWaitOp>(op)) {
      MBarrierSlot &slot = slotOf(rank, w.getBarrier(), w.getStage(), op);
      int64_t parity = I(w.getParity());
      world->agents.block(
          agentId, [&slot, parity] { return slot.passes(parity); },
          describe(op, ivStack));
      clock.know.join(slot.last);
      lastWait = &slot;
      syncPoint();
      return true;
    }
    if (auto a = dyn_cast<MBarrierArriveOp>(op)) {
      for (int64_t b : reached(a.getCluster())) {
        arrivals(slotOf(b, a.getBarrier(), a.getStage(), op), op, clock.lo,
                 clock.hi);
      }
      syncPoint();
      return true;
    }
    if (auto a = dyn_cast<MBarrierArriveExpectTxOp>(op)) {
      MBarrierSlot &slot = slotOf(rank, a.getBarrier(), a.getStage(), op);
      slot.expect(a.getBytes());
      arrivals(slot, op, clock.lo, clock.lo + 1);
      syncPoint();
      return true;
    }
    if (auto t = dyn_cast<TmaLoadOp>(op)) {
      tmaLoad(t);
      syncPoint();
      return true;
    }
    if (auto m = dyn_cast<MmaAsyncOp>(op)) {
      // The warpgroups read shared operands through the async proxy until
      // the group retires.
      auto rec = std::make_shared<Access>();
      rec->lo = clock.lo;
      rec->hi = clock.hi;
      rec->done = std::make_shared<Completion>();
      readInFlight(rec->done);
      for (Value v : {m.getA(), m.getB()}) {
        auto ty = cast<TileType>(v.getType());
        if (!ty.isMemory()) {
          R(v);
          registersInFlight[key(v)] = rec->done;
          continue;
        }
        Mem &mm = M(v);
        for (int64_t i = 0; i < numel(mm.shape); ++i) {
          std::vector<int64_t> c = coordsOf(i, mm.shape);
          asyncRead(cellAt(rank, mm.root, addr(mm, c)), op, -1, c, true, rec);
        }
      }
      Reg acc = rawR(m.getAcc());
      accumulate(op, m.getA(), m.getB(), acc);
      acc.pending = rec->done;
      wgmmaOpen.push_back(rec->done);
      regs[key(m.getResult())] = acc;
      syncPoint();
      return true;
    }
    if (isa<WgmmaCommitOp>(op)) {
      wgmmaGroups.push_back(std::move(wgmmaOpen));
      wgmmaOpen.clear();
      return true;
    }
    if (auto w = dyn_cast<WgmmaWaitOp>(op)) {
      retire(wgmmaGroups, w.getPending());
      for (unsigned i = 0; i < w.getNumResults(); ++i) {
        // The wait's result is what the lowering orders reads by; a value
        // whose group it leaves in flight stays pending.
        Reg r = rawR(w->getOperand(i));
        if (r.pending && r.pending->time != kInFlight)
          r.pending.reset();
        r.carried = false;
        regs[key(w.getResult(i))] = r;
      }
      syncPoint();
      return true;
    }
    if (auto s = dyn_cast<TmaStoreOp>(op)) {
      // One thread issues it; it reads the source through the async proxy
      // until a tma_store_wait retires its group.
      Mem &src = M(s.getSource());
      Mem &dst = M(s.getDest());
      auto rec = std::make_shared<Access>();
      rec->lo = clock.lo;
      rec->hi = clock.lo + 1;
      rec->done = std::make_shared<Completion>();
      readInFlight(rec->done);
      for (int64_t i = 0; i < numel(src.shape); ++i) {
        std::vector<int64_t> c = coordsOf(i, src.shape);
        asyncRead(cellAt(rank, src.root, addr(src, c)), op, 0, c, true, rec);
        bounds(op, dst, c, 0);
        globalWrite(op, dst, c);
      }
      bulkGroups.push_back(rec->done);
      syncPoint();
      return true;
    }
    if (auto w = dyn_cast<TmaStoreWaitOp>(op)) {
      retire(bulkGroups, w.getPending());
      syncPoint();
      return true;
    }
    if (isa<FenceProxyAsyncOp>(op)) {
      fences->push_back(clock.now);
      return true;
    }
    if (isa<BarrierOp>(op)) {
      clock.barrier();
      syncPoint();
      return true;
    }
    if (isa<CommitGroupOp>(op)) {
      cpGroups.push_back(cpOpen ? cpOpen : std::make_shared<Completion>());
      cpOpen.reset();
      return true;
    }
    if (auto w = dyn_cast<WaitGroupOp>(op)) {
      retire(cpGroups, w.getPending());
      return true;
    }
    return false;
  }

  /// A bulk tensor copy: box j (row-major over the tile) lands in the
  /// blocks it reaches (multicast: issued by rank j % n, delivered to every
  /// block), its bytes counting on each block's slot; its data belong to the
  /// phase they complete or join.
  void tmaLoad(TmaLoadOp t) {
    Mem &src = M(t.getSource());
    Mem &dst = M(t.getDest());
    auto map = cast<TensorMapType>(t.getMap().getType());
    std::vector<int64_t> box(map.getBox().begin(), map.getBox().end()), grid;
    if (box.size() != dst.shape.size())
      throw Fail("tensor map box rank differs from the tile's");
    for (size_t d = 0; d < box.size(); ++d)
      grid.push_back((dst.shape[d] + box[d] - 1) / box[d]);
    int64_t n = world->clusterSize;
    for (int64_t j = 0; j < numel(grid); ++j) {
      if (t.getMulticast() && j % n != rank)
        continue;
      std::vector<int64_t> origin(box.size());
      for (int64_t d = box.size(), rest = j; d-- > 0; rest /= grid[d])
        origin[d] = (rest % grid[d]) * box[d];
      for (int64_t b : reached(t.getMulticast())) {
        MBarrierSlot &slot = slotOf(b, t.getBarrier(), t.getStage(), t);
        auto w = std::make_shared<Access>();
        w->lo = slot.component;
        w->hi = w->lo + 1;
        w->done = std::make_shared<Completion>(
            Completion{slot.land(map.getBoxBytes())});
        for (int64_t i = 0; i < numel(box); ++i) {
          std::vector<int64_t> c = coordsOf(i, box);
          bool inside = true;
          for (size_t d = 0; d < c.size(); ++d)
            inside &= (c[d] += origin[d]) < dst.shape[d];
          if (!inside)
            continue;
          bounds(t, src, c, 0);
          auto tags = readMem(src, c, -1, t);
          asyncWrite(cellAt(b, dst.root, addr(dst, c)), t, 0, clock.lo, c, w,
                     tags ? std::make_shared<const Tags>(*tags) : nullptr,
                     lastWait);
        }
      }
    }
  }

  /// argus.cmp on integers (signed).
  static int64_t compare(CmpPredicate p, int64_t a, int64_t b) {
    switch (p) {
    case CmpPredicate::Lt:
      return a < b;
    case CmpPredicate::Le:
      return a <= b;
    case CmpPredicate::Gt:
      return a > b;
    case CmpPredicate::Ge:
      return a >= b;
    case CmpPredicate::Eq:
      return a == b;
    case CmpPredicate::Ne:
      return a != b;
    }
    return 0;
  }

  Tags merge(const Tags &l, const Tags &r) {
    Tags o = r;
    for (auto &[k, v] : l)
      o[k] = v;
    for (auto &[k, v] : l)
      o["lhs." + k] = v;
    for (auto &[k, v] : r)
      o["rhs." + k] = v;
    return o;
  }

  std::optional<int64_t> evalPred(const TagExpr &e,
                                  const std::map<std::string, Tags> &ops) {
    std::vector<int64_t> ch;
    for (auto &c : e.children) {
      auto r = evalPred(*c, ops);
      if (!r)
        return std::nullopt;
      ch.push_back(*r);
    }
    switch (e.kind) {
    case TagExpr::Kind::Const:
      return e.value;
    case TagExpr::Kind::Ref: {
      auto it = ops.find(e.operand);
      if (it == ops.end() || !it->second.count(e.field))
        return std::nullopt;
      return it->second.at(e.field);
    }
    case TagExpr::Kind::Neg:
      return -ch[0];
    case TagExpr::Kind::Add:
      return ch[0] + ch[1];
    case TagExpr::Kind::Sub:
      return ch[0] - ch[1];
    case TagExpr::Kind::Mul:
      return ch[0] * ch[1];
    case TagExpr::Kind::Div:
      if (!ch[1])
        return std::nullopt;
      return fdiv(ch[0], ch[1]);
    case TagExpr::Kind::Rem:
      if (!ch[1])
        return std::nullopt;
      return ch[0] - fdiv(ch[0], ch[1]) * ch[1];
    case TagExpr::Kind::Eq:
      return ch[0] == ch[1];
    case TagExpr::Kind::Ne:
      return ch[0] != ch[1];
    case TagExpr::Kind::Lt:
      return ch[0] < ch[1];
    case TagExpr::Kind::Le:
      return ch[0] <= ch[1];
    case TagExpr::Kind::Gt:
      return ch[0] > ch[1];
    case TagExpr::Kind::Ge:
      return ch[0] >= ch[1];
    case TagExpr::Kind::And:
      return ch[0] && ch[1];
    case TagExpr::Kind::Or:
      return ch[0] || ch[1];
    case TagExpr::Kind::Not:
      return !ch[0];
    }
    return std::nullopt;
  }

  std::optional<Tags> tagsOf(Value v, const std::vector<int64_t> &c) {
    auto ty = cast<TileType>(v.getType());
    if (ty.isMemory())
      return readMem(M(v), c, -1, nullptr);
    Reg &r = rawR(v);
    int64_t i = linOf(c, r.shape);
    std::optional<Tags> t = r.e[i];
    if (t && i < static_cast<int64_t>(r.val.size()) && r.val[i])
      (*t)["value"] = *r.val[i];
    return t;
  }

  /// Evaluate an assertion at one pairing; nullopt when a tag is absent.
  std::optional<bool>
  check(TagAssertOp a, const std::map<std::string, std::vector<int64_t>> &cs) {
    std::string err;
    auto pred = parseTagPredicate(a.getPredicate(), err);
    Operation *site = a.getSite();
    std::map<std::string, Value> named;
    for (auto &[n, v] : getNamedTagOperands(site))
      named[n.str()] = v;
    if (site->getNumResults() == 1)
      named["result"] = site->getResult(0);
    std::map<std::string, Tags> ops;
    SmallVector<const TagExpr *> refs;
    pred->collectRefs(refs);
    for (auto *r : refs) {
      if (ops.count(r->operand))
        continue;
      auto it = cs.find(r->operand);
      if (it == cs.end() || !named.count(r->operand))
        return std::nullopt;
      auto t = tagsOf(named[r->operand], it->second);
      if (!t)
        return std::nullopt;
      ops[r->operand] = *t;
    }
    auto v = evalPred(*pred, ops);
    if (!v)
      return std::nullopt;
    return *v != 0;
  }

  void assertHere(TagAssertOp a) {
    for (const Probe &p : probes) {
      if (p.assertOp != a.getOperation() || p.ivs != ivStack)
        continue;
      ++sink->probeHits;
      auto ok = check(a, p.coords);
      if (ok && !*ok)
        ++sink->probeViolations;
    }
    if (samples <= 0)
      return;
    Operation *site = a.getSite();
    for (int s = 0; s < samples; ++s) {
      std::map<std::string, std::vector<int64_t>> cs;
      auto pick = [&](int64_t n) {
        return static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
      };
      if (isa<MmaOp, MmaAsyncOp>(site)) {
        auto acc = cast<TileType>(site->getOperand(2).getType());
        auto at = cast<TileType>(site->getOperand(0).getType());
        int64_t m = pick(acc.getShape()[0]), n = pick(acc.getShape()[1]),
                k = pick(at.getShape()[1]);
        cs["a"] = {m, k};
        cs["b"] = {k, n};
        cs["acc"] = cs["result"] = {m, n};
      } else {
        Value sv = site->getNumResults() == 1 ? site->getResult(0)
                                              : site->getOperand(0);
        auto ty = cast<TileType>(sv.getType());
        std::vector<int64_t> c;
        for (int64_t d : ty.getShape())
          c.push_back(pick(d));
        for (auto &[n, v] : getNamedTagOperands(site))
          cs[n.str()] = c;
        cs["result"] = c;
        if (auto r = dyn_cast<ReduceOp>(site)) {
          std::vector<int64_t> ci = c;
          ci.insert(ci.begin() + r.getDim(),
                    pick(cast<TileType>(r.getInput().getType())
                             .getShape()[r.getDim()]));
          cs["input"] = ci;
        } else if (auto b = dyn_cast<BroadcastOp>(site)) {
          std::vector<int64_t> ci = c;
          ci.erase(ci.begin() + b.getDim());
          cs["input"] = ci;
        }
      }
      auto ok = check(a, cs);
      ++sink->sampled;
      if (ok && !*ok) {
        ++sink->sampledViolations;
        sink->lastViolation = a.getPredicate().str();
      }
    }
  }

  /// A view of a tensor argument at `offsets` (one per dimension of the
  /// tile, in order); the caller gives its sizes.
  Mem globalView(Value tensor, StringRef name, Type type, ValueRange offsets) {
    Mem m;
    m.root = tensor.getAsOpaquePointer();
    m.name = name.str();
    auto ty = cast<TileType>(type);
    m.shape.assign(ty.getShape().begin(), ty.getShape().end());
    m.layout = memLayoutOf(ty);
    for (Value o : offsets) {
      m.offsets.push_back(I(o));
      m.offsetValues.push_back(o);
      m.perm.push_back(m.perm.size());
    }
    m.tensor = tensorArg(tensor);
    return m;
  }

  /// The reduced fields of each mma: A's fields that vary along k in a row
  /// (those the mma's assertions name on `a` when there are any), fixed at
  /// the first execution where one varies.
  std::map<Operation *, std::set<std::string>> reducedFields;
  /// For each mma and reduced field: the dimension of the tensor the field
  /// is the coordinate of, and whether it is B's rather than A's.
  std::map<std::pair<Operation *, std::string>,
           std::pair<std::optional<size_t>, bool>>
      coordinateDims;

  /// Every index of the reduced dimension is accumulated exactly once: in
  /// each row of the accumulator, the reduced field of the A elements
  /// accumulated runs through 0, 1, 2, ... across k and executions.
  void accumulate(Operation *m, Value A, Value B, Reg &acc) {
    auto at = cast<TileType>(A.getType());
    int64_t rows = at.getShape()[0], bk = at.getShape()[1];
    std::set<std::string> &chosen = reducedFields[m];
    if (chosen.empty()) {
      std::set<std::string> asserted, varying;
      func.walk([&](TagAssertOp a) {
        if (a.getSite() != m)
          return;
        std::string err;
        auto pred = parseTagPredicate(a.getPredicate(), err);
        SmallVector<const TagExpr *> refs;
        if (pred)
          pred->collectRefs(refs);
        for (auto *r : refs)
          if (r->operand == "a")
            asserted.insert(r->field);
      });
      for (int64_t r = 0; r < rows; ++r) {
        auto first = tagsOf(A, {r, 0});
        if (!first)
          continue;
        for (int64_t k = 1; k < bk; ++k)
          if (auto t = tagsOf(A, {r, k}))
            for (auto &[f, v] : *first)
              if (f != "tensor" && f[0] != '@' && t->count(f) && t->at(f) != v)
                varying.insert(f);
      }
      for (const std::string &f : varying)
        if (asserted.count(f))
          chosen.insert(f);
      if (chosen.empty())
        chosen = varying;
    }
    for (const std::string &f : chosen) {
      // The global coordinate the field is: the dimension d whose
      // coordinate @d equals it at every element of A (not one where they
      // coincide at a single element).
      // A computed in registers (attention's P) has no global coordinate:
      // then B's, whose rows run over the same field.
      auto coordinateDim = [&](Value operand, int64_t n0, int64_t n1,
                               bool kFirst) -> std::optional<size_t> {
        for (size_t d = 0; d < 8; ++d) {
          std::string g = "@" + std::to_string(d);
          bool all = true, any = false;
          for (int64_t i = 0; i < n0 && all; ++i)
            for (int64_t j = 0; j < n1 && all; ++j)
              if (auto t = tagsOf(operand, kFirst ? std::vector<int64_t>{j, i}
                                                  : std::vector<int64_t>{i, j});
                  t && t->count(f)) {
                any = true;
                all = t->count(g) && t->at(g) == t->at(f);
              }
          if (all && any)
            return d;
        }
        return std::nullopt;
      };
      Value sized = A;
      // Found at the first execution (the tile's structure, not its data).
      auto known = coordinateDims.find({m, f});
      if (known == coordinateDims.end()) {
        std::optional<size_t> d = coordinateDim(A, rows, bk, false);
        int64_t bn = cast<TileType>(B.getType()).getShape()[1];
        bool ofB = !d && (d = coordinateDim(B, bn, bk, true));
        known = coordinateDims.insert({{m, f}, {d, ofB}}).first;
      }
      std::optional<size_t> dim = known->second.first;
      if (known->second.second)
        sized = B;
      if (declaresRanges()) {
        // Any order (a causal walk runs backwards): no index twice; the
        // range is checked where argus.reduced declares it.
        for (int64_t r = 0; r < rows; ++r) {
          std::vector<int64_t> add, &have = acc.seen[f][r], all;
          for (int64_t k = 0; k < bk; ++k)
            if (auto t = tagsOf(A, {r, k}); t && t->count(f))
              add.push_back(t->at(f));
          std::sort(add.begin(), add.end());
          std::merge(have.begin(), have.end(), add.begin(), add.end(),
                     std::back_inserter(all));
          if (std::adjacent_find(all.begin(), all.end()) != all.end())
            event("reduction-coverage", m, -1, {r});
          all.erase(std::unique(all.begin(), all.end()), all.end());
          have = std::move(all);
        }
        continue;
      }
      for (int64_t r = 0; r < rows; ++r) {
        auto &last = acc.reduced[f];
        int64_t prev = last.count(r) ? last[r] : -1;
        for (int64_t k = 0; k < bk; ++k) {
          auto t = tagsOf(A, {r, k});
          if (!t || !t->count(f))
            continue;
          int64_t v = t->at(f);
          if (v != prev + 1)
            event("reduction-coverage", m, -1, {r, k});
          prev = v;
        }
        last[r] = prev;
        // The end: in the last iteration of the last loop that accumulates,
        // the last value reaches the size of the tensor dimension the field
        // is the global coordinate of.
        auto t = tagsOf(A, {r, bk - 1});
        if (!t || !t->count(f) || !lastIteration(m) || accumulatedFurther(m))
          continue;
        std::string size = "@size" + std::to_string(dim ? *dim : 0);
        auto ts = sized == A ? t : tagsOf(B, {bk - 1, 0});
        if (dim && ts && ts->count(size) && t->at(f) + 1 < ts->at(size))
          event("reduction-coverage", m, -1, {r, bk - 1});
      }
    }
  }

  /// Whether the kernel declares what its reductions computed.
  bool declaresRanges() {
    if (!declared) {
      bool any = false;
      func.walk([&](ReducedOp) { any = true; });
      declared = any;
    }
    return *declared;
  }
  std::optional<bool> declared;

  /// Whether the loop directly around `m` runs its last iteration now.
  bool lastIteration(Operation *m) {
    auto loop = dyn_cast<scf::ForOp>(m->getParentOp());
    if (!loop)
      return false;
    for (size_t i = loops.size(); i-- > 0;)
      if (loops[i].op == loop.getOperation())
        return ivStack[i] + loops[i].step >= loops[i].ub;
    return false;
  }

  /// Whether the accumulator of the loop around `m` is accumulated further
  /// after it (a pipeline's drain loop, an mma after the loop).
  static bool accumulatedFurther(Operation *m) {
    std::vector<Value> work;
    if (auto loop = dyn_cast<scf::ForOp>(m->getParentOp()))
      for (Value r : loop.getResults())
        if (isa<TileType>(r.getType())) // not the slab counters beside it
          work.push_back(r);
    for (size_t i = 0; i < work.size() && i < 64; ++i)
      for (OpOperand &use : work[i].getUses()) {
        Operation *u = use.getOwner();
        if (isa<MmaOp, MmaAsyncOp, scf::ForOp, scf::YieldOp>(u))
          return true;
        if (isa<TagOp, ConvertOp, ConvertLayoutOp>(u))
          work.push_back(u->getResult(0));
        if (isa<WgmmaWaitOp>(u))
          work.push_back(u->getResult(use.getOperandNumber()));
      }
    return false;
  }

  /// Binds values `to` to the values of `from` (register tiles and
  /// integers), read before any is written (a loop's yield may swap them).
  void bindAll(ValueRange to, ValueRange from) {
    std::vector<std::optional<Reg>> r(from.size());
    std::vector<std::optional<int64_t>> n(from.size());
    for (auto [i, v] : llvm::enumerate(from)) {
      auto rt = regs.find(v.getAsOpaquePointer());
      auto it = ints.find(v.getAsOpaquePointer());
      if (rt != regs.end())
        r[i] = rt->second;
      else if (it != ints.end())
        n[i] = it->second;
    }
    for (auto [i, v] : llvm::enumerate(to)) {
      if (world)
        redefine(v);
      if (r[i]) {
        r[i]->carried = r[i]->pending != nullptr;
        regs[v.getAsOpaquePointer()] = *r[i];
      } else if (n[i])
        ints[v.getAsOpaquePointer()] = *n[i];
    }
  }

  void exec(Block &b) {
    for (Operation &op : b)
      step(&op);
  }

  void step(Operation *op) {
    current = op;
    if (world) {
      ++clock.now;
      ++world->tick;
      for (Value r : op->getResults())
        redefine(r);
      opAccesses.clear();
      orderCache.clear();
      if (stepAsync(op))
        return;
    }
    auto setI = [&](int64_t v) {
      ints[op->getResult(0).getAsOpaquePointer()] = v;
    };
    auto key = [&](Value v) { return v.getAsOpaquePointer(); };
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
        setI(ia.getValue().getSExtValue());
      return;
    }
    if (isa<arith::AddIOp>(op))
      return setI(I(op->getOperand(0)) + I(op->getOperand(1)));
    if (isa<arith::SubIOp>(op)) {
      int64_t d = I(op->getOperand(0)) - I(op->getOperand(1));
      if (d < 0)
        event("index-underflow", op, -1, {});
      return setI(d);
    }
    if (auto c = dyn_cast<arith::CmpIOp>(op)) {
      int64_t a = I(c.getLhs()), b = I(c.getRhs());
      bool r = false;
      switch (c.getPredicate()) {
      case arith::CmpIPredicate::eq:
        r = a == b;
        break;
      case arith::CmpIPredicate::ne:
        r = a != b;
        break;
      case arith::CmpIPredicate::ult:
      case arith::CmpIPredicate::slt:
        r = a < b;
        break;
      case arith::CmpIPredicate::ule:
      case arith::CmpIPredicate::sle:
        r = a <= b;
        break;
      case arith::CmpIPredicate::ugt:
      case arith::CmpIPredicate::sgt:
        r = a > b;
        break;
      case arith::CmpIPredicate::uge:
      case arith::CmpIPredicate::sge:
        r = a >= b;
        break;
      }
      return setI(r);
    }
    if (isa<arith::AndIOp>(op))
      return setI(I(op->getOperand(0)) & I(op->getOperand(1)));
    if (isa<arith::OrIOp>(op))
      return setI(I(op->getOperand(0)) | I(op->getOperand(1)));
    // A precondition on index data, whose values the simulation does not
    // model (gathered rows are positions here).
    if (isa<AssumeIndicesOp>(op))
      return;
    if (auto a = dyn_cast<AssumeOp>(op)) {
      if (!I(a.getCondition()))
        throw Fail("the precondition '" + a.getMessage().str() +
                   "' does not hold");
      return;
    }
    if (isa<arith::MulIOp>(op))
      return setI(I(op->getOperand(0)) * I(op->getOperand(1)));
    if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp, arith::RemUIOp,
            arith::RemSIOp, arith::CeilDivUIOp>(op) &&
        I(op->getOperand(1)) == 0)
      throw Fail("division by zero");
    if (isa<arith::CeilDivUIOp>(op)) {
      int64_t a = I(op->getOperand(0)), b = I(op->getOperand(1));
      return setI(a / b + (a % b != 0));
    }
    if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(op))
      return setI(fdiv(I(op->getOperand(0)), I(op->getOperand(1))));
    if (isa<arith::RemUIOp, arith::RemSIOp>(op)) {
      int64_t a = I(op->getOperand(0)), b = I(op->getOperand(1));
      return setI(a - fdiv(a, b) * b);
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
      return setI(I(op->getOperand(0)));
    if (isa<arith::MinUIOp, arith::MaxUIOp>(op)) {
      int64_t a = I(op->getOperand(0)), b = I(op->getOperand(1));
      return setI(isa<arith::MinUIOp>(op) ? std::min(a, b) : std::max(a, b));
    }
    if (auto g = dyn_cast<gpu::GridDimOp>(op)) {
      auto it =
          params.find("grid_dim." + stringifyDimension(g.getDimension()).str());
      return setI(it == params.end() ? 1 : it->second);
    }
    if (isa<gpu::ClusterIdOp, gpu::ClusterBlockIdOp, gpu::ClusterDimOp>(op)) {
      // Clusters along x (KernelAttr): block id = cluster id * n + rank.
      auto ka = func->getAttrOfType<KernelAttr>("argus.kernel");
      int64_t n = ka.getClusterDim(0);
      auto param = [&](const char *name, int64_t dflt) {
        auto it = params.find(name);
        return it == params.end() ? dflt : it->second;
      };
      int64_t b = param("block_id.x", 0), g = param("grid_dim.x", n);
      if (isa<gpu::ClusterIdOp>(op))
        return setI(b / n);
      if (isa<gpu::ClusterBlockIdOp>(op))
        return setI(b % n);
      return setI(g / n);
    }
    if (auto bid = dyn_cast<gpu::BlockIdOp>(op)) {
      auto it = params.find("block_id." +
                            stringifyDimension(bid.getDimension()).str());
      return setI(it == params.end() ? 0 : it->second);
    }
    if (auto d = dyn_cast<memref::DimOp>(op)) {
      std::optional<int64_t> k = d.getConstantIndex();
      if (!k)
        throw Fail("memref.dim of a non-constant dimension");
      return setI(sizeOf(d.getSource(), *k));
    }
    if (auto ld = dyn_cast<memref::LoadOp>(op)) {
      // An entry the counterexample names (argN[i], a load inside a loop),
      // else the value loaded at entry (load@file:line:col), else 0.
      if (auto arg = dyn_cast<BlockArgument>(ld.getMemRef())) {
        std::string e = "arg" + std::to_string(arg.getArgNumber()) + "[";
        for (auto [k, i] : llvm::enumerate(ld.getIndices()))
          e += (k ? "," : "") + std::to_string(I(i));
        auto it = params.find(e + "]");
        if (it != params.end())
          return setI(it->second);
      }
      std::string s;
      llvm::raw_string_ostream os(s);
      auto fl = cast<FileLineColLoc>(ld.getLoc());
      os << "load@" << fl.getFilename().getValue() << ":" << fl.getLine() << ":"
         << fl.getColumn();
      auto it = params.find(s);
      return setI(it == params.end() ? 0 : it->second);
    }
    if (isa<func::ReturnOp, RegionBeginOp, RegionEndOp, AllocOp>(op))
      return;
    if (isa<BarrierOp>(op)) {
      ++barriers;
      return;
    }
    if (isa<CommitGroupOp>(op)) {
      ++committed;
      return;
    }
    if (auto w = dyn_cast<WaitGroupOp>(op)) {
      int64_t limit = committed - static_cast<int64_t>(w.getPending());
      for (auto &[k, c] : smem)
        if (!c.landed && c.group < limit) {
          c.landed = true;
          c.landBarrier = barriers;
        }
      return;
    }
    if (auto v = dyn_cast<ViewOp>(op)) {
      Mem m =
          globalView(v.getTensor(), v.getName(), v.getType(), v.getOffsets());
      m.sizes = sizesOf(v.getTensor());
      m.clipped = v.getClipped();
      m.clipAt = m.sizes;
      for (auto [k, b] : llvm::enumerate(v.getBounds()))
        if (k < m.clipAt.size())
          m.clipAt[k] = std::min(m.clipAt[k], I(b));
      bindName(op, m.name, v.getTensor());
      mems[key(v.getResult())] = m;
      return;
    }
    if (auto v = dyn_cast<Im2colViewOp>(op)) {
      // A clipped 2-D view of the im2col matrix: rows N * O1 * .., columns
      // R1 * .. * C, O = (D + 2q - l (R - 1) - 1) / s + 1.
      Mem m = globalView(v.getTensor(), v.getName(), v.getType(),
                         {v.getRow(), v.getCol()});
      std::vector<int64_t> t = sizesOf(v.getTensor());
      int64_t rows = t.front(), cols = t.back();
      for (size_t i = 0; i < v.getWindow().size(); ++i) {
        int64_t r = v.getWindow()[i], span = v.getDilation()[i] * (r - 1) + 1,
                padded = t[i + 1] + 2 * v.getPad()[i];
        rows *= padded < span ? 0 : (padded - span) / v.getStride()[i] + 1;
        cols *= r;
      }
      m.sizes = m.clipAt = {rows, cols};
      m.clipped = true;
      bindName(op, m.name, v.getTensor());
      mems[key(v.getResult())] = m;
      return;
    }
    if (auto g = dyn_cast<GatherViewOp>(op)) {
      Mem m;
      m.gather = true;
      m.root = key(g.getTensor());
      m.name = g.getName().str();
      auto ty = cast<TileType>(g.getType());
      m.shape.assign(ty.getShape().begin(), ty.getShape().end());
      m.layout = memLayoutOf(ty);
      m.tensor = tensorArg(g.getTensor());
      m.sizes = sizesOf(g.getTensor());
      m.col = I(g.getCol());
      m.perm = {0, 1};
      Reg &idx = R(g.getIndices());
      for (int64_t r = 0; r < m.shape[0]; ++r) {
        const std::optional<Tags> &t = idx.e[r];
        m.rowPositions.push_back(t && t->count("@0") ? t->at("@0") : -1);
      }
      bindName(op, m.name, g.getTensor());
      mems[key(g.getResult())] = m;
      return;
    }
    if (auto s = dyn_cast<StageOp>(op)) {
      auto bt = cast<BufferType>(s.getBuffer().getType());
      Mem m;
      m.shared = true;
      m.root = key(s.getBuffer());
      m.name = s.getBuffer().getDefiningOp<AllocOp>().getName().str();
      auto ty = cast<TileType>(s.getType());
      m.shape.assign(ty.getShape().begin(), ty.getShape().end());
      m.layout = memLayoutOf(ty);
      int64_t idx = I(s.getIndex());
      if (idx < 0 || idx >= bt.getStages())
        event("stage-out-of-range", op, -1, {idx});
      m.base = idx * memLayoutOf(bt.getTile()).cosize();
      mems[key(s.getResult())] = m;
      return;
    }
    if (auto t = dyn_cast<TransposeOp>(op)) {
      Mem m = M(t.getInput());
      auto ty = cast<TileType>(t.getType());
      m.shape.assign(ty.getShape().begin(), ty.getShape().end());
      m.layout = memLayoutOf(ty);
      for (auto &d : m.direct)
        for (auto &k : d.perm)
          k = 1 - k;
      for (auto &k : m.perm)
        k = 1 - k;
      mems[key(t.getResult())] = m;
      return;
    }
    if (auto r = dyn_cast<ReinterpretOp>(op)) {
      Mem m = M(r.getInput());
      m.layout = memLayoutOf(cast<TileType>(r.getType()));
      mems[key(r.getResult())] = m;
      return;
    }
    if (auto t = dyn_cast<TagOp>(op)) {
      auto ty = cast<TileType>(t.getType());
      std::vector<int64_t> syms;
      for (Value s : t.getSymbols())
        syms.push_back(I(s));
      std::vector<unsigned> id;
      for (unsigned k = 0; k < ty.getShape().size(); ++k)
        id.push_back(k);
      Mem::Direct d{t, syms, id};
      if (ty.isMemory()) {
        Mem m = M(t.getInput());
        if (!m.shared && !m.gather)
          checkViewTag(t, m, syms);
        m.direct.push_back(d);
        mems[key(t.getResult())] = m;
      } else {
        Reg r = R(t.getInput());
        Mem tmp;
        tmp.direct.push_back(d);
        for (size_t i = 0; i < r.e.size(); ++i) {
          if (!r.e[i])
            continue;
          for (auto &[k, v] : directTags(tmp, coordsOf(i, r.shape)))
            (*r.e[i])[k] = v;
        }
        regs[key(t.getResult())] = r;
      }
      return;
    }
    if (isa<FillOp, SplatOp, IotaOp>(op)) {
      // No tags; an integer tile's values where the op gives them.
      auto ty = cast<TileType>(op->getResult(0).getType());
      Reg r;
      r.shape.assign(ty.getShape().begin(), ty.getShape().end());
      r.e.assign(numel(r.shape), Tags());
      if (isa<IntegerType>(ty.getElementType())) {
        r.val.assign(numel(r.shape), std::nullopt);
        for (int64_t i = 0; i < numel(r.shape); ++i) {
          if (auto io = dyn_cast<IotaOp>(op))
            r.val[i] = coordsOf(i, r.shape)[io.getDim()];
          else if (auto sp = dyn_cast<SplatOp>(op)) {
            if (ints.count(key(sp.getValue())))
              r.val[i] = I(sp.getValue());
          } else {
            double x = cast<FillOp>(op).getValue().convertToDouble();
            if (x == double(int64_t(x)))
              r.val[i] = int64_t(x);
          }
        }
      }
      regs[key(op->getResult(0))] = r;
      return;
    }
    if (auto l = dyn_cast<LoadOp>(op)) {
      auto ty = cast<TileType>(l.getType());
      Reg r;
      r.shape.assign(ty.getShape().begin(), ty.getShape().end());
      r.e.assign(numel(r.shape), std::nullopt);
      L::Layout tv = tvOf(op, l.getResult());
      int64_t s0 = tv.mode(0).size();
      Mem &m = M(l.getSource());
      for (int64_t i = 0; i < tv.size(); ++i) {
        int64_t c = tv(i);
        bounds(op, m, coordsOf(c, r.shape), i % s0);
        auto t = readMem(m, coordsOf(c, r.shape), i % s0, op);
        if (t)
          r.e[c] = t;
      }
      regs[key(l.getResult())] = r;
      return;
    }
    if (isa<CopyOp, CopyAsyncOp>(op)) {
      Mem &src = M(op->getOperand(0));
      Mem dst = M(op->getOperand(1));
      write(
          op, dst, tvOf(op),
          [&](const std::vector<int64_t> &c, int64_t t) {
            bounds(op, src, c, t);
            return readMem(src, c, t, op);
          },
          isa<CopyAsyncOp>(op));
      return;
    }
    if (auto st = dyn_cast<StoreOp>(op)) {
      Reg &v = R(st.getValue());
      write(
          op, M(st.getDest()), tvOf(op, st.getValue()),
          [&](const std::vector<int64_t> &c, int64_t) {
            return v.e[linOf(c, v.shape)];
          },
          false);
      return;
    }
    if (auto m = dyn_cast<MmaOp>(op)) {
      // Operands in shared memory (wgmma) are read by the whole block.
      int64_t threads =
          func->getAttrOfType<KernelAttr>("argus.kernel").getNumThreads();
      for (Value v : {m.getA(), m.getB()}) {
        auto ty = cast<TileType>(v.getType());
        if (!ty.isMemory())
          continue;
        std::vector<int64_t> shape(ty.getShape().begin(), ty.getShape().end());
        for (int64_t i = 0; i < numel(shape); ++i)
          for (int64_t t = 0; t < threads; ++t)
            readMem(M(v), coordsOf(i, shape), t, op);
      }
      Reg acc = R(m.getAcc());
      accumulate(m, m.getA(), m.getB(), acc);
      regs[key(m.getResult())] = acc;
      return;
    }
    if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, CmpOp>(op)) {
      Reg l = R(op->getOperand(0)), r = R(op->getOperand(1));
      Reg o = l;
      o.pending.reset();
      o.val.clear();
      auto cmp = dyn_cast<CmpOp>(op);
      for (size_t i = 0; i < o.e.size(); ++i) {
        o.e[i] = (l.e[i] && r.e[i])
                     ? std::optional<Tags>(merge(*l.e[i], *r.e[i]))
                     : std::nullopt;
        if (i >= l.val.size() || i >= r.val.size() || !l.val[i] || !r.val[i])
          continue;
        o.val.resize(o.e.size());
        int64_t a = *l.val[i], b = *r.val[i];
        if (cmp)
          o.val[i] = compare(cmp.getPredicate(), a, b);
        else if (isa<AddOp>(op))
          o.val[i] = a + b;
        else if (isa<SubOp>(op))
          o.val[i] = a - b;
        else if (isa<MulOp>(op))
          o.val[i] = a * b;
        else if (isa<MaxOp, MinOp>(op))
          o.val[i] = isa<MaxOp>(op) ? std::max(a, b) : std::min(a, b);
      }
      regs[key(op->getResult(0))] = o;
      return;
    }
    if (auto sel = dyn_cast<SelectOp>(op)) {
      // The branch the mask picks; a field one branch lacks is kept, and
      // the operands' fields under lhs., rhs., mask. (the verifier's view).
      Reg &m = R(sel.getMask());
      Reg l = R(sel.getLhs()), r = R(sel.getRhs());
      Reg o = l;
      o.pending.reset();
      o.val.clear();
      for (size_t i = 0; i < o.e.size(); ++i) {
        if (i >= m.val.size() || !m.val[i])
          throw Fail("a select whose mask values are not known");
        if (!l.e[i] || !r.e[i] || !m.e[i]) {
          o.e[i].reset();
          continue;
        }
        bool pick = *m.val[i] != 0;
        Tags t = *r.e[i];
        for (auto &[k, v] : *l.e[i])
          if (pick || !r.e[i]->count(k))
            t[k] = v;
        for (auto &[k, v] : *l.e[i])
          t["lhs." + k] = v;
        for (auto &[k, v] : *r.e[i])
          t["rhs." + k] = v;
        for (auto &[k, v] : *m.e[i])
          t["mask." + k] = v;
        t["mask.value"] = *m.val[i];
        o.e[i] = t;
      }
      regs[key(op->getResult(0))] = o;
      return;
    }
    if (isa<ExpOp, Exp2Op, NegOp, AbsOp, ReluOp, SqrtOp, RsqrtOp, LogOp, Log2Op,
            TanhOp, SigmoidOp, GeluOp, ScaleOp, ConvertOp, ConvertLayoutOp>(
            op)) {
      Reg r = R(op->getOperand(0));
      r.pending.reset();
      if (!isa<ConvertLayoutOp>(op))
        r.val.clear();
      auto ty = cast<TileType>(op->getResult(0).getType());
      r.shape.assign(ty.getShape().begin(), ty.getShape().end());
      regs[key(op->getResult(0))] = r;
      return;
    }
    if (auto rd = dyn_cast<ReduceOp>(op)) {
      Reg &in = R(rd.getInput());
      auto ty = cast<TileType>(rd.getType());
      Reg o;
      o.shape.assign(ty.getShape().begin(), ty.getShape().end());
      o.e.assign(numel(o.shape), std::nullopt);
      int64_t dim = rd.getDim(), n = in.shape[dim];
      for (int64_t i = 0; i < numel(o.shape); ++i) {
        std::vector<int64_t> c = coordsOf(i, o.shape);
        std::optional<Tags> acc;
        for (int64_t r = 0; r < n; ++r) {
          std::vector<int64_t> ci = c;
          ci.insert(ci.begin() + dim, r);
          auto &t = in.e[linOf(ci, in.shape)];
          if (!t) {
            acc.reset();
            break;
          }
          if (r == 0) {
            acc = *t;
            continue;
          }
          for (auto it = acc->begin(); it != acc->end();)
            it = (t->count(it->first) && t->at(it->first) == it->second)
                     ? std::next(it)
                     : acc->erase(it);
        }
        o.e[i] = acc;
      }
      regs[key(rd.getResult())] = o;
      return;
    }
    if (auto bc = dyn_cast<BroadcastOp>(op)) {
      Reg &in = R(bc.getInput());
      auto ty = cast<TileType>(bc.getType());
      Reg o;
      o.shape.assign(ty.getShape().begin(), ty.getShape().end());
      o.e.assign(numel(o.shape), std::nullopt);
      for (int64_t i = 0; i < numel(o.shape); ++i) {
        std::vector<int64_t> c = coordsOf(i, o.shape);
        c.erase(c.begin() + bc.getDim());
        o.e[i] = in.e[linOf(c, in.shape)];
      }
      regs[key(bc.getResult())] = o;
      return;
    }
    if (auto a = dyn_cast<TagAssertOp>(op)) {
      assertHere(a);
      return;
    }
    if (auto decl = dyn_cast<ReducedOp>(op)) {
      // Every row accumulated each index of [lo, hi) exactly once.
      Reg &acc = R(decl.getAcc());
      int64_t lo = I(decl.getLo()), hi = I(decl.getHi());
      std::vector<int64_t> want;
      for (int64_t v = lo; v < hi; ++v)
        want.push_back(v);
      auto &rows = acc.seen[decl.getField().str()];
      for (int64_t r = 0; r < acc.shape[0]; ++r)
        if (rows[r] != want)
          event("reduction-range", op, -1, {r});
      return;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      Region &r = I(branch.getCondition()) ? branch.getThenRegion()
                                           : branch.getElseRegion();
      if (r.empty())
        return;
      for (Operation &o : r.front().without_terminator())
        step(&o);
      auto y = cast<scf::YieldOp>(r.front().getTerminator());
      bindAll(branch.getResults(), y.getOperands());
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      int64_t lb = I(loop.getLowerBound()), ub = I(loop.getUpperBound()),
              st = I(loop.getStep());
      Block &body = *loop.getBody();
      bindAll(body.getArguments().drop_front(), loop.getInitArgs());
      ivStack.push_back(0);
      loops.push_back({loop.getOperation(), ub, st});
      for (int64_t iv = lb; iv < ub; iv += st) {
        if (++steps > maxSteps)
          throw Fail("step limit reached");
        ivStack.back() = iv;
        ints[key(loop.getInductionVar())] = iv;
        for (Operation &o : body.without_terminator())
          step(&o);
        auto y = cast<scf::YieldOp>(body.getTerminator());
        if (world)
          endOfIteration(body);
        bindAll(body.getArguments().drop_front(), y.getOperands());
      }
      ivStack.pop_back();
      loops.pop_back();
      bindAll(loop.getResults(), body.getArguments().drop_front());
      return;
    }
    throw Fail("unsupported op " + op->getName().getStringRef().str());
  }
};

} // namespace

bool isAsyncKernel(func::FuncOp func) {
  bool async = false;
  func.walk([&](Operation *op) {
    async |=
        isa<RoleOp, MBarrierAllocOp, MmaAsyncOp, TmaLoadOp, TmaStoreOp>(op);
  });
  return async;
}

SimResult simulate(func::FuncOp func,
                   const std::map<std::string, int64_t> &params,
                   const std::vector<Probe> &probes,
                   const std::vector<Event> &watches, int samples,
                   int64_t maxSteps, int schedule) {
  if (!isAsyncKernel(func))
    return Sim(func, params, probes, watches, samples, maxSteps).run();
  // Every block of the cluster of the block asked for; probes, samples and
  // global writes only for that one.
  auto ka = func->getAttrOfType<KernelAttr>("argus.kernel");
  World w(schedule);
  w.blockThreads = ka.getNumThreads();
  w.clusterSize = ka.getClusterSize();
  auto it = params.find("block_id.x");
  int64_t n = w.clusterSize, bid = it == params.end() ? 0 : it->second;
  w.requestedRank = bid % n;
  w.nextComponent = n * w.blockThreads;
  for (int64_t r = 0; r < n; ++r) {
    std::map<std::string, int64_t> p = params;
    p["block_id.x"] = bid - bid % n + r;
    bool asked = r == w.requestedRank;
    auto sim =
        std::make_shared<Sim>(func, p, asked ? probes : std::vector<Probe>{},
                              watches, asked ? samples : 0, maxSteps);
    size_t id = w.agents.spawn([sim] { sim->runEntry(); }, true);
    sim->join(&w, id, r, r * w.blockThreads, (r + 1) * w.blockThreads);
  }
  w.run();
  return w.res;
}

} // namespace argus::sim
