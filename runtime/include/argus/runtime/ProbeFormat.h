/* ProbeFormat.h - the probe buffer contract between argus probe insertion and
 * the host runtime. Plain C-compatible structs; include from C, C++ or CUDA.
 *
 * Layout (little-endian), see docs/Runtime.md:
 *   [0, 64)                    ArgusProbeHeader
 *   [64, 64 + 8*num_slots)     ArgusProbeSlot[num_slots]   (zeroed by the host)
 *   [records_offset, ...)      ArgusProbeRecord[num_slots * capacity]
 *   records_offset = round_up(64 + 8*num_slots, 32) (ARGUS_PROBE_RECORDS_ALIGN)
 *
 * Device protocol (lane 0 of each warp writes; one writer per slot):
 *   slot = block * warps_per_block + warp;
 *   n = slots[slot].count;
 *   if (n < capacity) { records[slot*capacity + n] = rec; slots[slot].count =
 * n+1; } else slots[slot].dropped += 1;
 */
#ifndef ARGUS_RUNTIME_PROBEFORMAT_H
#define ARGUS_RUNTIME_PROBEFORMAT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIP__)
#define ARGUS_PROBE_HD __host__ __device__
#else
#define ARGUS_PROBE_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ARGUS_PROBE_MAGIC 0x53475241u /* "ARGS" little-endian */
#define ARGUS_PROBE_VERSION 1u
#define ARGUS_PROBE_HEADER_SIZE 64u
#define ARGUS_PROBE_SLOT_SIZE 8u
#define ARGUS_PROBE_RECORD_SIZE 32u
/* The records start on a 32-byte boundary, so every record (32 bytes) and
 * each of its 16-byte halves is naturally aligned for vector stores. */
#define ARGUS_PROBE_RECORDS_ALIGN 32u
#define ARGUS_PROBE_NO_ITERATION 0xFFFFFFFFu
#define ARGUS_PROBE_FLAG_END 0x1u /* bit0: 0 = begin, 1 = end */

/* clock_kind values */
#define ARGUS_CLOCK_GLOBALTIMER 0u   /* NVPTX %globaltimer, nanoseconds */
#define ARGUS_CLOCK_CLOCK64 1u       /* NVPTX clock64, SM cycles */
#define ARGUS_CLOCK_S_MEMTIME 2u     /* AMDGPU s_memtime, shader cycles */
#define ARGUS_CLOCK_S_MEMREALTIME 3u /* AMDGPU s_memrealtime, 100 MHz ticks */

typedef struct ArgusProbeHeader {
  uint32_t magic;       /* ARGUS_PROBE_MAGIC */
  uint32_t version;     /* ARGUS_PROBE_VERSION */
  uint32_t num_slots;   /* gridDim.x*gridDim.y*gridDim.z * warps_per_block */
  uint32_t capacity;    /* records per slot */
  uint32_t record_size; /* ARGUS_PROBE_RECORD_SIZE */
  uint32_t clock_kind;  /* ARGUS_CLOCK_* */
  uint32_t warps_per_block; /* warps per block that may write */
  uint32_t warp_size;       /* 32 (NVIDIA) or 64 (AMD wave64) */
  uint32_t reserved[8];     /* zero */
} ArgusProbeHeader;

typedef struct ArgusProbeSlot {
  uint32_t count;   /* records written (may exceed capacity only if corrupt) */
  uint32_t dropped; /* records not written because the slot was full */
} ArgusProbeSlot;

typedef struct ArgusProbeRecord {
  uint32_t region_id;
  uint32_t flags;     /* bit0: 0 = begin, 1 = end; other bits reserved (0) */
  uint32_t block;     /* x + y*gx + z*gx*gy */
  uint32_t warp;      /* warp index in the block */
  uint32_t iteration; /* ARGUS_PROBE_NO_ITERATION when not in a loop */
  uint32_t hw_id;     /* SM id (NVIDIA) / CU id (AMD) */
  uint64_t timestamp; /* units given by clock_kind */
} ArgusProbeRecord;

#ifdef __cplusplus
#define ARGUS_PROBE_STATIC_ASSERT static_assert
#else
#define ARGUS_PROBE_STATIC_ASSERT _Static_assert
#endif
ARGUS_PROBE_STATIC_ASSERT(sizeof(ArgusProbeHeader) == ARGUS_PROBE_HEADER_SIZE,
                          "probe header must be 64 bytes");
ARGUS_PROBE_STATIC_ASSERT(sizeof(ArgusProbeSlot) == ARGUS_PROBE_SLOT_SIZE,
                          "probe slot must be 8 bytes");
ARGUS_PROBE_STATIC_ASSERT(sizeof(ArgusProbeRecord) == ARGUS_PROBE_RECORD_SIZE,
                          "probe record must be 32 bytes");
ARGUS_PROBE_STATIC_ASSERT(offsetof(ArgusProbeRecord, timestamp) == 24,
                          "timestamp at offset 24");
ARGUS_PROBE_STATIC_ASSERT(offsetof(ArgusProbeHeader, warp_size) == 28,
                          "warp_size at offset 28");
/* The device writes a record as two 16-byte stores, {region_id, flags, block,
 * warp} and {iteration, hw_id, timestamp}: the halves must be exactly that. */
ARGUS_PROBE_STATIC_ASSERT(offsetof(ArgusProbeRecord, iteration) == 16,
                          "second record half starts at offset 16");
ARGUS_PROBE_STATIC_ASSERT(ARGUS_PROBE_RECORDS_ALIGN % ARGUS_PROBE_RECORD_SIZE ==
                              0,
                          "records are aligned to their size");
#undef ARGUS_PROBE_STATIC_ASSERT

/* Byte offset of the first record for a buffer with num_slots slots. */
static inline ARGUS_PROBE_HD uint64_t
argusProbeRecordsOffset(uint64_t num_slots) {
  uint64_t end = ARGUS_PROBE_HEADER_SIZE + ARGUS_PROBE_SLOT_SIZE * num_slots;
  return (end + (ARGUS_PROBE_RECORDS_ALIGN - 1u)) &
         ~(uint64_t)(ARGUS_PROBE_RECORDS_ALIGN - 1u);
}

/* Total buffer size in bytes. */
static inline ARGUS_PROBE_HD uint64_t argusProbeBufferSize(uint64_t num_slots,
                                                           uint64_t capacity) {
  return argusProbeRecordsOffset(num_slots) +
         num_slots * capacity * ARGUS_PROBE_RECORD_SIZE;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ARGUS_RUNTIME_PROBEFORMAT_H */
