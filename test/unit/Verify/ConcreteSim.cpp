//===- ConcreteSim.cpp - concrete interpreter for argus kernels -----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "ConcreteSim.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/TagFields.h"
#include "argus/Dialect/TagPredicate.h"
#include "argus/Dialect/TileLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <random>
#include <stdexcept>

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::sim {
namespace {

using Tags = std::map<std::string, int64_t>;

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
  int64_t col = 0;            // a gather's column offset
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

class Sim {
public:
  Sim(func::FuncOp f, const std::map<std::string, int64_t> &p,
      const std::vector<Probe> &pr, const std::vector<Event> &w, int samples,
      int64_t maxSteps)
      : func(f), params(p), probes(pr), watches(w), samples(samples),
        maxSteps(maxSteps) {}

  SimResult run() {
    try {
      for (BlockArgument a : func.getArguments()) {
        auto it = params.find("arg" + std::to_string(a.getArgNumber()));
        if (it != params.end())
          ints[a.getAsOpaquePointer()] = it->second;
      }
      exec(func.getBody().front());
    } catch (Fail &f) {
      res.ok = false;
      res.error = f.what();
    }
    return res;
  }

private:
  func::FuncOp func;
  std::map<std::string, int64_t> params;
  std::vector<Probe> probes;
  std::vector<Event> watches;
  int samples;
  int64_t maxSteps, steps = 0;
  SimResult res;
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

  int64_t blockThreads() {
    return func->getAttrOfType<KernelAttr>("argus.kernel").getNumThreads();
  }

  int64_t I(Value v) {
    auto it = ints.find(v.getAsOpaquePointer());
    if (it == ints.end())
      throw Fail("no integer value");
    return it->second;
  }
  Reg &R(Value v) {
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
    ++res.counts[kind];
    for (size_t i = 0; i < watches.size(); ++i) {
      const Event &w = watches[i];
      if (w.kind == kind && w.op == op && w.ivs == ivStack &&
          (w.thread < 0 || w.thread == t) &&
          (w.coords.empty() || w.coords == c))
        res.watchHits.insert(i);
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
        t["@" + std::to_string(k)] =
            (m.gather ? m.col : m.offsets[k]) + c[m.perm[k]];
        t["@size" + std::to_string(k)] = m.sizes[k];
      }
      return t;
    }
    if (!m.direct.empty())
      return directTags(m, c);
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
    bool collide = false;
    for (int64_t i = 0; i < tv.size(); ++i) {
      int64_t t = i % s0;
      std::vector<int64_t> c = coordsOf(tv(i), d.shape);
      std::vector<int64_t> key;
      if (d.shared)
        key = {addr(d, c)};
      else {
        key = c;
      }
      bounds(op, d, c, t);
      bool again = !seen.insert(key).second;
      if (again) {
        collide = true;
        event("non-injective-write", op, t, c);
      }
      std::optional<Tags> v = value(c, t);
      if (!d.shared && t < blockThreads()) {
        // A gather's row comes from data: recorded as -1.
        std::vector<int64_t> g(c.size(), -1);
        for (size_t k = 0; k < d.perm.size(); ++k)
          if (!d.gather || k == 1)
            g[k] = (d.gather ? d.col : d.offsets[k]) + c[d.perm[k]];
        res.globalWrites[{d.tensor, g}].insert({op, ivStack});
      }
      if (!d.shared)
        continue;
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
    Reg &r = R(v);
    return r.e[linOf(c, r.shape)];
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
      ++res.probeHits;
      auto ok = check(a, p.coords);
      if (ok && !*ok)
        ++res.probeViolations;
    }
    if (samples <= 0)
      return;
    Operation *site = a.getSite();
    for (int s = 0; s < samples; ++s) {
      std::map<std::string, std::vector<int64_t>> cs;
      auto pick = [&](int64_t n) {
        return static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
      };
      if (auto mma = dyn_cast<MmaOp>(site)) {
        auto acc = cast<TileType>(mma.getAcc().getType());
        auto at = cast<TileType>(mma.getA().getType());
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
      ++res.sampled;
      if (ok && !*ok) {
        ++res.sampledViolations;
        res.lastViolation = a.getPredicate().str();
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

  /// Every index of the reduced dimension is accumulated exactly once: in
  /// each row of the accumulator, the reduced field of the A elements
  /// accumulated runs through 0, 1, 2, ... across k and executions.
  void accumulate(MmaOp m, Reg &acc) {
    auto at = cast<TileType>(m.getA().getType());
    int64_t rows = at.getShape()[0], bk = at.getShape()[1];
    std::set<std::string> &chosen = reducedFields[m.getOperation()];
    if (chosen.empty()) {
      std::set<std::string> asserted, varying;
      func.walk([&](TagAssertOp a) {
        if (a.getSite() != m.getOperation())
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
        auto first = tagsOf(m.getA(), {r, 0});
        if (!first)
          continue;
        for (int64_t k = 1; k < bk; ++k)
          if (auto t = tagsOf(m.getA(), {r, k}))
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
      Value sized = m.getA();
      std::optional<size_t> dim = coordinateDim(m.getA(), rows, bk, false);
      int64_t bn = cast<TileType>(m.getB().getType()).getShape()[1];
      if (!dim && (dim = coordinateDim(m.getB(), bn, bk, true)))
        sized = m.getB();
      for (int64_t r = 0; r < rows; ++r) {
        auto &last = acc.reduced[f];
        int64_t prev = last.count(r) ? last[r] : -1;
        for (int64_t k = 0; k < bk; ++k) {
          auto t = tagsOf(m.getA(), {r, k});
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
        auto t = tagsOf(m.getA(), {r, bk - 1});
        if (!t || !t->count(f) || !lastIteration(m) || accumulatedFurther(m))
          continue;
        std::string size = "@size" + std::to_string(dim ? *dim : 0);
        auto ts = sized == m.getA() ? t : tagsOf(m.getB(), {bk - 1, 0});
        if (dim && ts && ts->count(size) && t->at(f) + 1 < ts->at(size))
          event("reduction-coverage", m, -1, {r, bk - 1});
      }
    }
  }

  /// Whether the loop directly around `m` runs its last iteration now.
  bool lastIteration(MmaOp m) {
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
  static bool accumulatedFurther(MmaOp m) {
    std::vector<Value> work;
    if (auto loop = dyn_cast<scf::ForOp>(m->getParentOp()))
      for (Value r : loop.getResults())
        work.push_back(r);
    for (size_t i = 0; i < work.size() && i < 64; ++i)
      for (OpOperand &use : work[i].getUses()) {
        Operation *u = use.getOwner();
        if (isa<MmaOp, scf::ForOp, scf::YieldOp>(u))
          return true;
        if (isa<TagOp, ConvertOp, ConvertLayoutOp>(u))
          work.push_back(u->getResult(0));
      }
    return false;
  }

  void exec(Block &b) {
    for (Operation &op : b)
      step(&op);
  }

  void step(Operation *op) {
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
      m.sizes = {rows, cols};
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
    if (auto f = dyn_cast<FillOp>(op)) {
      auto ty = cast<TileType>(f.getType());
      Reg r;
      r.shape.assign(ty.getShape().begin(), ty.getShape().end());
      r.e.assign(numel(r.shape), Tags());
      regs[key(f.getResult())] = r;
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
      Reg res = R(m.getAcc());
      accumulate(m, res);
      regs[key(m.getResult())] = res;
      return;
    }
    if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp>(op)) {
      Reg l = R(op->getOperand(0)), r = R(op->getOperand(1));
      Reg o = l;
      for (size_t i = 0; i < o.e.size(); ++i)
        o.e[i] = (l.e[i] && r.e[i])
                     ? std::optional<Tags>(merge(*l.e[i], *r.e[i]))
                     : std::nullopt;
      regs[key(op->getResult(0))] = o;
      return;
    }
    if (isa<ExpOp, Exp2Op, NegOp, ScaleOp, ConvertOp, ConvertLayoutOp>(op)) {
      Reg r = R(op->getOperand(0));
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
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      int64_t lb = I(loop.getLowerBound()), ub = I(loop.getUpperBound()),
              st = I(loop.getStep());
      std::vector<Value> cur(loop.getInitArgs().begin(),
                             loop.getInitArgs().end());
      auto bind = [&](Value to, Value from) {
        if (regs.count(key(from)))
          regs[key(to)] = regs[key(from)];
        else if (ints.count(key(from)))
          ints[key(to)] = ints[key(from)];
      };
      Block &body = *loop.getBody();
      for (unsigned i = 0; i < cur.size(); ++i)
        bind(body.getArgument(i + 1), cur[i]);
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
        // Copy yielded values into the iteration arguments (via temps).
        std::vector<Reg> tmp;
        for (unsigned i = 0; i < y.getNumOperands(); ++i)
          if (regs.count(key(y.getOperand(i))))
            regs[key(body.getArgument(i + 1))] =
                Reg(regs[key(y.getOperand(i))]);
      }
      ivStack.pop_back();
      loops.pop_back();
      for (unsigned i = 0; i < loop.getNumResults(); ++i)
        bind(loop.getResult(i), body.getArgument(i + 1));
      return;
    }
    throw Fail("unsupported op " + op->getName().getStringRef().str());
  }
};

} // namespace

SimResult simulate(func::FuncOp func,
                   const std::map<std::string, int64_t> &params,
                   const std::vector<Probe> &probes,
                   const std::vector<Event> &watches, int samples,
                   int64_t maxSteps) {
  return Sim(func, params, probes, watches, samples, maxSteps).run();
}

} // namespace argus::sim
