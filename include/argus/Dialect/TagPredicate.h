//===- TagPredicate.h - the language of tag assertions ----------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// `argus.tag_assert` predicates: comparisons of integer expressions over tag
// references `operand.field`, combined with `&&`, `||` and `!`. This file
// only parses and prints them; the tag verifier gives them meaning.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT_TAGPREDICATE_H
#define ARGUS_DIALECT_TAGPREDICATE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir::argus {

/// A node of a predicate's syntax tree.
struct TagExpr {
  enum class Kind {
    // Integer-valued.
    Const,
    Ref,
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    // Boolean-valued.
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Not,
  };
  Kind kind;
  int64_t value = 0;   // Const
  std::string operand; // Ref: the operand name before the first '.'
  std::string field;   // Ref: the (possibly dotted) field after it
  unsigned column = 0; // 1-based column in the predicate text
  std::vector<std::unique_ptr<TagExpr>> children;

  bool isBoolean() const { return kind >= Kind::Eq; }
  /// Print in the surface syntax, fully parenthesised where needed.
  std::string str() const;
  /// Every reference in the tree, in textual order.
  void collectRefs(llvm::SmallVectorImpl<const TagExpr *> &refs) const;
};

/// Parse a predicate. On failure returns null and sets `error` to a message
/// naming the 1-based column and what was expected.
std::unique_ptr<TagExpr> parseTagPredicate(llvm::StringRef text,
                                           std::string &error);

} // namespace mlir::argus

#endif // ARGUS_DIALECT_TAGPREDICATE_H
