#!/usr/bin/env bash
# Quick start, step 2 of 2: the whole test suite.
#
#   bash scripts/test.sh
#
# Builds and runs every test twice: a normal build (build/) and an
# AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/). Tests that
# need external things (nvcc, skopeo, a loopback registry, NVIDIA packages)
# say SKIPPED when those are missing and ctest lists them as skipped (exit 77,
# SKIP_RETURN_CODE), except in CI (CI=true) or with
# IMAGELINT_REQUIRE_EXTERNAL=1, where a missing one fails the test.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${IMAGELINT_JOBS:-$(nproc)}
export IMAGELINT_NVIDIA_DEBS=${IMAGELINT_NVIDIA_DEBS:-$HOME/.cache/imagelint/nvidia-debs}
export PATH="$PATH:/usr/local/cuda/bin"

run_suite() {
  local dir=$1 ctest_args=$2; shift 2
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" $ctest_args ${IMAGELINT_CTEST_ARGS:-})
}

echo "== tests (Release, as scripts/setup.sh builds it)"
run_suite build "" -DCMAKE_BUILD_TYPE=Release
if [ "${IMAGELINT_SKIP_ASAN:-0}" != 1 ]; then
  # Every test but those labelled release-only: suites that check
  # predictions over gigabytes of images, whose code the others cover.
  echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite build-asan "-LE release-only" -DCMAKE_BUILD_TYPE=Debug -DIMAGELINT_SANITIZE=ON
fi
