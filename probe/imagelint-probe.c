/* imagelint-probe: what CUDA really returns inside an image (docs/probe.md).
 *
 * Loads libcuda.so.1 by name (as the CUDA runtime does) and each libcudart
 * given with --runtime by path, calls cuInit, cuDriverGetVersion,
 * cuDeviceGetCount and, through each runtime, cudaRuntimeGetVersion,
 * cudaDriverGetVersion and cudaGetDeviceCount; loads each --fatbin file with
 * cuModuleLoadData; reads /proc/self/maps for the libcuda, libcudart and
 * libnvidia-* files that were mapped. No CUDA header is needed: every entry
 * point is looked up with dlsym and called through its documented C type.
 *
 * All CUDA work runs in a child process; the parent forwards its lines
 * (bounded) and kills it when it has not finished within --timeout seconds,
 * naming the call it was in. Output: one record, tab-separated lines:
 *   probe 1 | mode lazy|eager | call API CODE NAME DETAIL | loaded PATH |
 *   hung API SECONDS | end STATUS
 * Exit: 0 the record is complete, 4 a call hung and was killed, 2 bad usage.
 *
 * It must run inside any glibc image through that image's own loader, so it
 * binds only symbol versions every x86_64 (GLIBC_2.2.5) and aarch64
 * (GLIBC_2.17) glibc has, and brings its own _start (newer crt1.o files ask
 * for __libc_start_main@GLIBC_2.34). tests/probe checks the versions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(IMAGELINT_PROBE_OLD_GLIBC) && defined(__x86_64__)
#define PROBE_GLIBC "GLIBC_2.2.5"
#elif defined(IMAGELINT_PROBE_OLD_GLIBC) && defined(__aarch64__)
#define PROBE_GLIBC "GLIBC_2.17"
#endif
#ifdef PROBE_GLIBC
#define PROBE_SYMVER(name) __asm__(".symver " #name "," #name "@" PROBE_GLIBC)
PROBE_SYMVER(dlopen);
PROBE_SYMVER(dlsym);
PROBE_SYMVER(dlerror);
PROBE_SYMVER(dlclose);
PROBE_SYMVER(__libc_start_main);
PROBE_SYMVER(memcpy);
int __libc_start_main(int (*)(int, char**, char**), int, char**, void (*)(void), void (*)(void), void (*)(void),
                      void*);
#if defined(__x86_64__)
/* glibc's sysdeps/x86_64/start.S, without init/fini (the probe has no constructors). */
__asm__(".text\n.globl _start\n.type _start,@function\n_start:\n"
        "  xor %ebp,%ebp\n  mov %rdx,%r9\n  pop %rsi\n  mov %rsp,%rdx\n  and $-16,%rsp\n"
        "  push %rax\n  push %rsp\n  xor %r8d,%r8d\n  xor %ecx,%ecx\n"
        "  lea main(%rip),%rdi\n  call *__libc_start_main@GOTPCREL(%rip)\n  hlt\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl _start\n.type _start,%function\n_start:\n"
        "  mov x29,#0\n  mov x30,#0\n  mov x5,x0\n  ldr x1,[sp]\n  add x2,sp,#8\n  mov x6,sp\n"
        "  mov x3,#0\n  mov x4,#0\n  adrp x0,main\n  add x0,x0,:lo12:main\n"
        "  bl __libc_start_main\n  brk #0\n");
#endif
#endif

enum { kMaxRuntimes = 16, kMaxFatbins = 64, kMaxRecord = 64 * 1024, kMaxFatbinBytes = 256 << 20 };

typedef int (*IntFn)(void);
typedef int (*IntPtrFn)(int*);
typedef int (*UIntFn)(unsigned);
typedef int (*NameFn)(int, const char**);
typedef int (*DeviceGetFn)(int*, int);
typedef int (*DeviceNameFn)(char*, int, int);
typedef int (*AttributeFn)(int*, int, int);
typedef int (*RetainFn)(void**, int);
typedef int (*SetCurrentFn)(void*);
typedef int (*ModuleLoadFn)(void**, const void*);
typedef int (*ModuleUnloadFn)(void*);
typedef const char* (*RtNameFn)(int);

/* One output line: fields joined by tabs, tabs and line breaks inside a field
 * replaced by spaces, the whole line cut at 4 KiB. write(2), unbuffered, so
 * that the parent sees every line written before a hang. */
static void Line(int fields, ...) {
  char line[4096];
  size_t used = 0;
  va_list args;
  va_start(args, fields);
  for (int i = 0; i < fields; ++i) {
    const char* field = va_arg(args, const char*);
    if (field == NULL) field = "-";
    if (i > 0 && used < sizeof line - 2) line[used++] = '\t';
    for (; *field && used < sizeof line - 2; ++field)
      line[used++] = (*field == '\t' || *field == '\n' || *field == '\r') ? ' ' : *field;
  }
  va_end(args);
  line[used++] = '\n';
  const char* p = line;
  while (used > 0) {
    ssize_t n = write(STDOUT_FILENO, p, used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    used -= (size_t)n;
  }
}

static void Number(char* out, size_t size, long value) { snprintf(out, size, "%ld", value); }

static void Begin(const char* api) { Line(2, "begin", api); }

static const char* DriverName(void* cuda, int code) {
  const char* name = NULL;
  NameFn fn = cuda ? (NameFn)dlsym(cuda, "cuGetErrorName") : NULL;
  if (fn == NULL || fn(code, &name) != 0 || name == NULL) return code == 0 ? "CUDA_SUCCESS" : "-";
  return name;
}

static void Call(const char* api, int code, const char* name, const char* detail) {
  char text[32];
  Number(text, sizeof text, code);
  Line(5, "call", api, text, name, detail);
}

/* The driver API: libcuda.so.1 found by the loader's search, as libcudart
 * finds it. */
static void ProbeDriver(char** fatbins, int fatbin_count) {
  char detail[512];
  Begin("drv.dlopen");
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (cuda == NULL) {
    const char* why = dlerror();
    Call("drv.dlopen", -1, "dlopen_failed", why ? why : "libcuda.so.1 not found");
    return;
  }
  Call("drv.dlopen", 0, "ok", "libcuda.so.1");
  UIntFn init = (UIntFn)dlsym(cuda, "cuInit");
  IntPtrFn driver_version = (IntPtrFn)dlsym(cuda, "cuDriverGetVersion");
  IntPtrFn device_count = (IntPtrFn)dlsym(cuda, "cuDeviceGetCount");
  if (init == NULL || driver_version == NULL || device_count == NULL) {
    Call("drv.dlsym", -1, "dlsym_failed", "cuInit, cuDriverGetVersion or cuDeviceGetCount missing");
    return;
  }
  int version = 0;
  Begin("drv.cuDriverGetVersion");
  int code = driver_version(&version);
  snprintf(detail, sizeof detail, "version=%d", version);
  Call("drv.cuDriverGetVersion", code, DriverName(cuda, code), detail);
  Begin("drv.cuInit");
  int init_code = init(0);
  Call("drv.cuInit", init_code, DriverName(cuda, init_code), NULL);
  int count = 0;
  Begin("drv.cuDeviceGetCount");
  code = device_count(&count);
  snprintf(detail, sizeof detail, "count=%d", count);
  Call("drv.cuDeviceGetCount", code, DriverName(cuda, code), detail);
  if (init_code != 0 || code != 0 || count < 1) return;

  DeviceGetFn device_get = (DeviceGetFn)dlsym(cuda, "cuDeviceGet");
  DeviceNameFn device_name = (DeviceNameFn)dlsym(cuda, "cuDeviceGetName");
  AttributeFn attribute = (AttributeFn)dlsym(cuda, "cuDeviceGetAttribute");
  int device = 0;
  if (device_get == NULL || device_get(&device, 0) != 0) return;
  char name[256] = "-";
  if (device_name != NULL && device_name(name, (int)sizeof name - 1, device) != 0) strcpy(name, "-");
  name[sizeof name - 1] = 0;
  int major = -1, minor = -1;
  if (attribute != NULL) {  /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR = 75/76 */
    attribute(&major, 75, device);
    attribute(&minor, 76, device);
  }
  snprintf(detail, sizeof detail, "cc=%d.%d name=%s", major, minor, name);
  Call("drv.device", 0, "ok", detail);
  if (fatbin_count == 0) return;

  RetainFn retain = (RetainFn)dlsym(cuda, "cuDevicePrimaryCtxRetain");
  SetCurrentFn set_current = (SetCurrentFn)dlsym(cuda, "cuCtxSetCurrent");
  ModuleLoadFn load = (ModuleLoadFn)dlsym(cuda, "cuModuleLoadData");
  ModuleUnloadFn unload = (ModuleUnloadFn)dlsym(cuda, "cuModuleUnload");
  void* context = NULL;
  if (retain == NULL || set_current == NULL || load == NULL) return;
  Begin("drv.cuDevicePrimaryCtxRetain");
  code = retain(&context, device);
  Call("drv.cuDevicePrimaryCtxRetain", code, DriverName(cuda, code), NULL);
  if (code != 0 || set_current(context) != 0) return;
  for (int i = 0; i < fatbin_count; ++i) {
    int fd = open(fatbins[i], O_RDONLY | O_CLOEXEC);
    off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
    if (fd < 0 || size <= 0 || size > kMaxFatbinBytes || lseek(fd, 0, SEEK_SET) != 0) {
      Call("drv.cuModuleLoadData", -1, "unreadable", fatbins[i]);
      if (fd >= 0) close(fd);
      continue;
    }
    char* bytes = malloc((size_t)size + 16);
    size_t got = 0;
    while (bytes != NULL && got < (size_t)size) {
      ssize_t n = read(fd, bytes + got, (size_t)size - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += (size_t)n;
    }
    close(fd);
    if (bytes == NULL || got != (size_t)size) {
      Call("drv.cuModuleLoadData", -1, "unreadable", fatbins[i]);
      free(bytes);
      continue;
    }
    memset(bytes + got, 0, 16);
    void* module = NULL;
    Begin("drv.cuModuleLoadData");
    code = load(&module, bytes);
    Call("drv.cuModuleLoadData", code, DriverName(cuda, code), fatbins[i]);
    if (code == 0 && unload != NULL) unload(module);
    free(bytes);
  }
}

/* One CUDA runtime, by path: what a program linked to it meets first. */
static void ProbeRuntime(const char* path) {
  char detail[1024];
  Begin("rt.dlopen");
  void* runtime = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (runtime == NULL) {
    const char* why = dlerror();
    Call("rt.dlopen", -1, "dlopen_failed", why ? why : path);
    return;
  }
  Call("rt.dlopen", 0, "ok", path);
  RtNameFn error_name = (RtNameFn)dlsym(runtime, "cudaGetErrorName");
  static const char* const kCalls[] = {"cudaRuntimeGetVersion", "cudaDriverGetVersion", "cudaGetDeviceCount"};
  for (int i = 0; i < 3; ++i) {
    IntPtrFn fn = (IntPtrFn)dlsym(runtime, kCalls[i]);
    char api[64];
    snprintf(api, sizeof api, "rt.%s", kCalls[i]);
    if (fn == NULL) {
      Call(api, -1, "dlsym_failed", path);
      continue;
    }
    int value = 0;
    Begin(api);
    int code = fn(&value);
    const char* name = error_name ? error_name(code) : NULL;
    snprintf(detail, sizeof detail, "%s=%d runtime=%s", i == 2 ? "count" : "version", value, path);
    Call(api, code, name ? name : (code == 0 ? "cudaSuccess" : "-"), detail);
  }
}

/* The libcuda, libcudart and libnvidia-* files mapped into this process. */
static void Loaded(void) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  static char maps[1 << 20];
  size_t used = 0;
  for (;;) {
    ssize_t n = read(fd, maps + used, sizeof maps - 1 - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += (size_t)n;
  }
  close(fd);
  maps[used] = 0;
  char seen[64][512];
  int seen_count = 0;
  for (char* line = maps; line && *line;) {
    char* next = strchr(line, '\n');
    if (next) *next++ = 0;
    char* path = strchr(line, '/');
    const char* base = path ? strrchr(path, '/') + 1 : NULL;
    if (base && (strncmp(base, "libcuda.", 8) == 0 || strncmp(base, "libcudart.", 10) == 0 ||
                 strncmp(base, "libnvidia-", 10) == 0)) {
      int dup = 0;
      for (int i = 0; i < seen_count; ++i) dup |= strcmp(seen[i], path) == 0;
      if (!dup && seen_count < 64 && strlen(path) < sizeof seen[0]) {
        strcpy(seen[seen_count++], path);
        Line(2, "loaded", path);
      }
    }
    line = next;
  }
}

static int Usage(const char* why) {
  fprintf(stderr,
          "imagelint-probe: %s\nusage: imagelint-probe [--runtime LIBCUDART]... [--fatbin FILE]... "
          "[--module-loading lazy|eager] [--timeout SECONDS]\n",
          why);
  return 2;
}

/* Parent: forwards the child's lines, remembers the last call it began, kills
 * it at the deadline. */
static int Watch(pid_t child, int from_child, int timeout) {
  char buffer[8192];
  char last_api[128] = "startup";
  size_t forwarded = 0;
  time_t deadline = time(NULL) + timeout;
  char pending[4200];
  size_t pending_used = 0;
  int flags = fcntl(from_child, F_GETFL);
  fcntl(from_child, F_SETFL, flags | O_NONBLOCK);
  for (;;) {
    ssize_t n = read(from_child, buffer, sizeof buffer);
    if (n > 0) {
      for (ssize_t i = 0; i < n; ++i) {
        if (pending_used < sizeof pending - 1) pending[pending_used++] = buffer[i];
        if (buffer[i] != '\n') continue;
        pending[pending_used] = 0;
        if (strncmp(pending, "begin\t", 6) == 0) {
          snprintf(last_api, sizeof last_api, "%.*s", (int)(pending_used - 7), pending + 6);
        } else if (forwarded + pending_used <= kMaxRecord) {
          if (write(STDOUT_FILENO, pending, pending_used) > 0) forwarded += pending_used;
        }
        pending_used = 0;
      }
      continue;
    }
    if (n == 0) break;  /* the child closed its end: it is done */
    if (errno != EAGAIN && errno != EINTR) break;
    if (time(NULL) >= deadline) {
      kill(child, SIGKILL);
      waitpid(child, NULL, 0);
      char seconds[32];
      Number(seconds, sizeof seconds, timeout);
      Line(3, "hung", last_api, seconds);
      Line(2, "end", "hung");
      return 4;
    }
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    char signal_number[32];
    Number(signal_number, sizeof signal_number, WTERMSIG(status));
    Line(3, "crashed", last_api, signal_number);
    Line(2, "end", "crashed");
    return 0;
  }
  Line(2, "end", "complete");
  return 0;
}

int main(int argc, char** argv) {
  char* runtimes[kMaxRuntimes];
  char* fatbins[kMaxFatbins];
  int runtime_count = 0, fatbin_count = 0, timeout = 30;
  const char* loading = NULL;
  for (int i = 1; i < argc; ++i) {
    const char* flag = argv[i];
    if (i + 1 >= argc) return Usage("every option takes a value");
    char* value = argv[++i];
    if (strcmp(flag, "--runtime") == 0) {
      if (runtime_count == kMaxRuntimes) return Usage("too many --runtime");
      runtimes[runtime_count++] = value;
    } else if (strcmp(flag, "--fatbin") == 0) {
      if (fatbin_count == kMaxFatbins) return Usage("too many --fatbin");
      fatbins[fatbin_count++] = value;
    } else if (strcmp(flag, "--module-loading") == 0) {
      if (strcmp(value, "lazy") != 0 && strcmp(value, "eager") != 0) return Usage("--module-loading lazy|eager");
      loading = value;
    } else if (strcmp(flag, "--timeout") == 0) {
      timeout = 0;
      for (const char* c = value; *c; ++c) timeout = (*c >= '0' && *c <= '9' && timeout < 100000) ? timeout * 10 + (*c - '0') : -1;
      if (timeout < 1 || timeout > 3600) return Usage("--timeout takes 1 to 3600 seconds");
    } else {
      return Usage("unknown option");
    }
  }
  /* CUDA reads CUDA_MODULE_LOADING at cuInit: set before anything loads. */
  if (loading != NULL) setenv("CUDA_MODULE_LOADING", strcmp(loading, "eager") == 0 ? "EAGER" : "LAZY", 1);
  const char* mode = getenv("CUDA_MODULE_LOADING");
  Line(2, "probe", "1");
  Line(2, "mode", mode && strcmp(mode, "EAGER") == 0 ? "eager" : "lazy");

  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return Usage("pipe failed");
  pid_t child = fork();
  if (child < 0) return Usage("fork failed");
  if (child == 0) {
    close(pipe_fds[0]);
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[1]);
    /* Runtimes first: a program meets its cudart before any driver call of its own. */
    for (int i = 0; i < runtime_count; ++i) ProbeRuntime(runtimes[i]);
    ProbeDriver(fatbins, fatbin_count);
    Loaded();
    _exit(0);
  }
  close(pipe_fds[1]);
  return Watch(child, pipe_fds[0], timeout);
}
