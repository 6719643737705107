#!/usr/bin/env bash
# Build Argus with AddressSanitizer and UndefinedBehaviorSanitizer
# (-DARGUS_SANITIZE=ON) into ${ARGUS_SANITIZE_BUILD:-build-asan}, then run the
# Catch2 unit tests, the lit tests and a fuzz sample of argus-opt's passes
# under them. Any sanitizer report fails the run. Not part of every CI run
# (a full second build); the Python extension is built but not loaded (it
# would need libasan preloaded into the interpreter).
#
#   scripts/sanitize.sh [fuzz-count]      (default 300 mutants)
#
# The fuzz sample's CPU limit per mutant is 60 s (ARGUS_SANITIZE_FUZZ_TIMEOUT),
# not the 20 s of a release build: the sanitizers slow Z3 and MLIR 3-5x.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ARGUS_SANITIZE_BUILD:-$root/build-asan}
count=${1:-300}
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DARGUS_SANITIZE=ON \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DPython3_EXECUTABLE=/usr/bin/python3 || exit 1
fi
ninja -C "$build" -j "${ARGUS_JOBS:-$(nproc)}" || exit 1
# Leaks are not errors here (MLIR's global registries live until exit);
# every memory error and undefined behaviour is, and aborts the process.
# LLVM's headers poison allocator memory in sanitized code that Debian's
# unsanitized libMLIR never unpoisons: manual poisoning (and container
# annotations) would report false use-after-poison in MLIR's own code.
export ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0:detect_container_overflow=0:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
echo "=== unit tests (ctest) under ASan+UBSan"
(cd "$build" && ctest --output-on-failure -j "$(nproc)") || status=1
echo "=== lit tests under ASan+UBSan"
/usr/lib/llvm-22/bin/lit -s "$build/test/lit" || status=1
seed=${ARGUS_FUZZ_SEED:-$RANDOM}
echo "=== fuzz sample ($count mutants through the passes, seed $seed) under ASan+UBSan"
PATH="$build/bin:$PATH" /usr/bin/python3 "$root/test/fuzz/mutate_argus_opt.py" \
  --tool "$build/bin/argus-opt" --count "$count" --seed "$seed" \
  --jobs "$(nproc)" --max-edits 1 --crash-dir "$build/fuzz-crashes" \
  --timeout "${ARGUS_SANITIZE_FUZZ_TIMEOUT:-60}" \
  --pass=--argus-verify-tags --pass=--argus-insert-probes --pass=--argus-to-gpu \
  --pass=--argus-to-nvptx --pass=--argus-to-gfx942 \
  "$root"/examples/*.mlir || status=1
exit $status
