// The budget of one run of scan, facts or ls: wall-clock time per input and
// the memory of the process (docs/cli.md, "Budgets"). Every reader already
// bounds its own work (docs/ROBUSTNESS.md); the budget is the backstop for
// whatever those limits miss, so a CI gate never hangs and never takes the
// runner's memory: past either limit imagelint stops with exit 2 and a
// message naming the inputs and the limit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/options.h"
#include "imagelint/result.h"

namespace imagelint::cli {

struct Budget {
  int64_t seconds_per_input = 0;  // 0 = no time limit
  uint64_t max_memory = 0;        // bytes of heap and mappings (RLIMIT_DATA); 0 = no limit
};

// --timeout and --max-memory values ("10m", "4G"; "0" turns a limit off).
Result<Budget> ParseBudget(const std::string& timeout, const std::string& max_memory);

// Arms the budget for `inputs` (their names go into the messages): a
// watchdog thread that ends the process after seconds_per_input x inputs,
// and the memory limit, whose breach ends it from operator new's handler.
// The memory limit is not set in sanitizer builds (their shadow memory is
// mapped up front). Call once per process.
void StartBudget(const Budget& budget, const std::vector<std::string>& inputs);

// ParseBudget of --timeout and --max-memory, then StartBudget.
Status StartBudget(const ImageInputFlags& flags, const std::vector<std::string>& inputs);

}  // namespace imagelint::cli
