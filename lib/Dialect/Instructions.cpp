//===- Instructions.cpp - matrix-core instructions for the dialect --------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/Instructions.h"
#include "argus/Dialect/ArgusDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::argus;

FailureOr<::argus::layout::MmaInstr>
mlir::argus::lookupInstruction(StringRef name,
                               function_ref<InFlightDiagnostic()> emitError) {
  if (std::optional<::argus::layout::MmaInstr> instr =
          ::argus::layout::lookupMmaInstr(name))
    return *instr;
  // Rank known names by edit distance for the hint.
  std::vector<std::string> known = ::argus::layout::knownMmaInstrNames();
  llvm::sort(known, [&](const std::string &x, const std::string &y) {
    return name.edit_distance(x) < name.edit_distance(y);
  });
  InFlightDiagnostic diag = emitError();
  diag << "unknown matrix-core instruction \"" << name << "\"";
  if (!known.empty()) {
    diag << "; hint: did you mean \"" << known.front() << "\"?";
    diag << " (known: ";
    llvm::interleaveComma(llvm::ArrayRef(known).take_front(6), diag,
                          [&](const std::string &n) { diag << n; });
    diag << ", ...)";
  }
  return failure();
}

Type mlir::argus::getOperandElementType(MLIRContext *ctx,
                                        const ::argus::layout::MmaInstr &instr,
                                        MmaOperand operand) {
  StringRef name = operand == MmaOperand::A   ? StringRef(instr.aType)
                   : operand == MmaOperand::B ? StringRef(instr.bType)
                                              : StringRef(instr.cType);
  Builder b(ctx);
  return llvm::StringSwitch<Type>(name)
      .Case("f16", b.getF16Type())
      .Case("bf16", b.getBF16Type())
      .Cases({"f32", "tf32"}, b.getF32Type())
      .Case("f8E4M3FNUZ", b.getType<Float8E4M3FNUZType>())
      .Case("f8E4M3FN", b.getType<Float8E4M3FNType>())
      .Case("f8E5M2FNUZ", b.getType<Float8E5M2FNUZType>())
      .Case("f8E5M2", b.getType<Float8E5M2Type>())
      .Default(Type());
}

std::array<int64_t, 2>
mlir::argus::getOperandShape(const ::argus::layout::MmaInstr &instr,
                             MmaOperand operand) {
  switch (operand) {
  case MmaOperand::A:
    return {instr.M, instr.K};
  case MmaOperand::B:
    return {instr.K, instr.N};
  case MmaOperand::C:
    return {instr.M, instr.N};
  }
  llvm_unreachable("unknown operand");
}

StringRef
mlir::argus::getInstructionTarget(const ::argus::layout::MmaInstr &instr) {
  return instr.target == ::argus::layout::MmaInstr::Target::GFX942 ? "gfx942"
                                                                   : "sm_90";
}
