// Helpers shared by all test executables.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace imagelint::testing {

// The error of a Result for an assertion's message, or "" when it holds a
// value. doctest evaluates messages of passing assertions too when run with
// -s (--success), so `REQUIRE_MESSAGE(r.ok(), imagelint::testing::ErrorText(r))` would
// read the error of a good result and abort.
template <typename ResultType>
std::string ErrorText(const ResultType& result) {
  return result.ok() ? std::string() : result.error().ToString();
}

// The checkout's root. Tests read nothing outside it: fixtures are made at
// test time by the project's code or by real tools.
std::filesystem::path SourceDir();
std::filesystem::path BinaryDir();
// The built `imagelint` command-line binary.
std::filesystem::path ImagelintBinary();

// A fresh empty directory for one test, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Whether tests that need external things (nvcc, network, skopeo, a registry)
// must fail instead of skipping: true when CI=true or IMAGELINT_REQUIRE_EXTERNAL=1.
bool ExternalRequired();

// Call at the top of a test that needs `what`. When it is missing: in CI the
// test FAILs with the reason; elsewhere it prints "SKIPPED: <reason>", the
// caller returns, and the test executable ends with kSkipExitCode (when
// nothing failed), which ctest reports as skipped rather than passed.
// Usage: if (!NeedExternal("nvcc", HaveProgram(nvcc), "...")) return;
bool NeedExternal(const std::string& what, bool available, const std::string& why_needed);

// The exit status of a test executable whose checks all passed but some were
// skipped for a missing external tool: every test's SKIP_RETURN_CODE
// (imagelint_add_test), the automake convention.
inline constexpr int kSkipExitCode = 77;
// The exit status for doctest's `result`: kSkipExitCode when it is 0 and
// NeedExternal skipped something (listed on standard error), else `result`.
int ExitStatusAfterRun(int result);

// Searches PATH (and absolute paths) for an executable.
bool HaveProgram(const std::string& program);

struct CommandResult {
  int exit_code = -1;   // exit status, or 128+signal when killed
  std::string out;
  std::string err;
};
// Runs argv (no shell), with optional stdin, a timeout (seconds) and extra
// environment entries "K=V". Captures stdout and stderr.
CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& stdin_text = "",
                         int timeout_seconds = 300, const std::vector<std::string>& extra_env = {});
// Runs the imagelint binary with the given arguments, with
// IMAGELINT_BASE_FROM=knowledge unless `extra_env` sets it.
CommandResult RunImagelint(const std::vector<std::string>& args, const std::string& stdin_text = "",
                           const std::vector<std::string>& extra_env = {});

std::string ReadFileText(const std::filesystem::path& path);
void WriteFileText(const std::filesystem::path& path, const std::string& text);
std::vector<uint8_t> ReadFileBytes(const std::filesystem::path& path);
void WriteFileBytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);

// Golden files: compares `actual` with tests/<relative_path>. With
// IMAGELINT_UPDATE_GOLDEN=1 the file is rewritten instead (and the check passes).
void CheckGolden(const std::string& relative_path, const std::string& actual);

}  // namespace imagelint::testing
