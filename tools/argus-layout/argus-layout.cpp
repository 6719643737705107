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
// exit status 1; usage errors exit with 2.
//
//===----------------------------------------------------------------------===//
#include "argus/Layout/Instructions.h"
#include "argus/Layout/LinearLayout.h"
#include "argus/Layout/Parse.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>

using namespace argus::layout;
using llvm::Error;
using llvm::Expected;

namespace {

Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

struct Value {
  enum Kind { Int, Bool, Tuple, Swz, Tile, Linear, Inverse } kind = Int;
  int64_t i = 0;
  IntTuple t;
  SwizzledLayout sl;
  Tiler tiler;
  LinearLayout lin;
  SwizzledInverse inv;

  static Value ofInt(int64_t v) {
    Value r;
    r.kind = Int;
    r.i = v;
    return r;
  }
  static Value ofBool(bool b) {
    Value r;
    r.kind = Bool;
    r.i = b;
    return r;
  }
  static Value ofLayout(SwizzledLayout l) {
    Value r;
    r.kind = Swz;
    r.sl = std::move(l);
    return r;
  }
  std::string str() const {
    switch (kind) {
    case Int:
      return std::to_string(i);
    case Bool:
      return i ? "true" : "false";
    case Tuple:
      return t.str();
    case Swz:
      return sl.str();
    case Tile: {
      std::string s = "[";
      for (size_t k = 0; k < tiler.size(); ++k)
        s += (k ? ", " : "") + tiler[k].str();
      return s + "]";
    }
    case Linear:
      return lin.str();
    case Inverse:
      return inv.str();
    }
    return "";
  }
  const char *kindName() const {
    switch (kind) {
    case Int:
      return "an integer";
    case Bool:
      return "a boolean";
    case Tuple:
      return "a tuple";
    case Swz:
      return sl.swizzle ? "a swizzled layout" : "a layout";
    case Tile:
      return "a tiler";
    case Linear:
      return "a linear layout";
    case Inverse:
      return "an inverse";
    }
    return "a value";
  }
};

/// The checks every produced layout passes: values stay far from int64
/// overflow.
Error checkBounds(const Layout &l) {
  __int128 cos = 1, size = 1;
  for (auto [s, d] : l.flatModes()) {
    size *= s;
    cos += __int128(s - 1) * (d < 0 ? -d : d);
    if (size > kMaxExtent || cos > kMaxExtent)
      return fail("the result " +
                  std::string(size > kMaxExtent ? "size" : "cosize") +
                  " exceeds 2^48");
  }
  return Error::success();
}

class Evaluator {
public:
  explicit Evaluator(llvm::StringRef text) : p(text) {}

  Expected<Value> run() {
    auto v = parseExpr(0);
    if (!v)
      return v.takeError();
    if (!p.atEnd())
      return p.error("the end of the expression");
    return v;
  }

private:
  LayoutParser p;

  Expected<Value> parseExpr(int depth) {
    if (depth > 32)
      return p.error("at most 32 nested calls");
    char c = p.peek();
    if (c == '[') {
      p.consume('[');
      Value r;
      r.kind = Value::Tile;
      if (p.consume(']'))
        return fail("an empty tiler [] is not allowed");
      while (true) {
        size_t at = p.pos;
        auto e = parseExpr(depth + 1);
        if (!e)
          return e.takeError();
        auto l = asLayout(*e, at);
        if (!l)
          return l.takeError();
        r.tiler.push_back(*l);
        if (p.consume(','))
          continue;
        if (p.consume(']'))
          break;
        return p.error("',' or ']' in a tiler");
      }
      return r;
    }
    if (llvm::StringRef(p.text).substr(p.pos).starts_with("Sw<")) {
      auto s = p.parseSwizzled();
      if (!s)
        return s.takeError();
      return Value::ofLayout(*s);
    }
    if (c == '(' || c == '-' || isdigit((unsigned char)c)) {
      size_t start = p.pos;
      auto t = p.parseTuple();
      if (!t)
        return t.takeError();
      if (p.peek() == ':') {
        p.pos = start;
        auto l = p.parseShapeStride();
        if (!l)
          return l.takeError();
        return Value::ofLayout(*l);
      }
      if (t->isInt())
        return Value::ofInt(t->value());
      Value r;
      r.kind = Value::Tuple;
      r.t = *t;
      return r;
    }
    if (isalpha((unsigned char)c) || c == '_') {
      size_t start = p.pos;
      while (p.pos < p.text.size() &&
             (isalnum((unsigned char)p.text[p.pos]) || p.text[p.pos] == '_'))
        ++p.pos;
      std::string name = p.text.substr(start, p.pos - start).str();
      if (!p.consume('('))
        return p.error("'(' after the operation name '" + name + "'");
      std::vector<Value> args;
      std::vector<size_t> at;
      if (!p.consume(')')) {
        while (true) {
          p.skipSpace();
          at.push_back(p.pos);
          auto a = parseExpr(depth + 1);
          if (!a)
            return a.takeError();
          args.push_back(std::move(*a));
          if (p.consume(','))
            continue;
          if (p.consume(')'))
            break;
          return p.error("',' or ')' in the arguments of " + name);
        }
      }
      return apply(name, args, at, start);
    }
    return p.error("a layout, an integer, a tuple, a tiler [..] or an "
                   "operation");
  }

  Error argErr(size_t at, const llvm::Twine &msg) {
    return p.messageAt(at, msg);
  }

  Expected<Layout> asLayout(const Value &v, size_t at) {
    switch (v.kind) {
    case Value::Int:
      if (v.i < 1)
        return argErr(at, "expected a positive integer as a layout");
      return Layout(v.i, 1);
    case Value::Tuple: {
      for (int64_t s : v.t.flatten())
        if (s < 1)
          return argErr(at, "expected a shape of positive integers");
      if (v.t.product() > kMaxExtent)
        return argErr(at, "shape too large");
      return Layout::compact(v.t);
    }
    case Value::Swz:
      if (v.sl.swizzle)
        return argErr(at, "expected a layout without a swizzle here");
      return v.sl.layout;
    default:
      return argErr(at,
                    llvm::Twine("expected a layout, found ") + v.kindName());
    }
  }

  Expected<SwizzledLayout> asSwizzled(const Value &v, size_t at) {
    if (v.kind == Value::Swz)
      return v.sl;
    auto l = asLayout(v, at);
    if (!l)
      return l.takeError();
    return SwizzledLayout(*l);
  }

  Expected<int64_t> asInt(const Value &v, size_t at) {
    if (v.kind != Value::Int)
      return argErr(at,
                    llvm::Twine("expected an integer, found ") + v.kindName());
    return v.i;
  }

  Expected<IntTuple> asShape(const Value &v, size_t at) {
    if (v.kind == Value::Int || v.kind == Value::Tuple) {
      IntTuple t = v.kind == Value::Int ? IntTuple(v.i) : v.t;
      for (int64_t s : t.flatten())
        if (s < 1)
          return argErr(at, "expected a shape of positive integers");
      return t;
    }
    return argErr(at, llvm::Twine("expected a shape, found ") + v.kindName());
  }

  static Expected<Value> wrap(Expected<Layout> l) {
    if (!l)
      return l.takeError();
    if (Error e = checkBounds(*l))
      return std::move(e);
    return Value::ofLayout(std::move(*l));
  }

  Expected<Value> apply(const std::string &name, std::vector<Value> &args,
                        std::vector<size_t> &at, size_t nameAt) {
    auto arity = [&](size_t lo, size_t hi) -> Error {
      if (args.size() < lo || args.size() > hi)
        return argErr(
            nameAt,
            name + " takes " +
                (lo == hi ? std::to_string(lo)
                          : std::to_string(lo) + " to " + std::to_string(hi)) +
                " argument(s), got " + std::to_string(args.size()));
      return Error::success();
    };
    auto layoutArg = [&](size_t k) { return asLayout(args[k], at[k]); };

    // Unary layout -> layout operations.
    static const std::map<std::string,
                          std::function<Expected<Layout>(const Layout &)>>
        unary = {
            {"coalesce_modes",
             [](const Layout &l) -> Expected<Layout> {
               return coalesceModes(l);
             }},
            {"filter",
             [](const Layout &l) -> Expected<Layout> { return filter(l); }},
            {"right_inverse", [](const Layout &l) { return rightInverse(l); }},
            {"left_inverse", [](const Layout &l) { return leftInverse(l); }},
        };
    if (auto it = unary.find(name); it != unary.end()) {
      if (Error e = arity(1, 1))
        return std::move(e);
      auto l = layoutArg(0);
      if (!l)
        return l.takeError();
      return wrap(it->second(*l));
    }
    if (name == "coalesce") {
      // coalesce(L) or coalesce(L, profile): the second form is by-mode.
      if (Error e = arity(1, 2))
        return std::move(e);
      auto l = layoutArg(0);
      if (!l)
        return l.takeError();
      return wrap(args.size() == 2 ? coalesceModes(*l) : coalesce(*l));
    }
    if (name == "size" || name == "cosize" || name == "rank" ||
        name == "depth") {
      if (Error e = arity(1, 1))
        return std::move(e);
      auto l = asSwizzled(args[0], at[0]);
      if (!l)
        return l.takeError();
      if (name == "size")
        return Value::ofInt(l->size());
      if (name == "cosize")
        return Value::ofInt(l->cosize());
      if (name == "rank")
        return Value::ofInt(int64_t(l->layout.rank()));
      return Value::ofInt(l->layout.depth());
    }
    if (name == "is_injective" || name == "is_surjective" ||
        name == "is_bijective") {
      if (Error e = arity(1, 1))
        return std::move(e);
      auto l = layoutArg(0);
      if (!l)
        return l.takeError();
      if (name == "is_injective")
        return Value::ofBool(isInjective(*l));
      if (name == "is_surjective")
        return Value::ofBool(isSurjective(*l));
      return Value::ofBool(isBijective(*l));
    }
    if (name == "composition") {
      if (Error e = arity(2, 2))
        return std::move(e);
      auto a = asSwizzled(args[0], at[0]);
      if (!a)
        return a.takeError();
      if (args[1].kind == Value::Tile) {
        if (a->swizzle)
          return argErr(at[0], "a swizzled layout composes only with a "
                               "layout, not with a tiler");
        return wrap(composition(a->layout, args[1].tiler));
      }
      auto b = layoutArg(1);
      if (!b)
        return b.takeError();
      auto r = composition(*a, *b);
      if (!r)
        return r.takeError();
      if (Error e = checkBounds(r->layout))
        return std::move(e);
      return Value::ofLayout(*r);
    }
    if (name == "complement") {
      if (Error e = arity(1, 2))
        return std::move(e);
      auto l = layoutArg(0);
      if (!l)
        return l.takeError();
      if (args.size() == 1)
        return wrap(complement(*l));
      auto m = asInt(args[1], at[1]);
      if (!m)
        return m.takeError();
      return wrap(complement(*l, *m));
    }
    using LL = Expected<Layout> (*)(const Layout &, const Layout &);
    using LT = Expected<Layout> (*)(const Layout &, const Tiler &);
    struct Binary {
      LL withLayout;
      LT withTiler;
    };
    static const std::map<std::string, Binary> binary = {
        {"logical_divide", {logicalDivide, logicalDivide}},
        {"zipped_divide", {zippedDivide, zippedDivide}},
        {"tiled_divide", {tiledDivide, tiledDivide}},
        {"flat_divide", {flatDivide, flatDivide}},
        {"logical_product", {logicalProduct, logicalProduct}},
        {"zipped_product", {zippedProduct, zippedProduct}},
        {"tiled_product", {tiledProduct, tiledProduct}},
        {"blocked_product", {blockedProduct, nullptr}},
        {"raked_product", {rakedProduct, nullptr}},
    };
    if (auto it = binary.find(name); it != binary.end()) {
      if (Error e = arity(2, 2))
        return std::move(e);
      auto a = layoutArg(0);
      if (!a)
        return a.takeError();
      if (args[1].kind == Value::Tile) {
        if (!it->second.withTiler)
          return argErr(at[1], name + " takes a layout, not a tiler");
        return wrap(it->second.withTiler(*a, args[1].tiler));
      }
      auto b = layoutArg(1);
      if (!b)
        return b.takeError();
      return wrap(it->second.withLayout(*a, *b));
    }
    if (name == "with_shape") {
      if (Error e = arity(2, 2))
        return std::move(e);
      auto l = layoutArg(0);
      if (!l)
        return l.takeError();
      auto s = asShape(args[1], at[1]);
      if (!s)
        return s.takeError();
      return wrap(withShape(*l, *s));
    }
    if (name == "make_layout") {
      if (args.empty())
        return argErr(nameAt, "make_layout takes at least one argument");
      // make_layout(shape, stride) when both are integers/tuples.
      if (args.size() == 2 &&
          (args[0].kind == Value::Int || args[0].kind == Value::Tuple) &&
          (args[1].kind == Value::Int || args[1].kind == Value::Tuple)) {
        IntTuple s =
            args[0].kind == Value::Int ? IntTuple(args[0].i) : args[0].t;
        IntTuple d =
            args[1].kind == Value::Int ? IntTuple(args[1].i) : args[1].t;
        std::string text = s.str() + ":" + d.str();
        auto l = parsePlainLayout(text);
        if (!l)
          return argErr(at[0], "make_layout: " + toString(l.takeError()) +
                                   " in " + text);
        return wrap(*l);
      }
      if (args.size() == 1) {
        auto l = layoutArg(0);
        if (!l)
          return l.takeError();
        return wrap(*l);
      }
      std::vector<Layout> modes;
      for (size_t k = 0; k < args.size(); ++k) {
        auto l = layoutArg(k);
        if (!l)
          return l.takeError();
        modes.push_back(*l);
      }
      return wrap(Layout::concat(modes));
    }
    if (name == "eval") {
      if (Error e = arity(2, 2))
        return std::move(e);
      auto l = asSwizzled(args[0], at[0]);
      if (!l)
        return l.takeError();
      if (args[1].kind == Value::Int) {
        if (args[1].i < 0 || args[1].i >= l->size())
          return argErr(at[1], "index " + std::to_string(args[1].i) +
                                   " is outside [0, " +
                                   std::to_string(l->size()) + ")");
        return Value::ofInt((*l)(args[1].i));
      }
      if (args[1].kind != Value::Tuple)
        return argErr(at[1], "expected an index or a coordinate");
      if (Error e = checkCoord(l->layout.shape(), args[1].t, at[1]))
        return std::move(e);
      return Value::ofInt((*l)(args[1].t));
    }
    if (name == "linear") {
      if (Error e = arity(1, 1))
        return std::move(e);
      auto l = asSwizzled(args[0], at[0]);
      if (!l)
        return l.takeError();
      auto r = LinearLayout::fromSwizzledLayout(*l);
      if (!r)
        return r.takeError();
      Value v;
      v.kind = Value::Linear;
      v.lin = *r;
      return v;
    }
    if (name == "inverse") {
      if (Error e = arity(1, 1))
        return std::move(e);
      auto l = asSwizzled(args[0], at[0]);
      if (!l)
        return l.takeError();
      auto r = inverse(*l);
      if (!r)
        return r.takeError();
      Value v;
      v.kind = Value::Inverse;
      v.inv = *r;
      return v;
    }
    if (name == "smem_swizzle_atom") {
      if (Error e = arity(1, 2))
        return std::move(e);
      auto bytes = asInt(args[0], at[0]);
      if (!bytes)
        return bytes.takeError();
      std::optional<SmemSwizzle> mode =
          *bytes == 0 || *bytes == 16 ? std::optional(SmemSwizzle::None)
          : *bytes == 32              ? std::optional(SmemSwizzle::B32)
          : *bytes == 64              ? std::optional(SmemSwizzle::B64)
          : *bytes == 128             ? std::optional(SmemSwizzle::B128)
                                      : std::nullopt;
      if (!mode)
        return argErr(at[0], "expected a swizzle width 0, 32, 64 or 128");
      int64_t bits = 16;
      if (args.size() == 2) {
        auto b = asInt(args[1], at[1]);
        if (!b)
          return b.takeError();
        bits = *b;
      }
      auto r = smemSwizzleAtom(*mode, int(bits));
      if (!r)
        return r.takeError();
      return Value::ofLayout(r->atom);
    }
    return argErr(nameAt, "unknown operation '" + name + "'");
  }

  Error checkCoord(const IntTuple &s, const IntTuple &c, size_t at) {
    if (c.isInt()) {
      if (c.value() < 0 || c.value() >= s.product())
        return argErr(at, "coordinate " + std::to_string(c.value()) +
                              " is outside the mode of size " +
                              std::to_string(s.product()));
      return Error::success();
    }
    if (s.isInt()) {
      if (c.rank() == 1)
        return checkCoord(s, c[0], at);
      return argErr(at, "coordinate " + c.str() +
                            " is not congruent with the shape " + s.str());
    }
    if (c.rank() != s.rank())
      return argErr(at, "coordinate " + c.str() +
                            " has a different rank from the shape " + s.str());
    for (size_t i = 0; i < s.rank(); ++i)
      if (Error e = checkCoord(s[i], c[i], at))
        return e;
    return Error::success();
  }
};

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
  Evaluator ev(exprs[0]);
  auto v = ev.run();
  if (!v) {
    llvm::errs() << "argus-layout: error: " << toString(v.takeError()) << "\n";
    return 1;
  }
  if (!table) {
    llvm::outs() << v->str() << "\n";
    return 0;
  }
  std::function<int64_t(int64_t)> f;
  int64_t n = 0;
  if (v->kind == Value::Swz) {
    n = v->sl.size();
    f = [&](int64_t i) { return v->sl(i); };
  } else if (v->kind == Value::Inverse) {
    n = v->inv.size();
    f = [&](int64_t i) { return v->inv(i); };
  } else if (v->kind == Value::Linear) {
    if (v->lin.numInBits() > 20) {
      llvm::errs() << "argus-layout: error: --table: more than 2^20 values\n";
      return 1;
    }
    n = int64_t(1) << v->lin.numInBits();
    f = [&](int64_t i) { return int64_t(v->lin.applyFlat(uint64_t(i))); };
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
