// hopper_smoke.cu - sm_90a kernels that check argus-run's Hopper launch
// paths on a real GPU (bench/gpu/hopper/hopper_smoke.sh):
//   tma_copy_value(const __grid_constant__ CUtensorMap tm, float *out,
//                  int rows, int cols)   - tensor map passed by value
//   tma_copy_ptr(const CUtensorMap *tm, float *out, int rows, int cols)
//                                        - tensor map passed by device pointer
// Each block TMA-loads one box (boxRows x boxCols f32, read from the map's
// own box size via the spec) into dynamic shared memory and writes it back
// to `out` at the same place, undoing the 128-byte swizzle when SW128, so
// `out` equals the input when the map is right.
//   cluster_count(int *count, unsigned expect) - traps unless the block's
//                                        cluster has `expect` blocks, then
//                                        counts blocks.
// Build: nvcc -arch=sm_90a -ptx hopper_smoke.cu -o hopper_smoke.ptx
#include <cstdint>

struct alignas(64) TensorMap {
  uint64_t opaque[16];
};

template <bool SW128>
__device__ void tileCopy(const void *tmap, float *out, int rows, int cols,
                         int boxRows, int boxCols) {
  extern __shared__ __align__(1024) unsigned char smemRaw[];
  // The 128-byte swizzle pattern repeats every 1024 bytes: align to it.
  unsigned char *smem = reinterpret_cast<unsigned char *>(
      (reinterpret_cast<uintptr_t>(smemRaw) + 1023) & ~uintptr_t(1023));
  __shared__ __align__(8) uint64_t bar;
  const int x0 = blockIdx.x * boxCols, y0 = blockIdx.y * boxRows;
  const uint32_t barAddr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const uint32_t bytes = boxRows * boxCols * 4;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barAddr));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barAddr),
        "r"(bytes)
        : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile."
                 "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
                     "r"(dst),
                 "l"(reinterpret_cast<uint64_t>(tmap)), "r"(x0), "r"(y0),
                 "r"(barAddr)
                 : "memory");
  }
  uint32_t done = 0;
  while (!done)
    asm volatile("{ .reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                 "selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(barAddr)
                 : "memory");
  for (int i = threadIdx.x; i < boxRows * boxCols; i += blockDim.x) {
    int r = i / boxCols, c = i % boxCols;
    int gy = y0 + r, gx = x0 + c;
    uint32_t cb = c * 4, off;
    if (SW128) // 16-byte chunk index XOR (row mod 8) within 128-byte rows
      off = r * 128 + ((((cb >> 4) ^ (r & 7)) << 4) | (cb & 15));
    else
      off = (r * boxCols + c) * 4;
    if (gy < rows && gx < cols)
      out[gy * cols + gx] = *reinterpret_cast<const float *>(smem + off);
  }
}

// Box 16 x 32 f32 (128-byte rows), swizzle 128.
extern "C" __global__ void tma_copy_value(const __grid_constant__ TensorMap tm,
                                          float *out, int rows, int cols) {
  tileCopy<true>(&tm, out, rows, cols, 16, 32);
}

// Box 8 x 16 f32, no swizzle.
extern "C" __global__ void tma_copy_ptr(const TensorMap *tm, float *out,
                                        int rows, int cols) {
  tileCopy<false>(tm, out, rows, cols, 8, 16);
}

extern "C" __global__ void cluster_count(int *count, unsigned expect) {
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  if (n != expect)
    __trap();
  if (threadIdx.x == 0)
    atomicAdd(count, 1);
}
