// The RESP2 client on hostile bytes: a scripted transport plays the server,
// chunk by chunk, so framing split anywhere, lengths that lie, a missing
// CRLF, a truncated reply and reply types no command here gets are all
// tried. Each is an error value; none allocates what the server claims.
#include <doctest/doctest.h>

#include <deque>

#include "cache/resp_client.h"

using namespace imagelint;
using namespace imagelint::redis;

namespace {

// Replies with its chunks in order, at most what the reader asks for at a
// time; when they run out, the server has closed the connection.
class ScriptedTransport final : public Transport {
 public:
  explicit ScriptedTransport(std::deque<std::string> chunks) : chunks_(std::move(chunks)) {}

  Status Send(std::span<const uint8_t> bytes) override {
    sent.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return OkStatus();
  }
  Result<size_t> Receive(std::span<uint8_t> buffer) override {
    largest_request = std::max(largest_request, buffer.size());
    receives++;
    if (chunks_.empty()) return MakeError("", "the server closed the connection");
    std::string& chunk = chunks_.front();
    size_t n = std::min(chunk.size(), buffer.size());
    std::copy(chunk.begin(), chunk.begin() + static_cast<ptrdiff_t>(n), buffer.begin());
    chunk.erase(0, n);
    if (chunk.empty()) chunks_.pop_front();
    return n;
  }
  void SetTimeout(std::chrono::milliseconds) override {}

  std::string sent;
  size_t largest_request = 0;
  int receives = 0;

 private:
  std::deque<std::string> chunks_;
};

// Every byte of `reply` in a chunk of its own: framing split at every place.
std::deque<std::string> ByteByByte(const std::string& reply) {
  std::deque<std::string> chunks;
  for (char c : reply) chunks.emplace_back(1, c);
  return chunks;
}

Result<Reply> Answer(std::deque<std::string> chunks, size_t max_bulk = 1024) {
  ScriptedTransport transport(std::move(chunks));
  RespClient client(transport);
  return client.Call({"GETRANGE", "k", "0", "1023"}, max_bulk);
}

std::string ErrorOf(const Result<Reply>& reply) { return reply.ok() ? "(no error)" : reply.error().message; }

}  // namespace

TEST_CASE("RESP2: a command is an array of bulk strings, binary-safe") {
  const char expected[] = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\na\0\r\nb\r\n";
  CHECK(EncodeCommand({"SET", "k", std::string_view("a\0\r\nb", 5)}) == std::string(expected, sizeof expected - 1));
  ScriptedTransport transport({"+OK\r\n"});
  RespClient client(transport);
  auto reply = client.Call({"AUTH", "pw"}, 16);
  REQUIRE(reply.ok());
  CHECK(transport.sent == "*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n");
}

TEST_CASE("RESP2: the replies the store gets, whole or split at every byte") {
  for (bool split : {false, true}) {
    INFO("split: " << split);
    auto chunks = [&](const std::string& reply) { return split ? ByteByByte(reply) : std::deque<std::string>{reply}; };
    auto status = Answer(chunks("+OK\r\n"));
    REQUIRE(status.ok());
    CHECK(status->kind == Reply::Kind::kStatus);
    CHECK(status->text == "OK");
    auto error = Answer(chunks("-WRONGPASS invalid username-password pair\r\n"));
    REQUIRE(error.ok());
    CHECK(error->kind == Reply::Kind::kError);
    CHECK(error->text == "WRONGPASS invalid username-password pair");
    auto integer = Answer(chunks(":-42\r\n"));
    REQUIRE(integer.ok());
    CHECK(integer->kind == Reply::Kind::kInteger);
    CHECK(integer->integer == -42);
    auto bulk = Answer(chunks(std::string("$7\r\nab\0\r\ncd\r\n", 14)));
    REQUIRE(bulk.ok());
    CHECK(bulk->kind == Reply::Kind::kBulk);
    CHECK(std::string(bulk->bulk.begin(), bulk->bulk.end()) == std::string("ab\0\r\ncd", 7));
    auto empty = Answer(chunks("$0\r\n\r\n"));
    REQUIRE(empty.ok());
    CHECK(empty->kind == Reply::Kind::kBulk);
    CHECK(empty->bulk.empty());
    auto nil = Answer(chunks("$-1\r\n"));
    REQUIRE(nil.ok());
    CHECK(nil->kind == Reply::Kind::kNil);
  }
}

TEST_CASE("RESP2: replies that arrive together are read one per command") {
  ScriptedTransport transport({"+OK\r\n$2\r\nhi\r\n:1\r\n"});
  RespClient client(transport);
  auto first = client.Call({"SELECT", "1"}, 16);
  auto second = client.Call({"GETRANGE", "k", "0", "16"}, 17);
  auto third = client.Call({"SET", "k", "v"}, 16);
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  REQUIRE(third.ok());
  CHECK(first->text == "OK");
  CHECK(std::string(second->bulk.begin(), second->bulk.end()) == "hi");
  CHECK(third->integer == 1);
  CHECK(transport.receives == 1);
}

TEST_CASE("RESP2: hostile framing is an error value") {
  struct Case {
    std::string reply;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"$1025\r\n", "a bulk string of 1025 bytes, more than the 1024 asked for"},
      {"$99999999999999999999\r\n", "bulk length"},
      {"$-2\r\n", "bulk length '-2'"},
      {"$-100\r\n", "bulk length '-100'"},
      {"$\r\n", "bulk length ''"},
      {"$3x\r\nabc\r\n", "bulk length '3x'"},
      {"$ 3\r\nabc\r\n", "bulk length ' 3'"},
      {"+OK\n", "a LF without CR"},
      {"+OK\rX\r\n", "a CR not followed by LF"},
      {"$3\r\nabcXY", "a bulk string not ended by CRLF"},
      {"$3\r\nabc\n\n", "a bulk string not ended by CRLF"},
      {":12a\r\n", "integer '12a'"},
      {":1234567890123456789\r\n", "integer"},
      {"\r\n", "an empty reply line"},
      {"*1\r\n$1\r\na\r\n", "an array"},
      {"%1\r\n", "unknown reply type '%'"},
      {"_\r\n", "unknown reply type '_'"},
      {"\x1b[2J\r\n", "unknown reply type '?'"},
  };
  for (const Case& one : cases) {
    INFO(one.reply);
    auto reply = Answer({one.reply});
    CHECK_FALSE(reply.ok());
    CHECK(ErrorOf(reply).find(one.error) != std::string::npos);
    CHECK(ErrorOf(reply).find("malformed reply") != std::string::npos);
  }
}

TEST_CASE("RESP2: a truncated reply is the transport's error, not a hang or a short value") {
  for (const std::string& reply : {std::string("+OK"), std::string("+OK\r"), std::string("$10\r\nabc"),
                                   std::string("$3\r\nabc"), std::string("$3\r\nabc\r"), std::string("")}) {
    INFO(reply);
    auto answer = Answer(ByteByByte(reply));
    CHECK_FALSE(answer.ok());
    CHECK(ErrorOf(answer) == "the server closed the connection");
  }
}

TEST_CASE("RESP2: a bulk length the server claims is never allocated ahead of its bytes") {
  // 100 MiB announced, within what was asked for; 3 bytes sent, then closed.
  ScriptedTransport transport({"$104857600\r\nabc"});
  RespClient client(transport);
  auto reply = client.Call({"GETRANGE", "k", "0", "104857600"}, size_t{512} << 20);
  CHECK_FALSE(reply.ok());
  CHECK(transport.largest_request <= 64 * 1024);
}

TEST_CASE("RESP2: a line without an end is bounded") {
  ScriptedTransport transport({"+" + std::string(RespClient::kMaxLineBytes + 10, 'a')});
  RespClient client(transport);
  auto reply = client.Call({"SET", "k", "v"}, 16);
  CHECK_FALSE(reply.ok());
  CHECK(ErrorOf(reply).find("a reply line longer than 65536 bytes") != std::string::npos);
}

TEST_CASE("RESP2: an error text with control bytes is printable and short in a message") {
  auto reply = Answer({"-ERR \x1b[31mred\x07" + std::string(300, 'x') + "\r\n"});
  REQUIRE(reply.ok());
  REQUIRE(reply->kind == Reply::Kind::kError);
  std::string printable = PrintableReply(reply->text);
  CHECK(printable.find('\x1b') == std::string::npos);
  CHECK(printable.find('\x07') == std::string::npos);
  CHECK(printable.rfind("ERR ?[31mred?", 0) == 0);
  CHECK(printable.size() == 203);  // 200 bytes and "..."
}
