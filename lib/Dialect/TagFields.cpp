//===- TagFields.cpp - which tag fields a value carries -------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/TagFields.h"
#include "argus/Dialect/ArgusDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::argus;

SmallVector<std::pair<StringRef, Value>>
mlir::argus::getNamedTagOperands(Operation *op) {
  using Named = SmallVector<std::pair<StringRef, Value>>;
  return llvm::TypeSwitch<Operation *, Named>(op)
      .Case<MmaOp, MmaAsyncOp>([](auto o) -> Named {
        return {{"a", o.getA()}, {"b", o.getB()}, {"acc", o.getAcc()}};
      })
      .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, CmpOp>(
          [](auto o) -> Named {
            return {{"lhs", o.getLhs()}, {"rhs", o.getRhs()}};
          })
      .Case([](SelectOp o) -> Named {
        return {
            {"mask", o.getMask()}, {"lhs", o.getLhs()}, {"rhs", o.getRhs()}};
      })
      .Case<ExpOp, Exp2Op, NegOp, AbsOp, ReluOp, SqrtOp, RsqrtOp, LogOp, Log2Op,
            TanhOp, SigmoidOp, GeluOp, ScaleOp, ConvertOp, ConvertLayoutOp,
            ReduceOp, ScanOp, BroadcastOp, TagOp>([](auto o) -> Named {
        return {{"input", o.getInput()}};
      })
      .Case([](LoadOp o) -> Named {
        return {{"source", o.getSource()}};
      })
      .Case([](StoreOp o) -> Named {
        return {{"value", o.getValue()}, {"dest", o.getDest()}};
      })
      .Case<CopyOp, CopyAsyncOp, TmaLoadOp, TmaStoreOp>([](auto o) -> Named {
        return {{"source", o.getSource()}, {"dest", o.getDest()}};
      })
      .Default([](Operation *) -> Named { return {}; });
}

/// Op verifiers run in program order, so this inference may meet ops that
/// are not verified yet (and may be malformed): only look through ops whose
/// invariants hold, with their diagnostics silenced.
bool mlir::argus::isWellFormed(Operation *op) {
  ScopedDiagnosticHandler silence(op->getContext(),
                                  [](Diagnostic &) { return success(); });
  if (failed(op->getName().verifyInvariants(op)))
    return false;
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    Block *body = loop.getBody();
    if (body->empty() || !isa<scf::YieldOp>(body->back()))
      return false;
    unsigned n = loop.getInitArgs().size();
    return body->back().getNumOperands() == n &&
           loop.getRegionIterArgs().size() == n && loop.getNumResults() == n;
  }
  return true;
}

ViewOp mlir::argus::getViewThroughTags(Value tile) {
  while (auto tag = tile.getDefiningOp<TagOp>())
    tile = tag.getInput();
  return tile.getDefiningOp<ViewOp>();
}

Value mlir::argus::getMemoryRoot(Value tile, bool onlyWellFormed) {
  while (Operation *def = tile.getDefiningOp()) {
    if (onlyWellFormed && !isWellFormed(def))
      break;
    if (auto stage = dyn_cast<StageOp>(def))
      return stage.getBuffer();
    if (auto view = dyn_cast<ViewOp>(def))
      return view.getTensor();
    if (auto gather = dyn_cast<GatherViewOp>(def))
      return gather.getTensor();
    if (auto im2col = dyn_cast<Im2colViewOp>(def))
      return im2col.getTensor();
    if (isa<TagOp, TransposeOp, ReinterpretOp>(def)) {
      tile = def->getOperand(0);
      continue;
    }
    break;
  }
  return tile;
}

std::optional<unsigned> mlir::argus::getTensorArgument(Value root) {
  auto arg = dyn_cast<BlockArgument>(root);
  if (!arg || !isa<MemRefType>(arg.getType()) ||
      !arg.getOwner()->isEntryBlock())
    return std::nullopt;
  if (!isa_and_nonnull<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return std::nullopt;
  return arg.getArgNumber();
}

namespace {
/// Structural walk backwards through the def-use graph. Memory is followed
/// through its root (the viewed tensor or the allocated buffer): a load sees
/// the fields of everything stored or copied to the same root.
class FieldInference {
public:
  std::optional<std::set<std::string>> infer(Value v) {
    if (!visiting.insert(v.getAsOpaquePointer()).second)
      return std::set<std::string>(); // a cycle adds nothing new
    auto result = inferUncached(v);
    visiting.erase(v.getAsOpaquePointer());
    return result;
  }

private:
  llvm::DenseSet<const void *> visiting;
  // isWellFormed runs an op's verifier; the walks below meet each op many
  // times.
  llvm::DenseMap<Operation *, bool> wellFormed;

  bool checked(Operation *op) {
    auto [it, fresh] = wellFormed.try_emplace(op, false);
    if (fresh)
      it->second = isWellFormed(op);
    return it->second;
  }

  static std::optional<std::set<std::string>>
  unite(std::optional<std::set<std::string>> a,
        const std::optional<std::set<std::string>> &b) {
    if (!a || !b)
      return std::nullopt;
    a->insert(b->begin(), b->end());
    return a;
  }

  std::optional<std::set<std::string>> inferMemory(Value tile) {
    // Tags attached to the memory tile itself.
    if (auto tag = tile.getDefiningOp<TagOp>()) {
      std::set<std::string> fields;
      for (Attribute f : tag.getFields())
        fields.insert(cast<StringAttr>(f).getValue().str());
      return unite(fields, inferMemory(tag.getInput()));
    }
    Value root = getMemoryRoot(tile, /*onlyWellFormed=*/true);
    Operation *scope = root.getParentRegion()->getParentOp();
    if (!scope)
      return std::nullopt;
    std::optional<std::set<std::string>> fields = std::set<std::string>();
    // Global memory: the implicit source-tensor field.
    auto ty = dyn_cast<TileType>(tile.getType());
    if (ty && ty.getMemorySpace() == MemorySpace::Global &&
        getTensorArgument(root))
      fields->insert(kTensorField.str());
    scope->walk([&](Operation *op) {
      if (!fields)
        return;
      if (isa<StoreOp, CopyOp, CopyAsyncOp, TmaLoadOp>(op) && !checked(op)) {
        fields = std::nullopt;
        return;
      }
      if (auto store = dyn_cast<StoreOp>(op)) {
        if (getMemoryRoot(store.getDest(), /*onlyWellFormed=*/true) == root)
          fields = unite(fields, infer(store.getValue()));
      } else if (auto copy = dyn_cast<CopyOp>(op)) {
        if (getMemoryRoot(copy.getDest(), /*onlyWellFormed=*/true) == root)
          fields = unite(fields, infer(copy.getSource()));
      } else if (auto copy = dyn_cast<CopyAsyncOp>(op)) {
        if (getMemoryRoot(copy.getDest(), /*onlyWellFormed=*/true) == root)
          fields = unite(fields, infer(copy.getSource()));
      } else if (auto copy = dyn_cast<TmaLoadOp>(op)) {
        if (getMemoryRoot(copy.getDest(), /*onlyWellFormed=*/true) == root)
          fields = unite(fields, infer(copy.getSource()));
      }
    });
    return fields;
  }

  std::optional<std::set<std::string>> inferUncached(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      // Kernel arguments come from outside the kernel: they carry no tags.
      if (isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
        return std::set<std::string>();
      // Loop-carried values: the init value and every yielded value.
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg.getArgNumber() == 0 || !checked(loop))
        return std::nullopt;
      unsigned i = arg.getArgNumber() - 1;
      auto fields = infer(loop.getInitArgs()[i]);
      return unite(fields, infer(loop.getYieldedValues()[i]));
    }
    Operation *def = v.getDefiningOp();
    if (!checked(def))
      return std::nullopt;
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      return unite(infer(loop.getInitArgs()[i]),
                   infer(loop.getYieldedValues()[i]));
    }
    if (auto tile = dyn_cast<TileType>(v.getType()); tile && tile.isMemory())
      return inferMemory(v);
    return llvm::TypeSwitch<Operation *, std::optional<std::set<std::string>>>(
               def)
        .Case([&](TagOp o) -> std::optional<std::set<std::string>> {
          std::set<std::string> fields;
          for (Attribute f : o.getFields())
            fields.insert(cast<StringAttr>(f).getValue().str());
          return unite(fields, infer(o.getInput()));
        })
        .Case<MmaOp, MmaAsyncOp>([&](auto o) { return infer(o.getAcc()); })
        .Case([&](WgmmaWaitOp o) {
          return infer(o.getValues()[cast<OpResult>(v).getResultNumber()]);
        })
        .Case<FillOp, SplatOp, IotaOp>(
            [&](auto) { return std::set<std::string>(); })
        .Case([&](LoadOp o) { return infer(o.getSource()); })
        .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, CmpOp, SelectOp>(
            [&](auto o) -> std::optional<std::set<std::string>> {
              // Fields of both operands, also under the operand's name
              // (and a select's mask fields under "mask.").
              auto l = infer(o.getLhs()), r = infer(o.getRhs());
              if (!l || !r)
                return std::nullopt;
              std::set<std::string> fields = *l;
              fields.insert(r->begin(), r->end());
              for (const std::string &f : *l)
                fields.insert("lhs." + f);
              for (const std::string &f : *r)
                fields.insert("rhs." + f);
              if constexpr (std::is_same_v<decltype(o), SelectOp>) {
                auto m = infer(o.getMask());
                if (!m)
                  return std::nullopt;
                for (const std::string &f : *m)
                  fields.insert("mask." + f);
              }
              return fields;
            })
        .Case<ExpOp, Exp2Op, NegOp, AbsOp, ReluOp, SqrtOp, RsqrtOp, LogOp,
              Log2Op, TanhOp, SigmoidOp, GeluOp, ScaleOp, ConvertOp,
              ConvertLayoutOp, ReduceOp, ScanOp, BroadcastOp>(
            [&](auto o) { return infer(o.getInput()); })
        .Default([](Operation *) { return std::nullopt; });
  }
};
} // namespace

std::optional<std::set<std::string>> mlir::argus::inferTagFields(Value value) {
  return FieldInference().infer(value);
}
