// The shared layer store on Redis (Debian's libhiredis, synchronous API).
// Values are read with GETRANGE so that a huge value planted under our key
// is never read whole; every connect and command has a timeout; a failed
// connection is never reused. Redis protocol reference:
// "Redis commands" https://redis.io/docs/latest/commands/ (GETRANGE, SET EX,
// AUTH, SELECT).
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <mutex>

#include <hiredis/hiredis.h>

#include "common/text.h"
#include "imagelint/layer_store.h"

namespace imagelint {
namespace {

constexpr char kRedisScheme[] = "redis://";

bool AllDigits(const std::string& text) {
  return !text.empty() && text.size() <= 9 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

timeval ToTimeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

struct ReplyDeleter {
  void operator()(redisReply* reply) const {
    if (reply) freeReplyObject(reply);
  }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

class RedisStore final : public LayerStore {
 public:
  explicit RedisStore(RedisOptions options) : options_(std::move(options)) {}
  ~RedisStore() override {
    if (context_) redisFree(context_);
  }

  Result<std::optional<std::vector<uint8_t>>> Get(const std::string& key, size_t max_bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    IMAGELINT_TRY(ConnectLocked());
    // GETRANGE's end is inclusive: max_bytes + 1 bytes tell "too large".
    auto reply = CommandLocked({"GETRANGE", key, "0", std::to_string(max_bytes)});
    if (!reply.ok()) return reply.error();
    redisReply* r = reply->get();
    if (r->type != REDIS_REPLY_STRING) return MakeError(Name(), "unexpected reply to GETRANGE");
    // A missing key reads as "" (and no stored value is empty).
    if (r->len == 0) return std::optional<std::vector<uint8_t>>();
    return std::optional<std::vector<uint8_t>>(std::vector<uint8_t>(r->str, r->str + r->len));
  }

  Status Put(const std::string& key, std::span<const uint8_t> value) override {
    std::lock_guard<std::mutex> lock(mutex_);
    IMAGELINT_TRY(ConnectLocked());
    std::vector<std::string> args = {"SET", key, std::string(value.begin(), value.end())};
    if (options_.ttl_seconds > 0) {
      args.push_back("EX");
      args.push_back(std::to_string(options_.ttl_seconds));
    }
    auto reply = CommandLocked(args);
    if (!reply.ok()) return reply.error();
    return OkStatus();
  }

  std::string Name() const override {
    std::string user = options_.username.empty() ? "" : options_.username + "@";
    return kRedisScheme + user + options_.host + ":" + std::to_string(options_.port) + "/" +
           std::to_string(options_.db);
  }

 private:
  Status ConnectLocked() {
    // The first failure's message: whichever caller reports it names the cause.
    if (failed_) return MakeError(Name(), failure_);
    if (context_) return OkStatus();
    // A server that goes away mid-write must cost an error, not the process.
    std::signal(SIGPIPE, SIG_IGN);
    context_ = redisConnectWithTimeout(options_.host.c_str(), options_.port, ToTimeval(options_.connect_timeout));
    if (context_ == nullptr) return Fail("cannot allocate a connection");
    if (context_->err) return Fail(std::string("cannot connect: ") + context_->errstr);
    if (redisSetTimeout(context_, ToTimeval(options_.command_timeout)) != REDIS_OK)
      return Fail("cannot set the command timeout");
    if (!options_.password.empty()) {
      std::vector<std::string> auth = {"AUTH"};
      if (!options_.username.empty()) auth.push_back(options_.username);
      auth.push_back(options_.password);
      auto reply = CommandLocked(auth);
      if (!reply.ok()) return reply.error();
    }
    if (options_.db != 0) {
      auto reply = CommandLocked({"SELECT", std::to_string(options_.db)});
      if (!reply.ok()) return reply.error();
    }
    return OkStatus();
  }

  Status Fail(const std::string& message) {
    failed_ = true;
    failure_ = message;
    if (context_) {
      redisFree(context_);
      context_ = nullptr;
    }
    return MakeError(Name(), message);
  }

  Result<Reply> CommandLocked(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (const auto& arg : args) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    Reply reply(static_cast<redisReply*>(
        redisCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data())));
    if (!reply) {
      std::string why = context_->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK)
                            ? "timed out after " + std::to_string(options_.command_timeout.count()) + " ms"
                            : std::string(context_->errstr);
      return Fail(args[0] + ": " + why).error();
    }
    if (reply->type == REDIS_REPLY_ERROR) {
      std::string why(reply->str, reply->len);
      return Fail(args[0] + ": " + why).error();
    }
    return reply;
  }

  RedisOptions options_;
  std::mutex mutex_;
  redisContext* context_ = nullptr;
  bool failed_ = false;
  std::string failure_;
};

class FailSoftStore final : public LayerStore {
 public:
  FailSoftStore(std::shared_ptr<LayerStore> inner, std::function<void(const std::string&)> warn)
      : inner_(std::move(inner)), warn_(std::move(warn)) {}

  Result<std::optional<std::vector<uint8_t>>> Get(const std::string& key, size_t max_bytes) override {
    if (off()) return std::optional<std::vector<uint8_t>>();
    auto value = inner_->Get(key, max_bytes);
    if (value.ok()) return value;
    TurnOff(value.error());
    return std::optional<std::vector<uint8_t>>();
  }

  Status Put(const std::string& key, std::span<const uint8_t> value) override {
    if (off()) return OkStatus();
    Status stored = inner_->Put(key, value);
    if (!stored.ok()) TurnOff(stored.error());
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

  std::shared_ptr<LayerStore> inner_;
  std::function<void(const std::string&)> warn_;
  std::mutex mutex_;
  bool off_ = false;
};

}  // namespace

Result<RedisOptions> ParseRedisUrl(const std::string& url) {
  const std::string subject = "--cache-backend";
  if (StartsWith(url, "rediss://"))
    return MakeError(subject, "rediss:// (TLS) is not supported: Debian's hiredis 0.14 has no TLS; reach the server "
                              "through a TLS tunnel (e.g. stunnel) and give redis://");
  if (!StartsWith(url, kRedisScheme))
    return MakeError(subject, "'" + url + "' is not a redis://HOST[:PORT][/DB] URL");
  RedisOptions options;
  std::string rest = url.substr(sizeof kRedisScheme - 1);
  std::string path;
  if (size_t slash = rest.find('/'); slash != std::string::npos) {
    path = rest.substr(slash + 1);
    rest.resize(slash);
  }
  if (size_t at = rest.rfind('@'); at != std::string::npos) {
    std::string user = rest.substr(0, at);
    if (user.find(':') != std::string::npos)
      return MakeError(subject, "no password in the URL (it would show in process lists and CI logs): set "
                                "IMAGELINT_REDIS_PASSWORD");
    options.username = user;
    rest = rest.substr(at + 1);
  }
  std::string port;
  if (StartsWith(rest, "[")) {  // [IPv6]:port
    size_t close = rest.find(']');
    if (close == std::string::npos) return MakeError(subject, "unclosed '[' in '" + url + "'");
    options.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return MakeError(subject, "expected ':PORT' after ']' in '" + url + "'");
      port = rest.substr(close + 2);
    }
  } else if (size_t colon = rest.rfind(':'); colon != std::string::npos) {
    options.host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  } else {
    options.host = rest;
  }
  if (options.host.empty()) return MakeError(subject, "no host in '" + url + "'");
  if (!port.empty()) {
    if (!AllDigits(port) || std::stoi(port) < 1 || std::stoi(port) > 65535)
      return MakeError(subject, "port '" + port + "' is not a number from 1 to 65535");
    options.port = std::stoi(port);
  }
  if (!path.empty()) {
    if (!AllDigits(path) || std::stoi(path) > 65535)
      return MakeError(subject, "database '" + path + "' is not a number (redis://HOST:PORT/DB)");
    options.db = std::stoi(path);
  }
  return options;
}

std::shared_ptr<LayerStore> OpenRedisStore(const RedisOptions& options) {
  return std::make_shared<RedisStore>(options);
}

std::shared_ptr<LayerStore> FailSoft(std::shared_ptr<LayerStore> inner,
                                     std::function<void(const std::string&)> warn) {
  return std::make_shared<FailSoftStore>(std::move(inner), std::move(warn));
}

}  // namespace imagelint
