//===- Expression.cpp - layout algebra expressions ------------------------===//
//
// Part of Argus. A recursive-descent evaluator: each operation is applied as
// soon as its arguments are parsed, so errors point at the argument's column.
//
//===----------------------------------------------------------------------===//
#include "argus/Layout/Expression.h"

#include "argus/Layout/Instructions.h"
#include "argus/Layout/Parse.h"

#include "llvm/ADT/Twine.h"

#include <functional>
#include <map>

using namespace argus::layout;
using llvm::Error;
using llvm::Expected;
using V = ExpressionValue;

static Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

ExpressionValue ExpressionValue::ofInteger(int64_t v) {
  ExpressionValue r;
  r.kind = Kind::Integer;
  r.integer = v;
  return r;
}

ExpressionValue ExpressionValue::ofBoolean(bool b) {
  ExpressionValue r;
  r.kind = Kind::Boolean;
  r.integer = b;
  return r;
}

ExpressionValue ExpressionValue::ofLayout(SwizzledLayout l) {
  ExpressionValue r;
  r.kind = Kind::Layout;
  r.layout = std::move(l);
  return r;
}

std::string ExpressionValue::str() const {
  switch (kind) {
  case Kind::Integer:
    return std::to_string(integer);
  case Kind::Boolean:
    return integer ? "true" : "false";
  case Kind::Tuple:
    return tuple.str();
  case Kind::Layout:
    return layout.str();
  case Kind::Tiler: {
    std::string s = "[";
    for (size_t k = 0; k < tiler.size(); ++k)
      s += (k ? ", " : "") + tiler[k].str();
    return s + "]";
  }
  case Kind::LinearLayout:
    return linear.str();
  case Kind::Inverse:
    return inverse.str();
  }
  return "";
}

const char *ExpressionValue::kindName() const {
  switch (kind) {
  case Kind::Integer:
    return "an integer";
  case Kind::Boolean:
    return "a boolean";
  case Kind::Tuple:
    return "a tuple";
  case Kind::Layout:
    return layout.swizzle ? "a swizzled layout" : "a layout";
  case Kind::Tiler:
    return "a tiler";
  case Kind::LinearLayout:
    return "a linear layout";
  case Kind::Inverse:
    return "an inverse";
  }
  return "a value";
}

namespace {

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

  Expected<V> run() {
    auto v = parseExpr(0);
    if (!v)
      return v.takeError();
    if (!p.atEnd())
      return p.error("the end of the expression");
    return v;
  }

private:
  LayoutParser p;

  Expected<V> parseExpr(int depth) {
    if (depth > 32)
      return p.error("at most 32 nested calls");
    char c = p.peek();
    if (c == '[') {
      p.consume('[');
      V r;
      r.kind = V::Kind::Tiler;
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
      return V::ofLayout(*s);
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
        return V::ofLayout(*l);
      }
      if (t->isInt())
        return V::ofInteger(t->value());
      V r;
      r.kind = V::Kind::Tuple;
      r.tuple = *t;
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
      std::vector<V> args;
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

  Expected<Layout> asLayout(const V &v, size_t at) {
    switch (v.kind) {
    case V::Kind::Integer:
      if (v.integer < 1)
        return argErr(at, "expected a positive integer as a layout");
      return Layout(v.integer, 1);
    case V::Kind::Tuple: {
      for (int64_t s : v.tuple.flatten())
        if (s < 1)
          return argErr(at, "expected a shape of positive integers");
      if (v.tuple.product() > kMaxExtent)
        return argErr(at, "shape too large");
      return Layout::compact(v.tuple);
    }
    case V::Kind::Layout:
      if (v.layout.swizzle)
        return argErr(at, "expected a layout without a swizzle here");
      return v.layout.layout;
    default:
      return argErr(at,
                    llvm::Twine("expected a layout, found ") + v.kindName());
    }
  }

  Expected<SwizzledLayout> asSwizzled(const V &v, size_t at) {
    if (v.kind == V::Kind::Layout)
      return v.layout;
    auto l = asLayout(v, at);
    if (!l)
      return l.takeError();
    return SwizzledLayout(*l);
  }

  Expected<int64_t> asInt(const V &v, size_t at) {
    if (v.kind != V::Kind::Integer)
      return argErr(at,
                    llvm::Twine("expected an integer, found ") + v.kindName());
    return v.integer;
  }

  Expected<IntTuple> asShape(const V &v, size_t at) {
    if (v.kind == V::Kind::Integer || v.kind == V::Kind::Tuple) {
      IntTuple t = v.kind == V::Kind::Integer ? IntTuple(v.integer) : v.tuple;
      for (int64_t s : t.flatten())
        if (s < 1)
          return argErr(at, "expected a shape of positive integers");
      return t;
    }
    return argErr(at, llvm::Twine("expected a shape, found ") + v.kindName());
  }

  static Expected<V> wrap(Expected<Layout> l) {
    if (!l)
      return l.takeError();
    if (Error e = checkBounds(*l))
      return std::move(e);
    return V::ofLayout(std::move(*l));
  }

  Expected<V> apply(const std::string &name, std::vector<V> &args,
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
        return V::ofInteger(l->size());
      if (name == "cosize")
        return V::ofInteger(l->cosize());
      if (name == "rank")
        return V::ofInteger(int64_t(l->layout.rank()));
      return V::ofInteger(l->layout.depth());
    }
    if (name == "is_injective" || name == "is_surjective" ||
        name == "is_bijective") {
      if (Error e = arity(1, 1))
        return std::move(e);
      auto l = layoutArg(0);
      if (!l)
        return l.takeError();
      if (name == "is_injective")
        return V::ofBoolean(isInjective(*l));
      if (name == "is_surjective")
        return V::ofBoolean(isSurjective(*l));
      return V::ofBoolean(isBijective(*l));
    }
    if (name == "composition") {
      if (Error e = arity(2, 2))
        return std::move(e);
      auto a = asSwizzled(args[0], at[0]);
      if (!a)
        return a.takeError();
      if (args[1].kind == V::Kind::Tiler) {
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
      return V::ofLayout(*r);
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
      if (args[1].kind == V::Kind::Tiler) {
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
          (args[0].kind == V::Kind::Integer ||
           args[0].kind == V::Kind::Tuple) &&
          (args[1].kind == V::Kind::Integer ||
           args[1].kind == V::Kind::Tuple)) {
        IntTuple s = args[0].kind == V::Kind::Integer
                         ? IntTuple(args[0].integer)
                         : args[0].tuple;
        IntTuple d = args[1].kind == V::Kind::Integer
                         ? IntTuple(args[1].integer)
                         : args[1].tuple;
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
      if (args[1].kind == V::Kind::Integer) {
        if (args[1].integer < 0 || args[1].integer >= l->size())
          return argErr(at[1], "index " + std::to_string(args[1].integer) +
                                   " is outside [0, " +
                                   std::to_string(l->size()) + ")");
        return V::ofInteger((*l)(args[1].integer));
      }
      if (args[1].kind != V::Kind::Tuple)
        return argErr(at[1], "expected an index or a coordinate");
      if (Error e = checkCoord(l->layout.shape(), args[1].tuple, at[1]))
        return std::move(e);
      return V::ofInteger((*l)(args[1].tuple));
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
      V v;
      v.kind = V::Kind::LinearLayout;
      v.linear = *r;
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
      V v;
      v.kind = V::Kind::Inverse;
      v.inverse = *r;
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
      return V::ofLayout(r->atom);
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

} // namespace

Expected<ExpressionValue>
argus::layout::evaluateExpression(llvm::StringRef text) {
  return Evaluator(text).run();
}
