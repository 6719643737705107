// format=bin for gfx942: the serializer links the code object with ld.lld,
// which it looks for under <toolkit>/llvm/bin (a ROCm-style root); Debian's
// lld-22 provides it.

// REQUIRES: ld.lld
// RUN: rm -rf %t.rocm && mkdir -p %t.rocm/llvm/bin && ln -s %ld_lld %t.rocm/llvm/bin/ld.lld
// RUN: argus-opt %examples/gemm_mfma.mlir --argus-to-gfx942="format=bin toolkit=%t.rocm dump=%t.hsaco" -o /dev/null
// RUN: head -c 4 %t.hsaco | FileCheck %s

// CHECK: ELF
