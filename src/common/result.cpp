#include "imagelint/result.h"

namespace imagelint {

std::string Error::ToString() const {
  std::string text = subject;
  if (line > 0) {
    text += ":" + std::to_string(line);
    if (column > 0) text += ":" + std::to_string(column);
  }
  if (!text.empty()) text += ": ";
  if (offset) text += "at offset " + std::to_string(*offset) + ": ";
  return text + message;
}

Error MakeError(std::string subject, std::string message) {
  return Error{std::move(subject), std::move(message), std::nullopt, 0, 0};
}

Error MakeErrorAt(std::string subject, uint64_t offset, std::string message) {
  return Error{std::move(subject), std::move(message), offset, 0, 0};
}

Error MakeErrorAtLine(std::string subject, int line, int column, std::string message) {
  return Error{std::move(subject), std::move(message), std::nullopt, line, column};
}

Error WithSubject(Error error, const std::string& subject) {
  if (error.subject.empty()) {
    error.subject = subject;
  } else if (error.subject != subject && !subject.empty()) {
    error.subject = subject + ": " + error.subject;
  }
  return error;
}

}  // namespace imagelint
