//===- HostDataTest.cpp - dtype conversion, fills, GEMM reference ---------===//
#include "argus/runtime/HostData.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace argus::rt;

TEST_CASE("half and bf16 conversions", "[hostdata]") {
  CHECK(floatToHalf(1.0f) == 0x3C00);
  CHECK(floatToHalf(-2.0f) == 0xC000);
  CHECK(floatToHalf(65504.0f) == 0x7BFF);
  CHECK(floatToHalf(1e6f) == 0x7C00);
  CHECK(floatToHalf(5.960464477539063e-08f) == 0x0001); // smallest subnormal
  CHECK(halfToFloat(0x0001) == Approx(5.960464477539063e-08));
  CHECK(floatToHalf(1.0f + 1.0f / 2048) == 0x3C00); // tie to even
  CHECK(floatToHalf(1.0f + 3.0f / 2048) == 0x3C02);
  CHECK(std::isnan(halfToFloat(floatToHalf(NAN))));
  for (uint32_t h = 0; h < 0x7C00; ++h) // every finite positive half
    REQUIRE(floatToHalf(halfToFloat(static_cast<uint16_t>(h))) == h);
  CHECK(floatToBf16(1.0f) == 0x3F80);
  CHECK(bf16ToFloat(0x4049) == Approx(3.140625));
  CHECK(floatToBf16(1.00390625f) == 0x3F80); // tie to even
}

TEST_CASE("deterministic uniform fill", "[hostdata]") {
  std::vector<uint8_t> a, b, c;
  fillUniform(a, DType::F16, 1000, 42, -1, 1);
  fillUniform(b, DType::F16, 1000, 42, -1, 1);
  fillUniform(c, DType::F16, 1000, 43, -1, 1);
  CHECK(a == b);
  CHECK(a != c);
  double lo = 1, hi = -1, sum = 0;
  for (size_t i = 0; i < 1000; ++i) {
    double v = loadElement(a.data(), DType::F16, i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  CHECK(lo >= -1);
  CHECK(hi <= 1);
  CHECK(std::fabs(sum / 1000) < 0.1);
  std::vector<uint8_t> ones;
  fillConstant(ones, DType::BF16, 4, 1.0);
  CHECK(loadElement(ones.data(), DType::BF16, 3) == 1.0);
}

TEST_CASE("GEMM reference and comparison", "[hostdata]") {
  // A = [[1,2],[3,4]] (2x2), B = [[5,6,7],[8,9,10]] (2x3)
  std::vector<uint8_t> A(4 * 4), B(6 * 4), Bt(6 * 4);
  float a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8, 9, 10};
  for (int i = 0; i < 4; ++i)
    storeElement(A.data(), DType::F32, i, a[i]);
  for (int i = 0; i < 6; ++i)
    storeElement(B.data(), DType::F32, i, b[i]);
  for (int k = 0; k < 2; ++k)
    for (int n = 0; n < 3; ++n)
      storeElement(Bt.data(), DType::F32, n * 2 + k, b[k * 3 + n]);
  auto C = referenceGemm(A.data(), DType::F32, B.data(), DType::F32, 2, 3, 2,
                         false, false);
  std::vector<float> expect = {21, 24, 27, 47, 54, 61};
  CHECK(C == expect);
  CHECK(referenceGemm(A.data(), DType::F32, Bt.data(), DType::F32, 2, 3, 2,
                      false, true) == expect);
  std::vector<uint8_t> out(6 * 4);
  for (int i = 0; i < 6; ++i)
    storeElement(out.data(), DType::F32, i, expect[i]);
  CompareResult ok = compareToReference(out.data(), DType::F32, C, 0, 0);
  CHECK(ok.passed());
  storeElement(out.data(), DType::F32, 4, 55);
  CompareResult bad = compareToReference(out.data(), DType::F32, C, 0.5, 0);
  CHECK_FALSE(bad.passed());
  CHECK(bad.mismatches == 1);
  CHECK(bad.firstMismatch == 4);
  CHECK(bad.maxAbsErr == Approx(1));
  CHECK(bad.maxRelErr == Approx(1.0 / 54));
  storeElement(out.data(), DType::F32, 4, NAN);
  CompareResult nan = compareToReference(out.data(), DType::F32, C, 100, 100);
  CHECK_FALSE(nan.passed());
  CHECK(nan.nonFinite == 1);
}

TEST_CASE("referenceGemm splits large products over threads exactly",
          "[hostdata]") {
  // 2*M*N*K > 1e8: the threaded path. Every row must equal the serial i-k-j
  // sum bit for bit (same k order per row).
  const int64_t M = 67, N = 512, K = 1536;
  std::vector<uint8_t> a(M * K * 4), b(K * N * 4);
  for (int64_t i = 0; i < M * K; ++i)
    storeElement(a.data(), DType::F32, i, double((i * 37) % 17) - 8);
  for (int64_t i = 0; i < K * N; ++i)
    storeElement(b.data(), DType::F32, i, double((i * 11) % 13) * 0.25 - 1);
  auto C = referenceGemm(a.data(), DType::F32, b.data(), DType::F32, M, N, K,
                         false, false);
  REQUIRE(C.size() == size_t(M * N));
  for (int64_t m : {int64_t(0), int64_t(33), M - 1}) {
    std::vector<float> row(N, 0.0f);
    for (int64_t k = 0; k < K; ++k) {
      float av = float(loadElement(a.data(), DType::F32, m * K + k));
      for (int64_t n = 0; n < N; ++n)
        row[n] += av * float(loadElement(b.data(), DType::F32, k * N + n));
    }
    for (int64_t n = 0; n < N; ++n)
      CHECK(C[m * N + n] == row[n]);
  }
}

TEST_CASE("bf16 GEMM outputs pass the bf16 default tolerance",
          "[hostdata][hopper]") {
  const int64_t M = 16, N = 8, K = 256;
  std::vector<uint8_t> a, b;
  fillUniform(a, DType::BF16, M * K, 11, -1, 1);
  fillUniform(b, DType::BF16, N * K, 12, -1, 1);
  // B stored N x K (col-major K x N).
  std::vector<float> ref = referenceGemm(a.data(), DType::BF16, b.data(),
                                         DType::BF16, M, N, K, false, true);
  std::vector<uint8_t> out(M * N * 2);
  for (size_t i = 0; i < ref.size(); ++i)
    storeElement(out.data(), DType::BF16, i, ref[i]); // round to bf16
  double atol, rtol;
  defaultGemmTolerance(DType::BF16, atol, rtol);
  CHECK(rtol == 0.015625);
  CHECK(atol == 1e-2);
  CompareResult ok =
      compareToReference(out.data(), DType::BF16, ref, atol, rtol);
  CHECK(ok.passed());
  CHECK(ok.maxAbsErr > 0); // the rounding is visible
  CHECK(ok.maxRelErr <= 1.0 / 256);
  // One element off by 5%: caught.
  storeElement(out.data(), DType::BF16, 3, ref[3] * 1.05 + 0.05);
  CompareResult bad =
      compareToReference(out.data(), DType::BF16, ref, atol, rtol);
  CHECK(bad.mismatches == 1);
  CHECK(bad.firstMismatch == 3);
  double fa, fr;
  defaultGemmTolerance(DType::F32, fa, fr);
  CHECK(fr == 1e-2);
}
