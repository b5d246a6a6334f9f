#include "registry/auth.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/file_text.h"
#include "common/json.h"
#include "common/text.h"

extern char** environ;

namespace imagelint::registry {
namespace {

constexpr size_t kMaxAuthFileBytes = 4 << 20;
constexpr size_t kMaxHelperOutput = 1 << 20;
constexpr int kHelperTimeoutMs = 30000;

bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("!#$%&'*+-.^_`|~/=:", c) != nullptr;
}

// "user:password" -> Credentials (split at the first ':'; NULs trimmed).
Result<Credentials> SplitUserPassword(const std::string& decoded, const std::string& subject) {
  size_t colon = decoded.find(':');
  if (colon == std::string::npos) return MakeError(subject, "auth entry is not base64(user:password)");
  Credentials credentials;
  credentials.username = decoded.substr(0, colon);
  credentials.password = decoded.substr(colon + 1);
  while (!credentials.password.empty() && credentials.password.back() == '\0') credentials.password.pop_back();
  if (credentials.username.empty()) return MakeError(subject, "auth entry has an empty user name");
  return credentials;
}

// Candidate keys of `ref` in an auths map, most specific first.
std::vector<std::string> AuthKeys(const Reference& ref) {
  std::vector<std::string> keys;
  std::string path = ref.registry + "/" + ref.repository;
  // containers-auth.json allows host/namespace keys: most specific first.
  for (;;) {
    keys.push_back(path);
    size_t slash = path.rfind('/');
    if (slash == std::string::npos) break;
    path = path.substr(0, slash);
  }
  keys.push_back("https://" + ref.registry);
  keys.push_back("http://" + ref.registry);
  keys.push_back("https://" + ref.registry + "/v1/");
  keys.push_back("https://" + ref.registry + "/v2/");
  if (ref.registry == "docker.io") {
    for (const char* key : {"https://index.docker.io/v1/", "index.docker.io", "registry-1.docker.io",
                            "https://registry-1.docker.io"}) {
      keys.push_back(key);
    }
  }
  return keys;
}

}  // namespace

std::vector<Challenge> ParseChallenges(const std::string& header) {
  std::vector<Challenge> challenges;
  size_t i = 0;
  const size_t n = header.size();
  auto skip_space = [&] {
    while (i < n && (header[i] == ' ' || header[i] == '\t')) ++i;
  };
  while (i < n && challenges.size() < 16) {
    skip_space();
    while (i < n && header[i] == ',') {
      ++i;
      skip_space();
    }
    size_t start = i;
    while (i < n && IsTokenChar(header[i]) && header[i] != '=') ++i;
    if (i == start) {
      ++i;  // garbage: skip a character
      continue;
    }
    std::string word = header.substr(start, i - start);
    skip_space();
    if (i < n && header[i] == '=' && !challenges.empty()) {
      // A parameter of the current challenge.
      ++i;
      skip_space();
      std::string value;
      if (i < n && header[i] == '"') {
        ++i;
        while (i < n && header[i] != '"') {
          if (header[i] == '\\' && i + 1 < n) ++i;
          value += header[i++];
        }
        if (i < n) ++i;
      } else {
        while (i < n && header[i] != ',' && header[i] != ' ') value += header[i++];
      }
      challenges.back().params[ToLower(word)] = value;
      skip_space();
      if (i < n && header[i] == ',') ++i;
    } else {
      Challenge challenge;
      challenge.scheme = ToLower(word);
      challenges.push_back(std::move(challenge));
    }
  }
  return challenges;
}

std::string Base64Encode(const std::string& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  while (i + 2 < bytes.size()) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out += alphabet[v >> 18];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += alphabet[v & 63];
    i += 3;
  }
  if (i + 1 == bytes.size()) {
    uint32_t v = uint8_t(bytes[i]) << 16;
    out += alphabet[v >> 18];
    out += alphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    out += alphabet[v >> 18];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

Result<std::string> Base64Decode(const std::string& text) {
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+' || c == '-') v = 62;
    else if (c == '/' || c == '_') v = 63;
    else if (c == '=' || c == '\n' || c == '\r') continue;
    else return MakeError("", "invalid base64");
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return out;
}

Result<std::optional<Credentials>> CredentialsFromConfig(const std::string& text, const std::string& file,
                                                         const Reference& ref) {
  auto parsed = ParseJson(text, file);
  if (!parsed.ok()) return parsed.error();
  const nlohmann::json config = std::move(*parsed);
  if (!config.is_object()) return MakeError(file, "not a JSON object");
  auto string_at = [](const nlohmann::json& object, const std::string& key) { return StringField(object, key); };
  const std::string server = ref.CredentialKey();
  // credHelpers[host] first, then credsStore, then auths (docker/cli order).
  if (auto helpers = config.find("credHelpers"); helpers != config.end() && helpers->is_object()) {
    for (const std::string& key : {ref.registry, server}) {
      std::string helper = string_at(*helpers, key);
      if (!helper.empty()) return CredentialsFromHelper(helper, server);
    }
  }
  std::string store = string_at(config, "credsStore");
  if (!store.empty()) {
    auto from_store = CredentialsFromHelper(store, server);
    if (!from_store.ok() || from_store->has_value()) return from_store;
  }
  auto auths = config.find("auths");
  if (auths == config.end() || !auths->is_object()) return std::optional<Credentials>();
  for (const std::string& key : AuthKeys(ref)) {
    auto entry = auths->find(key);
    if (entry == auths->end() || !entry->is_object()) continue;
    const std::string subject = file + ": auths[\"" + key + "\"]";
    std::string identity = string_at(*entry, "identitytoken");
    std::string auth = string_at(*entry, "auth");
    if (!auth.empty()) {
      auto decoded = Base64Decode(auth);
      if (!decoded.ok()) return MakeError(subject, "auth is not valid base64");
      auto credentials = SplitUserPassword(*decoded, subject);
      if (!credentials.ok()) return credentials.error();
      if (!identity.empty()) {
        credentials->password = identity;
        credentials->identity_token = true;
      }
      return std::optional<Credentials>(std::move(*credentials));
    }
    std::string username = string_at(*entry, "username");
    std::string password = string_at(*entry, "password");
    if (!username.empty()) return std::optional<Credentials>(Credentials{username, password, false});
    if (!identity.empty()) return std::optional<Credentials>(Credentials{"<token>", identity, true});
  }
  return std::optional<Credentials>();
}

Result<std::optional<Credentials>> CredentialsFromHelper(const std::string& helper, const std::string& server) {
  const std::string program = "docker-credential-" + helper;
  const std::string subject = "credential helper " + program;
  for (char c : helper) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return MakeError(subject, "invalid helper name");
    }
  }
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0) return MakeError(subject, "pipe failed");
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    return MakeError(subject, "pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (devnull >= 0) posix_spawn_file_actions_adddup2(&actions, devnull, 2);
  std::string arg0 = program, arg1 = "get";
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in_pipe[0]);
  close(out_pipe[1]);
  if (devnull >= 0) close(devnull);
  if (rc != 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    return MakeError(subject, std::string("cannot run: ") + std::strerror(rc));
  }
  // The server URL is tiny: a single write fits the pipe buffer.
  signal(SIGPIPE, SIG_IGN);
  ssize_t ignored = write(in_pipe[1], server.data(), server.size());
  (void)ignored;
  close(in_pipe[1]);
  std::string output;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kHelperTimeoutMs);
  bool timed_out = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd fd{out_pipe[0], POLLIN, 0};
    int ready = poll(&fd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    char chunk[4096];
    ssize_t n = read(out_pipe[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output.append(chunk, static_cast<size_t>(n));
    if (output.size() > kMaxHelperOutput) break;
  }
  close(out_pipe[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) return MakeError(subject, "did not answer within 30 seconds");
  if (output.size() > kMaxHelperOutput) return MakeError(subject, "answer too large");
  bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!exited_ok) {
    // docker-credential-helpers print "credentials not found in native keychain".
    if (output.find("credentials not found") != std::string::npos) return std::optional<Credentials>();
    // The helper's output may echo secrets: do not quote it.
    return MakeError(subject, "failed for " + server + " (exit status " +
                                  std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) +
                                  ")");
  }
  auto parsed = ParseJson(output, subject);
  if (!parsed.ok()) return MakeError(subject, "answer is not JSON");
  const nlohmann::json answer = std::move(*parsed);
  if (!answer.is_object() || !answer.contains("Secret") || !answer["Secret"].is_string()) {
    return MakeError(subject, "answer has no Secret");
  }
  Credentials credentials;
  credentials.username = StringField(answer, "Username");
  credentials.password = answer["Secret"].get<std::string>();
  credentials.identity_token = credentials.username == "<token>";
  if (credentials.password.empty() && credentials.username.empty()) return std::optional<Credentials>();
  return std::optional<Credentials>(std::move(credentials));
}

Result<std::optional<Credentials>> LookupCredentials(const Reference& ref, const CredentialStores& stores) {
  // A credential file that is missing, not regular or too large is skipped, as
  // skopeo and podman skip it.
  auto read_file = [](const std::string& path) -> std::optional<std::string> {
    auto text = ReadBoundedFile(path, kMaxAuthFileBytes, "credential file", FileKinds::kRegularOnly);
    if (!text.ok()) return std::nullopt;
    return std::move(*text);
  };
  // skopeo/podman order first (containers-auth.json(5):
  // https://github.com/containers/image/blob/main/docs/containers-auth.json.5.md),
  // then Docker's ~/.docker/config.json.
  std::vector<std::string> files;
  if (!stores.registry_auth_file.empty()) {
    files.push_back(stores.registry_auth_file);
  } else if (!stores.xdg_runtime_dir.empty()) {
    files.push_back(stores.xdg_runtime_dir + "/containers/auth.json");
  }
  for (const auto& file : files) {
    if (auto text = read_file(file)) {
      auto found = CredentialsFromConfig(*text, file, ref);
      if (!found.ok() || found->has_value()) return found;
    }
  }
  if (!stores.docker_auth_config.empty()) {
    auto found = CredentialsFromConfig(stores.docker_auth_config, "DOCKER_AUTH_CONFIG", ref);
    if (!found.ok() || found->has_value()) return found;
  }
  std::string docker_dir = stores.docker_config;
  if (docker_dir.empty() && !stores.home.empty()) docker_dir = stores.home + "/.docker";
  if (!docker_dir.empty()) {
    std::string file = docker_dir + "/config.json";
    if (auto text = read_file(file)) return CredentialsFromConfig(*text, file, ref);
  }
  return std::optional<Credentials>();
}

}  // namespace imagelint::registry
