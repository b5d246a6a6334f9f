// One CPU kept for an image's critical path while its big layer is read.
//
// On two cores the floor of a scan is one thread's work on the big layer
// (inflating it, or hashing it when it is a plain tar). The kernel places a
// thread that wakes beside the thread that woke it, so the big layer's parser
// kept landing on the hashing thread's core while the small layers had the
// other one to themselves (perf: the hashing thread got 65-85 % of a core
// for the first half of the scan). So while the big layer is read, the
// scan's other threads run on every allowed CPU but one, and the critical
// thread may run anywhere (docs/PERFORMANCE.md, "What runs where").
// YieldToCriticalPath (imagelint/scan.h), the other half, is defined here too.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <memory>
#include <mutex>
#include <vector>

namespace imagelint {

class CriticalCpu {
 public:
  // A reservation for the scan of one image, or null: fewer than two CPUs
  // allowed, or another image's scan in this process holds the one there is.
  static std::unique_ptr<CriticalCpu> Reserve();
  ~CriticalCpu();  // Release(), and the next scan may reserve
  CriticalCpu(const CriticalCpu&) = delete;
  CriticalCpu& operator=(const CriticalCpu&) = delete;

  // A scan worker, at its start: runs off the kept CPU until Release(); the
  // threads it starts meanwhile inherit that (they end with their layer).
  void JoinOthers();
  // A scan worker, before it ends (its thread id must not be touched later).
  void Leave();
  // The big layer is done: every joined worker may use every CPU again.
  void Release();

  int kept_cpu() const { return kept_; }

 private:
  friend void EnterCriticalPath();
  CriticalCpu(cpu_set_t allowed, int kept);
  cpu_set_t allowed_;
  cpu_set_t others_;
  int kept_;
  std::mutex mutex_;
  bool active_ = true;
  std::vector<pid_t> workers_;
};

// The critical thread (the big layer's read-ahead thread), at its start: it
// may run on every allowed CPU, the kept one included, whatever it inherited
// from the worker that started it. Nothing when no reservation is held.
void EnterCriticalPath();

}  // namespace imagelint
