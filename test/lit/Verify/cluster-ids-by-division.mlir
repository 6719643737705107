// The cluster GEMM (examples/sm90a/gemm_tma_cluster_ws.mlir) with its
// cluster id, rank and cluster count computed from the block id and the
// grid (block_id / 2, block_id % 2, grid_dim / 2) instead of the gpu
// cluster ops: block = cluster id * 2 + rank, so the quotient and remainder
// are the cluster parameters themselves. Before, output coverage of the
// bulk store was unknown (the cluster id not solvable from one offset).
//
// RUN: sed -e 's/^  %%cid = gpu.cluster_id x$/  %%bx_c = gpu.block_id x\n  %%two_c = arith.constant 2 : index\n  %%cid = arith.divui %%bx_c, %%two_c : index/' \
// RUN:     -e 's/^  %%rank = gpu.cluster_block_id x$/  %%rank = arith.remui %%bx_c, %%two_c : index/' \
// RUN:     -e 's/^  %%clusters = gpu.cluster_dim x$/  %%gx_c = gpu.grid_dim x\n  %%clusters = arith.divui %%gx_c, %%two_c : index/' \
// RUN:     %examples/sm90a/gemm_tma_cluster_ws.mlir > %t.mlir
// RUN: grep -c "arith.divui %%bx_c, %%two_c" %t.mlir | FileCheck %s --check-prefix=EDITED
// RUN: argus-opt %t.mlir --argus-verify-tags -o /dev/null 2>&1 | count 0
// EDITED: 1
