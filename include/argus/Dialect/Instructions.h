//===- Instructions.h - matrix-core instructions for the dialect -*- C++
//-*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The bridge between the dialect and the layout library's instruction
// descriptors: lookup with diagnostics, element types and operand shapes.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT_INSTRUCTIONS_H
#define ARGUS_DIALECT_INSTRUCTIONS_H

#include "argus/Layout/Instructions.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"

#include <array>

namespace mlir::argus {

enum class MmaOperand : uint32_t;

/// Look up a matrix-core instruction by name; on failure emits
/// "unknown instruction" with the closest known names as a hint.
FailureOr<::argus::layout::MmaInstr>
lookupInstruction(StringRef name, function_ref<InFlightDiagnostic()> emitError);

/// The MLIR element type an instruction expects for an operand.
Type getOperandElementType(MLIRContext *ctx,
                           const ::argus::layout::MmaInstr &instr,
                           MmaOperand operand);

/// The logical shape (rows, cols) of one instruction's operand:
/// A is MxK, B is KxN, C is MxN.
std::array<int64_t, 2> getOperandShape(const ::argus::layout::MmaInstr &instr,
                                       MmaOperand operand);

/// The target chip family an instruction belongs to ("gfx942" or "sm_90").
StringRef getInstructionTarget(const ::argus::layout::MmaInstr &instr);

} // namespace mlir::argus

#endif // ARGUS_DIALECT_INSTRUCTIONS_H
