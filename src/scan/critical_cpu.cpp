#include "scan/critical_cpu.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "imagelint/scan.h"

namespace imagelint {
namespace {

pid_t ThisThread() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

// The reservation in force in this process, if any: one at a time, so that
// two images scanned at once never keep the same CPU for two critical paths.
std::mutex held_mutex;
CriticalCpu* held = nullptr;

}  // namespace

std::unique_ptr<CriticalCpu> CriticalCpu::Reserve() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) return nullptr;
  std::lock_guard<std::mutex> lock(held_mutex);
  if (held) return nullptr;
  // The last allowed CPU: the first one is where interrupts and most other
  // work land on many systems.
  int kept = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) kept = cpu;
  std::unique_ptr<CriticalCpu> reservation(new CriticalCpu(allowed, kept));
  held = reservation.get();
  return reservation;
}

CriticalCpu::CriticalCpu(cpu_set_t allowed, int kept) : allowed_(allowed), others_(allowed), kept_(kept) {
  CPU_CLR(kept, &others_);
}

CriticalCpu::~CriticalCpu() {
  Release();
  std::lock_guard<std::mutex> lock(held_mutex);
  held = nullptr;
}

void CriticalCpu::JoinOthers() {
  std::lock_guard<std::mutex> lock(mutex_);
  const pid_t self = ThisThread();
  workers_.push_back(self);
  // Best effort: a failure (a seccomp profile, say) only costs speed.
  if (active_) ::sched_setaffinity(self, sizeof others_, &others_);
}

void CriticalCpu::Leave() {
  std::lock_guard<std::mutex> lock(mutex_);
  const pid_t self = ThisThread();
  workers_.erase(std::remove(workers_.begin(), workers_.end(), self), workers_.end());
  if (active_) ::sched_setaffinity(self, sizeof allowed_, &allowed_);
}

void CriticalCpu::Release() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!active_) return;
  active_ = false;
  // Joined workers are alive (they Leave() under this lock before they end),
  // so their thread ids are theirs.
  for (pid_t worker : workers_) ::sched_setaffinity(worker, sizeof allowed_, &allowed_);
}

void EnterCriticalPath() {
  cpu_set_t allowed;
  {
    std::lock_guard<std::mutex> lock(held_mutex);
    if (!held) return;
    allowed = held->allowed_;  // set at construction; `held` is cleared before it goes
  }
  ::sched_setaffinity(ThisThread(), sizeof allowed, &allowed);
}

void YieldToCriticalPath() {
  thread_local bool yielded = false;
  if (yielded) return;
  yielded = true;
  const auto tid = static_cast<id_t>(ThisThread());
  errno = 0;
  const int current = ::getpriority(PRIO_PROCESS, tid);
  if (errno != 0) return;
  ::setpriority(PRIO_PROCESS, tid, std::min(current + 10, 19));  // best effort: a failure only costs speed
}

}  // namespace imagelint
