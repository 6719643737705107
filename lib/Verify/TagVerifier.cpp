//===- TagVerifier.cpp - tag propagation and SMT checks -------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// An abstract interpreter that builds, for each check, one quantifier-free
// bit-vector query: symbolic thread / slot / logical coordinate / loop
// iterations / kernel parameters, tags as terms over them, memory reads
// resolved to their latest writer through a bounded recency chain (see
// docs/Verifier.md). Unsupported constructs throw `Unsupported`, which turns
// the check into `unknown`; Z3 exceptions are caught the same way.
//
//===----------------------------------------------------------------------===//

#include "argus/Verify/TagVerifier.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/TagFields.h"
#include "argus/Dialect/TagPredicate.h"
#include "argus/Dialect/TileLayouts.h"
#include "argus/Verify/LayoutZ3.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>
#include <optional>
#include <set>

#include <z3++.h>

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;
namespace zenc = ::argus::layout::z3enc;

namespace argus::verify {

const char *toString(Status s) {
  switch (s) {
  case Status::Proved:
    return "proved";
  case Status::Violated:
    return "violated";
  case Status::Unknown:
    return "unknown";
  }
  return "unknown";
}

namespace {

/// Thrown by the interpreter when it cannot model something: the check
/// becomes unknown with this reason.
struct Unsupported {
  std::string reason;
};

[[noreturn]] void unsupported(const llvm::Twine &why) {
  throw Unsupported{why.str()};
}

/// Bit-vector width of every term. Index values are assumed to stay below
/// 2^30 (no wrap-around; checked per operation as an assumption), so signed
/// and unsigned readings agree.
constexpr unsigned kWidth = 24;
constexpr int64_t kIndexBound = int64_t(1) << 23;
constexpr int64_t kParamBound = int64_t(1) << 16;

std::string locStr(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    os << fl.getFilename().getValue() << ":" << fl.getLine() << ":"
       << fl.getColumn();
  else if (auto nl = dyn_cast<NameLoc>(loc))
    return locStr(nl.getChildLoc());
  else if (auto fused = dyn_cast<FusedLoc>(loc);
           fused && !fused.getLocations().empty())
    return locStr(fused.getLocations().front());
  else
    loc.print(os);
  return s;
}

std::string opDesc(Operation *op) {
  return ("'" + op->getName().getStringRef() + "' at " + locStr(op->getLoc()))
      .str();
}

/// Dynamic context: the value of each enclosing loop's induction variable
/// and the condition under which this instance executes.
struct Inst {
  std::vector<std::pair<Operation *, z3::expr>> ivs;
  z3::expr guard;
  explicit Inst(z3::expr g) : guard(g) {}
  std::optional<z3::expr> lookup(Operation *loop) const {
    for (auto &[l, e] : ivs)
      if (l == loop)
        return e;
    return std::nullopt;
  }
  Inst with(Operation *loop, z3::expr iv, z3::expr g) const {
    Inst r = *this;
    r.ivs.erase(std::remove_if(r.ivs.begin(), r.ivs.end(),
                               [&](auto &p) { return p.first == loop; }),
                r.ivs.end());
    r.ivs.push_back({loop, iv});
    r.guard = g;
    return r;
  }
  Inst without(Operation *loop) const {
    Inst r = *this;
    r.ivs.erase(std::remove_if(r.ivs.begin(), r.ivs.end(),
                               [&](auto &p) { return p.first == loop; }),
                r.ivs.end());
    return r;
  }
};

using Tags = std::map<std::string, z3::expr>;

/// A concrete re-evaluation of one symbolic step on a model. Returns an
/// empty string when the model agrees.
struct Fact {
  z3::expr guard;
  std::function<std::string(const z3::model &)> check;
};

struct SyncEvent {
  enum Kind { Barrier, Wait, Commit } kind;
  int64_t n = 0;
  z3::expr guard;
  Operation *op;
};

/// One possible latest writer of a read.
struct Candidate {
  Operation *op;
  Inst inst;
  bool cutoff = false;
  std::vector<SyncEvent> events; // between the writer and the read, in order
};

struct ReadRec {
  Operation *reader;
  std::string memory;
  std::vector<z3::expr> coords;
  z3::expr stage, addr;
  z3::expr defined, cut, unsync;
  struct Cand {
    Operation *op;
    bool cutoff;
    z3::expr sel;
    std::vector<z3::expr> wcoords;
    std::optional<z3::expr> wt, wv;
    std::vector<std::pair<Operation *, z3::expr>> ivs;
    std::vector<z3::expr> srcGlobal;
    std::string srcName;
  };
  std::vector<Cand> cands;
};

struct Query {
  std::vector<z3::expr> cons;
  std::map<std::pair<unsigned, int64_t>, std::pair<z3::expr, z3::expr>> divs;
  std::map<unsigned, z3::expr> divRoots;
  std::vector<ReadRec> reads;
  std::vector<Fact> facts;
  std::vector<z3::expr> reductionVars;
};

struct DirectTag {
  TagOp op;
  std::vector<unsigned> perm; // tag-level coord k = tile coord perm[k]
};

/// A memory tile resolved to its root (tensor or buffer) in one instance.
struct MemView {
  bool shared = false, gather = false;
  Value root;
  std::string name;
  std::optional<z3::expr> stage, base;
  int64_t stages = 1, cosz = 0;
  L::SwizzledLayout layout;
  std::vector<int64_t> shape;
  std::vector<z3::expr> offsets;
  std::vector<unsigned> perm; // root coord k = tile coord perm[k]
  std::vector<DirectTag> direct;
};

int64_t product(ArrayRef<int64_t> s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

std::vector<int64_t> delinConcrete(int64_t lin, ArrayRef<int64_t> shape) {
  std::vector<int64_t> c;
  for (int64_t d : shape) {
    c.push_back(lin % d);
    lin /= d;
  }
  return c;
}

int64_t linConcrete(ArrayRef<int64_t> c, ArrayRef<int64_t> shape) {
  int64_t lin = 0, mul = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    lin += c[k] * mul;
    mul *= shape[k];
  }
  return lin;
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}
int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

Value rootOf(Value tile) {
  while (Operation *def = tile.getDefiningOp()) {
    if (auto stage = dyn_cast<StageOp>(def))
      return stage.getBuffer();
    if (auto view = dyn_cast<ViewOp>(def))
      return view.getTensor();
    if (auto gather = dyn_cast<GatherViewOp>(def))
      return gather.getTensor();
    if (isa<TagOp, TransposeOp, ReinterpretOp>(def)) {
      tile = def->getOperand(0);
      continue;
    }
    break;
  }
  return tile;
}

bool isWriteOp(Operation *op) { return isa<CopyOp, CopyAsyncOp, StoreOp>(op); }
Value writeDest(Operation *op) {
  if (auto c = dyn_cast<CopyOp>(op))
    return c.getDest();
  if (auto c = dyn_cast<CopyAsyncOp>(op))
    return c.getDest();
  return cast<StoreOp>(op).getDest();
}
bool isSharedTile(Value v) {
  auto t = dyn_cast<TileType>(v.getType());
  return t && t.getMemorySpace() == MemorySpace::Shared;
}

//===----------------------------------------------------------------------===//
// The verifier of one kernel
//===----------------------------------------------------------------------===//

class KernelVerifier {
public:
  KernelVerifier(func::FuncOp func, KernelAttr kernel,
                 const VerifyOptions &opts)
      : func(func), opts(opts) {
    threads = kernel.getNumThreads();
    warpSize = kernel.getWarpSize();
  }

  KernelReport run();

private:
  z3::context ctx;
  func::FuncOp func;
  VerifyOptions opts;
  int64_t threads = 0, warpSize = 0;
  int64_t depth = 2; // recency-chain depth per loop
  Query *q = nullptr;
  unsigned fresh = 0, queries = 0;
  std::vector<std::pair<std::string, z3::expr>> paramVars; // for reports
  std::map<const void *, z3::expr> params;
  std::vector<z3::expr> paramCons;
  std::map<Operation *, std::vector<std::set<std::string>>> invariant;
  std::map<Operation *, const std::vector<std::set<std::string>> *> hypothesis;
  std::map<Operation *, std::string> fullStage; // "" when full
  std::map<Operation *, bool> relevant;

  // ---- terms ---------------------------------------------------------------
  z3::expr bv(int64_t v) { return ctx.bv_val(static_cast<int64_t>(v), kWidth); }
  z3::expr var(const std::string &name) {
    return ctx.bv_const((name + "!" + std::to_string(fresh++)).c_str(), kWidth);
  }
  z3::expr rangeVar(const std::string &name, int64_t size) {
    z3::expr v = var(name);
    q->cons.push_back(z3::ult(v, bv(size)));
    return v;
  }
  static int64_t uval(const z3::model &m, const z3::expr &e) {
    z3::expr r = m.eval(e, true);
    uint64_t u = 0;
    if (!r.is_numeral_u64(u))
      return -1;
    return static_cast<int64_t>(u);
  }
  static int64_t sval(const z3::model &m, const z3::expr &e) {
    int64_t u = uval(m, e);
    if (u >= (int64_t(1) << (kWidth - 1)))
      u -= int64_t(1) << kWidth;
    return u;
  }
  /// x udiv c and x urem c for a constant c > 0. Non-powers of two get
  /// fresh quotient / remainder variables tied by x = q * c + r (much
  /// cheaper to bit-blast than a division circuit).
  std::pair<z3::expr, z3::expr> divmod(const z3::expr &x, int64_t c) {
    if ((c & (c - 1)) == 0)
      return {z3::udiv(x, bv(c)), z3::urem(x, bv(c))};
    auto key = std::make_pair(Z3_get_ast_id(ctx, x), c);
    auto it = q->divs.find(key);
    if (it != q->divs.end())
      return it->second;
    z3::expr qq = var("quot"), rr = var("rem");
    q->cons.push_back(z3::ult(rr, bv(c)));
    q->cons.push_back(z3::ule(qq, bv(((int64_t(1) << kWidth) - 1) / c)));
    q->cons.push_back(z3::bvadd_no_overflow(qq * bv(c), rr, false));
    q->cons.push_back(x == qq * bv(c) + rr);
    // Lemma for remainders of values a constant apart (x' = x + k, both
    // below 2^23 so no wrap-around): r' = (r + k) mod c. Makes the modular
    // reasoning of pipelines (stage = i mod S) propositional.
    for (auto &[k2, qr] : q->divs) {
      if (k2.second != c)
        continue;
      z3::expr other = q->divRoots.at(k2.first);
      z3::expr diff = (x - other).simplify();
      if (!diff.is_numeral())
        continue;
      int64_t k = 0;
      uint64_t u = 0;
      if (!diff.is_numeral_u64(u))
        continue;
      k = static_cast<int64_t>(u);
      if (k >= (int64_t(1) << (kWidth - 1)))
        k -= int64_t(1) << kWidth;
      int64_t km = ((k % c) + c) % c;
      z3::expr table = bv(0);
      for (int64_t v = c - 1; v >= 0; --v)
        table = z3::ite(qr.second == bv(v), bv((v + km) % c), table);
      q->cons.push_back(z3::implies(z3::ult(x, bv(kIndexBound)) &&
                                        z3::ult(other, bv(kIndexBound)),
                                    rr == table));
    }
    q->divRoots.emplace(Z3_get_ast_id(ctx, x), x);
    q->divs.emplace(key, std::make_pair(qq, rr));
    q->facts.push_back({ctx.bool_val(true), [x, qq, rr, c](const z3::model &m) {
                          int64_t xv = uval(m, x);
                          if (uval(m, qq) == xv / c && uval(m, rr) == xv % c)
                            return std::string();
                          return "division " + std::to_string(xv) + " / " +
                                 std::to_string(c) + " disagrees";
                        }});
    return {qq, rr};
  }
  void assume(const z3::expr &guard, const z3::expr &cond) {
    q->cons.push_back(z3::implies(guard, cond));
  }

  // ---- parameters ----------------------------------------------------------
  void collectParams();
  z3::expr evalIndex(Value v, const Inst &in);

  // ---- layouts
  // ---------------------------------------------------------------
  L::Layout regLayout(TileType ty);
  L::SwizzledLayout memLayout(TileType ty);
  std::vector<z3::expr> delin(const z3::expr &lin, ArrayRef<int64_t> shape);
  z3::expr lin(const std::vector<z3::expr> &c, ArrayRef<int64_t> shape);
  z3::expr tvLin(const L::Layout &l, const z3::expr &t, const z3::expr &v,
                 const z3::expr &guard);
  z3::expr memOffset(const L::SwizzledLayout &l, ArrayRef<int64_t> shape,
                     const std::vector<z3::expr> &c, const z3::expr &guard);
  std::vector<z3::expr> coordVars(const std::string &name,
                                  ArrayRef<int64_t> shape) {
    std::vector<z3::expr> c;
    for (size_t k = 0; k < shape.size(); ++k)
      c.push_back(rangeVar(name + std::to_string(k), shape[k]));
    return c;
  }

  // ---- instances
  // -------------------------------------------------------------
  std::vector<scf::ForOp> enclosingLoops(Operation *op);
  Inst freshInst(Operation *op);
  void loopBounds(scf::ForOp loop, const Inst &in, z3::expr &lb, z3::expr &ub,
                  int64_t &step);

  // ---- tags
  // ------------------------------------------------------------------
  Tags applyTagOp(TagOp op, const std::vector<z3::expr> &c, const Inst &in);
  z3::expr evalAffine(AffineExpr e, const std::vector<z3::expr> &dims,
                      const std::vector<z3::expr> &syms);
  Tags regTags(Value v, const std::vector<z3::expr> &c, const Inst &in);
  Tags operandTags(Value v, const std::vector<z3::expr> &c, const Inst &in,
                   Operation *reader);
  MemView resolve(Value tile, const Inst &in);
  Tags memTags(Value tile, const std::vector<z3::expr> &c, const Inst &in,
               Operation *reader, std::optional<z3::expr> readerThread);
  Tags readShared(const MemView &mv, const std::vector<z3::expr> &c,
                  const Inst &in, Operation *reader,
                  std::optional<z3::expr> readerThread, bool wantTags);
  const std::vector<std::set<std::string>> &invariantFields(scf::ForOp loop);

  // ---- the recency chain ---------------------------------------------------
  bool hasRelevant(Operation *op);
  /// Walk mode: collect writes of the root (latest-writer chains) or reads
  /// of the root (write-after-read races).
  bool walkReads = false;
  static bool readsRoot(Operation *p, Value root) {
    if (isa<LoadOp, CopyOp, CopyAsyncOp>(p))
      return isSharedTile(p->getOperand(0)) && rootOf(p->getOperand(0)) == root;
    if (auto m = dyn_cast<MmaOp>(p))
      for (Value v : {m.getA(), m.getB()})
        if (isSharedTile(v) && rootOf(v) == root)
          return true;
    return false;
  }
  bool touchesRoot(Operation *op, Value root) {
    bool r = false;
    op->walk([&](Operation *p) {
      if (walkReads ? readsRoot(p, root)
                    : (isWriteOp(p) && rootOf(writeDest(p)) == root))
        r = true;
    });
    return r;
  }
  CheckResult checkWar(Operation *write);
  bool writesRoot(Operation *op, Value root);
  void walkBefore(Operation *op, const Inst &in, Value root,
                  std::vector<Candidate> &out, std::vector<SyncEvent> &evRev);
  void walkBlockBack(Block &b, const Inst &in, Value root,
                     std::vector<Candidate> &out,
                     std::vector<SyncEvent> &evRev);
  void visitBack(Operation *p, const Inst &in, Value root,
                 std::vector<Candidate> &out, std::vector<SyncEvent> &evRev);
  std::string checkFullStage(Operation *write);

  // ---- checks
  // ----------------------------------------------------------------
  z3::check_result solve(const std::vector<z3::expr> &extra,
                         std::optional<z3::model> &model);
  void baseCons(Query &Q);
  CheckResult checkAssert(TagAssertOp op);
  void checkRead(Operation *reader, Value source,
                 std::vector<CheckResult> &out);
  CheckResult checkInjective(Operation *write);
  std::string replay(const z3::model &m);
  /// Re-solve with small loop iterations, block ids and kernel arguments,
  /// keeping `model` when that is impossible: easier counterexamples.
  void preferSmall(std::vector<z3::expr> extra, const Inst &in,
                   std::optional<z3::model> &model);
  void fillCommon(Counterexample &cx, const z3::model &m, const Inst &in);
  void readNotes(Counterexample &cx, const z3::model &m);
  std::string loopName(Operation *loop) {
    return "scf.for at " + locStr(loop->getLoc());
  }
};

void KernelVerifier::collectParams() {
  auto mk = [&](const void *key, const std::string &name, int64_t lo) {
    z3::expr v = ctx.bv_const(name.c_str(), kWidth);
    params.emplace(key, v);
    paramVars.push_back({name, v});
    paramCons.push_back(z3::uge(v, bv(lo)));
    paramCons.push_back(z3::ult(v, bv(kParamBound)));
  };
  for (BlockArgument arg : func.getArguments())
    if (arg.getType().isIndex() || arg.getType().isInteger())
      mk(arg.getAsOpaquePointer(), "arg" + std::to_string(arg.getArgNumber()),
         1);
  func.walk([&](Operation *op) {
    if (auto b = dyn_cast<gpu::BlockIdOp>(op)) {
      std::string n = "block_id." + stringifyDimension(b.getDimension()).str();
      bool seen = false;
      for (auto &[name, e] : paramVars)
        seen |= name == n;
      if (!seen)
        mk(reinterpret_cast<const void *>(
               static_cast<uintptr_t>(b.getDimension()) + 1),
           n, 0);
    } else if (auto ld = dyn_cast<memref::LoadOp>(op)) {
      if (ld->getParentOp() == func.getOperation())
        mk(ld.getResult().getAsOpaquePointer(), "load@" + locStr(ld.getLoc()),
           0);
    }
  });
}

z3::expr KernelVerifier::evalIndex(Value v, const Inst &in) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      if (arg.getArgNumber() == 0) {
        if (auto iv = in.lookup(loop))
          return *iv;
        unsupported("induction variable used outside its loop instance");
      }
      unsupported("index values carried by scf.for iter_args are not "
                  "modelled");
    }
    auto it = params.find(arg.getAsOpaquePointer());
    if (it != params.end())
      return it->second;
    unsupported("block argument of '" + owner->getName().getStringRef() +
                "' is not modelled");
  }
  Operation *def = v.getDefiningOp();
  if (auto it = params.find(v.getAsOpaquePointer()); it != params.end())
    return it->second;
  if (auto b = dyn_cast<gpu::BlockIdOp>(def))
    return params.at(reinterpret_cast<const void *>(
        static_cast<uintptr_t>(b.getDimension()) + 1));
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    auto ia = dyn_cast<IntegerAttr>(c.getValue());
    if (!ia)
      unsupported("non-integer constant");
    int64_t x = ia.getValue().getSExtValue();
    if (x < 0 || x >= kIndexBound)
      unsupported("constant " + std::to_string(x) +
                  " out of the modelled "
                  "range [0, 2^30)");
    return bv(x);
  }
  auto constOf = [&](Value x) -> std::optional<int64_t> {
    if (auto c = x.getDefiningOp<arith::ConstantOp>())
      if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
        return ia.getValue().getSExtValue();
    return std::nullopt;
  };
  auto bounded = [&](z3::expr r, const std::string &what) {
    assume(in.guard, z3::ult(r, bv(kIndexBound)));
    (void)what;
    return r;
  };
  // Concrete re-evaluation of a binary index op on the model.
  auto checked = [&](z3::expr a, z3::expr b, z3::expr r, char op) {
    q->facts.push_back(
        {in.guard, [a, b, r, op](const z3::model &m) {
           int64_t x = uval(m, a), y = uval(m, b), z = uval(m, r);
           int64_t want = op == '+' ? x + y : op == '-' ? x - y : x * y;
           if (want == z)
             return std::string();
           return std::string("index arithmetic wraps: ") + std::to_string(x) +
                  " " + op + " " + std::to_string(y) + " = " +
                  std::to_string(want) + ", solver " + std::to_string(z);
         }});
    return r;
  };
  if (auto o = dyn_cast<arith::AddIOp>(def)) {
    z3::expr a = evalIndex(o.getLhs(), in), b = evalIndex(o.getRhs(), in);
    return checked(a, b, bounded(a + b, "addi"), '+');
  }
  if (auto o = dyn_cast<arith::SubIOp>(def)) {
    z3::expr a = evalIndex(o.getLhs(), in), b = evalIndex(o.getRhs(), in);
    // Index arithmetic does not wrap: a kernel precondition (documented).
    assume(in.guard, z3::uge(a, b));
    return checked(a, b, a - b, '-');
  }
  if (auto o = dyn_cast<arith::MulIOp>(def)) {
    auto ca = constOf(o.getLhs()), cb = constOf(o.getRhs());
    if (!ca && !cb)
      unsupported("non-linear index arithmetic (product of two symbolic "
                  "values) at " +
                  locStr(o.getLoc()));
    z3::expr a = evalIndex(o.getLhs(), in), b = evalIndex(o.getRhs(), in);
    assume(in.guard, z3::bvmul_no_overflow(a, b, false));
    return checked(a, b, bounded(a * b, "muli"), '*');
  }
  auto divisor = [&](Value x) -> int64_t {
    auto c = constOf(x);
    if (!c || *c <= 0)
      unsupported("division by a non-constant or non-positive value at " +
                  locStr(def->getLoc()));
    return *c;
  };
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(def)) {
    int64_t d = divisor(def->getOperand(1));
    return divmod(evalIndex(def->getOperand(0), in), d).first;
  }
  if (isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(def)) {
    int64_t d = divisor(def->getOperand(1));
    return bounded(
        z3::udiv(evalIndex(def->getOperand(0), in) + bv(d - 1), bv(d)),
        "ceildiv");
  }
  if (isa<arith::RemUIOp, arith::RemSIOp>(def)) {
    int64_t d = divisor(def->getOperand(1));
    return divmod(evalIndex(def->getOperand(0), in), d).second;
  }
  if (isa<arith::MinUIOp, arith::MinSIOp>(def)) {
    z3::expr a = evalIndex(def->getOperand(0), in),
             b = evalIndex(def->getOperand(1), in);
    return z3::ite(z3::ult(a, b), a, b);
  }
  if (isa<arith::MaxUIOp, arith::MaxSIOp>(def)) {
    z3::expr a = evalIndex(def->getOperand(0), in),
             b = evalIndex(def->getOperand(1), in);
    return z3::ite(z3::ult(a, b), b, a);
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
    return evalIndex(def->getOperand(0), in);
  if (isa<memref::LoadOp>(def))
    unsupported("a value loaded from memory inside a loop (" +
                locStr(def->getLoc()) + ") is not modelled");
  unsupported("index value defined by '" + def->getName().getStringRef() +
              "' at " + locStr(def->getLoc()) + " is not modelled");
}

// ---- layouts ---------------------------------------------------------------

L::Layout KernelVerifier::regLayout(TileType ty) {
  FailureOr<L::Layout> l = getRegisterLayout(ty);
  if (failed(l))
    unsupported("no register layout for a tile");
  return *l;
}

L::SwizzledLayout KernelVerifier::memLayout(TileType ty) {
  if (auto la = dyn_cast_or_null<LayoutAttr>(ty.getLayout()))
    return la.getLayout();
  std::vector<int64_t> shape(ty.getShape().begin(), ty.getShape().end());
  std::vector<L::IntTuple> elems(shape.begin(), shape.end());
  return L::SwizzledLayout(
      L::Layout::compactRowMajor(L::IntTuple::tuple(elems)));
}

std::vector<z3::expr> KernelVerifier::delin(const z3::expr &l,
                                            ArrayRef<int64_t> shape) {
  std::vector<z3::expr> c;
  int64_t mul = 1;
  for (int64_t d : shape) {
    c.push_back(divmod(divmod(l, mul).first, d).second);
    mul *= d;
  }
  return c;
}

z3::expr KernelVerifier::lin(const std::vector<z3::expr> &c,
                             ArrayRef<int64_t> shape) {
  z3::expr r = bv(0);
  int64_t mul = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    r = r + c[k] * bv(mul);
    mul *= shape[k];
  }
  return r;
}

z3::expr KernelVerifier::tvLin(const L::Layout &l, const z3::expr &t,
                               const z3::expr &v, const z3::expr &guard) {
  if (l.rank() != 2)
    unsupported("a (thread, slot) layout must have two modes: " + l.str());
  auto r = zenc::encodeCoords(l, {t, v});
  if (!r)
    unsupported("layout encoding failed: " + llvm::toString(r.takeError()));
  z3::expr out = *r;
  int64_t s0 = l.mode(0).size();
  q->facts.push_back({guard, [l, t, v, out, s0](const z3::model &m) {
                        int64_t tv = uval(m, t), vv = uval(m, v);
                        int64_t want = l(tv + s0 * vv), got = uval(m, out);
                        if (want == got)
                          return std::string();
                        return "layout " + l.str() + " at (" +
                               std::to_string(tv) + "," + std::to_string(vv) +
                               ") is " + std::to_string(want) + ", solver " +
                               std::to_string(got);
                      }});
  return out;
}

z3::expr KernelVerifier::memOffset(const L::SwizzledLayout &l,
                                   ArrayRef<int64_t> shape,
                                   const std::vector<z3::expr> &c,
                                   const z3::expr &guard) {
  llvm::Expected<z3::expr> r = l.layout.rank() == shape.size()
                                   ? zenc::encodeCoords(l, c)
                                   : zenc::encode(l, lin(c, shape));
  if (!r)
    unsupported("layout encoding failed: " + llvm::toString(r.takeError()));
  z3::expr out = *r;
  std::vector<int64_t> sh(shape.begin(), shape.end());
  q->facts.push_back({guard, [l, sh, c, out](const z3::model &m) {
                        std::vector<int64_t> cv;
                        for (auto &e : c)
                          cv.push_back(uval(m, e));
                        int64_t want = l(linConcrete(cv, sh)),
                                got = uval(m, out);
                        if (want == got)
                          return std::string();
                        return "memory layout " + l.str() +
                               " disagrees: " + std::to_string(want) +
                               " vs solver " + std::to_string(got);
                      }});
  return out;
}

// ---- instances
// ---------------------------------------------------------------

std::vector<scf::ForOp> KernelVerifier::enclosingLoops(Operation *op) {
  std::vector<scf::ForOp> loops;
  for (Operation *p = op->getParentOp(); p && p != func.getOperation();
       p = p->getParentOp()) {
    if (auto f = dyn_cast<scf::ForOp>(p))
      loops.insert(loops.begin(), f);
    else
      unsupported("op nested in '" + p->getName().getStringRef() +
                  "' (only scf.for is modelled)");
  }
  return loops;
}

void KernelVerifier::loopBounds(scf::ForOp loop, const Inst &in, z3::expr &lb,
                                z3::expr &ub, int64_t &step) {
  lb = evalIndex(loop.getLowerBound(), in);
  ub = evalIndex(loop.getUpperBound(), in);
  auto c = loop.getStep().getDefiningOp<arith::ConstantOp>();
  auto ia = c ? dyn_cast<IntegerAttr>(c.getValue()) : IntegerAttr();
  if (!ia || ia.getValue().getSExtValue() <= 0)
    unsupported("scf.for with a non-constant step at " + locStr(loop.getLoc()));
  step = ia.getValue().getSExtValue();
}

Inst KernelVerifier::freshInst(Operation *op) {
  Inst in(ctx.bool_val(true));
  for (scf::ForOp loop : enclosingLoops(op)) {
    z3::expr lb = bv(0), ub = bv(0);
    int64_t step = 1;
    loopBounds(loop, in, lb, ub, step);
    z3::expr i = var("iv");
    q->cons.push_back(z3::uge(i, lb));
    q->cons.push_back(z3::ult(i, ub));
    if (step != 1)
      q->cons.push_back(z3::urem(i - lb, bv(step)) == bv(0));
    in = in.with(loop, i, in.guard);
  }
  return in;
}

// ---- tags
// ----------------------------------------------------------------------

z3::expr KernelVerifier::evalAffine(AffineExpr e,
                                    const std::vector<z3::expr> &dims,
                                    const std::vector<z3::expr> &syms) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return dims.at(d.getPosition());
  if (auto s = dyn_cast<AffineSymbolExpr>(e))
    return syms.at(s.getPosition());
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return bv(c.getValue());
  auto b = cast<AffineBinaryOpExpr>(e);
  z3::expr l = evalAffine(b.getLHS(), dims, syms);
  z3::expr r = evalAffine(b.getRHS(), dims, syms);
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return l + r;
  case AffineExprKind::Mul:
    return l * r;
  case AffineExprKind::FloorDiv: {
    z3::expr qq = l / r, rr = z3::srem(l, r);
    return z3::ite(rr != bv(0) && ((rr < bv(0)) != (r < bv(0))), qq - bv(1),
                   qq);
  }
  case AffineExprKind::CeilDiv: {
    z3::expr qq = l / r, rr = z3::srem(l, r);
    return z3::ite(rr != bv(0) && ((rr < bv(0)) == (r < bv(0))), qq + bv(1),
                   qq);
  }
  case AffineExprKind::Mod: {
    z3::expr m = z3::smod(l, r);
    return m;
  }
  default:
    unsupported("affine expression kind");
  }
}

Tags KernelVerifier::applyTagOp(TagOp op, const std::vector<z3::expr> &c,
                                const Inst &in) {
  std::vector<z3::expr> syms;
  for (Value s : op.getSymbols())
    syms.push_back(evalIndex(s, in));
  AffineMap map = op.getMap();
  if (map.getNumDims() != c.size())
    unsupported("tag map dimension count differs from the tile rank");
  Tags t;
  auto fields = op.getFields();
  for (unsigned j = 0; j < map.getNumResults(); ++j) {
    z3::expr e = evalAffine(map.getResult(j), c, syms);
    t.insert_or_assign(cast<StringAttr>(fields[j]).getValue().str(), e);
    AffineExpr ae = map.getResult(j);
    q->facts.push_back({in.guard, [ae, c, syms, e](const z3::model &m) {
                          std::vector<int64_t> d, s;
                          for (auto &x : c)
                            d.push_back(sval(m, x));
                          for (auto &x : syms)
                            s.push_back(sval(m, x));
                          std::function<int64_t(AffineExpr)> ev =
                              [&](AffineExpr a) -> int64_t {
                            if (auto dd = dyn_cast<AffineDimExpr>(a))
                              return d[dd.getPosition()];
                            if (auto ss = dyn_cast<AffineSymbolExpr>(a))
                              return s[ss.getPosition()];
                            if (auto cc = dyn_cast<AffineConstantExpr>(a))
                              return cc.getValue();
                            auto bb = cast<AffineBinaryOpExpr>(a);
                            int64_t x = ev(bb.getLHS()), y = ev(bb.getRHS());
                            switch (a.getKind()) {
                            case AffineExprKind::Add:
                              return x + y;
                            case AffineExprKind::Mul:
                              return x * y;
                            case AffineExprKind::FloorDiv:
                              return floorDiv(x, y);
                            case AffineExprKind::CeilDiv:
                              return -floorDiv(-x, y);
                            default:
                              return floorMod(x, y);
                            }
                          };
                          int64_t want = ev(ae), got = sval(m, e);
                          if (want == got)
                            return std::string();
                          return "tag map value " + std::to_string(want) +
                                 " vs solver " + std::to_string(got);
                        }});
  }
  return t;
}

Tags KernelVerifier::operandTags(Value v, const std::vector<z3::expr> &c,
                                 const Inst &in, Operation *reader) {
  auto ty = dyn_cast<TileType>(v.getType());
  if (!ty)
    unsupported("operand is not a tile");
  if (ty.isMemory())
    return memTags(v, c, in, reader, std::nullopt);
  return regTags(v, c, in);
}

static Tags restrictTags(Tags t, const std::set<std::string> &keep) {
  for (auto it = t.begin(); it != t.end();)
    it = keep.count(it->first) ? std::next(it) : t.erase(it);
  return t;
}

Tags KernelVerifier::regTags(Value v, const std::vector<z3::expr> &c,
                             const Inst &in) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      unsupported("register tile block argument that is not an scf.for "
                  "iter_arg");
    unsigned idx = arg.getArgNumber() - 1;
    Tags init = regTags(loop.getInitArgs()[idx], c, in.without(loop));
    auto h = hypothesis.find(loop.getOperation());
    if (h != hypothesis.end())
      return restrictTags(init, (*h->second)[idx]);
    return restrictTags(init, invariantFields(loop)[idx]);
  }
  Operation *def = v.getDefiningOp();
  if (auto loop = dyn_cast<scf::ForOp>(def)) {
    unsigned idx = cast<OpResult>(v).getResultNumber();
    Tags init = regTags(loop.getInitArgs()[idx], c, in);
    return restrictTags(init, invariantFields(loop)[idx]);
  }
  if (auto t = dyn_cast<TagOp>(def)) {
    Tags base = operandTags(t.getInput(), c, in, def);
    for (auto &[k, e] : applyTagOp(t, c, in))
      base.insert_or_assign(k, e);
    return base;
  }
  if (isa<FillOp>(def))
    return {};
  if (auto l = dyn_cast<LoadOp>(def))
    return memTags(l.getSource(), c, in, def, std::nullopt);
  if (auto m = dyn_cast<MmaOp>(def))
    return regTags(m.getAcc(), c, in);
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp>(def)) {
    Tags l = regTags(def->getOperand(0), c, in);
    Tags r = regTags(def->getOperand(1), c, in);
    Tags out = r;
    for (auto &[k, e] : l)
      out.insert_or_assign(k, e); // lhs wins for shared field names
    for (auto &[k, e] : l)
      out.insert_or_assign("lhs." + k, e);
    for (auto &[k, e] : r)
      out.insert_or_assign("rhs." + k, e);
    return out;
  }
  if (isa<ExpOp, Exp2Op, NegOp, ScaleOp, ConvertOp, ConvertLayoutOp>(def))
    return regTags(def->getOperand(0), c, in);
  if (auto r = dyn_cast<ReduceOp>(def)) {
    auto inTy = cast<TileType>(r.getInput().getType());
    int64_t dim = r.getDim();
    std::vector<z3::expr> ci = c;
    z3::expr red = rangeVar("reduced", inTy.getShape()[dim]);
    q->reductionVars.push_back(red);
    ci.insert(ci.begin() + dim, red);
    return regTags(r.getInput(), ci, in);
  }
  if (auto b = dyn_cast<BroadcastOp>(def)) {
    std::vector<z3::expr> ci = c;
    ci.erase(ci.begin() + b.getDim());
    return regTags(b.getInput(), ci, in);
  }
  unsupported("op " + opDesc(def) + " is not modelled by the tag verifier");
}

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
    mv.layout = memLayout(ty);
    return mv;
  }
  if (auto g = dyn_cast<GatherViewOp>(def)) {
    MemView mv;
    mv.gather = true;
    mv.root = g.getTensor();
    mv.name = g.getName().str();
    mv.perm = identity();
    mv.shape = shape;
    mv.layout = memLayout(ty);
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
    mv.cosz = memLayout(bt.getTile()).cosize();
    mv.stage = evalIndex(s.getIndex(), in);
    mv.base = *mv.stage * bv(mv.cosz);
    mv.layout = memLayout(ty);
    mv.shape = shape;
    mv.perm = identity();
    return mv;
  }
  if (auto t = dyn_cast<TagOp>(def)) {
    MemView mv = resolve(t.getInput(), in);
    std::vector<unsigned> p;
    for (unsigned k = 0; k < shape.size(); ++k)
      p.push_back(k);
    mv.direct.push_back({t, p});
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
    mv.layout = memLayout(ty);
    mv.shape = shape;
    return mv;
  }
  if (auto r = dyn_cast<ReinterpretOp>(def)) {
    MemView mv = resolve(r.getInput(), in);
    mv.layout = memLayout(ty);
    mv.shape = shape;
    return mv;
  }
  unsupported("memory tile defined by " + opDesc(def) + " is not modelled");
}

Tags KernelVerifier::memTags(Value tile, const std::vector<z3::expr> &c,
                             const Inst &in, Operation *reader,
                             std::optional<z3::expr> readerThread) {
  MemView mv = resolve(tile, in);
  if (!mv.direct.empty()) {
    Tags t;
    for (DirectTag &d : mv.direct) {
      std::vector<z3::expr> tc;
      for (unsigned k : d.perm)
        tc.push_back(c[k]);
      for (auto &[k, e] : applyTagOp(d.op, tc, in))
        t.insert_or_assign(k, e);
    }
    return t;
  }
  if (mv.shared)
    return readShared(mv, c, in, reader, readerThread, true);
  return {}; // untagged global memory: no fields
}

bool KernelVerifier::hasRelevant(Operation *op) {
  auto it = relevant.find(op);
  if (it != relevant.end())
    return it->second;
  bool r = false;
  op->walk([&](Operation *p) {
    if (isa<BarrierOp, WaitGroupOp, CommitGroupOp>(p) ||
        (isWriteOp(p) && isSharedTile(writeDest(p))) ||
        (isa<LoadOp, CopyOp, CopyAsyncOp>(p) &&
         isSharedTile(p->getOperand(0))) ||
        (isa<MmaOp>(p) &&
         (isSharedTile(p->getOperand(0)) || isSharedTile(p->getOperand(1)))))
      r = true;
  });
  relevant[op] = r;
  return r;
}

bool KernelVerifier::writesRoot(Operation *op, Value root) {
  bool r = false;
  op->walk([&](Operation *p) {
    if (isWriteOp(p) && rootOf(writeDest(p)) == root)
      r = true;
  });
  return r;
}

void KernelVerifier::visitBack(Operation *p, const Inst &in, Value root,
                               std::vector<Candidate> &out,
                               std::vector<SyncEvent> &evRev) {
  if (walkReads && readsRoot(p, root)) {
    Candidate c{p, in, false, {}};
    c.events.assign(evRev.rbegin(), evRev.rend());
    out.push_back(c);
    return;
  }
  if (isWriteOp(p)) {
    if (!walkReads && rootOf(writeDest(p)) == root) {
      Candidate c{p, in, false, {}};
      c.events.assign(evRev.rbegin(), evRev.rend());
      out.push_back(c);
    }
    return;
  }
  if (isa<BarrierOp>(p)) {
    evRev.push_back({SyncEvent::Barrier, 0, in.guard, p});
    return;
  }
  if (auto w = dyn_cast<WaitGroupOp>(p)) {
    evRev.push_back(
        {SyncEvent::Wait, static_cast<int64_t>(w.getPending()), in.guard, p});
    return;
  }
  if (isa<CommitGroupOp>(p)) {
    evRev.push_back({SyncEvent::Commit, 0, in.guard, p});
    return;
  }
  if (p->getNumRegions() == 0 || !hasRelevant(p))
    return;
  auto loop = dyn_cast<scf::ForOp>(p);
  if (!loop)
    unsupported("writes or synchronisation inside '" +
                p->getName().getStringRef() + "' (only scf.for is modelled)");
  z3::expr lb = bv(0), ub = bv(0);
  int64_t step = 1;
  loopBounds(loop, in, lb, ub, step);
  z3::expr n = z3::ite(z3::ugt(ub, lb),
                       z3::udiv(ub - lb + bv(step - 1), bv(step)), bv(0));
  for (int64_t d = 0; d < depth; ++d) {
    z3::expr g = (in.guard && z3::uge(n, bv(d + 1))).simplify();
    if (g.is_false())
      break;
    z3::expr iv = lb + (n - bv(1 + d)) * bv(step);
    walkBlockBack(*loop.getBody(), in.with(loop, iv, g), root, out, evRev);
  }
  if (touchesRoot(loop, root)) {
    z3::expr g = (in.guard && z3::uge(n, bv(depth + 1))).simplify();
    if (!g.is_false()) {
      Inst ci = in;
      ci.guard = g;
      Candidate c{loop, ci, true, {}};
      c.events.assign(evRev.rbegin(), evRev.rend());
      out.push_back(c);
    }
  }
}

void KernelVerifier::walkBlockBack(Block &b, const Inst &in, Value root,
                                   std::vector<Candidate> &out,
                                   std::vector<SyncEvent> &evRev) {
  for (Operation &p : llvm::reverse(b))
    visitBack(&p, in, root, out, evRev);
}

void KernelVerifier::walkBefore(Operation *op, const Inst &in, Value root,
                                std::vector<Candidate> &out,
                                std::vector<SyncEvent> &evRev) {
  for (Operation *p = op->getPrevNode(); p; p = p->getPrevNode())
    visitBack(p, in, root, out, evRev);
  Operation *parent = op->getParentOp();
  if (parent == func.getOperation())
    return;
  auto loop = dyn_cast<scf::ForOp>(parent);
  if (!loop)
    unsupported("read nested in '" + parent->getName().getStringRef() + "'");
  Inst outer = in.without(loop);
  if (hasRelevant(loop)) {
    z3::expr i = *in.lookup(loop);
    z3::expr lb = bv(0), ub = bv(0);
    int64_t step = 1;
    loopBounds(loop, outer, lb, ub, step);
    for (int64_t d = 1; d <= depth; ++d) {
      z3::expr g = (in.guard && z3::uge(i, lb + bv(d * step))).simplify();
      if (g.is_false())
        break;
      walkBlockBack(*loop.getBody(), in.with(loop, i - bv(d * step), g), root,
                    out, evRev);
    }
    if (touchesRoot(loop, root)) {
      z3::expr g =
          (in.guard && z3::uge(i, lb + bv((depth + 1) * step))).simplify();
      if (!g.is_false()) {
        Inst ci = in;
        ci.guard = g;
        Candidate c{loop, ci, true, {}};
        c.events.assign(evRev.rbegin(), evRev.rend());
        out.push_back(c);
      }
    }
  }
  walkBefore(loop, outer, root, out, evRev);
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
  L::Layout tv;
  if (auto c = dyn_cast<CopyOp>(w))
    tv = c.getThreads().getLayout().layout;
  else if (auto c = dyn_cast<CopyAsyncOp>(w))
    tv = c.getThreads().getLayout().layout;
  else
    tv = regLayout(cast<TileType>(cast<StoreOp>(w).getValue().getType()));
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
    Value root = rootOf(dest);
    auto bt = dyn_cast<BufferType>(root.getType());
    if (!bt)
      why = "destination is not a buffer stage";
    else {
      Operation *def = dest.getDefiningOp();
      L::SwizzledLayout l = memLayout(dty);
      (void)def;
      int64_t cosz = memLayout(bt.getTile()).cosize();
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

Tags KernelVerifier::readShared(const MemView &mv,
                                const std::vector<z3::expr> &c, const Inst &in,
                                Operation *reader,
                                std::optional<z3::expr> readerThread,
                                bool wantTags) {
  ReadRec rec{reader,
              mv.name,
              c,
              *mv.stage,
              *mv.base + memOffset(mv.layout, mv.shape, c, in.guard),
              ctx.bool_val(false),
              ctx.bool_val(false),
              ctx.bool_val(false),
              {}};
  z3::expr addr = rec.addr;
  z3::expr tr =
      readerThread ? *readerThread : rangeVar("reader_thread", threads);
  std::vector<Candidate> cands;
  std::vector<SyncEvent> evRev;
  walkBefore(reader, in, mv.root, cands, evRev);

  z3::expr prevActive = ctx.bool_val(false);
  z3::expr defined = ctx.bool_val(false), cut = ctx.bool_val(false),
           unsync = ctx.bool_val(false);
  std::vector<std::pair<z3::expr, Tags>> tagChain;
  std::optional<std::set<std::string>> common;
  for (Candidate &cd : cands) {
    if (cd.cutoff) {
      z3::expr sel = cd.inst.guard && !prevActive;
      cut = cut || sel;
      rec.cands.push_back({cd.op, true, sel, {}, {}, {}, cd.inst.ivs, {}, ""});
      prevActive = prevActive || cd.inst.guard;
      continue;
    }
    std::string why = checkFullStage(cd.op);
    if (!why.empty())
      unsupported("the write footprint of " + opDesc(cd.op) +
                  " is not a whole stage (" + why + ")");
    MemView wv = resolve(writeDest(cd.op), cd.inst);
    z3::expr active = cd.inst.guard && z3::uge(addr, *wv.base) &&
                      z3::ult(addr, *wv.base + bv(wv.cosz));
    z3::expr sel = active && !prevActive;
    prevActive = prevActive || active;
    // The written element: unique by the bijection.
    std::vector<z3::expr> cw = coordVars("wcoord", wv.shape);
    assume(sel, *wv.base + memOffset(wv.layout, wv.shape, cw, sel) == addr);
    // The writing thread.
    L::Layout tvl;
    if (auto cp = dyn_cast<CopyOp>(cd.op))
      tvl = cp.getThreads().getLayout().layout;
    else if (auto cp = dyn_cast<CopyAsyncOp>(cd.op))
      tvl = cp.getThreads().getLayout().layout;
    else
      tvl =
          regLayout(cast<TileType>(cast<StoreOp>(cd.op).getValue().getType()));
    z3::expr wt = rangeVar("writer_thread", tvl.mode(0).size());
    z3::expr wsl = rangeVar("writer_slot", tvl.mode(1).size());
    assume(sel, tvLin(tvl, wt, wsl, sel) == lin(cw, wv.shape));
    // Synchronisation between the writer and this read.
    auto anyBarrier = [&](size_t from) {
      z3::expr b = ctx.bool_val(false);
      for (size_t j = from; j < cd.events.size(); ++j)
        if (cd.events[j].kind == SyncEvent::Barrier)
          b = b || cd.events[j].guard;
      return b;
    };
    z3::expr viol = ctx.bool_val(false);
    if (isa<CopyAsyncOp>(cd.op)) {
      size_t i0 = cd.events.size();
      for (size_t j = 0; j < cd.events.size(); ++j)
        if (cd.events[j].kind == SyncEvent::Commit) {
          i0 = j;
          break;
        }
      z3::expr retired = ctx.bool_val(false), visible = ctx.bool_val(false);
      if (i0 < cd.events.size()) {
        z3::expr closed = z3::implies(cd.inst.guard, cd.events[i0].guard);
        z3::expr count = bv(0);
        for (size_t j = i0 + 1; j < cd.events.size(); ++j) {
          const SyncEvent &e = cd.events[j];
          if (e.kind == SyncEvent::Commit)
            count = count + z3::ite(e.guard, bv(1), bv(0));
          else if (e.kind == SyncEvent::Wait) {
            z3::expr r = closed && e.guard && z3::uge(count, bv(e.n));
            retired = retired || r;
            visible = visible || (r && anyBarrier(j + 1));
          }
        }
      }
      viol = !retired || (wt != tr && !visible);
    } else {
      viol = wt != tr && !anyBarrier(0);
    }
    unsync = unsync || (sel && viol);
    defined = defined || sel;

    ReadRec::Cand rc{cd.op, false, sel, cw, wt, wsl, cd.inst.ivs, {}, ""};
    if (wantTags) {
      Tags t;
      if (auto st = dyn_cast<StoreOp>(cd.op))
        t = regTags(st.getValue(), cw, cd.inst);
      else {
        Value src = cd.op->getOperand(0);
        t = memTags(src, cw, cd.inst, cd.op, wt);
        MemView sv = resolve(src, cd.inst);
        rc.srcName = sv.name;
        if (!sv.shared && !sv.gather)
          for (size_t k = 0; k < sv.offsets.size(); ++k)
            rc.srcGlobal.push_back(sv.offsets[k] + cw[sv.perm[k]]);
      }
      std::set<std::string> names;
      for (auto &[k, e] : t)
        names.insert(k);
      if (!common)
        common = names;
      else {
        std::set<std::string> inter;
        for (auto &k : *common)
          if (names.count(k))
            inter.insert(k);
        common = inter;
      }
      tagChain.push_back({sel, t});
    }
    rec.cands.push_back(rc);
  }
  rec.defined = defined;
  rec.cut = cut;
  rec.unsync = unsync;
  q->reads.push_back(rec);
  Tags out;
  if (!wantTags || !common)
    return out;
  for (const std::string &f : *common) {
    z3::expr e = var("undef_" + f);
    for (auto it = tagChain.rbegin(); it != tagChain.rend(); ++it)
      e = z3::ite(it->first, it->second.at(f), e);
    out.insert_or_assign(f, e);
  }
  return out;
}

// ---- loop-carried tags
// ---------------------------------------------------------

const std::vector<std::set<std::string>> &
KernelVerifier::invariantFields(scf::ForOp loop) {
  Operation *key = loop.getOperation();
  auto it = invariant.find(key);
  if (it != invariant.end())
    return it->second;
  unsigned nArgs = loop.getInitArgs().size();
  // Pessimistic placeholder while this loop is being analysed.
  invariant[key] = std::vector<std::set<std::string>>(nArgs);
  std::vector<std::set<std::string>> hyp(nArgs);
  Query *saved = q;
  auto restore = [&] { q = saved; };
  try {
    // Start from every field of every init value.
    {
      Query Q;
      q = &Q;
      baseCons(Q);
      Inst in = freshInst(loop.getBody()->getTerminator());
      for (unsigned i = 0; i < nArgs; ++i) {
        auto ty = dyn_cast<TileType>(loop.getInitArgs()[i].getType());
        if (!ty || ty.isMemory())
          continue;
        std::vector<z3::expr> c = coordVars("c", ty.getShape());
        for (auto &[k, e] : regTags(loop.getInitArgs()[i], c, in.without(loop)))
          hyp[i].insert(k);
      }
    }
    // Shrink to an inductive set.
    for (int round = 0; round < 8; ++round) {
      bool changed = false;
      // Nested results depend on the hypothesis of the previous round.
      for (auto it = invariant.begin(); it != invariant.end();)
        it = key->isProperAncestor(it->first) ? invariant.erase(it)
                                              : std::next(it);
      hypothesis[key] = &hyp;
      std::vector<std::set<std::string>> next(nArgs);
      for (unsigned i = 0; i < nArgs; ++i) {
        if (hyp[i].empty())
          continue;
        auto ty = cast<TileType>(loop.getInitArgs()[i].getType());
        Query Q;
        q = &Q;
        baseCons(Q);
        Inst in = freshInst(loop.getBody()->getTerminator());
        std::vector<z3::expr> c = coordVars("c", ty.getShape());
        Tags init, y;
        try {
          init = regTags(loop.getInitArgs()[i], c, in.without(loop));
          y = regTags(loop.getYieldedValues()[i], c, in);
        } catch (Unsupported &) {
          continue; // nothing provable for this value
        }
        z3::expr ok = ctx.bool_val(true), anyCut = ctx.bool_val(false);
        for (auto &r : Q.reads) {
          ok = ok && (r.defined || r.cut);
          anyCut = anyCut || r.cut;
        }
        for (const std::string &f : hyp[i]) {
          auto yi = y.find(f);
          if (yi == y.end() || !init.count(f))
            continue;
          std::optional<z3::model> m;
          z3::check_result r =
              solve({ok, anyCut || yi->second != init.at(f)}, m);
          if (r == z3::unsat)
            next[i].insert(f);
        }
      }
      hypothesis.erase(key);
      for (unsigned i = 0; i < nArgs; ++i)
        if (next[i] != hyp[i])
          changed = true;
      hyp = next;
      if (!changed)
        break;
      if (round == 7)
        hyp.assign(nArgs, {});
    }
  } catch (Unsupported &) {
    hyp.assign(nArgs, {});
  } catch (z3::exception &) {
    hyp.assign(nArgs, {});
  } catch (std::exception &) {
    hyp.assign(nArgs, {});
  }
  hypothesis.erase(key);
  restore();
  // Results for nested loops were derived under this loop's induction
  // hypothesis: forget them (they are recomputed when needed elsewhere).
  for (auto it = invariant.begin(); it != invariant.end();)
    it = key->isProperAncestor(it->first) ? invariant.erase(it) : std::next(it);
  invariant[key] = hyp;
  return invariant[key];
}

// ---- solving
// -------------------------------------------------------------------

void KernelVerifier::baseCons(Query &Q) {
  for (auto &c : paramCons)
    Q.cons.push_back(c);
}

z3::check_result KernelVerifier::solve(const std::vector<z3::expr> &extra,
                                       std::optional<z3::model> &model) {
  // A fresh (non-incremental) solver per query: Z3's bit-blasting tactic is
  // much faster here than its incremental core.
  z3::solver s(ctx, "QF_BV");
  z3::params p(ctx);
  p.set("timeout", opts.timeoutMs);
  s.set(p);
  for (auto &c : q->cons)
    s.add(c);
  for (auto &c : extra)
    s.add(c);
  ++queries;
  z3::check_result r = s.check();
  if (r == z3::sat)
    model = s.get_model();
  return r;
}

void KernelVerifier::preferSmall(std::vector<z3::expr> extra, const Inst &in,
                                 std::optional<z3::model> &model) {
  for (auto &[name, e] : paramVars)
    extra.push_back(z3::ule(e, bv(name.rfind("block_id.", 0) == 0 ? 1 : 512)));
  for (auto &[l, iv] : in.ivs)
    extra.push_back(z3::ule(iv, bv(16)));
  std::optional<z3::model> m;
  if (solve(extra, m) == z3::sat)
    model = m;
}

std::string KernelVerifier::replay(const z3::model &m) {
  for (Fact &f : q->facts) {
    z3::expr g = m.eval(f.guard, true);
    if (!g.is_true())
      continue;
    std::string e = f.check(m);
    if (!e.empty())
      return e;
  }
  return "";
}

void KernelVerifier::fillCommon(Counterexample &cx, const z3::model &m,
                                const Inst &in) {
  for (auto &[name, e] : paramVars) {
    if (name.rfind("block_id.", 0) == 0)
      cx.blockIds[name.substr(9)] = uval(m, e);
    else
      cx.params.push_back({name, uval(m, e)});
  }
  for (auto &[loop, iv] : in.ivs)
    cx.loops.push_back({loopName(loop), uval(m, iv)});
}

void KernelVerifier::readNotes(Counterexample &cx, const z3::model &m) {
  for (ReadRec &r : q->reads) {
    for (auto &c : r.cands) {
      if (!m.eval(c.sel, true).is_true())
        continue;
      std::string s;
      llvm::raw_string_ostream os(s);
      std::vector<int64_t> coords;
      for (auto &x : r.coords)
        coords.push_back(uval(m, x));
      os << opDesc(r.reader) << " reads " << r.memory << "[stage "
         << uval(m, r.stage) << ", offset " << uval(m, r.addr) << "] (tile "
         << "element (";
      llvm::interleaveComma(coords, os);
      os << ")) ";
      if (c.cutoff) {
        os << "beyond the pipeline depth the verifier follows";
      } else {
        os << "written by " << opDesc(c.op);
        if (c.wt) {
          int64_t t = uval(m, *c.wt);
          os << " thread " << t << " (warp " << t / warpSize << ", lane "
             << t % warpSize << ") slot " << uval(m, *c.wv);
        }
        for (auto &[loop, iv] : c.ivs)
          os << ", " << loopName(loop) << " iteration " << uval(m, iv);
        if (!c.srcGlobal.empty()) {
          std::vector<int64_t> g;
          for (auto &x : c.srcGlobal)
            g.push_back(uval(m, x));
          os << ", from " << c.srcName << "[";
          llvm::interleaveComma(g, os);
          os << "]";
        }
      }
      cx.notes.push_back(s);
    }
  }
}

// Evaluate a predicate symbolically (signed, floor division) and concretely.
struct PredEval {
  z3::context &ctx;
  std::map<std::string, Tags> *ops;
  z3::expr bv(int64_t v) { return ctx.bv_val(v, kWidth); }
  z3::expr ref(const TagExpr &e) {
    auto it = ops->find(e.operand);
    if (it == ops->end())
      unsupported("operand '" + e.operand + "' has no tags here");
    auto f = it->second.find(e.field);
    if (f == it->second.end())
      unsupported("field '" + e.operand + "." + e.field +
                  "' is not carried here (not defined on every path)");
    return f->second;
  }
  z3::expr eval(const TagExpr &e) {
    auto c = [&](int i) { return eval(*e.children[i]); };
    switch (e.kind) {
    case TagExpr::Kind::Const:
      return bv(e.value);
    case TagExpr::Kind::Ref:
      return ref(e);
    case TagExpr::Kind::Neg:
      return -c(0);
    case TagExpr::Kind::Add:
      return c(0) + c(1);
    case TagExpr::Kind::Sub:
      return c(0) - c(1);
    case TagExpr::Kind::Mul:
      return c(0) * c(1);
    case TagExpr::Kind::Div: {
      z3::expr l = c(0), r = c(1), qq = l / r, rr = z3::srem(l, r);
      return z3::ite(rr != bv(0) && ((rr < bv(0)) != (r < bv(0))), qq - bv(1),
                     qq);
    }
    case TagExpr::Kind::Rem:
      return z3::smod(c(0), c(1));
    case TagExpr::Kind::Eq:
      return c(0) == c(1);
    case TagExpr::Kind::Ne:
      return c(0) != c(1);
    case TagExpr::Kind::Lt:
      return c(0) < c(1);
    case TagExpr::Kind::Le:
      return c(0) <= c(1);
    case TagExpr::Kind::Gt:
      return c(0) > c(1);
    case TagExpr::Kind::Ge:
      return c(0) >= c(1);
    case TagExpr::Kind::And:
      return c(0) && c(1);
    case TagExpr::Kind::Or:
      return c(0) || c(1);
    case TagExpr::Kind::Not:
      return !c(0);
    }
    unsupported("predicate node");
  }
  /// Concrete value (booleans as 0/1); nullopt on division by zero.
  static std::optional<int64_t>
  concrete(const TagExpr &e,
           const std::map<std::string, std::map<std::string, int64_t>> &v) {
    std::vector<int64_t> ch;
    for (auto &x : e.children) {
      auto r = concrete(*x, v);
      if (!r)
        return std::nullopt;
      ch.push_back(*r);
    }
    switch (e.kind) {
    case TagExpr::Kind::Const:
      return e.value;
    case TagExpr::Kind::Ref: {
      auto it = v.find(e.operand);
      if (it == v.end() || !it->second.count(e.field))
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
      return floorDiv(ch[0], ch[1]);
    case TagExpr::Kind::Rem:
      if (!ch[1])
        return std::nullopt;
      return floorMod(ch[0], ch[1]);
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
};

CheckResult KernelVerifier::checkAssert(TagAssertOp op) {
  CheckResult res;
  res.kind = "assert";
  res.kernel = func.getSymName().str();
  res.predicate = op.getPredicate().str();
  res.reportOp = op.getOperation();
  res.assertLocation = locStr(op.getLoc());
  Operation *site = op.getSite();
  res.siteOp = site;
  if (site) {
    res.siteName = site->getName().getStringRef().str();
    res.siteLocation = locStr(site->getLoc());
  }
  unsigned q0 = queries;
  auto start = std::chrono::steady_clock::now();
  Query Q;
  q = &Q;
  try {
    if (!site)
      unsupported("the assertion has no site op");
    std::string err;
    std::unique_ptr<TagExpr> pred = parseTagPredicate(op.getPredicate(), err);
    if (!pred)
      unsupported("predicate does not parse: " + err);
    baseCons(Q);
    Inst in = freshInst(site);
    std::map<std::string, Value> named;
    for (auto &[n, v] : getNamedTagOperands(site))
      named[n.str()] = v;
    if (site->getNumResults() == 1)
      named["result"] = site->getResult(0);
    SmallVector<const TagExpr *> refs;
    pred->collectRefs(refs);
    std::set<std::string> used;
    for (auto *r : refs)
      used.insert(r->operand);

    // Pairing of elements by logical coordinate.
    std::map<std::string, std::vector<z3::expr>> coords;
    std::string primary;
    if (auto mma = dyn_cast<MmaOp>(site)) {
      auto accTy = cast<TileType>(mma.getAcc().getType());
      auto aTy = cast<TileType>(mma.getA().getType());
      z3::expr m = rangeVar("m", accTy.getShape()[0]);
      z3::expr n = rangeVar("n", accTy.getShape()[1]);
      z3::expr k = rangeVar("k", aTy.getShape()[1]);
      coords["a"] = {m, k};
      coords["b"] = {k, n};
      coords["acc"] = {m, n};
      coords["result"] = {m, n};
      primary = aTy.isMemory() ? "acc" : "a";
    } else {
      Value shapeVal;
      if (site->getNumResults() == 1 &&
          isa<TileType>(site->getResult(0).getType()))
        shapeVal = site->getResult(0);
      else if (auto st = dyn_cast<StoreOp>(site))
        shapeVal = st.getValue();
      else if (isa<CopyOp, CopyAsyncOp>(site))
        shapeVal = site->getOperand(0);
      if (!shapeVal)
        unsupported("assertion site " + opDesc(site) + " is not modelled");
      auto ty = cast<TileType>(shapeVal.getType());
      std::vector<z3::expr> c = coordVars("c", ty.getShape());
      for (auto &[n, v] : named)
        coords[n] = c;
      if (auto r = dyn_cast<ReduceOp>(site)) {
        auto inTy = cast<TileType>(r.getInput().getType());
        std::vector<z3::expr> ci = c;
        z3::expr red = rangeVar("reduced", inTy.getShape()[r.getDim()]);
        Q.reductionVars.push_back(red);
        ci.insert(ci.begin() + r.getDim(), red);
        coords["input"] = ci;
      } else if (auto b = dyn_cast<BroadcastOp>(site)) {
        std::vector<z3::expr> ci = c;
        ci.erase(ci.begin() + b.getDim());
        coords["input"] = ci;
      }
      if (isa<StoreOp>(site))
        primary = "value";
      else if (isa<CopyOp, CopyAsyncOp>(site))
        primary = "";
      else if (!ty.isMemory() && named.count("result"))
        primary = "result";
    }
    // The thread holding the primary element.
    std::optional<z3::expr> ht, hs;
    std::optional<L::Layout> hl;
    std::vector<int64_t> hshape;
    if (!primary.empty() && named.count(primary)) {
      auto ty = cast<TileType>(named[primary].getType());
      if (!ty.isMemory()) {
        hl = regLayout(ty);
        ht = rangeVar("thread", hl->mode(0).size());
        hs = rangeVar("slot", hl->mode(1).size());
        hshape.assign(ty.getShape().begin(), ty.getShape().end());
        Q.cons.push_back(tvLin(*hl, *ht, *hs, ctx.bool_val(true)) ==
                         lin(coords[primary], hshape));
      }
    } else if (isa<CopyOp, CopyAsyncOp>(site)) {
      L::Layout l =
          isa<CopyOp>(site)
              ? cast<CopyOp>(site).getThreads().getLayout().layout
              : cast<CopyAsyncOp>(site).getThreads().getLayout().layout;
      auto ty = cast<TileType>(site->getOperand(0).getType());
      hl = l;
      ht = rangeVar("thread", l.mode(0).size());
      hs = rangeVar("slot", l.mode(1).size());
      hshape.assign(ty.getShape().begin(), ty.getShape().end());
      Q.cons.push_back(tvLin(l, *ht, *hs, ctx.bool_val(true)) ==
                       lin(coords["source"], hshape));
    }

    std::map<std::string, Tags> tags;
    for (const std::string &n : used) {
      auto it = named.find(n);
      if (it == named.end())
        unsupported("operand '" + n + "' is not an operand of " + opDesc(site));
      if (!coords.count(n))
        unsupported("no element pairing for operand '" + n + "'");
      tags[n] = operandTags(it->second, coords[n], in, site);
    }
    PredEval pe{ctx, &tags};
    z3::expr P = pe.eval(*pred);
    z3::expr defined = ctx.bool_val(true), ok = ctx.bool_val(true),
             anyCut = ctx.bool_val(false);
    for (auto &r : Q.reads) {
      defined = defined && r.defined;
      ok = ok && (r.defined || r.cut);
      anyCut = anyCut || r.cut;
    }
    std::vector<z3::expr> block;
    for (unsigned ce = 0; ce < std::max(1u, opts.maxCounterexamples); ++ce) {
      std::optional<z3::model> m;
      std::vector<z3::expr> extra{defined, !P};
      extra.insert(extra.end(), block.begin(), block.end());
      z3::check_result r = solve(extra, m);
      if (r == z3::unknown) {
        if (res.counterexamples.empty()) {
          res.status = Status::Unknown;
          res.reason = "solver returned unknown (timeout " +
                       std::to_string(opts.timeoutMs) + " ms?)";
        }
        break;
      }
      if (r == z3::unsat)
        break;
      if (ce == 0)
        preferSmall(extra, in, m);
      // Concrete replay.
      std::string bad = replay(*m);
      std::map<std::string, std::map<std::string, int64_t>> cv;
      for (auto &[n, t] : tags)
        for (auto &[f, e] : t)
          cv[n][f] = sval(*m, e);
      auto pv = PredEval::concrete(*pred, cv);
      if (bad.empty() && (!pv || *pv != 0))
        bad = "the predicate evaluates to true on the model's tag values";
      if (!bad.empty()) {
        res.status = Status::Unknown;
        res.reason = "counterexample replay disagrees: " + bad;
        res.counterexamples.clear();
        break;
      }
      // Reduced dimensions: violated only when no reduced element satisfies
      // the predicate.
      if (!Q.reductionVars.empty()) {
        std::vector<z3::expr> fix{defined, P};
        for (auto &[nm, cs] : coords)
          for (auto &x : cs) {
            bool isRed = false;
            for (auto &rv : Q.reductionVars)
              isRed |= z3::eq(rv, x);
            if (!isRed)
              fix.push_back(x == m->eval(x, true));
          }
        for (auto &[name, e] : paramVars)
          fix.push_back(e == m->eval(e, true));
        for (auto &[l, iv] : in.ivs)
          fix.push_back(iv == m->eval(iv, true));
        std::optional<z3::model> m2;
        if (solve(fix, m2) != z3::unsat) {
          res.status = Status::Unknown;
          res.reason = "the assertion depends on a reduced dimension: it "
                       "holds for some reduced elements and not others";
          res.counterexamples.clear();
          break;
        }
      }
      Counterexample cx;
      fillCommon(cx, *m, in);
      if (ht) {
        cx.thread = uval(*m, *ht);
        cx.slot = uval(*m, *hs);
        cx.warp = cx.thread / warpSize;
        cx.lane = cx.thread % warpSize;
      }
      for (auto &[n, t] : tags) {
        ElementInfo el;
        el.role = n;
        Value v = named[n];
        auto ty = cast<TileType>(v.getType());
        for (auto &x : coords[n])
          el.tileCoords.push_back(uval(*m, x));
        for (auto &[f, e] : t)
          el.tags[f] = sval(*m, e);
        if (ty.isMemory()) {
          MemView mv = resolve(v, in);
          el.memory = mv.name;
          if (!mv.shared && !mv.gather)
            for (size_t k = 0; k < mv.offsets.size(); ++k)
              el.globalCoords.push_back(uval(*m, mv.offsets[k]) +
                                        el.tileCoords[mv.perm[k]]);
        } else {
          // Invert the register layout concretely.
          L::Layout l = regLayout(ty);
          std::vector<int64_t> sh(ty.getShape().begin(), ty.getShape().end());
          int64_t want = linConcrete(el.tileCoords, sh);
          int64_t s0 = l.mode(0).size();
          if (n == primary && ht) {
            el.thread = cx.thread;
            el.slot = cx.slot;
          } else
            for (int64_t i = 0; i < l.size(); ++i)
              if (l(i) == want) {
                el.thread = i % s0;
                el.slot = i / s0;
                break;
              }
          Value src = v;
          while (Operation *d = src.getDefiningOp()) {
            if (isa<TagOp, ConvertOp, ConvertLayoutOp>(d)) {
              src = d->getOperand(0);
              continue;
            }
            break;
          }
          if (auto ld = src.getDefiningOp<LoadOp>()) {
            MemView mv = resolve(ld.getSource(), in);
            el.memory = mv.name;
            if (!mv.shared && !mv.gather)
              for (size_t k = 0; k < mv.offsets.size(); ++k)
                el.globalCoords.push_back(uval(*m, mv.offsets[k]) +
                                          el.tileCoords[mv.perm[k]]);
          }
        }
        cx.elements.push_back(el);
      }
      readNotes(cx, *m);
      res.counterexamples.push_back(cx);
      res.status = Status::Violated;
      // Block this (thread, element, iteration) for the next one.
      z3::expr same = ctx.bool_val(true);
      for (auto &[nm, cs] : coords)
        for (auto &x : cs)
          same = same && x == m->eval(x, true);
      for (auto &[l, iv] : in.ivs)
        same = same && iv == m->eval(iv, true);
      if (ht)
        same = same && *ht == m->eval(*ht, true);
      block.push_back(!same);
    }
    if (res.counterexamples.empty() && res.reason.empty()) {
      std::optional<z3::model> m;
      z3::check_result r = solve({ok, anyCut}, m);
      if (r == z3::sat) {
        res.status = Status::Unknown;
        res.reason = "a read may see a writer older than the pipeline depth "
                     "the verifier follows";
      } else if (r == z3::unknown) {
        res.status = Status::Unknown;
        res.reason = "solver returned unknown (timeout?)";
      } else {
        res.status = Status::Proved;
      }
    }
  } catch (Unsupported &u) {
    res.status = Status::Unknown;
    res.reason = u.reason;
    res.counterexamples.clear();
  } catch (z3::exception &e) {
    res.status = Status::Unknown;
    res.reason = std::string("z3: ") + e.msg();
    res.counterexamples.clear();
  } catch (std::exception &e) {
    res.status = Status::Unknown;
    res.reason = std::string("internal error: ") + e.what();
    res.counterexamples.clear();
  }
  q = nullptr;
  res.queries = queries - q0;
  res.milliseconds = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  return res;
}

void KernelVerifier::checkRead(Operation *reader, Value source,
                               std::vector<CheckResult> &out) {
  CheckResult unw, uns;
  unw.kind = "unwritten-read";
  uns.kind = "unsynchronized-read";
  for (CheckResult *r : {&unw, &uns}) {
    r->kernel = func.getSymName().str();
    r->reportOp = reader;
    r->siteOp = reader;
    r->siteName = reader->getName().getStringRef().str();
    r->siteLocation = locStr(reader->getLoc());
  }
  unw.predicate = "every element read from shared memory was written before";
  uns.predicate = "every shared-memory read is ordered after its writer "
                  "(wait_group for async copies, barrier across threads)";
  unsigned q0 = queries;
  auto start = std::chrono::steady_clock::now();
  Query Q;
  q = &Q;
  try {
    baseCons(Q);
    Inst in = freshInst(reader);
    auto sty = cast<TileType>(source.getType());
    std::vector<int64_t> shape(sty.getShape().begin(), sty.getShape().end());
    std::optional<z3::expr> t, s;
    std::vector<z3::expr> c;
    std::optional<L::Layout> l;
    if (auto ld = dyn_cast<LoadOp>(reader))
      l = regLayout(cast<TileType>(ld.getResult().getType()));
    else if (auto cp = dyn_cast<CopyOp>(reader))
      l = cp.getThreads().getLayout().layout;
    else if (auto cp = dyn_cast<CopyAsyncOp>(reader))
      l = cp.getThreads().getLayout().layout;
    if (l) {
      t = rangeVar("thread", l->mode(0).size());
      s = rangeVar("slot", l->mode(1).size());
      c = delin(tvLin(*l, *t, *s, ctx.bool_val(true)), shape);
    } else {
      c = coordVars("c", shape);
      t = rangeVar("thread", threads);
    }
    MemView mv = resolve(source, in);
    if (!mv.direct.empty() || !mv.shared)
      return;
    readShared(mv, c, in, reader, t, false);
    ReadRec &rr = Q.reads.back();
    auto finish = [&](CheckResult &res, z3::expr cond, const char *what) {
      std::optional<z3::model> m;
      z3::check_result r = solve({cond}, m);
      if (r == z3::unknown) {
        res.status = Status::Unknown;
        res.reason = "solver returned unknown (timeout?)";
        return;
      }
      if (r == z3::unsat) {
        res.status = Status::Proved;
        return;
      }
      preferSmall({cond}, in, m);
      std::string bad = replay(*m);
      if (!bad.empty()) {
        res.status = Status::Unknown;
        res.reason = std::string("counterexample replay disagrees: ") + bad;
        return;
      }
      Counterexample cx;
      fillCommon(cx, *m, in);
      cx.thread = uval(*m, *t);
      cx.warp = cx.thread / warpSize;
      cx.lane = cx.thread % warpSize;
      if (s)
        cx.slot = uval(*m, *s);
      ElementInfo el;
      el.role = "source";
      el.memory = mv.name;
      for (auto &x : c)
        el.tileCoords.push_back(uval(*m, x));
      el.thread = cx.thread;
      el.slot = cx.slot;
      cx.elements.push_back(el);
      std::string note;
      llvm::raw_string_ostream os(note);
      os << what << ": " << mv.name << "[stage " << uval(*m, rr.stage)
         << ", offset " << uval(*m, rr.addr) << "]";
      cx.notes.push_back(note);
      readNotes(cx, *m);
      res.counterexamples.push_back(cx);
      res.status = Status::Violated;
    };
    z3::expr cutPossible = rr.cut;
    z3::expr unwritten = !rr.defined && !rr.cut;
    z3::expr unsynced = rr.defined && rr.unsync;
    // Usually both hold: one query proves both.
    std::optional<z3::model> both;
    if (solve({unwritten || unsynced}, both) == z3::unsat) {
      unw.status = uns.status = Status::Proved;
    } else {
      finish(unw, unwritten, "no write reaches this address");
      finish(uns, unsynced,
             "the latest writer is not synchronised with this read");
    }
    if (unw.status == Status::Proved || uns.status == Status::Proved) {
      std::optional<z3::model> m;
      if (solve({cutPossible}, m) != z3::unsat)
        for (CheckResult *r : {&unw, &uns})
          if (r->status == Status::Proved) {
            r->status = Status::Unknown;
            r->reason = "a read may see a writer older than the pipeline "
                        "depth the verifier follows";
          }
    }
  } catch (Unsupported &u) {
    for (CheckResult *r : {&unw, &uns}) {
      r->status = Status::Unknown;
      r->reason = u.reason;
      r->counterexamples.clear();
    }
  } catch (z3::exception &e) {
    for (CheckResult *r : {&unw, &uns}) {
      r->status = Status::Unknown;
      r->reason = std::string("z3: ") + e.msg();
      r->counterexamples.clear();
    }
  } catch (std::exception &e) {
    for (CheckResult *r : {&unw, &uns}) {
      r->status = Status::Unknown;
      r->reason = std::string("internal error: ") + e.what();
      r->counterexamples.clear();
    }
  }
  q = nullptr;
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  unw.queries = queries - q0;
  unw.milliseconds = ms;
  uns.queries = 0;
  uns.milliseconds = 0;
  out.push_back(unw);
  out.push_back(uns);
}

CheckResult KernelVerifier::checkInjective(Operation *w) {
  CheckResult res;
  res.kind = "non-injective-write";
  res.kernel = func.getSymName().str();
  res.reportOp = w;
  res.siteOp = w;
  res.siteName = w->getName().getStringRef().str();
  res.siteLocation = locStr(w->getLoc());
  res.predicate = "no two (thread, slot) pairs of one write write the same "
                  "address";
  unsigned q0 = queries;
  auto start = std::chrono::steady_clock::now();
  Query Q;
  q = &Q;
  try {
    baseCons(Q);
    Inst in = freshInst(w);
    Value dest = writeDest(w);
    auto dty = cast<TileType>(dest.getType());
    std::vector<int64_t> shape(dty.getShape().begin(), dty.getShape().end());
    L::Layout l;
    if (auto c = dyn_cast<CopyOp>(w))
      l = c.getThreads().getLayout().layout;
    else if (auto c = dyn_cast<CopyAsyncOp>(w))
      l = c.getThreads().getLayout().layout;
    else
      l = regLayout(cast<TileType>(cast<StoreOp>(w).getValue().getType()));
    z3::expr t1 = rangeVar("thread", l.mode(0).size());
    z3::expr s1 = rangeVar("slot", l.mode(1).size());
    z3::expr t2 = rangeVar("thread2", l.mode(0).size());
    z3::expr s2 = rangeVar("slot2", l.mode(1).size());
    auto c1 = delin(tvLin(l, t1, s1, ctx.bool_val(true)), shape);
    auto c2 = delin(tvLin(l, t2, s2, ctx.bool_val(true)), shape);
    // Global destinations: the view offsets are the same for both writers,
    // so only the coordinates matter (no need to model the offsets).
    MemView mv;
    if (isSharedTile(dest))
      mv = resolve(dest, in);
    else {
      mv.name = "global";
      Value root = rootOf(dest);
      if (auto v = dest.getDefiningOp())
        for (Operation *d = v; d; d = d->getOperand(0).getDefiningOp()) {
          if (auto vw = dyn_cast<ViewOp>(d)) {
            mv.name = vw.getName().str();
            break;
          }
          if (auto g = dyn_cast<GatherViewOp>(d)) {
            mv.name = g.getName().str();
            break;
          }
          if (!isa<TagOp, TransposeOp, ReinterpretOp>(d))
            break;
        }
      (void)root;
    }
    z3::expr same = ctx.bool_val(true);
    L::SwizzledLayout ml = mv.layout;
    if (mv.shared)
      same = memOffset(ml, shape, c1, ctx.bool_val(true)) ==
             memOffset(ml, shape, c2, ctx.bool_val(true));
    else
      for (size_t k = 0; k < c1.size(); ++k)
        same = same && c1[k] == c2[k];
    std::optional<z3::model> m;
    z3::check_result r = solve({same, t1 != t2 || s1 != s2}, m);
    if (r == z3::unsat)
      res.status = Status::Proved;
    else if (r == z3::unknown) {
      res.status = Status::Unknown;
      res.reason = "solver returned unknown (timeout?)";
    } else {
      // Concrete replay with the layout library.
      int64_t a1 = uval(*m, t1), b1 = uval(*m, s1), a2 = uval(*m, t2),
              b2 = uval(*m, s2);
      int64_t s0 = l.mode(0).size();
      int64_t l1 = l(a1 + s0 * b1), l2 = l(a2 + s0 * b2);
      bool collide = mv.shared ? ml(l1) == ml(l2) : l1 == l2;
      std::string bad = replay(*m);
      if (!collide || !bad.empty()) {
        res.status = Status::Unknown;
        res.reason = "counterexample replay disagrees" +
                     (bad.empty() ? std::string() : ": " + bad);
      } else {
        res.status = Status::Violated;
        Counterexample cx;
        fillCommon(cx, *m, in);
        cx.thread = a1;
        cx.slot = b1;
        cx.warp = a1 / warpSize;
        cx.lane = a1 % warpSize;
        for (int i = 0; i < 2; ++i) {
          ElementInfo el;
          el.role = i == 0 ? "dest" : "dest (second writer)";
          el.memory = mv.name;
          el.tileCoords = delinConcrete(i == 0 ? l1 : l2, shape);
          el.thread = i == 0 ? a1 : a2;
          el.slot = i == 0 ? b1 : b2;
          cx.elements.push_back(el);
        }
        std::string note;
        llvm::raw_string_ostream os(note);
        os << "thread " << a1 << " slot " << b1 << " and thread " << a2
           << " slot " << b2 << " both write " << mv.name;
        if (mv.shared)
          os << " offset " << ml(l1) << " (stage-relative)";
        cx.notes.push_back(note);
        res.counterexamples.push_back(cx);
      }
    }
  } catch (Unsupported &u) {
    res.status = Status::Unknown;
    res.reason = u.reason;
  } catch (z3::exception &e) {
    res.status = Status::Unknown;
    res.reason = std::string("z3: ") + e.msg();
  } catch (std::exception &e) {
    res.status = Status::Unknown;
    res.reason = std::string("internal error: ") + e.what();
  }
  q = nullptr;
  res.queries = queries - q0;
  res.milliseconds = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  return res;
}

CheckResult KernelVerifier::checkWar(Operation *w) {
  CheckResult res;
  res.kind = "unsynchronized-write";
  res.kernel = func.getSymName().str();
  res.reportOp = w;
  res.siteOp = w;
  res.siteName = w->getName().getStringRef().str();
  res.siteLocation = locStr(w->getLoc());
  res.predicate = "no thread overwrites a shared element another thread read "
                  "before it without a barrier in between (write after read)";
  unsigned q0 = queries;
  auto start = std::chrono::steady_clock::now();
  Query Q;
  q = &Q;
  try {
    baseCons(Q);
    Inst in = freshInst(w);
    Value dest = writeDest(w);
    MemView wv = resolve(dest, in);
    L::Layout l;
    if (auto c = dyn_cast<CopyOp>(w))
      l = c.getThreads().getLayout().layout;
    else if (auto c = dyn_cast<CopyAsyncOp>(w))
      l = c.getThreads().getLayout().layout;
    else
      l = regLayout(cast<TileType>(cast<StoreOp>(w).getValue().getType()));
    z3::expr tw = rangeVar("thread", l.mode(0).size());
    z3::expr sw = rangeVar("slot", l.mode(1).size());
    std::vector<z3::expr> cw =
        delin(tvLin(l, tw, sw, ctx.bool_val(true)), wv.shape);
    z3::expr addr =
        *wv.base + memOffset(wv.layout, wv.shape, cw, ctx.bool_val(true));
    std::vector<Candidate> cands;
    std::vector<SyncEvent> evRev;
    walkReads = true;
    try {
      walkBefore(w, in, wv.root, cands, evRev);
    } catch (...) {
      walkReads = false;
      throw;
    }
    walkReads = false;
    z3::expr viol = ctx.bool_val(false), cut = ctx.bool_val(false);
    struct Hit {
      z3::expr cond;
      Operation *op;
      z3::expr t;
      std::optional<z3::expr> s;
      std::vector<z3::expr> c;
      Inst inst;
    };
    std::vector<Hit> hits;
    for (Candidate &cd : cands) {
      z3::expr barrier = ctx.bool_val(false);
      for (const SyncEvent &e : cd.events)
        if (e.kind == SyncEvent::Barrier)
          barrier = barrier || e.guard;
      if (cd.cutoff) {
        cut = cut || (cd.inst.guard && !barrier);
        continue;
      }
      std::vector<Value> srcs;
      if (auto m = dyn_cast<MmaOp>(cd.op)) {
        for (Value v : {m.getA(), m.getB()})
          if (isSharedTile(v) && rootOf(v) == wv.root)
            srcs.push_back(v);
      } else
        srcs.push_back(cd.op->getOperand(0));
      for (Value src : srcs) {
        MemView rv = resolve(src, cd.inst);
        std::optional<L::Layout> rl;
        if (auto ld = dyn_cast<LoadOp>(cd.op))
          rl = regLayout(cast<TileType>(ld.getResult().getType()));
        else if (auto cp = dyn_cast<CopyOp>(cd.op))
          rl = cp.getThreads().getLayout().layout;
        else if (auto cp = dyn_cast<CopyAsyncOp>(cd.op))
          rl = cp.getThreads().getLayout().layout;
        z3::expr tr = var("reader_thread");
        std::optional<z3::expr> sr;
        std::vector<z3::expr> cr;
        if (rl) {
          Q.cons.push_back(z3::ult(tr, bv(rl->mode(0).size())));
          sr = rangeVar("reader_slot", rl->mode(1).size());
          cr = delin(tvLin(*rl, tr, *sr, cd.inst.guard), rv.shape);
        } else {
          Q.cons.push_back(z3::ult(tr, bv(threads)));
          cr = coordVars("reader_coord", rv.shape);
        }
        z3::expr raddr =
            *rv.base + memOffset(rv.layout, rv.shape, cr, cd.inst.guard);
        z3::expr cond = cd.inst.guard && raddr == addr && tr != tw && !barrier;
        viol = viol || cond;
        hits.push_back({cond, cd.op, tr, sr, cr, cd.inst});
      }
    }
    std::optional<z3::model> m;
    z3::check_result r = solve({viol}, m);
    if (r == z3::unknown) {
      res.status = Status::Unknown;
      res.reason = "solver returned unknown (timeout?)";
    } else if (r == z3::unsat) {
      std::optional<z3::model> m2;
      z3::check_result r2 = solve({cut}, m2);
      if (r2 == z3::unsat)
        res.status = Status::Proved;
      else {
        res.status = Status::Unknown;
        res.reason = "a read older than the pipeline depth the verifier "
                     "follows may precede this write without a barrier";
      }
    } else {
      preferSmall({viol}, in, m);
      std::string bad = replay(*m);
      if (!bad.empty()) {
        res.status = Status::Unknown;
        res.reason = "counterexample replay disagrees: " + bad;
      } else {
        res.status = Status::Violated;
        Counterexample cx;
        fillCommon(cx, *m, in);
        cx.thread = uval(*m, tw);
        cx.slot = uval(*m, sw);
        cx.warp = cx.thread / warpSize;
        cx.lane = cx.thread % warpSize;
        ElementInfo el;
        el.role = "dest";
        el.memory = wv.name;
        for (auto &x : cw)
          el.tileCoords.push_back(uval(*m, x));
        el.thread = cx.thread;
        el.slot = cx.slot;
        cx.elements.push_back(el);
        for (Hit &h : hits) {
          if (!m->eval(h.cond, true).is_true())
            continue;
          std::string note;
          llvm::raw_string_ostream os(note);
          int64_t t = uval(*m, h.t);
          os << "thread " << t << " (warp " << t / warpSize << ", lane "
             << t % warpSize << ") read " << wv.name << "[offset "
             << uval(*m, addr) << "] at " << opDesc(h.op);
          for (auto &[loop, iv] : h.inst.ivs)
            os << ", " << loopName(loop) << " iteration " << uval(*m, iv);
          os << " with no barrier before this write";
          cx.notes.push_back(note);
          break;
        }
        res.counterexamples.push_back(cx);
      }
    }
  } catch (Unsupported &u) {
    walkReads = false;
    res.status = Status::Unknown;
    res.reason = u.reason;
  } catch (z3::exception &e) {
    walkReads = false;
    res.status = Status::Unknown;
    res.reason = std::string("z3: ") + e.msg();
  } catch (std::exception &e) {
    walkReads = false;
    res.status = Status::Unknown;
    res.reason = std::string("internal error: ") + e.what();
  }
  q = nullptr;
  res.queries = queries - q0;
  res.milliseconds = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  return res;
}

KernelReport KernelVerifier::run() {
  KernelReport rep;
  rep.name = func.getSymName().str();
  rep.threads = threads;
  rep.warpSize = warpSize;
  auto start = std::chrono::steady_clock::now();
  try {
    collectParams();
  } catch (z3::exception &) {
  }
  int64_t maxStages = 1;
  func.walk([&](AllocOp a) {
    maxStages = std::max(maxStages,
                         cast<BufferType>(a.getResult().getType()).getStages());
  });
  depth = maxStages;
  func.walk([&](Operation *op) {
    if (auto a = dyn_cast<TagAssertOp>(op))
      rep.checks.push_back(checkAssert(a));
  });
  if (opts.implicitChecks) {
    func.walk([&](Operation *op) {
      if (isa<LoadOp, CopyOp, CopyAsyncOp>(op) &&
          isSharedTile(op->getOperand(0)))
        checkRead(op, op->getOperand(0), rep.checks);
      else if (auto mma = dyn_cast<MmaOp>(op)) {
        for (Value v : {mma.getA(), mma.getB()})
          if (isSharedTile(v))
            checkRead(op, v, rep.checks);
      }
      if (isWriteOp(op)) {
        rep.checks.push_back(checkInjective(op));
        if (isSharedTile(writeDest(op)))
          rep.checks.push_back(checkWar(op));
      }
    });
  }
  rep.queries = queries;
  rep.milliseconds = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  return rep;
}

} // namespace

std::vector<KernelReport> verifyModule(ModuleOp module,
                                       const VerifyOptions &options) {
  std::vector<KernelReport> out;
  module.walk([&](func::FuncOp f) {
    auto k = f->getAttrOfType<KernelAttr>("argus.kernel");
    if (!k)
      return;
    KernelVerifier kv(f, k, options);
    out.push_back(kv.run());
  });
  return out;
}

static std::string coordStr(const std::vector<int64_t> &c) {
  std::string s = "(";
  for (size_t i = 0; i < c.size(); ++i)
    s += (i ? "," : "") + std::to_string(c[i]);
  return s + ")";
}

void emitDiagnostics(const std::vector<KernelReport> &reports) {
  for (const KernelReport &k : reports) {
    for (const CheckResult &c : k.checks) {
      if (c.status == Status::Proved || !c.reportOp)
        continue;
      std::string what =
          c.kind == "assert" ? "tag assertion '" + c.predicate + "'" : c.kind;
      if (c.status == Status::Unknown) {
        c.reportOp->emitWarning()
            << what << " is unknown at '" << c.siteName << "': " << c.reason;
        continue;
      }
      const Counterexample &cx = c.counterexamples.front();
      InFlightDiagnostic d = c.reportOp->emitError();
      d << what << " violated at '" << c.siteName << "' (" << c.siteLocation
        << ")";
      if (!cx.loops.empty()) {
        d << " in iteration";
        for (auto &[l, v] : cx.loops)
          d << " " << v << " of " << l;
      }
      std::string blk;
      for (auto &[dim, v] : cx.blockIds)
        blk += (blk.empty() ? "" : ", ") + dim + "=" + std::to_string(v);
      d.attachNote(c.siteOp ? c.siteOp->getLoc() : c.reportOp->getLoc())
          << (blk.empty() ? std::string("any block") : "block (" + blk + ")")
          << ", thread " << cx.thread << " (warp " << cx.warp << ", lane "
          << cx.lane << "), slot " << cx.slot;
      for (const ElementInfo &e : cx.elements) {
        std::string tags;
        for (auto &[f, v] : e.tags)
          tags += (tags.empty() ? "" : ", ") + f + "=" + std::to_string(v);
        auto &n =
            d.attachNote(c.siteOp ? c.siteOp->getLoc() : c.reportOp->getLoc());
        n << e.role << " element " << coordStr(e.tileCoords);
        if (!e.memory.empty())
          n << " of " << e.memory;
        if (!e.globalCoords.empty())
          n << " at global " << coordStr(e.globalCoords);
        if (e.thread >= 0)
          n << " held by thread " << e.thread << " slot " << e.slot;
        n << " has tags {" << tags << "}";
      }
      if (!cx.params.empty()) {
        std::string ps;
        for (auto &[p, v] : cx.params)
          ps += (ps.empty() ? "" : ", ") + p + "=" + std::to_string(v);
        d.attachNote(c.reportOp->getLoc()) << "kernel arguments: " << ps;
      }
      for (const std::string &note : cx.notes)
        d.attachNote(c.reportOp->getLoc()) << note;
    }
  }
}

llvm::json::Value toJSON(const std::vector<KernelReport> &reports) {
  llvm::json::Array checks;
  llvm::json::Array kernels;
  for (const KernelReport &k : reports) {
    kernels.push_back(llvm::json::Object{{"name", k.name},
                                         {"threads", k.threads},
                                         {"warp_size", k.warpSize},
                                         {"milliseconds", k.milliseconds},
                                         {"queries", k.queries}});
    for (const CheckResult &c : k.checks) {
      llvm::json::Array cexs;
      for (const Counterexample &cx : c.counterexamples) {
        llvm::json::Object blocks;
        for (auto &[d, v] : cx.blockIds)
          blocks[d] = v;
        llvm::json::Object params;
        for (auto &[p, v] : cx.params)
          params[p] = v;
        llvm::json::Array loops;
        for (auto &[l, v] : cx.loops)
          loops.push_back(llvm::json::Object{{"loop", l}, {"iv", v}});
        llvm::json::Array elems;
        for (const ElementInfo &e : cx.elements) {
          llvm::json::Object tags;
          for (auto &[f, v] : e.tags)
            tags[f] = v;
          llvm::json::Object o{{"operand", e.role},
                               {"tile_coords", llvm::json::Array(e.tileCoords)},
                               {"tags", std::move(tags)}};
          if (!e.memory.empty())
            o["memory"] = e.memory;
          if (!e.globalCoords.empty())
            o["global_coords"] = llvm::json::Array(e.globalCoords);
          if (e.thread >= 0) {
            o["thread"] = e.thread;
            o["slot"] = e.slot;
          }
          elems.push_back(std::move(o));
        }
        llvm::json::Object o{{"block", std::move(blocks)},
                             {"params", std::move(params)},
                             {"thread", cx.thread},
                             {"warp", cx.warp},
                             {"lane", cx.lane},
                             {"slot", cx.slot},
                             {"loops", std::move(loops)},
                             {"elements", std::move(elems)},
                             {"notes", llvm::json::Array(cx.notes)}};
        cexs.push_back(std::move(o));
      }
      checks.push_back(llvm::json::Object{
          {"kernel", c.kernel},
          {"kind", c.kind},
          {"predicate", c.predicate},
          {"op", c.siteName},
          {"location", c.siteLocation},
          {"assert_location", c.assertLocation},
          {"status", toString(c.status)},
          {"replay", c.status == Status::Violated ? "confirmed" : ""},
          {"reason", c.reason},
          {"milliseconds", c.milliseconds},
          {"queries", c.queries},
          {"counterexamples", std::move(cexs)}});
    }
  }
  return llvm::json::Object{{"version", 1},
                            {"kernels", std::move(kernels)},
                            {"checks", std::move(checks)}};
}

} // namespace argus::verify
