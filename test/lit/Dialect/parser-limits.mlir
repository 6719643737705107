// Text on which MLIR 22's parser ends the process ("LLVM ERROR: out of
// memory": a result number it allocates placeholders for) is a located
// error before parsing (lib/Dialect/SourceLimits.cpp), from a file and from
// stdin; the same numbers in comments and strings are left alone.

// RUN: not argus-opt %s 2>&1 | FileCheck %s
// RUN: cat %s | not argus-opt 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: argus-opt %S/Inputs/parser-limits-comment.mlir | FileCheck %s --check-prefix=OK

// CHECK: parser-limits.mlir:[[@LINE+7]]:21: error: result number 2147483648 of '%r' is out of range (at most 1048575
// CHECK-SAME: hint: results are numbered from 0 up to the op's result count
// STDIN: <stdin>:[[@LINE+5]]:21: error: result number 2147483648
// OK-LABEL: func.func @f
// OK: "%r#99999999999"
func.func @f(%a: index, %b: index) -> index {
  %r:2 = arith.addui_extended %a, %b : index, i1
  %s = arith.addi %r#2147483648, %a : index
  return %s : index
}
