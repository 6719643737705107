#!/bin/sh
# GPU machine: build the standalone runtime (argus-run) into /tmp/argus-rt,
# for the run scripts of bench/measure. Carry runtime/third_party.
cd "$(dirname "$0")/../.."
gen=Ninja; command -v ninja >/dev/null || gen="Unix Makefiles"
cmake -S runtime -B /tmp/argus-rt -G "$gen" -DCMAKE_BUILD_TYPE=Release >/tmp/cmake.log 2>&1 &&
  cmake --build /tmp/argus-rt -j "$(nproc)" >>/tmp/cmake.log 2>&1 ||
  { tail -30 /tmp/cmake.log; exit 1; }
