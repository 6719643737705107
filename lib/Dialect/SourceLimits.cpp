//===- SourceLimits.cpp - what MLIR's parser cannot survive ---------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/SourceLimits.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir::argus;

/// Characters of an SSA name after `%` (MLIR's suffix-id).
static bool isNameChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
}

std::optional<SourceLimitError>
mlir::argus::checkSourceLimits(llvm::StringRef text) {
  size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') { // a comment
      size_t eol = text.find('\n', i);
      if (eol == llvm::StringRef::npos)
        break;
      i = eol;
      continue;
    }
    if (c == '"') { // a string literal, with escapes
      for (++i; i < n && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c != '%')
      continue;
    size_t j = i + 1;
    while (j < n && isNameChar(text[j]))
      ++j;
    if (j == i + 1 || j >= n || text[j] != '#') {
      i = j - 1;
      continue;
    }
    size_t k = j + 1;
    unsigned long long value = 0;
    bool huge = false;
    while (k < n && llvm::isDigit(text[k])) {
      value = value * 10 + (text[k] - '0');
      huge |= value >= kMaxResultNumber;
      if (huge)
        value = kMaxResultNumber; // saturate: digits may go on
      ++k;
    }
    if (huge)
      return SourceLimitError{
          j, "result number " + text.slice(j + 1, k).str() + " of '" +
                 text.slice(i, j).str() + "' is out of range (at most " +
                 std::to_string(kMaxResultNumber - 1) +
                 "; MLIR's parser would run out of memory on it); hint: "
                 "results are numbered from 0 up to the op's result count"};
    i = k - 1;
  }
  return std::nullopt;
}
