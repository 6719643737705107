//===- Parse.h - CuTe notation parser --------------------------*- C++ -*-===//
//
// Part of Argus. Grammar (whitespace allowed between tokens):
//
//   swizzled := [ swizzle ('o' | '∘') ] layout
//   swizzle  := 'Sw<' int ',' int ',' int '>'
//   layout   := tuple [ ':' tuple ]     (no stride: compact column-major)
//   tuple    := int | '(' tuple (',' tuple)* ')'
//   int      := ['-'] digit+
//
// Shapes must be positive and congruent with the strides. Errors read
// "column N: expected X" (1-based column in the input).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_PARSE_H
#define ARGUS_LAYOUT_PARSE_H

#include "argus/Layout/Swizzle.h"

#include "llvm/ADT/StringRef.h"

namespace argus::layout {

/// Parses the whole text as a (possibly swizzled) layout.
llvm::Expected<SwizzledLayout> parseLayout(llvm::StringRef text);
/// Parses the whole text as a plain layout (a swizzle is an error).
llvm::Expected<Layout> parsePlainLayout(llvm::StringRef text);
/// Parses the whole text as an IntTuple.
llvm::Expected<IntTuple> parseIntTuple(llvm::StringRef text);

/// Incremental parser, for tools that embed layouts in larger expressions.
class LayoutParser {
public:
  explicit LayoutParser(llvm::StringRef text, size_t pos = 0)
      : text(text), pos(pos) {}

  llvm::Expected<int64_t> parseInt();
  llvm::Expected<IntTuple> parseTuple();
  /// A tuple followed by an optional ':' stride tuple.
  llvm::Expected<Layout> parseShapeStride();
  /// "Sw<B,M,S>".
  llvm::Expected<Swizzle> parseSwizzle();
  /// [swizzle 'o'] layout.
  llvm::Expected<SwizzledLayout> parseSwizzled();

  void skipSpace();
  bool atEnd() {
    skipSpace();
    return pos >= text.size();
  }
  /// Next non-space character, or 0 at the end.
  char peek() {
    skipSpace();
    return pos < text.size() ? text[pos] : '\0';
  }
  /// Consumes c (after spaces) when it is next.
  bool consume(char c);
  /// Consumes the keyword when it is next.
  bool consume(llvm::StringRef kw);
  /// "column N: expected <what>[, found 'c']" at the current position.
  llvm::Error error(const llvm::Twine &what);
  llvm::Error errorAt(size_t at, const llvm::Twine &what);
  /// "column N: <msg>".
  llvm::Error messageAt(size_t at, const llvm::Twine &msg);

  llvm::StringRef text;
  size_t pos;
};

} // namespace argus::layout

#endif // ARGUS_LAYOUT_PARSE_H
