#include "registry/client.h"

#include <chrono>

#include <algorithm>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "registry/auth.h"
#include "registry/documents.h"

namespace imagelint::registry {
namespace {

constexpr int kMaxRedirects = 10;
constexpr int kMaxAuthRounds = 2;
constexpr uint64_t kMaxErrorBody = 64 * 1024;
constexpr uint64_t kMaxTokenBody = 1 << 20;

std::string BaseContentType(const std::string& value) {
  std::string type = value.substr(0, value.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  return ToLower(type);
}

std::string Clip(std::string text, size_t limit = 200) {
  for (auto& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

}  // namespace

Client::Client(Reference ref, RegistryOptions options) : ref_(std::move(ref)), options_(std::move(options)) {
  insecure_ = IsLoopbackHost(ref_.ApiHost()) ||
              std::find(options_.insecure_registries.begin(), options_.insecure_registries.end(), ref_.registry) !=
                  options_.insecure_registries.end() ||
              std::find(options_.insecure_registries.begin(), options_.insecure_registries.end(), ref_.ApiHost()) !=
                  options_.insecure_registries.end();
  if (options_.credentials) {
    credentials_ = options_.credentials;
    credentials_loaded_ = true;
  }
}

HttpConfig Client::Config(bool verify) const {
  HttpConfig config;
  config.ca_file = options_.ca_file;
  config.connect_to = options_.connect_to;
  config.verify_tls = verify;
  config.connect_timeout_seconds = options_.connect_timeout_seconds;
  config.idle_timeout_seconds = options_.idle_timeout_seconds;
  if (options_.deadline) {
    // What is left of the caller's budget bounds each request: the connection
    // and the response's head to the millisecond, a body's stalls in whole
    // seconds (curl's stall limit; at least one).
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*options_.deadline - std::chrono::steady_clock::now());
    long seconds = std::max<long>(1, static_cast<long>((left.count() + 999) / 1000));
    config.connect_timeout_seconds = std::min(config.connect_timeout_seconds, seconds);
    config.idle_timeout_seconds = std::min(config.idle_timeout_seconds, seconds);
    config.response_deadline = options_.deadline;  // to the millisecond until the response's head
  }
  return config;
}

void Client::Backoff(int attempt, const std::string& retry_after) const {
  int64_t delay = options_.backoff_initial_ms;
  for (int i = 1; i < attempt && delay < options_.backoff_max_ms; ++i) delay *= 2;
  if (!retry_after.empty() && std::all_of(retry_after.begin(), retry_after.end(), ::isdigit) && retry_after.size() < 6) {
    delay = std::max<int64_t>(delay, std::stoll(retry_after) * 1000);
  }
  delay = std::min<int64_t>(delay, options_.backoff_max_ms);
  std::this_thread::sleep_for(std::chrono::milliseconds(delay));
}

Status Client::EnsureBase() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!base_.empty()) return OkStatus();
  const std::string host = ref_.ApiHost();
  if (!insecure_) {
    base_ = "https://" + host;
    return OkStatus();
  }
  // Like Docker for insecure registries: HTTPS without verification first,
  // plain HTTP when the host does not speak TLS.
  HttpRequest probe;
  probe.url = "https://" + host + "/v2/";
  HttpConfig config = Config(false);
  // A TLS handshake is milliseconds on the networks insecure registries live
  // on; a plain-HTTP server that never answers a ClientHello must not spend
  // the caller's budget (or 10 s) before the HTTP attempt.
  constexpr auto kProbe = std::chrono::seconds(2);
  config.connect_timeout_seconds = std::min<long>(config.connect_timeout_seconds, kProbe.count());
  auto probe_deadline = std::chrono::steady_clock::now() + kProbe;
  config.response_deadline = config.response_deadline ? std::min(*config.response_deadline, probe_deadline) : probe_deadline;
  OpenFailure failure;
  auto stream = OpenHttp(probe, config, &failure);
  base_ = stream.ok() ? "https://" + host : "http://" + host;
  return OkStatus();
}

Result<std::optional<Credentials>> Client::Creds() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!credentials_loaded_) {
    auto found = LookupCredentials(ref_, options_.credential_stores);
    if (!found.ok()) return found.error();
    credentials_ = *found;
    credentials_loaded_ = true;
  }
  return credentials_;
}

std::string Client::Authorization() {
  std::lock_guard<std::mutex> lock(mutex_);
  return authorization_;
}

Result<std::string> Client::FetchToken(const std::string& realm, const std::string& service,
                                       const std::string& scope) {
  auto credentials = Creds();
  if (!credentials.ok()) return credentials.error();
  const std::string subject = ref_.ToString();
  std::string lower_realm = ToLower(realm);
  if (!lower_realm.starts_with("https://") && !lower_realm.starts_with("http://")) {
    return MakeError(subject, "token realm is not an HTTP URL: " + Clip(realm));
  }
  HttpRequest request;
  request.display = "token server " + Clip(realm.substr(0, realm.find('?')));
  if (*credentials && (*credentials)->identity_token) {
    // OAuth2 refresh-token grant (distribution auth/oauth.md).
    request.method = "POST";
    request.url = realm;
    request.headers.push_back("Content-Type: application/x-www-form-urlencoded");
    request.body = "grant_type=refresh_token&client_id=imagelint&service=" + UrlEscape(service) +
                   "&scope=" + UrlEscape(scope) + "&refresh_token=" + UrlEscape((*credentials)->password);
  } else {
    request.url = realm + (realm.find('?') == std::string::npos ? "?" : "&");
    request.url += "service=" + UrlEscape(service);
    if (!scope.empty()) request.url += "&scope=" + UrlEscape(scope);
    if (*credentials) {
      request.authorization =
          "Basic " + Base64Encode((*credentials)->username + ":" + (*credentials)->password);
    }
  }
  // A realm that does not parse as a URL has no origin: it is never treated
  // as loopback, so its certificate is verified (curl then reports the URL).
  const std::string realm_origin = UrlOrigin(realm);
  const size_t scheme_end = realm_origin.find("://");
  const bool realm_loopback =
      scheme_end != std::string::npos && IsLoopbackHost(realm_origin.substr(scheme_end + 3));
  bool verify = !(realm_loopback && insecure_);
  for (int attempt = 1;; ++attempt) {
    OpenFailure failure;
    auto stream = OpenHttp(request, Config(verify), &failure);
    if (!stream.ok()) {
      if (failure.retryable && attempt < options_.max_attempts) {
        Backoff(attempt, "");
        continue;
      }
      return MakeError(subject, "cannot get a token: " + stream.error().ToString());
    }
    long status = (*stream)->head().status;
    if ((status == 429 || status >= 500) && attempt < options_.max_attempts) {
      Backoff(attempt, (*stream)->head().Header("retry-after"));
      continue;
    }
    auto body = ReadAll(**stream, kMaxTokenBody);
    if (!body.ok()) {
      if ((*stream)->last_failure_retryable() && attempt < options_.max_attempts) {
        Backoff(attempt, "");
        continue;
      }
      return MakeError(subject, "cannot get a token: " + body.error().ToString());
    }
    if (status == 401 || status == 403) {
      return MakeError(subject, std::string("authentication failed: the token server refused ") +
                                    (*credentials ? "the credentials" : "anonymous access") + " (HTTP " +
                                    std::to_string(status) + ")");
    }
    if (status != 200) {
      return MakeError(subject, "cannot get a token: the token server answered HTTP " + std::to_string(status));
    }
    return TokenFromAnswer(std::string_view(reinterpret_cast<const char*>(body->data()), body->size()), subject);
  }
}

Status Client::Authenticate(const HttpHead& head, const std::string& what) {
  std::vector<Challenge> challenges;
  for (const auto& value : head.All("www-authenticate")) {
    auto parsed = ParseChallenges(value);
    challenges.insert(challenges.end(), parsed.begin(), parsed.end());
  }
  const Challenge* bearer = nullptr;
  const Challenge* basic = nullptr;
  for (const auto& challenge : challenges) {
    if (challenge.scheme == "bearer" && !bearer) bearer = &challenge;
    if (challenge.scheme == "basic" && !basic) basic = &challenge;
  }
  if (bearer) {
    auto realm = bearer->params.find("realm");
    if (realm == bearer->params.end() || realm->second.empty()) {
      return MakeError(ref_.ToString(), "401 with a Bearer challenge without a realm");
    }
    std::string service = bearer->params.count("service") ? bearer->params.at("service") : std::string();
    std::string scope = bearer->params.count("scope") ? bearer->params.at("scope")
                                                      : "repository:" + ref_.repository + ":pull";
    auto token = FetchToken(realm->second, service, scope);
    if (!token.ok()) return token.error();
    std::lock_guard<std::mutex> lock(mutex_);
    authorization_ = "Bearer " + *token;
    return OkStatus();
  }
  if (basic) {
    auto credentials = Creds();
    if (!credentials.ok()) return credentials.error();
    if (!*credentials || (*credentials)->identity_token) {
      return MakeError(ref_.ToString(), "authentication required (HTTP 401, Basic) for " + what +
                                            ": log in (docker login / REGISTRY_AUTH_FILE) or pass "
                                            "--username and --password-stdin");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    authorization_ = "Basic " + Base64Encode((*credentials)->username + ":" + (*credentials)->password);
    return OkStatus();
  }
  return MakeError(ref_.ToString(), "HTTP 401 for " + what + " without a usable WWW-Authenticate challenge");
}

Error Client::StatusError(long status, const std::string& body, const std::string& what) const {
  auto [code, message] = ReadErrorBody(body);
  std::string detail = "HTTP " + std::to_string(status);
  if (!code.empty()) detail += " " + Clip(code, 64);
  if (!message.empty()) detail += ": " + Clip(message);
  const std::string subject = ref_.ToString();
  switch (status) {
    case 401:
      return MakeError(subject, "authentication failed for " + what + " (" + detail +
                                    "): check the credentials (docker login / REGISTRY_AUTH_FILE / --username)");
    case 403:
      return MakeError(subject, "access denied to " + what + " (" + detail + ")");
    case 404:
      return MakeError(subject, what + " not found (" + detail + ")");
    case 429:
      return MakeError(subject, "rate limited while fetching " + what + " (" + detail + "), gave up after " +
                                    std::to_string(options_.max_attempts) + " attempts");
    default:
      if (status >= 500) {
        return MakeError(subject, "registry error for " + what + " (" + detail + "), gave up after " +
                                      std::to_string(options_.max_attempts) + " attempts");
      }
      return MakeError(subject, "unexpected answer for " + what + " (" + detail + ")");
  }
}

Result<std::unique_ptr<HttpStream>> Client::Get(const std::string& path_suffix,
                                                const std::vector<std::string>& headers, uint64_t range_start,
                                                const std::string& what) {
  IMAGELINT_TRY(EnsureBase());
  std::string base;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    base = base_;
  }
  const std::string origin = UrlOrigin(base);
  const std::string url = base + "/v2/" + ref_.repository + "/" + path_suffix;
  int auth_rounds = 0;
  for (int attempt = 1;; ++attempt) {
    std::string current = url;
    const std::string authorization = Authorization();
    enum class Next { kRetry, kReauth } next = Next::kRetry;
    std::string retry_after;
    for (int hop = 0;; ++hop) {
      if (hop > kMaxRedirects) return MakeError(ref_.ToString(), "too many redirects for " + what);
      // An unparsable URL has an empty origin, which matches nothing.
      const bool same_origin = !origin.empty() && UrlOrigin(current) == origin;
      HttpRequest request;
      request.url = current;
      request.headers = headers;
      request.range_start = range_start;
      // Never send the registry's credentials to another host (spec.md).
      if (same_origin) request.authorization = authorization;
      request.display = what + " of " + ref_.ToString();
      OpenFailure failure;
      auto stream = OpenHttp(request, Config(!(insecure_ && same_origin)), &failure);
      if (!stream.ok()) {
        if (failure.retryable && attempt < options_.max_attempts) break;
        return MakeError(ref_.ToString(), stream.error().message + " (fetching " + what + ", " +
                                              std::to_string(attempt) + " attempt" + (attempt > 1 ? "s" : "") + ")");
      }
      const HttpHead& head = (*stream)->head();
      long status = head.status;
      if (status >= 200 && status < 300) return std::move(*stream);
      if (status == 301 || status == 302 || status == 303 || status == 307 || status == 308) {
        std::string location = head.Header("location");
        if (location.empty()) return MakeError(ref_.ToString(), "redirect without a Location for " + what);
        auto resolved = ResolveUrl(current, location);
        if (!resolved.ok()) return MakeError(ref_.ToString(), resolved.error().message + " (" + what + ")");
        current = *resolved;
        continue;
      }
      if (status == 401 && same_origin && auth_rounds < kMaxAuthRounds && !head.All("www-authenticate").empty() &&
          (authorization.empty() || auth_rounds == 0)) {
        ++auth_rounds;
        IMAGELINT_TRY(Authenticate(head, what));
        next = Next::kReauth;
        break;
      }
      if ((status == 429 || status >= 500) && attempt < options_.max_attempts) {
        retry_after = head.Header("retry-after");
        break;
      }
      auto body = ReadAll(**stream, kMaxErrorBody);
      std::string text = body.ok() ? std::string(body->begin(), body->end()) : std::string();
      return StatusError(status, text, what);
    }
    if (next == Next::kReauth) {
      --attempt;  // authentication is not a failed attempt
      continue;
    }
    Backoff(attempt, retry_after);
  }
}

Result<HttpHead> Client::Send(const std::string& method, const std::string& target,
                              const std::vector<std::string>& headers, const std::string& body,
                              const std::string& what) {
  IMAGELINT_TRY(EnsureBase());
  std::string base;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    base = base_;
  }
  std::string url;
  if (target.starts_with("http://") || target.starts_with("https://") || target.starts_with("/")) {
    auto resolved = ResolveUrl(base + "/v2/", target);
    if (!resolved.ok()) return MakeError(ref_.ToString(), resolved.error().message + " (" + what + ")");
    url = *resolved;
  } else {
    url = base + "/v2/" + ref_.repository + "/" + target;
  }
  const bool same_origin = UrlOrigin(url) == UrlOrigin(base);
  for (int round = 0;; ++round) {
    HttpRequest request;
    request.method = method;
    request.url = url;
    request.headers = headers;
    request.body = body;
    if (same_origin) request.authorization = Authorization();  // never to another host
    request.display = what + " of " + ref_.ToString();
    auto stream = OpenHttp(request, Config(!(insecure_ && same_origin)), nullptr);
    if (!stream.ok()) return MakeError(ref_.ToString(), stream.error().message + " (" + what + ")");
    const HttpHead head = (*stream)->head();
    if (head.status >= 200 && head.status < 300) return head;
    if (head.status == 401 && round == 0 && same_origin && !head.All("www-authenticate").empty()) {
      IMAGELINT_TRY(Authenticate(head, what));
      continue;
    }
    auto answer = ReadAll(**stream, kMaxErrorBody);
    return StatusError(head.status, answer.ok() ? std::string(answer->begin(), answer->end()) : std::string(), what);
  }
}

Result<Client::Document> Client::GetDocument(const std::string& path_suffix, const std::vector<std::string>& headers,
                                             uint64_t limit, const std::string& what) {
  for (int attempt = 1;; ++attempt) {
    auto stream = Get(path_suffix, headers, 0, what);
    if (!stream.ok()) return stream.error();
    Document document;
    document.content_type = BaseContentType((*stream)->head().Header("content-type"));
    document.docker_digest = (*stream)->head().Header("docker-content-digest");
    document.link = (*stream)->head().Header("link");
    auto bytes = ReadAll(**stream, limit);
    if (!bytes.ok()) {
      if ((*stream)->last_failure_retryable() && attempt < options_.max_attempts) {
        Backoff(attempt, "");
        continue;
      }
      return MakeError(ref_.ToString(), bytes.error().message + " (reading " + what + ")");
    }
    document.bytes = std::move(*bytes);
    return document;
  }
}

}  // namespace imagelint::registry
