//===- argus-layout.cpp - Layout algebra calculator -----------------------===//
//
// Part of Argus. Usage:
//   argus-layout [--table] EXPR
//   argus-layout --mma NAME          (also ldmatrix.x{1,2,4}[.trans])
//
// EXPR is a layout in CuTe notation, an integer, a tuple, a tiler
// [L0, L1, ...], or an operation applied to such arguments, e.g.
//   composition((6,2):(8,2), (4,3):(3,1))
// Results are printed in canonical CuTe notation. Errors go to stderr with
// exit status 1; usage errors exit with 2. The expression language is
// argus/Layout/Expression.h; this file is only the command line.
//
//===----------------------------------------------------------------------===//
#include "argus/Layout/Expression.h"
#include "argus/Layout/Instructions.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace argus::layout;

namespace {

int usage(const char *msg) {
  if (msg)
    llvm::errs() << "argus-layout: error: " << msg << "\n";
  llvm::errs()
      << "usage: argus-layout [--table] EXPR\n"
         "       argus-layout --mma NAME\n"
         "EXPR: a layout such as '(4,(2,8)):(2,(1,8))' or 'Sw<3,3,3> o "
         "(8,64):(64,1)',\n"
         "      or OP(args) with OP one of composition, complement, "
         "coalesce,\n"
         "      coalesce_modes, filter, logical_divide, zipped_divide, "
         "tiled_divide,\n"
         "      flat_divide, logical_product, blocked_product, "
         "raked_product,\n"
         "      zipped_product, tiled_product, right_inverse, left_inverse, "
         "inverse,\n"
         "      with_shape, make_layout, size, cosize, rank, depth, eval, "
         "linear,\n"
         "      is_injective, is_surjective, is_bijective, "
         "smem_swizzle_atom;\n"
         "      a tiler is written [L0, L1, ...].\n";
  return 2;
}

int printMma(llvm::StringRef name) {
  if (auto ld = lookupLdMatrix(name)) {
    llvm::outs() << ld->name << " (sm_90): " << ld->numMatrices
                 << " 8x8 b16 matrices"
                 << (ld->transposed ? ", transposed" : "") << ", 32 lanes x "
                 << ld->values << " values\n";
    llvm::outs() << "TV: " << ld->tv.str()
                 << "  (lane,value) -> 64*matrix + 8*row + col\n";
    llvm::outs() << "addr: " << ld->rowAddrLane.str()
                 << "  (row,matrix) -> lane supplying the row address\n";
    return 0;
  }
  auto m = lookupMmaInstr(name);
  if (!m) {
    llvm::errs() << "argus-layout: error: unknown instruction '" << name
                 << "'; did you mean '" << closestMmaInstrName(name) << "'?\n";
    return 1;
  }
  std::string Ms = std::to_string(m->M), Ns = std::to_string(m->N);
  llvm::outs() << m->name << " ("
               << (m->target == MmaInstr::Target::GFX942 ? "gfx942" : "sm_90")
               << "): M=" << m->M << " N=" << m->N << " K=" << m->K << ", "
               << m->threads << " threads; A " << m->aType << " x" << m->aRegs
               << (m->aFromShared ? " (shared)" : "") << ", B " << m->bType
               << " x" << m->bRegs << (m->bFromShared ? " (shared)" : "")
               << ", C " << m->cType << " x" << m->cRegs << "\n";
  llvm::outs() << "A: " << m->A.tv.str() << "  (thread,value) -> m + " << Ms
               << "*k\n";
  llvm::outs() << "B: " << m->B.tv.str() << "  (thread,value) -> n + " << Ns
               << "*k\n";
  llvm::outs() << "C: " << m->C.tv.str() << "  (thread,value) -> m + " << Ms
               << "*n\n";
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  bool table = false;
  std::optional<std::string> mma;
  std::vector<std::string> exprs;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    if (a == "--table") {
      table = true;
    } else if (a == "--mma") {
      if (i + 1 >= argc)
        return usage("--mma needs an instruction name");
      mma = argv[++i];
    } else if (a == "-h" || a == "--help") {
      usage(nullptr);
      return 0;
    } else if (a.starts_with("--")) {
      return usage(("unknown option " + a.str()).c_str());
    } else {
      exprs.push_back(a.str());
    }
  }
  if (mma) {
    if (!exprs.empty() || table)
      return usage("--mma takes no expression");
    return printMma(*mma);
  }
  if (exprs.size() != 1)
    return usage(exprs.empty() ? "missing expression"
                               : "expected exactly one expression");
  auto v = evaluateExpression(exprs[0]);
  if (!v) {
    llvm::errs() << "argus-layout: error: " << toString(v.takeError()) << "\n";
    return 1;
  }
  if (!table) {
    llvm::outs() << v->str() << "\n";
    return 0;
  }
  using Kind = ExpressionValue::Kind;
  std::function<int64_t(int64_t)> f;
  int64_t n = 0;
  if (v->kind == Kind::Layout) {
    n = v->layout.size();
    f = [&](int64_t i) { return v->layout(i); };
  } else if (v->kind == Kind::Inverse) {
    n = v->inverse.size();
    f = [&](int64_t i) { return v->inverse(i); };
  } else if (v->kind == Kind::LinearLayout) {
    if (v->linear.numInBits() > 20) {
      llvm::errs() << "argus-layout: error: --table: more than 2^20 values\n";
      return 1;
    }
    n = int64_t(1) << v->linear.numInBits();
    f = [&](int64_t i) { return int64_t(v->linear.applyFlat(uint64_t(i))); };
  } else {
    llvm::errs() << "argus-layout: error: --table needs a layout, found "
                 << v->kindName() << "\n";
    return 1;
  }
  if (n > (int64_t(1) << 20)) {
    llvm::errs() << "argus-layout: error: --table: size " << n
                 << " exceeds 2^20 values\n";
    return 1;
  }
  for (int64_t i = 0; i < n; ++i)
    llvm::outs() << (i ? " " : "") << f(i);
  llvm::outs() << "\n";
  return 0;
}
