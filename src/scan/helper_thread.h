// The end of a helper thread that waits on a condition variable (the layer
// hasher's worker, the read-ahead producer): it is told to give up, woken,
// and joined, so no destructor can return while it still runs.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

namespace imagelint {

// Sets `abandon` under `mutex`, wakes the waiters of `changed` and joins
// `thread`; nothing when no thread was started.
inline void AbandonAndJoin(std::thread& thread, std::mutex& mutex, std::condition_variable& changed, bool& abandon) {
  if (!thread.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    abandon = true;
  }
  changed.notify_all();
  thread.join();
}

}  // namespace imagelint
