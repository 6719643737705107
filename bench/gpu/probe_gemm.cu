// probe_gemm.cu - hand-written test kernel for argus-run (bench/gpu).
//
// C[M,N] (f32) = A[M,K] (f16, row-major) * B[K,N] (f16, row-major), f32
// accumulation on the tensor cores through WMMA 16x16x16. Block tile 64x64,
// k-tile 32, 128 threads = 4 warps in a 2x2 arrangement, each warp owning a
// 32x32 sub-tile (2x2 fragments). Single-buffered: load tile, sync, mma, sync.
// Requires M % 64 == 0, N % 64 == 0, K % 32 == 0.
//
// Probes follow runtime/include/argus/runtime/ProbeFormat.h: lane 0 of every
// warp appends a record per region begin/end with %globaltimer, regions
// load_tile (id 1) and mma (id 2), iteration = k-tile index. The probe buffer
// is the LAST kernel parameter; a null pointer disables probing.
//
// Compile (here, no GPU needed):
//   nvcc -arch=sm_90a -ptx -I../../runtime/include probe_gemm.cu -o
//   probe_gemm.ptx
#include <cuda_fp16.h>
#include <mma.h>
#include <stdint.h>

#include "argus/runtime/ProbeFormat.h"

using namespace nvcuda;

namespace {

constexpr int BM = 64, BN = 64, BK = 32;
constexpr int APAD = 8, BPAD = 8; // keep rows 16-byte aligned, break conflicts
constexpr uint32_t kLoadTile = 1, kMma = 2;

__device__ __forceinline__ uint64_t globalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint32_t smId() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

struct Probe {
  ArgusProbeSlot *slot = nullptr;
  ArgusProbeRecord *records = nullptr; // this slot's records
  uint32_t capacity = 0, block = 0, warp = 0, hw = 0;

  __device__ void init(uint8_t *buf, uint32_t blockId, uint32_t warpId) {
    if (!buf)
      return;
    const ArgusProbeHeader *h = reinterpret_cast<const ArgusProbeHeader *>(buf);
    uint32_t s = blockId * h->warps_per_block + warpId;
    if (warpId >= h->warps_per_block || s >= h->num_slots)
      return;
    capacity = h->capacity;
    slot =
        reinterpret_cast<ArgusProbeSlot *>(buf + ARGUS_PROBE_HEADER_SIZE) + s;
    records = reinterpret_cast<ArgusProbeRecord *>(
                  buf + argusProbeRecordsOffset(h->num_slots)) +
              static_cast<uint64_t>(s) * capacity;
    block = blockId;
    warp = warpId;
    hw = smId();
  }

  // Called by lane 0 only (one writer per slot, no atomics).
  __device__ void emit(uint32_t region, uint32_t flags, uint32_t iteration) {
    if (!slot)
      return;
    uint64_t ts = globalTimer();
    uint32_t n = slot->count;
    if (n < capacity) {
      ArgusProbeRecord r;
      r.region_id = region;
      r.flags = flags;
      r.block = block;
      r.warp = warp;
      r.iteration = iteration;
      r.hw_id = hw;
      r.timestamp = ts;
      records[n] = r;
      slot->count = n + 1;
    } else {
      slot->dropped += 1;
    }
  }
};

} // namespace

extern "C" __global__ void __launch_bounds__(128)
    probe_gemm(const __half *__restrict__ A, const __half *__restrict__ B,
               float *__restrict__ C, int M, int N, int K, uint8_t *probes) {
  __shared__ __align__(128) __half As[BM][BK + APAD];
  __shared__ __align__(128) __half Bs[BK][BN + BPAD];

  const int tid = threadIdx.x;
  const int warpId = tid / 32, lane = tid % 32;
  const int warpRow = warpId / 2, warpCol = warpId % 2; // 2x2 warps
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  const uint32_t blockLinear =
      blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;

  Probe probe;
  if (lane == 0)
    probe.init(probes, blockLinear, warpId);

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::fill_fragment(acc[i][j], 0.0f);

  const int kTiles = K / BK;
  for (int kt = 0; kt < kTiles; ++kt) {
    const int k0 = kt * BK;
    // ---- region load_tile: global -> shared, 16 bytes per access --------
    if (lane == 0)
      probe.emit(kLoadTile, 0, kt);
#pragma unroll
    for (int i = 0; i < 2; ++i) { // A tile: 64 rows x 32 halves = 256 x uint4
      int idx = tid + i * 128;
      int r = idx / 4, c = (idx % 4) * 8;
      *reinterpret_cast<uint4 *>(&As[r][c]) =
          *reinterpret_cast<const uint4 *>(&A[(size_t)(bm + r) * K + k0 + c]);
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) { // B tile: 32 rows x 64 halves = 256 x uint4
      int idx = tid + i * 128;
      int r = idx / 8, c = (idx % 8) * 8;
      *reinterpret_cast<uint4 *>(&Bs[r][c]) =
          *reinterpret_cast<const uint4 *>(&B[(size_t)(k0 + r) * N + bn + c]);
    }
    __syncthreads();
    if (lane == 0)
      probe.emit(kLoadTile, ARGUS_PROBE_FLAG_END, kt);

    // ---- region mma: two k-steps of 16 on the warp's 2x2 fragments -------
    if (lane == 0)
      probe.emit(kMma, 0, kt);
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
#pragma unroll
      for (int i = 0; i < 2; ++i)
        wmma::load_matrix_sync(a[i], &As[warpRow * 32 + i * 16][kk], BK + APAD);
#pragma unroll
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(b[j], &Bs[kk][warpCol * 32 + j * 16], BN + BPAD);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
          wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();
    if (lane == 0)
      probe.emit(kMma, ARGUS_PROBE_FLAG_END, kt);
  }

#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      int r = bm + warpRow * 32 + i * 16, c = bn + warpCol * 32 + j * 16;
      wmma::store_matrix_sync(&C[(size_t)r * N + c], acc[i][j], N,
                              wmma::mem_row_major);
    }
}
