//===- DeviceReference.cpp - the GEMM check's reference on the device -----===//

#include "argus/runtime/DeviceReference.h"

#include "DeviceResources.h"

namespace argus {
namespace rt {

namespace {

/// The reference kernel (PTX for sm_52 and later, JIT-compiled by the
/// driver for the device at hand).
const char *const kReferenceGemmPtx = R"PTX(
.version 6.0
.target sm_52
.address_size 64

// C[m][n] = sum_k A(m, k) * B(k, n), f32 accumulation in k order; A(m, k)
// at A + (m * a_m + k * a_k) elements, B(k, n) at B + (k * b_k + n * b_n);
// element types 0 = f32, 1 = f16, 2 = bf16. One thread per element of C.
.visible .entry argus_reference_gemm(
    .param .u64 p_a, .param .u64 p_b, .param .u64 p_c,
    .param .u64 p_m, .param .u64 p_n, .param .u64 p_k,
    .param .u64 p_am, .param .u64 p_ak, .param .u64 p_bk, .param .u64 p_bn,
    .param .u32 p_ta, .param .u32 p_tb)
{
  .reg .pred %p<12>;
  .reg .b16 %h<3>;
  .reg .b32 %r<12>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<24>;

  ld.param.u64 %rd1, [p_a];
  ld.param.u64 %rd2, [p_b];
  ld.param.u64 %rd3, [p_c];
  ld.param.u64 %rd4, [p_m];
  ld.param.u64 %rd5, [p_n];
  ld.param.u64 %rd6, [p_k];
  ld.param.u64 %rd7, [p_am];
  ld.param.u64 %rd8, [p_ak];
  ld.param.u64 %rd9, [p_bk];
  ld.param.u64 %rd10, [p_bn];
  ld.param.u32 %r1, [p_ta];
  ld.param.u32 %r2, [p_tb];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;

  // n along x, m along y
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mul.wide.u32 %rd11, %r3, %r4;
  cvt.u64.u32 %rd12, %r5;
  add.u64 %rd11, %rd11, %rd12;
  mov.u32 %r3, %ctaid.y;
  mov.u32 %r4, %ntid.y;
  mov.u32 %r5, %tid.y;
  mul.wide.u32 %rd13, %r3, %r4;
  cvt.u64.u32 %rd12, %r5;
  add.u64 %rd13, %rd13, %rd12;
  setp.ge.u64 %p1, %rd11, %rd5;
  setp.ge.u64 %p2, %rd13, %rd4;
  or.pred %p1, %p1, %p2;
  @%p1 bra DONE;

  // element sizes and the byte addresses of A(m, 0), B(0, n) and the steps
  setp.eq.u32 %p3, %r1, 0;
  setp.eq.u32 %p4, %r1, 1;
  setp.eq.u32 %p5, %r1, 2;
  setp.eq.u32 %p6, %r2, 0;
  setp.eq.u32 %p7, %r2, 1;
  setp.eq.u32 %p8, %r2, 2;
  selp.u64 %rd14, 4, 2, %p3;
  selp.u64 %rd15, 4, 2, %p6;
  mul.lo.u64 %rd16, %rd13, %rd7;
  mul.lo.u64 %rd16, %rd16, %rd14;
  add.u64 %rd16, %rd1, %rd16;
  mul.lo.u64 %rd17, %rd8, %rd14;
  mul.lo.u64 %rd18, %rd11, %rd10;
  mul.lo.u64 %rd18, %rd18, %rd15;
  add.u64 %rd18, %rd2, %rd18;
  mul.lo.u64 %rd19, %rd9, %rd15;

  mov.f32 %f1, 0f00000000;
  mov.u64 %rd20, 0;
  setp.eq.u64 %p9, %rd6, 0;
  @%p9 bra STORE;
LOOP:
  @%p3 ld.global.f32 %f2, [%rd16];
  @%p4 ld.global.u16 %h1, [%rd16];
  @%p4 cvt.f32.f16 %f2, %h1;
  @%p5 ld.global.u16 %h1, [%rd16];
  @%p5 cvt.u32.u16 %r6, %h1;
  @%p5 shl.b32 %r6, %r6, 16;
  @%p5 mov.b32 %f2, %r6;
  @%p6 ld.global.f32 %f3, [%rd18];
  @%p7 ld.global.u16 %h2, [%rd18];
  @%p7 cvt.f32.f16 %f3, %h2;
  @%p8 ld.global.u16 %h2, [%rd18];
  @%p8 cvt.u32.u16 %r7, %h2;
  @%p8 shl.b32 %r7, %r7, 16;
  @%p8 mov.b32 %f3, %r7;
  fma.rn.f32 %f1, %f2, %f3, %f1;
  add.u64 %rd16, %rd16, %rd17;
  add.u64 %rd18, %rd18, %rd19;
  add.u64 %rd20, %rd20, 1;
  setp.lt.u64 %p10, %rd20, %rd6;
  @%p10 bra LOOP;
STORE:
  mul.lo.u64 %rd21, %rd13, %rd5;
  add.u64 %rd21, %rd21, %rd11;
  shl.b64 %rd21, %rd21, 2;
  add.u64 %rd21, %rd3, %rd21;
  st.global.f32 [%rd21], %f1;
DONE:
  ret;
}
)PTX";

/// Element type codes of the kernel; -1 when it cannot read the type.
int typeCode(DType t) {
  switch (t) {
  case DType::F32:
    return 0;
  case DType::F16:
    return 1;
  case DType::BF16:
    return 2;
  default:
    return -1;
  }
}

} // namespace

std::optional<std::vector<float>>
deviceReferenceGemm(Device &dev, const uint8_t *a, DType ta, const uint8_t *b,
                    DType tb, int64_t M, int64_t N, int64_t K, bool aT, bool bT,
                    std::string &why) {
  if (dev.backend() != "cuda") {
    why = "the device reference kernel is PTX; the " + dev.backend() +
          " backend checks on the host";
    return std::nullopt;
  }
  int codeA = typeCode(ta), codeB = typeCode(tb);
  if (codeA < 0 || codeB < 0) {
    why = std::string("the device reference reads f32, f16 and bf16 inputs, "
                      "not ") +
          dtypeName(codeA < 0 ? ta : tb);
    return std::nullopt;
  }
  constexpr unsigned kTile = 16;
  uint64_t gx = (uint64_t(N) + kTile - 1) / kTile,
           gy = (uint64_t(M) + kTile - 1) / kTile;
  if (gx > uint64_t(dev.limits().maxGridDim[0]) ||
      gy > uint64_t(dev.limits().maxGridDim[1])) {
    why = "C is too large for the device reference's grid";
    return std::nullopt;
  }
  DeviceResources rs(dev);
  std::string ptx(kReferenceGemmPtx);
  rs.module = dev.loadModule(std::vector<char>(ptx.begin(), ptx.end()),
                             ModuleFormat::PTX);
  FunctionHandle fn = dev.getFunction(rs.module, "argus_reference_gemm");
  auto upload = [&](const uint8_t *data, size_t bytes) {
    DevicePtr p = dev.alloc(bytes);
    rs.buffers.push_back(p);
    if (data)
      dev.copyToDevice(p, data, bytes);
    return p;
  };
  uint64_t pa = upload(a, size_t(M) * K * dtypeSize(ta));
  uint64_t pb = upload(b, size_t(K) * N * dtypeSize(tb));
  uint64_t pc = upload(nullptr, size_t(M) * N * sizeof(float));
  uint64_t m = M, n = N, k = K;
  // Element strides of A(m, k) and B(k, n) in their stored layouts.
  uint64_t am = aT ? 1 : K, ak = aT ? M : 1;
  uint64_t bk = bT ? 1 : N, bn = bT ? K : 1;
  uint32_t ca = codeA, cb = codeB;
  std::vector<void *> args = {&pa, &pb, &pc, &m,  &n,  &k,
                              &am, &ak, &bk, &bn, &ca, &cb};
  LaunchConfig cfg;
  cfg.grid[0] = unsigned(gx);
  cfg.grid[1] = unsigned(gy);
  cfg.block[0] = cfg.block[1] = kTile;
  dev.launch(fn, cfg, args);
  dev.synchronize();
  std::vector<float> c(size_t(M) * N);
  dev.copyToHost(c.data(), pc, c.size() * sizeof(float));
  return c;
}

} // namespace rt
} // namespace argus
