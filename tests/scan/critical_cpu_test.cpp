// The CPU kept for an image's critical path (src/scan/critical_cpu.h): which
// threads run where while the big layer is read, and that every thread gets
// every CPU back.
#include <doctest/doctest.h>

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "imagelint/scan.h"
#include "scan/critical_cpu.h"
#include "scan/sized_source.h"

using namespace imagelint;
using imagelint::testing::SizedSource;

namespace {

cpu_set_t ThreadCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  ::sched_getaffinity(static_cast<pid_t>(::syscall(SYS_gettid)), sizeof set, &set);
  return set;
}

int ThreadCpuCount() {
  cpu_set_t set = ThreadCpus();
  return CPU_COUNT(&set);
}

// Whether this process may set a thread's CPUs at all (a seccomp profile may
// refuse sched_setaffinity; the reservation then only costs nothing).
bool CanSetThreadCpus() {
  bool ok = false;
  std::thread([&] {
    cpu_set_t mine = ThreadCpus();
    ok = ::sched_setaffinity(static_cast<pid_t>(::syscall(SYS_gettid)), sizeof mine, &mine) == 0;
  }).join();
  return ok;
}

}  // namespace

TEST_CASE("a reservation: workers keep off one CPU, the critical thread may use all, release gives all back") {
  const int allowed = ThreadCpuCount();
  auto reservation = CriticalCpu::Reserve();
  if (allowed < 2) {
    CHECK(reservation == nullptr);  // nothing to keep on one CPU
    return;
  }
  REQUIRE(reservation != nullptr);
  CHECK(CriticalCpu::Reserve() == nullptr);  // one at a time in a process
  if (!CanSetThreadCpus()) {
    MESSAGE("sched_setaffinity is refused here: nothing to observe");
    return;
  }
  const int kept = reservation->kept_cpu();
  std::mutex mutex;
  std::condition_variable changed;
  bool released = false;
  int worker_during = 0, worker_after = 0, critical = 0;
  bool worker_on_kept = true;
  std::thread worker([&] {
    reservation->JoinOthers();
    cpu_set_t mine = ThreadCpus();
    worker_during = CPU_COUNT(&mine);
    worker_on_kept = CPU_ISSET(kept, &mine);
    // A thread the worker starts inherits its CPUs, unless it is critical.
    std::thread([&] {
      EnterCriticalPath();
      critical = ThreadCpuCount();
    }).join();
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return released; });
    worker_after = ThreadCpuCount();
    lock.unlock();
    reservation->Leave();
  });
  // Wait until the worker has joined and looked, then release.
  for (int i = 0; i < 1000 && critical == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  reservation->Release();
  {
    std::lock_guard<std::mutex> lock(mutex);
    released = true;
  }
  changed.notify_all();
  worker.join();
  CHECK(worker_during == allowed - 1);
  CHECK_FALSE(worker_on_kept);
  CHECK(critical == allowed);
  CHECK(worker_after == allowed);
  CHECK(ThreadCpuCount() == allowed);  // the reserving thread is never touched
  reservation.reset();
  CHECK(CriticalCpu::Reserve() != nullptr);  // free again once the scan is over
}

TEST_CASE("a scan with a big layer keeps a CPU for it until that layer is done") {
  const int allowed = ThreadCpuCount();
  SizedSource source({1 << 20, int64_t{200} << 20, 2 << 20, 3 << 20});
  std::mutex mutex;
  std::condition_variable changed;
  std::map<size_t, int> cpus;  // layer -> CPUs its worker had when it started
  int last_after_release = 0;
  ScanOptions options;
  options.jobs = 2;
  options.layer_scanner = [&](ImageSource&, size_t index, const std::vector<FileAnalyzer*>&, const ScanOptions&) {
    std::unique_lock<std::mutex> lock(mutex);
    cpus[index] = ThreadCpuCount();
    changed.notify_all();
    if (index == 1) {
      // The big layer lasts until a small one was scanned beside it.
      changed.wait_for(lock, std::chrono::seconds(10), [&] { return cpus.size() > 1; });
    } else if (index == 0) {
      // Scanned last (the smallest): once the big layer is done, every
      // worker may run anywhere again (asked until it shows, at most 5 s).
      lock.unlock();
      for (int i = 0; i < 500 && ThreadCpuCount() != allowed; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      lock.lock();
      last_after_release = ThreadCpuCount();
    }
    return Result<LayerResult>(LayerResult{});
  };
  auto scanned = ScanImage(source, {}, options);
  REQUIRE(scanned.ok());
  CHECK(ThreadCpuCount() == allowed);
  CHECK(last_after_release == allowed);
  if (allowed < 2 || !CanSetThreadCpus()) return;
  // Both workers ran off the kept CPU while the big layer was read: its own
  // worker (which parses it) and the one that scanned a small layer beside it.
  CHECK(cpus[1] == allowed - 1);
  CHECK(cpus[3] == allowed - 1);
  CHECK(CriticalCpu::Reserve() != nullptr);  // the scan gave its reservation back
}
