// format=bin for gfx942: the serializer links the code object with ld.lld,
// which it looks for under <toolkit>/llvm/bin (a ROCm-style root); Debian's
// lld-22 provides it.

// REQUIRES: ld.lld
// RUN: rm -rf %t.rocm && mkdir -p %t.rocm/llvm/bin && ln -s %ld_lld %t.rocm/llvm/bin/ld.lld
// RUN: argus-opt %examples/gemm_mfma.mlir --argus-to-gfx942="format=bin toolkit=%t.rocm dump=%t.hsaco" -o /dev/null
// RUN: head -c 4 %t.hsaco | FileCheck %s

// CHECK: ELF

// Without an ld.lld where the serialiser looks (issue 54: only "lld
// invocation failed"), the error says where it looked and how to point it
// at one.
// RUN: rm -rf %t.empty && mkdir -p %t.empty
// RUN: not argus-opt %examples/gemm_mfma.mlir --argus-to-gfx942="format=bin toolkit=%t.empty" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOLLD
// RUN: env ROCM_PATH=%t.empty not argus-opt %examples/gemm_mfma.mlir --argus-to-gfx942="format=bin" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ENV
// NOLLD: error: format=bin for #rocdl.target<{{.*}}> links the code object with ld.lld, looked for at '{{.*}}.empty/llvm/bin/ld.lld' (toolkit={{.*}}.empty, then llvm/bin), which is not there; hint: pass toolkit=DIR (or set ROCM_PATH=DIR) with ld.lld at DIR/llvm/bin/ld.lld
// ENV: looked for at '{{.*}}.empty/llvm/bin/ld.lld' (ROCM_PATH={{.*}}.empty, then llvm/bin)
