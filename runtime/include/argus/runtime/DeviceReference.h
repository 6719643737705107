//===- DeviceReference.h - the GEMM check's reference on the device -------===//
//
// The reference of a GEMM check computed by argus-run's own kernel on the
// device instead of on the host: at 8192^3 the host reference takes tens of
// seconds per run, the device one well under a second. The kernel is
// deliberately naive (one thread per element of C, f32 accumulation in k
// order, as the host reference), so it shares nothing with the kernel
// under test but the device.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_DEVICEREFERENCE_H
#define ARGUS_RUNTIME_DEVICEREFERENCE_H

#include "argus/runtime/Device.h"
#include "argus/runtime/HostData.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace argus {
namespace rt {

/// C = A B (M x N, f32) from the host images of A and B (A: M x K, or K x M
/// when aT; B: K x N, or N x K when bT), computed on `dev`. Returns nullopt
/// with `why` set when this device cannot: a backend without PTX (HIP), an
/// input type other than f32 / f16 / bf16, or a grid beyond its limits.
/// Driver failures throw RuntimeError as any other device call.
std::optional<std::vector<float>>
deviceReferenceGemm(Device &dev, const uint8_t *a, DType ta, const uint8_t *b,
                    DType tb, int64_t M, int64_t N, int64_t K, bool aT, bool bT,
                    std::string &why);

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_DEVICEREFERENCE_H
