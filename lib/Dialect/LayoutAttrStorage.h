//===- LayoutAttrStorage.h - storage of #argus.layout -----------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// #argus.layout is uniqued by its canonical CuTe text (what it prints), and
// its storage also keeps the layout-algebra value parsed from that text when
// the attribute is created: every later getLayout() reads it instead of
// parsing the text again.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LIB_DIALECT_LAYOUTATTRSTORAGE_H
#define ARGUS_LIB_DIALECT_LAYOUTATTRSTORAGE_H

#include "argus/Layout/Parse.h"

#include "mlir/IR/AttributeSupport.h"

#include <optional>

namespace mlir::argus::detail {

struct LayoutAttrStorage : public AttributeStorage {
  using KeyTy = StringRef;

  LayoutAttrStorage(StringRef text,
                    std::optional<::argus::layout::SwizzledLayout> layout)
      : text(text), layout(std::move(layout)) {}

  bool operator==(const KeyTy &key) const { return key == text; }
  static llvm::hash_code hashKey(const KeyTy &key) {
    return llvm::hash_value(key);
  }

  static LayoutAttrStorage *construct(AttributeStorageAllocator &allocator,
                                      const KeyTy &key) {
    std::optional<::argus::layout::SwizzledLayout> layout;
    llvm::Expected<::argus::layout::SwizzledLayout> parsed =
        ::argus::layout::parseLayout(key);
    if (parsed)
      layout = std::move(*parsed);
    else // Reported by LayoutAttr::verify; getLayout() refuses the attribute.
      llvm::consumeError(parsed.takeError());
    return new (allocator.allocate<LayoutAttrStorage>())
        LayoutAttrStorage(allocator.copyInto(key), std::move(layout));
  }

  /// The canonical CuTe notation (the attribute's only parameter).
  StringRef text;
  /// The parsed text; empty only for an attribute built without its
  /// verifier from text that does not parse.
  std::optional<::argus::layout::SwizzledLayout> layout;
};

} // namespace mlir::argus::detail

#endif // ARGUS_LIB_DIALECT_LAYOUTATTRSTORAGE_H
