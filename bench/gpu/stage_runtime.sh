#!/usr/bin/env bash
# stage_runtime.sh - run HERE (the dev machine) before carrying the runtime
# to the GPU machine: copies the nlohmann/json headers, which the GPU
# machine has no package for, into runtime/third_party/nlohmann/ (ignored by
# git, so the device tool only sends it when asked: carry
# "runtime/third_party"). runtime/CMakeLists.txt finds them there.
#
#   here:   bash bench/gpu/stage_runtime.sh
#   there:  bash bench/gpu/runtime_smoke.sh   (carry runtime/third_party)
#
# Debian's nlohmann-json3-dev splits json.hpp into detail/ headers, so the
# whole include/nlohmann tree is copied, not json.hpp alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
src=${ARGUS_NLOHMANN_SRC:-/usr/include/nlohmann}
dst=$root/runtime/third_party/nlohmann
if [[ ! -f $src/json.hpp ]]; then
  echo "stage_runtime: no $src/json.hpp (apt-get install nlohmann-json3-dev," \
    "or set ARGUS_NLOHMANN_SRC to a directory holding json.hpp)" >&2
  exit 1
fi
rm -rf "$dst"
mkdir -p "$(dirname "$dst")"
cp -r "$src" "$dst"
echo "stage_runtime: $dst ($(find "$dst" -type f | wc -l) files); carry runtime/third_party"
