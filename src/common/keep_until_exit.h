// KeepUntilExit: moves a value to the heap and never frees it, for a process
// about to exit (Context::free_at_end = false). Freeing a large table of small
// allocations costs more than the kernel reclaiming its pages, which it does
// anyway. The values stay reachable through a list that is itself never freed,
// so leak checkers (LeakSanitizer, valgrind) see them as still in use, not
// lost. LLVM's BuryPointer is the same idea.
#pragma once

#include <mutex>
#include <utility>
#include <vector>

namespace imagelint {

namespace keep_until_exit_detail {
inline std::vector<const void*>& Kept() {
  static auto* kept = new std::vector<const void*>();  // never destroyed, on purpose
  return *kept;
}
inline std::mutex& KeptMutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}
}  // namespace keep_until_exit_detail

template <class T>
void KeepUntilExit(T&& value) {
  const void* kept = new std::decay_t<T>(std::forward<T>(value));
  std::lock_guard<std::mutex> lock(keep_until_exit_detail::KeptMutex());
  keep_until_exit_detail::Kept().push_back(kept);
}

}  // namespace imagelint
