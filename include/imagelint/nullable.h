// Nullable<T>: a value that is always written, as JSON null when empty. The
// typed documents (the facts model, facts.h; the report, report_model.h) use
// three spellings for three states:
//   * std::optional<T>: empty = unknown; the key is left out of the JSON;
//   * Nullable<T>: always written; empty = known to have no value (null);
//   * std::optional<Nullable<T>>: left out, null, or a value.
#pragma once

#include <optional>

namespace imagelint {

template <class T>
struct Nullable : std::optional<T> {
  using std::optional<T>::optional;
  using std::optional<T>::operator=;
  Nullable(const std::optional<T>& value) : std::optional<T>(value) {}  // NOLINT: implicit by design
  friend bool operator==(const Nullable& a, const Nullable& b) {
    return static_cast<const std::optional<T>&>(a) == static_cast<const std::optional<T>&>(b);
  }
};

}  // namespace imagelint
