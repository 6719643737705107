#!/usr/bin/env bash
# The README's second command (and CI's): install, build everything, run the
# Catch2 unit tests (CTest), the lit tests and pytest, then print one summary
# line "N passed, N failed, N skipped".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ARGUS_BUILD_DIR:-$root/build}
"$root/scripts/deps.sh" || exit 1
"$root/scripts/build.sh" || exit 1
reports=$build/test-reports
rm -rf "$reports" && mkdir -p "$reports"

status=0
echo "=== Catch2 unit tests (ctest)"
(cd "$build" && ctest --output-on-failure -j "$(nproc)" \
   --output-junit "$reports/ctest.xml") || status=1

echo "=== lit tests"
/usr/lib/llvm-22/bin/lit -sv --xunit-xml-output="$reports/lit.xml" \
  "$build/test/lit" || status=1

if compgen -G "$root/test/python/test_*.py" >/dev/null; then
  echo "=== pytest"
  PYTHONPATH="$build/python:$root/python" /usr/bin/python3 -m pytest -q \
    --junitxml="$reports/pytest.xml" "$root/test/python" \
    "$root/bench/hopper/test_gemm_bench.py" || status=1
fi

/usr/bin/python3 "$root/scripts/summarize_tests.py" "$reports"/*.xml || status=1
exit $status
