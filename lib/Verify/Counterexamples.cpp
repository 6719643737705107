//===- Counterexamples.cpp - model replay and counterexample contents -----===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A model is reported only after every recorded `Fact` (layout encodings,
// divisions, index arithmetic, tag maps) is re-evaluated concretely on it;
// any disagreement turns the check into unknown instead.
//
//===----------------------------------------------------------------------===//

#include "ConcreteIndex.h"
#include "KernelVerifier.h"
#include "OpNames.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace L = ::argus::layout;

namespace argus::verify::detail {

void KernelVerifier::preferSmall(std::vector<z3::expr> extra, const Inst &in,
                                 std::optional<z3::model> &model, int skip,
                                 const std::vector<z3::expr> &also) {
  for (auto &[name, e] : paramVars)
    extra.push_back(z3::ule(e, bv(name.rfind("block_id.", 0) == 0 ? 1 : 512)));
  for (auto &[l, iv] : in.ivs)
    extra.push_back(z3::ule(iv, bv(16)));
  std::optional<z3::model> m;
  if (solve(extra, m, skip) == z3::sat)
    model = m;
  // Then the first failing iteration (outermost loop first) and the
  // smallest block ids and arguments, by bisection on each in turn.
  std::vector<z3::expr> vars;
  for (auto &[l, iv] : in.ivs)
    vars.push_back(iv);
  for (auto &[name, e] : paramVars)
    vars.push_back(e);
  vars.insert(vars.end(), also.begin(), also.end());
  for (z3::expr &x : vars) {
    int64_t lo = 0, hi = uval(*model, x);
    for (int step = 0; lo < hi && step < 6; ++step) {
      int64_t mid = lo + (hi - lo) / 2;
      std::vector<z3::expr> tryExtra = extra;
      tryExtra.push_back(z3::ule(x, bv(mid)));
      std::optional<z3::model> m2;
      z3::check_result r = solve(tryExtra, m2, skip);
      if (r == z3::sat) {
        model = m2;
        hi = uval(*m2, x);
      } else if (r == z3::unsat)
        lo = mid + 1;
      else
        break;
    }
    extra.push_back(x == bv(uval(*model, x)));
  }
}

bool KernelVerifier::replayDisagrees(CheckResult &res, const std::string &why) {
  if (why.empty())
    return false;
  res.status = Status::Unknown;
  res.reason = "counterexample replay disagrees: " + why;
  return true;
}

std::string KernelVerifier::replay(const z3::model &m) {
  for (auto *facts : {&assumptionFacts, &q->facts})
    for (Fact &f : *facts) {
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
    else if (shownAsArgument(name))
      cx.params.push_back({name, uval(m, e)});
  }
  for (auto &[loop, iv] : in.ivs)
    cx.loops.push_back({loopName(loop), uval(m, iv)});
  // The entries of loaded tensors the witness reads (loadedTensors), as
  // argN[i] = value, each once.
  std::set<std::string> shown;
  if (q)
    for (const z3::expr &entry : q->loads) {
      auto f = llvm::find_if(loadedTensors, [&](const auto &t) {
        return z3::eq(t.second, entry.decl());
      });
      std::string name = "arg" + std::to_string(f->first) + "[";
      for (unsigned a = 0; a < entry.num_args(); ++a)
        name += (a ? "," : "") + std::to_string(uval(m, entry.arg(a)));
      name += "]";
      if (shown.insert(name).second)
        cx.params.push_back({name, uval(m, entry)});
    }
}

/// The (thread, slot) of `writer`'s access layout that writes tile element
/// `coords` on model `m` (tag queries leave the writer's thread out).
std::optional<std::pair<int64_t, int64_t>>
KernelVerifier::writerOf(Operation *writer, const std::vector<z3::expr> &coords,
                         const z3::model &m) {
  std::optional<L::Layout> tv = accessLayout(writer);
  auto ty = dyn_cast<mlir::argus::TileType>(writeDest(writer).getType());
  if (!tv || tv->rank() != 2 || !ty || coords.size() != ty.getShape().size())
    return std::nullopt;
  std::vector<int64_t> c;
  for (const z3::expr &x : coords)
    c.push_back(uval(m, x));
  return holderOf(*tv, linConcrete(c, ty.getShape()));
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
        std::optional<std::pair<int64_t, int64_t>> ts;
        if (c.wt)
          ts = {uval(m, *c.wt), uval(m, *c.wv)};
        else
          ts = writerOf(c.op, c.wcoords, m);
        if (ts) {
          int64_t t = ts->first;
          os << " thread " << t << " (warp " << t / warpSize << ", lane "
             << t % warpSize << ") slot " << ts->second;
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

void KernelVerifier::setThread(Counterexample &cx, int64_t thread,
                               int64_t slot) {
  cx.thread = thread;
  cx.slot = slot;
  cx.warp = thread / warpSize;
  cx.lane = thread % warpSize;
}

ElementInfo KernelVerifier::accessedElement(const Counterexample &cx,
                                            const char *role,
                                            const std::string &memory,
                                            const std::vector<z3::expr> &coords,
                                            const z3::model &m) {
  ElementInfo el;
  el.role = role;
  el.memory = memory;
  for (auto &x : coords)
    el.tileCoords.push_back(uval(m, x));
  el.thread = cx.thread;
  el.slot = cx.slot;
  return el;
}

std::vector<int64_t>
KernelVerifier::globalCoords(const MemView &mv, const z3::model &m,
                             const std::vector<int64_t> &tileCoords) {
  std::vector<int64_t> g;
  if (!mv.shared && !mv.gather)
    for (size_t k = 0; k < mv.offsets.size(); ++k)
      g.push_back(uval(m, mv.offsets[k]) + tileCoords[mv.perm[k]]);
  return g;
}

} // namespace argus::verify::detail
