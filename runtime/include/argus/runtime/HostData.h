//===- HostData.h - Host buffers, dtype conversion, reference checks ------===//
#ifndef ARGUS_RUNTIME_HOSTDATA_H
#define ARGUS_RUNTIME_HOSTDATA_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace argus {
namespace rt {

enum class DType { F32, F16, BF16, F64, I8, U8, I32, U32, I64, U64 };

/// Parse "f32", "f16", "bf16", ...; returns false when unknown.
bool parseDType(const std::string &s, DType &out);
const char *dtypeName(DType t);
size_t dtypeSize(DType t);
bool isFloat(DType t);

uint16_t floatToHalf(float f); ///< round to nearest even
float halfToFloat(uint16_t h);
uint16_t floatToBf16(float f); ///< round to nearest even
float bf16ToFloat(uint16_t h);

/// Element i of a typed byte buffer as double / store a double into it.
double loadElement(const uint8_t *data, DType t, size_t i);
void storeElement(uint8_t *data, DType t, size_t i, double v);

/// Deterministic uniform [lo, hi) fill from a 64-bit seed (splitmix64; the
/// same seed gives the same data on every platform).
void fillUniform(std::vector<uint8_t> &buf, DType t, size_t n, uint64_t seed,
                 double lo, double hi);
void fillConstant(std::vector<uint8_t> &buf, DType t, size_t n, double v);

/// C[M,N] = A[M,K] * B[K,N] with float accumulation. bTransposed: B stored
/// as N x K row-major (i.e. K x N column-major).
std::vector<float> referenceGemm(const uint8_t *a, DType ta, const uint8_t *b,
                                 DType tb, int64_t M, int64_t N, int64_t K,
                                 bool aTransposed, bool bTransposed);

struct CompareResult {
  size_t elements = 0;
  size_t mismatches = 0; ///< |out - ref| > atol + rtol*|ref|, or non-finite
  size_t nonFinite = 0;
  double maxAbsErr = 0;
  double maxRelErr = 0;
  double relFroErr = 0; ///< ||out - ref||_2 / ||ref||_2
  size_t firstMismatch = static_cast<size_t>(-1);
  double firstOut = 0, firstRef = 0;
  bool passed() const { return mismatches == 0 && elements > 0; }
};

/// Default GEMM check tolerances for an output dtype: 1e-2/1e-2, except
/// bf16 (unit roundoff 2^-8), whose rtol is 2^-6 (four roundoffs).
void defaultGemmTolerance(DType c, double &atol, double &rtol);

CompareResult compareToReference(const uint8_t *out, DType t,
                                 const std::vector<float> &ref, double atol,
                                 double rtol);

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_HOSTDATA_H
