// Every output stream is written through a checked write (issue 54): a dump
// to a full disk (dump=/dev/full) ended argus-opt, and the Python
// interpreter in process, with "LLVM ERROR: IO failure on output stream".
// Each is a located error and exit status 1 now: the binary dump, the line
// table of lineinfo-regions=, argus-opt's -o and what passes print on the
// standard output.

// RUN: not argus-opt %s --argus-to-nvptx="dump=/dev/full" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: error: argus-dump-binary: error writing '/dev/full': No space left on device; hint: check the disk has space and dump= names a writable file
// DUMP-NOT: LLVM ERROR

// RUN: not argus-opt %s --argus-to-gfx942="dump=/dev/full" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP

// RUN: not argus-opt %s --argus-to-nvptx="lineinfo-regions=/dev/full" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINES
// LINES: error: argus-print-line-regions: error writing '/dev/full': No space left on device
// LINES-NOT: LLVM ERROR

// RUN: not argus-opt %s -o /dev/full 2>&1 | FileCheck %s --check-prefix=OUT
// OUT: argus-opt: error writing '/dev/full': No space left on device
// OUT-NOT: LLVM ERROR

// RUN: not argus-opt %s --argus-print-structure -o /dev/null > /dev/full 2>%t.err
// RUN: FileCheck %s --check-prefix=STDOUT < %t.err
// STDOUT: argus-opt: error writing the standard output: No space left on device
// STDOUT-NOT: LLVM ERROR

// RUN: not argus-opt %s > /dev/full 2>%t.err2
// RUN: FileCheck %s --check-prefix=STDOUT < %t.err2

!R = !argus.tile<128x4xf32, register, "(128,4):(1,128)">
func.func @k(%X: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !argus.tile<128x4xf32, global>
  argus.region.begin "body" id 1
  %r = argus.load %x : !argus.tile<128x4xf32, global> -> !R
  %e = argus.exp %r : !R
  argus.store %e, %x : !R, !argus.tile<128x4xf32, global>
  argus.region.end id 1
  return
}
