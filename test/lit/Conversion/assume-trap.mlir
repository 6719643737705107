// argus.assume (a kernel precondition) lowers to a check at kernel entry
// that traps when the condition does not hold: a launch outside the domain
// the verifier proved stops instead of computing a wrong answer.

// RUN: argus-opt %examples/gemm_pipelined_3stage.mlir --argus-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: argus-opt %examples/gemm_pipelined_3stage.mlir --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: argus-opt %examples/moe_grouped_gemm.mlir --argus-to-gpu | FileCheck %s --check-prefix=MOE

// GPU-LABEL: gpu.func @gemm_pipelined_3stage(
// GPU: %[[OK:.*]] = arith.cmpi uge, %{{.*}}, %c64
// GPU: %[[BAD:.*]] = arith.xori %[[OK]], %true
// GPU: scf.if %[[BAD]] {
// GPU-NEXT: llvm.intr.trap
// GPU: nvvm.cp.async.commit.group
// GPU-NOT: argus.assume

// PTX-LABEL: .entry gemm_pipelined_3stage(
// PTX-DAG: trap;
// PTX-DAG: cp.async.commit_group

// MOE-LABEL: gpu.func @moe_grouped_gemm(
// MOE: arith.cmpi ult, %{{.*}}, %c1024
// MOE: llvm.intr.trap
// MOE-NOT: argus.assume
