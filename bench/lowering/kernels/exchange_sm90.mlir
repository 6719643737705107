// A device test of the exchange lowerings (reduce, broadcast,
// convert_layout) on sm_90a, since the gfx942 kernels that use them cannot
// run here. One 128-thread block per 64x64 f32 tile X (rows of a [R, 64]
// matrix), held in the mma.m16n8k16 C layout (warps 2x2, so a row's 64
// values are spread over two warps):
//   m = rowmax(X); d = X - m; s = rowsum(d); Y = d / s
// Y is converted to the A-operand layout (f32) and, narrowed, to f16 (the
// convert_layout + convert pair that the lowering narrows before the
// exchange), and stored from there; m and s are stored from a row layout.
//   exchange_sm90(X: [R,64] f32, Y: [R,64] f32, Yh: [R,64] f16, M: [R], S: [R])

#FragA = #argus.frag<"mma.m16n8k16.f32.f16", a, warps = [2, 2]>
#FragC = #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [2, 2]>
!G = !argus.tile<64x64xf32, global>
!Gh = !argus.tile<64x64xf16, global>
!GR = !argus.tile<64xf32, global>
!RC = !argus.tile<64x64xf32, register, #FragC>
!RA = !argus.tile<64x64xf32, register, #FragA>
!RAh = !argus.tile<64x64xf16, register, #FragA>
!RCh = !argus.tile<64x64xf16, register, #FragC>
!Rows = !argus.tile<64xf32, register, "((32,4),16):((0,16),1)">

func.func @exchange_sm90(%X: memref<?x64xf32>, %Y: memref<?x64xf32>,
                         %Yh: memref<?x64xf16>, %M: memref<?xf32>,
                         %S: memref<?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %bx = gpu.block_id x
  %r0 = arith.muli %bx, %c64 : index
  %gx = argus.view "X" %X[%r0, %c0] : memref<?x64xf32> -> !G
  %x = argus.load %gx : !G -> !RC
  %m = argus.reduce max %x dim 1 : !RC -> !Rows
  %mb = argus.broadcast %m dim 1 : !Rows -> !RC
  %d = argus.sub %x, %mb : !RC
  %s = argus.reduce sum %d dim 1 : !RC -> !Rows
  %sb = argus.broadcast %s dim 1 : !Rows -> !RC
  %y = argus.div %d, %sb : !RC
  %ya = argus.convert_layout %y : !RC -> !RA
  %gy = argus.view "Y" %Y[%r0, %c0] : memref<?x64xf32> -> !G
  argus.store %ya, %gy : !RA, !G
  %yn = argus.convert_layout %y : !RC -> !RA
  %yh = argus.convert %yn : !RA -> !RAh
  %gyh = argus.view "Yh" %Yh[%r0, %c0] : memref<?x64xf16> -> !Gh
  argus.store %yh, %gyh : !RAh, !Gh
  %gm = argus.view "M" %M[%r0] : memref<?xf32> -> !GR
  argus.store %m, %gm : !Rows, !GR
  %gs = argus.view "S" %S[%r0] : memref<?xf32> -> !GR
  argus.store %s, %gs : !Rows, !GR
  return
}
