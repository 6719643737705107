//===- ArgusTypeConverter.cpp - argus tiles to vectors and memrefs --------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Register tiles become vector<slots x elem>; global tiles strided memrefs
// in address space 1; shared tiles and buffers flat memrefs of their
// cosize in address space 3; tensor maps the generic address of their
// parameter, mbarrier rings a shared array of i64.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

using namespace mlir;
using namespace mlir::argus;

ArgusTypeConverter::ArgusTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](TileType t) -> std::optional<Type> {
    Type elem = t.getElementType();
    if (!t.isMemory()) {
      std::optional<L::Layout> l = regLayout(t);
      if (!l)
        return std::nullopt;
      int64_t slots = l->rank() > 1 ? l->mode(1).size() : 1;
      return VectorType::get({slots}, elem);
    }
    MLIRContext *ctx = t.getContext();
    if (t.getMemorySpace() == MemorySpace::Global) {
      SmallVector<int64_t> strides(t.getRank(), ShapedType::kDynamic);
      strides.back() = 1;
      auto layout = StridedLayoutAttr::get(ctx, ShapedType::kDynamic, strides);
      return MemRefType::get(t.getShape(), elem, layout,
                             addressSpace(ctx, kGlobalSpace));
    }
    auto layout = StridedLayoutAttr::get(ctx, ShapedType::kDynamic, {1});
    return MemRefType::get({memCosize(t)}, elem, layout,
                           addressSpace(ctx, kSharedSpace));
  });
  // A tensor map is the generic address of its kernel parameter (the
  // 128-byte CUtensorMap, passed by value as a grid constant).
  addConversion([](TensorMapType t) -> Type {
    return LLVM::LLVMPointerType::get(t.getContext());
  });
  // An mbarrier ring: one 8-byte shared word per stage.
  addConversion([](MBarrierType t) -> Type {
    return sharedArrayType(t.getStages(), IntegerType::get(t.getContext(), 64));
  });
  addConversion([](BufferType t) -> Type {
    return sharedArrayType(t.getStages() * memCosize(t.getTile()),
                           t.getTile().getElementType());
  });
  auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                        Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}
