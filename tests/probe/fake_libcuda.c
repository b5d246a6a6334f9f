/* A libcuda.so.1 test double for the probe's tests: no GPU needed. Built
 * twice (tests/probe/CMakeLists.txt): FAKE_CUDA_HANG makes cuInit sleep far
 * past any watchdog; otherwise cuInit returns FAKE_CUDA_INIT_CODE and
 * cuDriverGetVersion FAKE_CUDA_VERSION, as a stale user-mode driver does
 * (803, "system has unsupported display driver / cuda driver combination"). */
#include <unistd.h>

int cuDriverGetVersion(int* version) {
  *version = FAKE_CUDA_VERSION;
  return 0;
}

int cuInit(unsigned flags) {
#ifdef FAKE_CUDA_HANG
  for (;;) sleep(600);
#endif
  return FAKE_CUDA_INIT_CODE;
}

int cuDeviceGetCount(int* count) {
  *count = 0;
  return FAKE_CUDA_INIT_CODE == 0 ? 0 : 3; /* CUDA_ERROR_NOT_INITIALIZED after a failed cuInit */
}

int cuGetErrorName(int code, const char** name) {
  *name = code == 803 ? "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" : code == 3 ? "CUDA_ERROR_NOT_INITIALIZED" : "CUDA_SUCCESS";
  return 0;
}
