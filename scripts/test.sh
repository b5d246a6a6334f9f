#!/usr/bin/env bash
# Quick start, step 2 of 2: the whole test suite.
#
#   bash scripts/test.sh
#
# Builds and runs every test in a normal build (build/), then the suites
# labelled `sanitize` again in an AddressSanitizer + UndefinedBehaviorSanitizer
# build (build-asan/; IMAGELINT_SKIP_ASAN=1 leaves it out). Tests that
# need external things (nvcc, skopeo, a loopback registry, NVIDIA packages)
# say SKIPPED when those are missing and ctest lists them as skipped (exit 77,
# SKIP_RETURN_CODE), except in CI (CI=true) or with
# IMAGELINT_REQUIRE_EXTERNAL=1, where a missing one fails the test.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${IMAGELINT_JOBS:-$(nproc)}
export IMAGELINT_NVIDIA_DEBS=${IMAGELINT_NVIDIA_DEBS:-$HOME/.cache/imagelint/nvidia-debs}
export PATH="$PATH:/usr/local/cuda/bin"

# run_suite DIR TARGET CTEST_ARGS CMAKE_ARGS...
run_suite() {
  local dir=$1 target=$2 ctest_args=$3; shift 3
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" --target "$target"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" $ctest_args ${IMAGELINT_CTEST_ARGS:-})
}

echo "== tests (Release, as scripts/setup.sh builds it)"
run_suite build all "" -DCMAKE_BUILD_TYPE=Release
if [ "${IMAGELINT_SKIP_ASAN:-0}" != 1 ]; then
  # The suites labelled `sanitize` (tests/CMakeLists.txt: the readers of
  # untrusted bytes, the rule engine, the hostile-input and fuzz corpora).
  echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite build-asan sanitizer_suite "-L sanitize" -DCMAKE_BUILD_TYPE=Debug -DIMAGELINT_SANITIZE=ON
fi
