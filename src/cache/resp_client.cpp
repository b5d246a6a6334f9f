#include "cache/resp_client.h"

#include <algorithm>

namespace imagelint::redis {
namespace {

constexpr size_t kReceiveChunk = 16 * 1024;
// A bulk grows as its bytes arrive, by at most this much (or its size so far) at a time.
constexpr size_t kBulkGrowth = 64 * 1024;

Error Malformed(const std::string& what) { return MakeError("", "malformed reply: " + what); }

// A RESP integer: an optional '-', then 1 to 18 digits (no overflow possible).
bool ParseInteger(std::string_view text, int64_t& value) {
  bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  if (text.empty() || text.size() > 18) return false;
  int64_t parsed = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    parsed = parsed * 10 + (c - '0');
  }
  value = negative ? -parsed : parsed;
  return true;
}

}  // namespace

std::string EncodeCommand(const std::vector<std::string_view>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (std::string_view arg : args) {
    out += "$" + std::to_string(arg.size()) + "\r\n";
    out += arg;
    out += "\r\n";
  }
  return out;
}

std::string PrintableReply(std::string_view text) {
  constexpr size_t kMax = 200;
  std::string out;
  for (char c : text.substr(0, kMax)) {
    unsigned char byte = static_cast<unsigned char>(c);
    out.push_back(byte < 0x20 || byte == 0x7f ? '?' : c);
  }
  if (text.size() > kMax) out += "...";
  return out;
}

Status RespClient::Arm() {
  if (!deadline_) return OkStatus();
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline_ - std::chrono::steady_clock::now());
  if (left.count() <= 0)
    return MakeError("", "no whole reply within " + std::to_string(whole_.count()) + " ms (the request timeout)");
  transport_.SetTimeout(left);
  return OkStatus();
}

Status RespClient::Fill() {
  if (start_ > 0 && start_ == buffer_.size()) {
    buffer_.clear();
    start_ = 0;
  } else if (start_ > kReceiveChunk) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<ptrdiff_t>(start_));
    start_ = 0;
  }
  size_t old_size = buffer_.size();
  IMAGELINT_TRY(Arm());
  buffer_.resize(old_size + kReceiveChunk);
  auto got = transport_.Receive(std::span<uint8_t>(buffer_.data() + old_size, kReceiveChunk));
  buffer_.resize(old_size + (got.ok() ? *got : 0));
  if (!got.ok()) return got.error();
  return OkStatus();
}

Result<std::string> RespClient::ReadLine() {
  size_t scanned = 0;  // bytes after start_ known to hold no line end
  while (true) {
    auto line_begin = buffer_.begin() + static_cast<ptrdiff_t>(start_);
    auto end = std::find_if(line_begin + static_cast<ptrdiff_t>(scanned), buffer_.end(),
                            [](uint8_t byte) { return byte == '\r' || byte == '\n'; });
    if (end != buffer_.end() && *end == '\n') return Malformed("a LF without CR in a reply line");
    if (end != buffer_.end() && end + 1 != buffer_.end()) {
      if (*(end + 1) != '\n') return Malformed("a CR not followed by LF in a reply line");
      std::string line(line_begin, end);
      start_ = static_cast<size_t>(end - buffer_.begin()) + 2;
      return line;
    }
    // Nothing yet, or a CR whose LF has not arrived: look at it again then.
    scanned = static_cast<size_t>(end - line_begin);
    if (scanned > kMaxLineBytes)
      return Malformed("a reply line longer than " + std::to_string(kMaxLineBytes) + " bytes");
    IMAGELINT_TRY(Fill());
  }
}

Result<std::vector<uint8_t>> RespClient::ReadBulk(size_t length) {
  std::vector<uint8_t> bulk;
  size_t buffered = std::min(length, buffer_.size() - start_);
  bulk.assign(buffer_.begin() + static_cast<ptrdiff_t>(start_),
              buffer_.begin() + static_cast<ptrdiff_t>(start_ + buffered));
  start_ += buffered;
  while (bulk.size() < length) {
    size_t have = bulk.size();
    bulk.resize(have + std::min(length - have, std::max(kBulkGrowth, have)));
    while (have < bulk.size()) {
      IMAGELINT_TRY(Arm());
      auto got = transport_.Receive(std::span<uint8_t>(bulk.data() + have, bulk.size() - have));
      if (!got.ok()) return got.error();
      have += *got;
    }
  }
  while (buffer_.size() - start_ < 2) IMAGELINT_TRY(Fill());
  if (buffer_[start_] != '\r' || buffer_[start_ + 1] != '\n') return Malformed("a bulk string not ended by CRLF");
  start_ += 2;
  return bulk;
}

Result<Reply> RespClient::Call(const std::vector<std::string_view>& args, size_t max_bulk,
                               std::chrono::milliseconds whole) {
  whole_ = whole;
  deadline_.reset();
  if (whole.count() > 0) deadline_ = std::chrono::steady_clock::now() + whole;
  auto reply = Exchange(args, max_bulk);
  // A wait cut short by the budget reports the budget, not what was left of
  // it. poll() counts whole milliseconds and may wake just before the
  // deadline it was given: within 10 ms of it counts as reaching it.
  if (!reply.ok() && deadline_ && std::chrono::steady_clock::now() + std::chrono::milliseconds(10) >= *deadline_)
    return MakeError("", "no whole reply within " + std::to_string(whole_.count()) + " ms (the request timeout)");
  return reply;
}

Result<Reply> RespClient::Exchange(const std::vector<std::string_view>& args, size_t max_bulk) {
  const std::string command = EncodeCommand(args);
  IMAGELINT_TRY(Arm());
  IMAGELINT_TRY(transport_.Send(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(command.data()), command.size())));
  auto line = ReadLine();
  if (!line.ok()) return line.error();
  if (line->empty()) return Malformed("an empty reply line");
  Reply reply;
  const char type = (*line)[0];
  std::string_view rest = std::string_view(*line).substr(1);
  switch (type) {
    case '+':
      reply.kind = Reply::Kind::kStatus;
      reply.text = rest;
      return reply;
    case '-':
      reply.kind = Reply::Kind::kError;
      reply.text = rest;
      return reply;
    case ':':
      if (!ParseInteger(rest, reply.integer)) return Malformed("integer '" + PrintableReply(rest) + "'");
      reply.kind = Reply::Kind::kInteger;
      return reply;
    case '$': {
      int64_t length = 0;
      if (!ParseInteger(rest, length) || length < -1)
        return Malformed("bulk length '" + PrintableReply(rest) + "'");
      if (length == -1) {
        reply.kind = Reply::Kind::kNil;
        return reply;
      }
      if (static_cast<uint64_t>(length) > max_bulk)
        return Malformed("a bulk string of " + std::to_string(length) + " bytes, more than the " +
                         std::to_string(max_bulk) + " asked for");
      auto bulk = ReadBulk(static_cast<size_t>(length));
      if (!bulk.ok()) return bulk.error();
      reply.kind = Reply::Kind::kBulk;
      reply.bulk = std::move(*bulk);
      return reply;
    }
    case '*':
      return Malformed("an array, which no command sent here gets");
    default:
      return Malformed("unknown reply type '" + PrintableReply(line->substr(0, 1)) + "'");
  }
}

}  // namespace imagelint::redis
