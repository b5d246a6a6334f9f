// --cache-backend's URL: redis://[USER@]HOST[:PORT][/DB] and the same with
// rediss:// for TLS (the schemes of the Redis URI registration,
// https://www.iana.org/assignments/uri-schemes/prov/redis and
// https://www.iana.org/assignments/uri-schemes/prov/rediss).
#include <algorithm>

#include "common/text.h"
#include "imagelint/layer_store.h"

namespace imagelint {
namespace {

constexpr char kRedisScheme[] = "redis://";
constexpr char kTlsScheme[] = "rediss://";

bool AllDigits(const std::string& text) {
  return !text.empty() && text.size() <= 9 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

Result<RedisOptions> ParseRedisUrl(const std::string& url) {
  const std::string subject = "--cache-backend";
  RedisOptions options;
  std::string rest;
  if (StartsWith(url, kTlsScheme)) {
    options.tls = true;
    rest = url.substr(sizeof kTlsScheme - 1);
  } else if (StartsWith(url, kRedisScheme)) {
    rest = url.substr(sizeof kRedisScheme - 1);
  } else {
    return MakeError(subject, "'" + url + "' is not a redis://HOST[:PORT][/DB] or rediss://HOST[:PORT][/DB] URL");
  }
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

}  // namespace imagelint
