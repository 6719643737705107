//===- HostData.cpp - Host buffers, dtype conversion, reference checks ----===//
#include "argus/runtime/HostData.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace argus {
namespace rt {

bool parseDType(const std::string &s, DType &out) {
  static const struct {
    const char *n;
    DType t;
  } table[] = {{"f32", DType::F32}, {"f16", DType::F16}, {"bf16", DType::BF16},
               {"f64", DType::F64}, {"i8", DType::I8},   {"u8", DType::U8},
               {"i32", DType::I32}, {"u32", DType::U32}, {"i64", DType::I64},
               {"u64", DType::U64}};
  for (const auto &e : table)
    if (s == e.n) {
      out = e.t;
      return true;
    }
  return false;
}

const char *dtypeName(DType t) {
  switch (t) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F64:
    return "f64";
  case DType::I8:
    return "i8";
  case DType::U8:
    return "u8";
  case DType::I32:
    return "i32";
  case DType::U32:
    return "u32";
  case DType::I64:
    return "i64";
  case DType::U64:
    return "u64";
  }
  return "?";
}

size_t dtypeSize(DType t) {
  switch (t) {
  case DType::I8:
  case DType::U8:
    return 1;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F64:
  case DType::I64:
  case DType::U64:
    return 8;
  }
  return 1;
}

bool isFloat(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 ||
         t == DType::F64;
}

static uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x = bitsOf(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7FFFFFFFu;
  if (absx >= 0x7F800000u) // inf or nan
    return static_cast<uint16_t>(sign | 0x7C00u |
                                 (absx > 0x7F800000u ? 0x200u : 0u));
  if (absx >= 0x477FF000u) // rounds to >= 65520: overflow to inf
    return static_cast<uint16_t>(sign | 0x7C00u);
  if (absx < 0x38800000u) { // subnormal half (or zero)
    // value = absx as float; half subnormal unit = 2^-24.
    float a = floatOf(absx);
    float scaled = a * 16777216.0f; // / 2^-24
    // round to nearest even
    float r = std::nearbyint(scaled);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(r));
  }
  uint32_t exp = ((absx >> 23) - 127 + 15);
  uint32_t mant = absx & 0x7FFFFFu;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
    ++h; // may carry into exponent, which is correct
  return static_cast<uint16_t>(sign | h);
}

float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31)
    return floatOf(sign | 0x7F800000u | (mant << 13));
  return floatOf(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t floatToBf16(float f) {
  uint32_t x = bitsOf(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u); // quiet nan
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7FFFu + lsb;
  return static_cast<uint16_t>(x >> 16);
}

float bf16ToFloat(uint16_t h) {
  return floatOf(static_cast<uint32_t>(h) << 16);
}

double loadElement(const uint8_t *p, DType t, size_t i) {
  switch (t) {
  case DType::F32: {
    float v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case DType::F64: {
    double v;
    std::memcpy(&v, p + 8 * i, 8);
    return v;
  }
  case DType::F16:
  case DType::BF16: {
    uint16_t v;
    std::memcpy(&v, p + 2 * i, 2);
    return t == DType::F16 ? halfToFloat(v) : bf16ToFloat(v);
  }
  case DType::I8:
    return static_cast<int8_t>(p[i]);
  case DType::U8:
    return p[i];
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case DType::U32: {
    uint32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, p + 8 * i, 8);
    return static_cast<double>(v);
  }
  case DType::U64: {
    uint64_t v;
    std::memcpy(&v, p + 8 * i, 8);
    return static_cast<double>(v);
  }
  }
  return 0;
}

void storeElement(uint8_t *p, DType t, size_t i, double v) {
  switch (t) {
  case DType::F32: {
    float f = static_cast<float>(v);
    std::memcpy(p + 4 * i, &f, 4);
    return;
  }
  case DType::F64:
    std::memcpy(p + 8 * i, &v, 8);
    return;
  case DType::F16:
  case DType::BF16: {
    float f = static_cast<float>(v);
    uint16_t h = t == DType::F16 ? floatToHalf(f) : floatToBf16(f);
    std::memcpy(p + 2 * i, &h, 2);
    return;
  }
  case DType::I8:
    p[i] = static_cast<uint8_t>(static_cast<int8_t>(v));
    return;
  case DType::U8:
    p[i] = static_cast<uint8_t>(v);
    return;
  case DType::I32: {
    int32_t x = static_cast<int32_t>(v);
    std::memcpy(p + 4 * i, &x, 4);
    return;
  }
  case DType::U32: {
    uint32_t x = static_cast<uint32_t>(v);
    std::memcpy(p + 4 * i, &x, 4);
    return;
  }
  case DType::I64: {
    int64_t x = static_cast<int64_t>(v);
    std::memcpy(p + 8 * i, &x, 8);
    return;
  }
  case DType::U64: {
    uint64_t x = static_cast<uint64_t>(v);
    std::memcpy(p + 8 * i, &x, 8);
    return;
  }
  }
}

static uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void fillUniform(std::vector<uint8_t> &buf, DType t, size_t n, uint64_t seed,
                 double lo, double hi) {
  buf.assign(n * dtypeSize(t), 0);
  uint64_t state = seed;
  for (size_t i = 0; i < n; ++i) {
    double u = static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
    double v = lo + (hi - lo) * u;
    if (!isFloat(t))
      v = std::floor(v);
    storeElement(buf.data(), t, i, v);
  }
}

void fillConstant(std::vector<uint8_t> &buf, DType t, size_t n, double v) {
  buf.assign(n * dtypeSize(t), 0);
  if (v == 0)
    return;
  for (size_t i = 0; i < n; ++i)
    storeElement(buf.data(), t, i, v);
}

std::vector<float> referenceGemm(const uint8_t *a, DType ta, const uint8_t *b,
                                 DType tb, int64_t M, int64_t N, int64_t K,
                                 bool aT, bool bT) {
  // Convert to float once, in (M,K) and (K,N) row-major order, then i-k-j.
  std::vector<float> A(static_cast<size_t>(M * K)),
      B(static_cast<size_t>(K * N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      A[m * K + k] = static_cast<float>(
          loadElement(a, ta, static_cast<size_t>(aT ? k * M + m : m * K + k)));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      B[k * N + n] = static_cast<float>(
          loadElement(b, tb, static_cast<size_t>(bT ? n * K + k : k * N + n)));
  std::vector<float> C(static_cast<size_t>(M * N), 0.0f);
  // Rows are independent and each is summed in the same k order, so the
  // result does not depend on the number of threads (large GEMMs, e.g.
  // 4096^3, would take minutes on one core).
  auto rows = [&](int64_t m0, int64_t m1) {
    for (int64_t m = m0; m < m1; ++m) {
      float *c = &C[m * N];
      for (int64_t k = 0; k < K; ++k) {
        float av = A[m * K + k];
        const float *bp = &B[k * N];
        for (int64_t n = 0; n < N; ++n)
          c[n] += av * bp[n];
      }
    }
  };
  double flops = 2.0 * double(M) * double(N) * double(K);
  int64_t workers = 1;
  if (flops > 1e8)
    workers = std::min<int64_t>(
        M, std::max(1u, std::min(64u, std::thread::hardware_concurrency())));
  if (workers <= 1) {
    rows(0, M);
    return C;
  }
  std::vector<std::thread> pool;
  int64_t chunk = (M + workers - 1) / workers;
  for (int64_t m0 = 0; m0 < M; m0 += chunk)
    pool.emplace_back(rows, m0, std::min(M, m0 + chunk));
  for (std::thread &t : pool)
    t.join();
  return C;
}

void defaultGemmTolerance(DType c, double &atol, double &rtol) {
  atol = 1e-2;
  rtol = c == DType::BF16 ? 0.015625 : 1e-2;
}

CompareResult compareToReference(const uint8_t *out, DType t,
                                 const std::vector<float> &ref, double atol,
                                 double rtol) {
  CompareResult r;
  r.elements = ref.size();
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double o = loadElement(out, t, i), e = ref[i];
    double d = std::fabs(o - e);
    bool bad;
    if (!std::isfinite(o)) {
      ++r.nonFinite;
      bad = true;
    } else {
      num += d * d;
      r.maxAbsErr = std::max(r.maxAbsErr, d);
      if (std::fabs(e) > 0)
        r.maxRelErr = std::max(r.maxRelErr, d / std::fabs(e));
      bad = d > atol + rtol * std::fabs(e);
    }
    den += e * e;
    if (bad) {
      if (r.mismatches == 0) {
        r.firstMismatch = i;
        r.firstOut = o;
        r.firstRef = e;
      }
      ++r.mismatches;
    }
  }
  r.relFroErr = den > 0 ? std::sqrt(num) / std::sqrt(den) : std::sqrt(num);
  if (r.nonFinite)
    r.relFroErr = NAN;
  return r;
}

} // namespace rt
} // namespace argus
