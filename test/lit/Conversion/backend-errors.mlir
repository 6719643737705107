// LLVM backend errors become diagnostics on the gpu.module instead of ending
// the process (issue 13): AMDGPU's "local memory exceeds limit" is reported
// by LLVM through its context, whose default handler calls exit(1). This
// module is not an argus kernel, so the shared-memory budget check of
// argus-to-gpu does not see it: only the guarded serialisation (in a child
// process) does.

// RUN: not argus-opt %s --argus-module-to-binary 2>&1 | FileCheck %s
// RUN: not argus-opt %s --argus-module-to-binary="format=nonsense" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FMT

// CHECK: error: code generation for #rocdl.target<chip = "gfx942"> failed in the LLVM backend (it exited with status 1)
// CHECK: note: {{.*}}local memory (81920) exceeds limit (65536) in function 'k'
// CHECK-NOT: see current operation
// CHECK-NOT: LLVM ERROR

// FMT: error: argus-module-to-binary: unknown format 'nonsense'; hint: use isa, bin, llvm or offloading
// FMT-NOT: see current operation

module attributes {gpu.container_module} {
  gpu.module @lds [#rocdl.target<chip = "gfx942">] {
    llvm.mlir.global internal @big() {addr_space = 3 : i32} : !llvm.array<20480 x f32>
    llvm.func @k(%v: f32) attributes {gpu.kernel, rocdl.kernel} {
      %p = llvm.mlir.addressof @big : !llvm.ptr<3>
      llvm.store volatile %v, %p : f32, !llvm.ptr<3>
      llvm.return
    }
  }
}
