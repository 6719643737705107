//===- FakeCuda.h - What the fake libcuda records for the tests -----------===//
//
// FakeCuda.cpp exports these as extern "C" objects; a test finds them with
// dlsym on the same library the Device opened (dlopen of the same path
// returns the same handle), so it can assert on what the runtime passed.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_FAKECUDA_H
#define ARGUS_TEST_FAKECUDA_H

#include <cstdint>

/// The arguments of the last cuTensorMapEncodeTiled call.
struct ArgusFakeEncode {
  int calls;
  int dataType;
  uint32_t rank;
  uint64_t globalAddress;
  uint64_t globalDim[5];
  uint64_t globalStrides[4];
  uint32_t boxDim[5];
  uint32_t elementStrides[5];
  int interleave, swizzle, l2Promotion, oobFill;
  uint64_t mapAddress; ///< where the runtime asked the map to be written
};

/// The last kernel launch (cuLaunchKernel or cuLaunchKernelEx).
struct ArgusFakeLaunch {
  int calls;   ///< cuLaunchKernel calls
  int exCalls; ///< cuLaunchKernelEx calls
  unsigned grid[3], block[3], sharedMem;
  unsigned numAttrs;
  unsigned cluster[3]; ///< from CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (Ex)
  int maxDynamicSmem;  ///< last cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE)
  /// First kernel parameter as the fake read it: 128 bytes when the entry
  /// declares `.param .align 64 .b8 x[128]`, else 8 bytes.
  uint8_t param0[128];
  unsigned param0Size;
  uint64_t mapsSeen; ///< tensor maps fake_tma_copy read (magic checked)
};

/// `argusFakeReferenceLaunches` (an int) counts the launches of argus-run's
/// device reference kernel, which the fake computes with its own strides
/// and element types and does not record as the last launch.

/// The fake's encoding of a CUtensorMap (the real one is opaque): qword 0
/// is this magic, 1 the global address, 2 the rank, 3..7 the dims and
/// 8..12 the box (innermost first), 13 the data type, 14 the swizzle.
constexpr uint64_t kArgusFakeMapMagic = 0x50414d54454b4146ull; // "FAKETMAP"

#endif // ARGUS_TEST_FAKECUDA_H
