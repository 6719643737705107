//===- Expression.h - layout algebra expressions ---------------*- C++ -*-===//
//
// Part of Argus. The expression language of argus-layout: a layout in CuTe
// notation, an integer, a tuple, a tiler, or an operation of the layout
// algebra applied to such arguments (whitespace allowed between tokens):
//
//   expr  := swizzled                   (Parse.h: [Sw<B,M,S> o] SHAPE:STRIDE)
//          | tuple                      (an integer or (t, t, ...))
//          | '[' expr (',' expr)* ']'   (a tiler; each element a layout)
//          | name '(' [expr (',' expr)*] ')'
//
// Operations: composition, complement, coalesce, coalesce_modes, filter,
// logical/zipped/tiled/flat_divide, logical/zipped/tiled/blocked/
// raked_product, right_inverse, left_inverse, inverse, with_shape,
// make_layout, size, cosize, rank, depth, eval, linear, is_injective,
// is_surjective, is_bijective, smem_swizzle_atom. Where a layout is expected,
// a positive integer N means N:1 and a shape means its compact layout.
//
// Errors are messages, never crashes: "column N: ..." for what the text gets
// wrong (1-based), the operation's own message for what the algebra rejects.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_EXPRESSION_H
#define ARGUS_LAYOUT_EXPRESSION_H

#include "argus/Layout/LinearLayout.h"
#include "argus/Layout/Swizzle.h"

#include "llvm/ADT/StringRef.h"

namespace argus::layout {

/// The value of a layout expression; `kind` says which member holds it.
struct ExpressionValue {
  enum class Kind {
    Integer,      ///< integer
    Boolean,      ///< integer, 0 or 1
    Tuple,        ///< tuple (not a single integer)
    Layout,       ///< layout, possibly swizzled
    Tiler,        ///< tiler
    LinearLayout, ///< linear
    Inverse,      ///< inverse
  };
  Kind kind = Kind::Integer;
  int64_t integer = 0;
  IntTuple tuple;
  SwizzledLayout layout;
  Tiler tiler;
  LinearLayout linear;
  SwizzledInverse inverse;

  static ExpressionValue ofInteger(int64_t v);
  static ExpressionValue ofBoolean(bool b);
  static ExpressionValue ofLayout(SwizzledLayout l);

  /// Canonical notation: CuTe for layouts and tuples, "[L0, L1]" for tilers,
  /// "true"/"false" for booleans.
  std::string str() const;
  /// "an integer", "a swizzled layout", ... for messages.
  const char *kindName() const;
};

/// Parses the whole text as an expression and evaluates it.
llvm::Expected<ExpressionValue> evaluateExpression(llvm::StringRef text);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_EXPRESSION_H
