//===- SourceLimits.h - what MLIR's parser cannot survive -------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A lexical check of IR text before MLIR parses it, for inputs on which
// MLIR 22's parser ends the process instead of reporting an error: a result
// number `%v#N` with a huge N makes it allocate N placeholders and abort
// with "LLVM ERROR: out of memory" (mlir-opt too). argus-opt and the Python
// bindings run it on every input, so such text is a located error.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT_SOURCELIMITS_H
#define ARGUS_DIALECT_SOURCELIMITS_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>
#include <string>

namespace mlir::argus {

/// Result numbers at or above this are refused (no op has that many).
constexpr unsigned long long kMaxResultNumber = 1ull << 20;

/// An input the parser must not see: where (a byte offset into the text)
/// and why.
struct SourceLimitError {
  size_t offset;
  std::string message;
};

/// The first construct of `text` past the parser's limits, outside comments
/// and string literals; none when there is none.
std::optional<SourceLimitError> checkSourceLimits(llvm::StringRef text);

} // namespace mlir::argus

#endif // ARGUS_DIALECT_SOURCELIMITS_H
