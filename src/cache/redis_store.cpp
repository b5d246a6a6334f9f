// The shared layer store on Redis, through our own small RESP2 client
// (resp_client.h) over TCP or TLS (redis_transport.h, tls_transport.h).
// Values are read with GETRANGE so that a huge value planted under our key
// is never read whole; every connect and command has a timeout; a failed
// connection is never reused. Redis protocol reference:
// "Redis commands" https://redis.io/docs/latest/commands/ (GETRANGE, SET EX,
// AUTH, SELECT).
#include <algorithm>
#include <chrono>
#include <mutex>

#include "cache/resp_client.h"
#include "cache/tls_transport.h"
#include "imagelint/layer_store.h"

namespace imagelint {
namespace {

// The replies of AUTH, SELECT and SET are a status or an error; this bounds
// a bulk some server sends instead.
constexpr size_t kMaxStatusBulk = 4096;

class RedisStore final : public LayerStore {
 public:
  explicit RedisStore(RedisOptions options) : options_(std::move(options)) {}

  Result<std::optional<std::vector<uint8_t>>> Get(const std::string& key, size_t max_bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    IMAGELINT_TRY(ConnectLocked());
    // GETRANGE's end is inclusive: max_bytes + 1 bytes tell "too large".
    max_bytes = std::min(max_bytes, options_.max_value_bytes);
    const std::string last = std::to_string(max_bytes);
    auto reply = CommandLocked({"GETRANGE", key, "0", last}, max_bytes + 1);
    if (!reply.ok()) return reply.error();
    if (reply->kind != redis::Reply::Kind::kBulk) return Fail("unexpected reply to GETRANGE").error();
    // A missing key reads as "" (and no stored value is empty).
    if (reply->bulk.empty()) return std::optional<std::vector<uint8_t>>();
    return std::optional<std::vector<uint8_t>>(std::move(reply->bulk));
  }

  Status Put(const std::string& key, std::span<const uint8_t> value) override {
    std::lock_guard<std::mutex> lock(mutex_);
    IMAGELINT_TRY(ConnectLocked());
    const std::string ttl = std::to_string(options_.ttl_seconds);
    std::vector<std::string_view> args = {
        "SET", key, std::string_view(reinterpret_cast<const char*>(value.data()), value.size())};
    if (options_.ttl_seconds > 0) {
      args.push_back("EX");
      args.push_back(ttl);
    }
    auto reply = CommandLocked(args, kMaxStatusBulk);
    if (!reply.ok()) return reply.error();
    return OkStatus();
  }

  std::string Name() const override {
    std::string user = options_.username.empty() ? "" : options_.username + "@";
    std::string host = options_.host.find(':') != std::string::npos ? "[" + options_.host + "]" : options_.host;
    return (options_.tls ? "rediss://" : "redis://") + user + host + ":" + std::to_string(options_.port) + "/" +
           std::to_string(options_.db);
  }

 private:
  Status ConnectLocked() {
    // The first failure's message: whichever caller reports it names the cause.
    if (failed_) return MakeError(Name(), failure_);
    if (client_) return OkStatus();
    auto transport =
        redis::ConnectTcp(options_.host, options_.port, options_.connect_timeout, options_.command_timeout);
    if (!transport.ok()) return Fail("cannot connect: " + transport.error().message);
    if (options_.tls) {
      auto context = redis::MakeTlsContext(options_);
      if (!context.ok()) return Fail(context.error().ToString());
      transport = redis::StartTls(std::move(*transport), *context, options_.host, options_.connect_timeout,
                                  options_.command_timeout);
      if (!transport.ok()) return Fail("cannot connect: " + transport.error().message);
    }
    transport_ = std::move(*transport);
    client_ = std::make_unique<redis::RespClient>(*transport_);
    if (!options_.password.empty()) {
      std::vector<std::string_view> auth = {"AUTH"};
      if (!options_.username.empty()) auth.push_back(options_.username);
      auth.push_back(options_.password);
      auto reply = CommandLocked(auth, kMaxStatusBulk);
      if (!reply.ok()) return reply.error();
    }
    if (options_.db != 0) {
      const std::string db = std::to_string(options_.db);
      auto reply = CommandLocked({"SELECT", db}, kMaxStatusBulk);
      if (!reply.ok()) return reply.error();
    }
    return OkStatus();
  }

  Status Fail(const std::string& message) {
    failed_ = true;
    failure_ = message;
    client_.reset();
    transport_.reset();
    return MakeError(Name(), message);
  }

  // One command; its reply unless the connection failed, the reply broke
  // the protocol or the server answered with an error (-ERR, -WRONGPASS,
  // -OOM ...): those turn the store off, naming the command.
  Result<redis::Reply> CommandLocked(const std::vector<std::string_view>& args, size_t max_bulk) {
    auto reply = client_->Call(args, max_bulk, options_.request_timeout);
    const std::string command(args[0]);
    if (!reply.ok()) return Fail(command + ": " + reply.error().message).error();
    if (reply->kind == redis::Reply::Kind::kError)
      return Fail(command + ": " + redis::PrintableReply(reply->text)).error();
    return reply;
  }

  RedisOptions options_;
  std::mutex mutex_;
  std::unique_ptr<redis::Transport> transport_;
  std::unique_ptr<redis::RespClient> client_;  // over transport_
  bool failed_ = false;
  std::string failure_;
};

class FailSoftStore final : public LayerStore {
 public:
  FailSoftStore(std::shared_ptr<LayerStore> inner, std::function<void(const std::string&)> warn,
                std::chrono::milliseconds budget)
      : inner_(std::move(inner)), warn_(std::move(warn)), budget_(budget) {}

  Result<std::optional<std::vector<uint8_t>>> Get(const std::string& key, size_t max_bytes) override {
    if (off()) return std::optional<std::vector<uint8_t>>();
    const auto start = std::chrono::steady_clock::now();
    auto value = inner_->Get(key, max_bytes);
    if (!value.ok()) {
      TurnOff(value.error());
      return std::optional<std::vector<uint8_t>>();
    }
    if (!Charge(start)) return std::optional<std::vector<uint8_t>>();
    return value;
  }

  Status Put(const std::string& key, std::span<const uint8_t> value) override {
    if (off()) return OkStatus();
    const auto start = std::chrono::steady_clock::now();
    Status stored = inner_->Put(key, value);
    if (!stored.ok()) TurnOff(stored.error());
    else Charge(start);
    return OkStatus();
  }

  std::string Name() const override { return inner_->Name(); }

 private:
  bool off() {
    std::lock_guard<std::mutex> lock(mutex_);
    return off_;
  }
  void TurnOff(const Error& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (off_) return;
    off_ = true;
    if (warn_)
      warn_("shared cache not used from here on (layers are read locally): " + error.ToString());
  }

  // Adds the time since `start` to what the store has cost; past the budget
  // it is turned off (false).
  bool Charge(std::chrono::steady_clock::time_point start) {
    const auto took = std::chrono::steady_clock::now() - start;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      spent_ += took;
      if (spent_ <= budget_) return true;
    }
    TurnOff(MakeError(Name(), "took more than " + std::to_string(budget_.count()) +
                                  " ms in all (imagelint's budget for the shared cache per run)"));
    return false;
  }

  std::shared_ptr<LayerStore> inner_;
  std::function<void(const std::string&)> warn_;
  std::chrono::milliseconds budget_;
  std::chrono::steady_clock::duration spent_{0};
  std::mutex mutex_;
  bool off_ = false;
};

}  // namespace

Status CheckRedisTls(const RedisOptions& options) {
  if (!options.tls) return OkStatus();
  auto context = redis::MakeTlsContext(options);
  if (!context.ok()) return context.error();
  return OkStatus();
}

std::shared_ptr<LayerStore> OpenRedisStore(const RedisOptions& options) {
  return std::make_shared<RedisStore>(options);
}

std::shared_ptr<LayerStore> FailSoft(std::shared_ptr<LayerStore> inner, std::function<void(const std::string&)> warn,
                                     std::chrono::milliseconds budget) {
  return std::make_shared<FailSoftStore>(std::move(inner), std::move(warn), budget);
}

}  // namespace imagelint
