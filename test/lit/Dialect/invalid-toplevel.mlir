// RUN: argus-opt %s -split-input-file -verify-diagnostics

// Argus ops belong to a kernel body: at a module's top level they have no
// kernel to mean anything in (they used to pass the verifiers and crash the
// lowering, found by the long fuzz run).

// expected-error @+1 {{'argus.commit_group' op must be inside a function (a kernel body); it is nested in 'builtin.module' (hint: move it into the func.func marked argus.kernel)}}
argus.commit_group

// -----

// expected-error @+1 {{'argus.wait_group' op must be inside a function}}
argus.wait_group 0

// -----

!Buf = !argus.buffer<2 x !argus.tile<16x16xf16, shared, "(16,16):(16,1)">>
// expected-error @+1 {{'argus.alloc' op must be inside a function}}
%s = argus.alloc "sA" : !Buf
