// The probe's record (probe/imagelint-probe.c): tab-separated lines.
#include <charconv>

#include "common/text.h"
#include "imagelint/probe.h"

namespace imagelint::probe {

Result<Record> ParseRecord(std::string_view text, const std::string& source) {
  if (text.size() > kMaxRecordBytes) return MakeError(source, "probe record larger than 256 KiB");
  Record record;
  bool seen_header = false;
  int number = 0;
  for (const std::string& line : SplitOn(std::string(text), '\n')) {
    ++number;
    if (line.empty()) continue;
    std::vector<std::string> fields = SplitOn(line, '\t');
    const std::string& kind = fields[0];
    auto bad = [&](const std::string& why) { return MakeErrorAtLine(source, number, 1, why); };
    if (kind == "probe") {
      if (fields.size() != 2 || fields[1] != "1") return bad("a probe record of another version");
      seen_header = true;
      continue;
    }
    if (!seen_header) return bad("not a probe record (no 'probe 1' line first)");
    if (kind == "mode" && fields.size() == 2) {
      record.mode = fields[1];
    } else if (kind == "call" && fields.size() == 5) {
      Call call{fields[1], 0, fields[3], fields[4]};
      const std::string& code = fields[2];
      auto [end, error] = std::from_chars(code.data(), code.data() + code.size(), call.code);
      if (error != std::errc() || end != code.data() + code.size()) return bad("call code '" + code + "' is not a number");
      if (record.calls.size() >= 4096) return bad("more than 4096 calls");
      record.calls.push_back(std::move(call));
    } else if (kind == "loaded" && fields.size() == 2) {
      if (record.loaded.size() < 256) record.loaded.push_back(fields[1]);
    } else if (kind == "hung" && fields.size() == 3) {
      record.hung = fields[1];
    } else if (kind == "crashed" && fields.size() == 3) {
      record.crashed = fields[1] + " (signal " + fields[2] + ")";
    } else if (kind == "end" && fields.size() == 2) {
      record.complete = fields[1] == "complete";
    } else {
      return bad("unexpected line '" + line.substr(0, 80) + "'");
    }
  }
  if (!seen_header) return MakeError(source, "empty probe record");
  return record;
}

Outcome FirstError(const Record& record) {
  Outcome outcome;
  for (const Call& call : record.calls) {
    if (call.api == "rt.dlopen" || call.api == "rt.dlsym" || call.code == 0) continue;
    outcome.api = call.api;
    if (call.api == "drv.dlopen") {
      // No libcuda the loader can load: the runtime says "insufficient driver".
      outcome.code = 35;
      outcome.name = "cudaErrorInsufficientDriver";
    } else {
      outcome.code = call.code;
      outcome.name = call.name;
    }
    return outcome;
  }
  if (record.hung) {
    outcome.hung = true;
    outcome.api = *record.hung;
  }
  return outcome;
}

}  // namespace imagelint::probe
