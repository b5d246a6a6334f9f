#include "cli/budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <new>
#include <thread>

#include "imagelint/pipeline.h"
#include "imagelint/read_image.h"

namespace imagelint::cli {

namespace {

// Prepared before anything can fail: the handlers below must not allocate.
std::string& TimeMessage() {
  static std::string message;
  return message;
}
std::string& MemoryMessage() {
  static std::string message;
  return message;
}

std::string Names(const std::vector<std::string>& inputs) {
  std::string names;
  for (size_t i = 0; i < inputs.size() && i < 3; ++i) names += (i ? ", " : "") + inputs[i];
  if (inputs.size() > 3) names += " and " + std::to_string(inputs.size() - 3) + " more";
  return names.empty() ? "the input" : names;
}

void WriteAndExit(const std::string& message) {
  // write(2) and _exit: safe from any thread, whatever the heap's state.
  const char* data = message.data();
  size_t left = message.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, data, left);
    if (n <= 0) break;
    data += n;
    left -= static_cast<size_t>(n);
  }
  ::_exit(2);
}

void OnOutOfMemory() { WriteAndExit(MemoryMessage()); }

constexpr bool kSanitized =
#if defined(__SANITIZE_ADDRESS__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

}  // namespace

Result<Budget> ParseBudget(const std::string& timeout, const std::string& max_memory) {
  Budget budget;
  auto seconds = ParseDuration(timeout);
  if (!seconds.ok()) return MakeError("--timeout", seconds.error().message);
  budget.seconds_per_input = *seconds;
  auto bytes = ParseByteSize(max_memory);
  if (!bytes.ok()) return MakeError("--max-memory", bytes.error().message);
  if (*bytes != 0 && *bytes < (64ull << 20))
    return MakeError("--max-memory", "at least 64M (the program itself needs some), or 0 for no limit");
  budget.max_memory = *bytes;
  return budget;
}

void StartBudget(const Budget& budget, const std::vector<std::string>& inputs) {
  const std::string names = Names(inputs);
  if (budget.max_memory > 0 && !kSanitized) {
    MemoryMessage() = "imagelint: " + names + ": stopped at the memory limit of " + HumanBytes(budget.max_memory) +
                      " (--max-memory; 0 turns it off)\n";
    rlimit limit{budget.max_memory, budget.max_memory};
    rlimit current{};
    // Never raise a limit the caller's environment set lower.
    if (::getrlimit(RLIMIT_DATA, &current) == 0 && current.rlim_cur != RLIM_INFINITY &&
        current.rlim_cur < budget.max_memory) {
      limit = current;
    }
    ::setrlimit(RLIMIT_DATA, &limit);
    std::set_new_handler(OnOutOfMemory);
  }
  if (budget.seconds_per_input > 0) {
    const int64_t total = budget.seconds_per_input * static_cast<int64_t>(inputs.empty() ? 1 : inputs.size());
    TimeMessage() = "imagelint: " + names + ": stopped at the time limit of " +
                    std::to_string(budget.seconds_per_input) + " s per input (" + std::to_string(total) +
                    " s for " + std::to_string(inputs.empty() ? 1 : inputs.size()) +
                    (inputs.size() == 1 ? " input" : " inputs") + "; --timeout, 0 turns it off)\n";
    std::thread([total] {
      std::this_thread::sleep_for(std::chrono::seconds(total));
      WriteAndExit(TimeMessage());
    }).detach();
  }
}

Status StartBudget(const ImageInputFlags& flags, const std::vector<std::string>& inputs) {
  auto budget = ParseBudget(flags.timeout, flags.max_memory);
  if (!budget.ok()) return budget.error();
  StartBudget(*budget, inputs);
  return OkStatus();
}

}  // namespace imagelint::cli
