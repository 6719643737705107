// RUN: argus-opt %s -split-input-file --argus-to-gpu -verify-diagnostics -o /dev/null

// f64 transcendental functions would need libdevice (NVPTX) or OCML
// (AMDGPU): a located error instead of an unresolved call (the conversion
// then reports the op it could not legalize).
!G = !argus.tile<128x8xf64, global>
!R = !argus.tile<128x8xf64, register, "(128,8):(1,128)">
func.func @tanh_f64(%X: memref<?x?xf64>, %Y: memref<?x?xf64>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf64> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf64> -> !G
  %r = argus.load %x0 : !G -> !R
  // expected-error @+1 {{'argus.tanh' op on 'f64' needs the libdevice library, which argus does not link; hint: argus.convert the tile to f32 first}}
  %e = argus.tanh %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// -----

!G = !argus.tile<128x8xf64, global>
!R = !argus.tile<128x8xf64, register, "(128,8):(1,128)">
func.func @log_f64_amd(%X: memref<?x?xf64>, %Y: memref<?x?xf64>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf64> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf64> -> !G
  %r = argus.load %x0 : !G -> !R
  // expected-error @+1 {{'argus.log' op on 'f64' needs the OCML library}}
  %e = argus.log %r : !R
  argus.store %e, %y0 : !R, !G
  return
}
