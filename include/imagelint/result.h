// Errors as values at every boundary that reads untrusted bytes.
//
// A reader of an image, a fleet file or a rule file returns Result<T>. The
// Error names the thing that was wrong (a file, a blob, a path inside an
// image), where (byte offset or line:column when known) and what. The command
// line maps any Error that reaches it to exit code 2; nothing in the library
// terminates the process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace imagelint {

struct Error {
  std::string subject;  // file, blob digest, image path, pool... what the user must look at
  std::string message;  // what is wrong, in one line
  std::optional<uint64_t> offset;  // byte offset inside `subject`, when it applies
  int line = 0;                    // 1-based line/column for text inputs, 0 = unknown
  int column = 0;

  // "subject:line:column: message" / "subject: at offset N: message"
  std::string ToString() const;
};

// Builds an Error; `subject` may be empty when the caller adds it later with
// WithSubject (a parser of bytes does not always know the file name).
Error MakeError(std::string subject, std::string message);
Error MakeErrorAt(std::string subject, uint64_t offset, std::string message);
Error MakeErrorAtLine(std::string subject, int line, int column, std::string message);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}     // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }
  Error& error() { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Result<void>: success carries nothing.
struct Ok {};
using Status = Result<Ok>;
inline Status OkStatus() { return Ok{}; }

// Adds a subject to an error that lacks one (or prefixes it), so that a
// byte-level parser can stay ignorant of file names.
Error WithSubject(Error error, const std::string& subject);

}  // namespace imagelint

// Propagates an error from an expression returning Result<...> / Status.
#define IMAGELINT_TRY(expr)                               \
  do {                                                    \
    auto imagelint_try_result_ = (expr);                  \
    if (!imagelint_try_result_.ok())                      \
      return std::move(imagelint_try_result_.error());    \
  } while (0)
