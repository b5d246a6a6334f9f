#include "registry/registry_fixture.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <random>
#include <stdexcept>

extern char** environ;

namespace imagelint::testing {
namespace {

constexpr int kIoTimeoutMs = 10000;

std::string Lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

int ListenLoopback(int* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 64) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot listen on loopback");
  }
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  *port = ntohs(address.sin_port);
  return fd;
}

int ConnectLoopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads until `stop` says the data is complete, EOF, a timeout or `limit`.
std::string ReadSome(int fd, size_t limit, const std::function<bool(const std::string&)>& stop) {
  std::string data;
  char buffer[65536];
  while (data.size() < limit) {
    if (stop && stop(data)) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, kIoTimeoutMs) <= 0) break;
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    data.append(buffer, static_cast<size_t>(n));
  }
  return data;
}

std::string Response(int status, const std::string& reason, const std::string& body,
                     const std::vector<std::string>& headers = {}) {
  std::string text = "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n";
  for (const auto& header : headers) text += header + "\r\n";
  text += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  return text + body;
}

}  // namespace

int FreeLoopbackPort() {
  int port = 0;
  int fd = ListenLoopback(&port);
  ::close(fd);
  return port;
}

bool HaveRegistryTools() {
  return HaveProgram("/usr/bin/docker-registry") && HaveProgram("skopeo");
}

void WriteAllTo(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

void ResetConnection(int fd) {
  linger option{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, sizeof option);
  ::close(fd);
}

// ------------------------------------------------------------ LoopbackServer

LoopbackServer::LoopbackServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = ListenLoopback(&port_);
  thread_ = std::thread([this] { Serve(); });
}

LoopbackServer::~LoopbackServer() {
  stop_ = true;
  thread_.join();
  for (auto& worker : workers_) worker.join();
  ::close(listen_fd_);
}

std::vector<SeenRequest> LoopbackServer::Requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

void LoopbackServer::Serve() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    workers_.emplace_back([this, fd] {
      std::string head = ReadSome(fd, 64 * 1024, [](const std::string& d) { return d.find("\r\n\r\n") != std::string::npos; });
      size_t end = head.find("\r\n\r\n");
      if (end == std::string::npos) {
        ::close(fd);  // not HTTP (a TLS probe) or nothing
        return;
      }
      SeenRequest request;
      size_t line_end = head.find("\r\n");
      std::string line = head.substr(0, line_end);
      size_t space1 = line.find(' ');
      size_t space2 = line.find(' ', space1 + 1);
      if (space1 == std::string::npos || space2 == std::string::npos) {
        ::close(fd);
        return;
      }
      request.method = line.substr(0, space1);
      request.target = line.substr(space1 + 1, space2 - space1 - 1);
      size_t position = line_end + 2;
      while (position < end) {
        size_t next = head.find("\r\n", position);
        std::string header = head.substr(position, next - position);
        size_t colon = header.find(':');
        if (colon != std::string::npos) {
          size_t value = header.find_first_not_of(' ', colon + 1);
          request.headers[Lower(header.substr(0, colon))] = value == std::string::npos ? "" : header.substr(value);
        }
        position = next + 2;
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(request);
      }
      handler_(fd, request);
      ::close(fd);
    });
  }
}

// ------------------------------------------------------------ TokenServer

TokenServer::TokenServer(std::string token, bool refuse)
    : token_(std::move(token)), refuse_(refuse), server_([this](int fd, const SeenRequest&) {
        if (refuse_) {
          WriteAllTo(fd, Response(401, "Unauthorized", "{\"details\":\"no\"}"));
        } else {
          WriteAllTo(fd, Response(200, "OK", "{\"token\":\"" + token_ + "\",\"expires_in\":300}",
                                  {"Content-Type: application/json"}));
        }
      }) {}

// ------------------------------------------------------------ LocalRegistry

TestTlsFiles MakeTestTls(const std::filesystem::path& dir, const std::string& server_name) {
  std::filesystem::create_directories(dir);
  TestTlsFiles files{dir / "ca.pem", dir / "server.pem", dir / "server-key.pem"};
  auto run = [](const std::vector<std::string>& argv) {
    auto result = RunCommand(argv, "", 60);
    if (result.exit_code != 0) throw std::runtime_error(argv[0] + " " + argv[1] + " failed: " + result.err);
  };
  const std::string ca_key = (dir / "ca-key.pem").string(), csr = (dir / "server.csr").string();
  const std::string ext = (dir / "server.ext").string();
  run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", files.ca_cert.string(),
       "-days", "2", "-subj", "/CN=imagelint test CA"});
  run({"openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", files.server_key.string(), "-out", csr,
       "-subj", "/CN=" + server_name});
  WriteFileText(ext, "subjectAltName=DNS:" + server_name + ",IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  run({"openssl", "x509", "-req", "-in", csr, "-CA", files.ca_cert.string(), "-CAkey", ca_key, "-CAcreateserial",
       "-out", files.server_cert.string(), "-days", "2", "-extfile", ext});
  return files;
}

LocalRegistry::LocalRegistry(RegistryAuth auth, const std::string& realm, const std::string& user,
                             const std::string& password, const TestTlsFiles* tls) {
  storage_ = dir_ / "store";
  std::filesystem::create_directories(storage_);
  port_ = FreeLoopbackPort();
  std::string config = "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: " +
                       storage_.string() + "\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:" +
                       std::to_string(port_) + "\n  secret: imagelint-test-secret\n";
  if (tls) {
    config += "  tls:\n    certificate: " + tls->server_cert.string() + "\n    key: " + tls->server_key.string() + "\n";
  }
  if (auth == RegistryAuth::kSilly) {
    config += "auth:\n  silly:\n    realm: " + realm + "\n    service: imagelint-test\n";
    silly_ = true;
  } else if (auth == RegistryAuth::kHtpasswd) {
    auto result = RunCommand({"htpasswd", "-Bbn", user, password});
    if (result.exit_code != 0) throw std::runtime_error("htpasswd failed: " + result.err);
    WriteFileText(dir_ / "htpasswd", result.out);
    config += "auth:\n  htpasswd:\n    realm: imagelint-test\n    path: " + (dir_ / "htpasswd").string() + "\n";
    creds_ = user + ":" + password;
  }
  WriteFileText(dir_ / "config.yml", config);
  std::string log = (dir_ / "registry.log").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::string program = "/usr/bin/docker-registry", serve = "serve", path = (dir_ / "config.yml").string();
  char* argv[] = {program.data(), serve.data(), path.data(), nullptr};
  int rc = posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start docker-registry");
  for (int i = 0; i < 200; ++i) {  // up to 10 s
    int fd = ConnectLoopback(port_);
    if (fd >= 0) {
      ::close(fd);
      return;
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("docker-registry exited: " + ReadFileText(log));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error("docker-registry did not start listening");
}

LocalRegistry::~LocalRegistry() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
}

CommandResult LocalRegistry::Push(const std::filesystem::path& layout, const std::string& repo_tag, bool all) {
  std::vector<std::string> argv = {"skopeo", "--insecure-policy", "copy", "--dest-tls-verify=false"};
  if (all) argv.push_back("--all");
  if (!creds_.empty()) argv.push_back("--dest-creds=" + creds_);
  if (silly_) argv.push_back("--dest-registry-token=imagelint-push-token");
  argv.push_back("oci:" + layout.string());
  argv.push_back("docker://" + host() + "/" + repo_tag);
  return RunCommand(argv, "", 120);
}

void LocalRegistry::DeleteBlob(const std::string& digest) {
  std::string hex = digest.substr(7);
  std::filesystem::remove_all(storage_ / "docker/registry/v2/blobs/sha256" / hex.substr(0, 2) / hex);
}

// ------------------------------------------------------------ FaultProxy

FaultProxy::FaultProxy(int upstream_port, std::vector<Rule> rules)
    : upstream_port_(upstream_port), rules_(std::move(rules)) {
  server_ = std::make_unique<LoopbackServer>([this](int fd, const SeenRequest& request) { Handle(fd, request); });
}

void FaultProxy::Handle(int fd, const SeenRequest& request) {
  Fault fault = Fault::kNone;
  std::string target = request.target;
  bool redirected = target.starts_with("/__redirected");
  if (redirected) target = target.substr(std::strlen("/__redirected"));
  if (!redirected) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& rule : rules_) {
      if (rule.times != 0 && request.method == rule.method && target.find(rule.target_contains) != std::string::npos) {
        fault = rule.fault;
        if (rule.times > 0) --rule.times;
        break;
      }
    }
  }
  if (fault != Fault::kNone) applied_++;
  if (fault == Fault::kStatus500) {
    WriteAllTo(fd, Response(500, "Internal Server Error", "{\"errors\":[{\"code\":\"UNKNOWN\",\"message\":\"injected\"}]}"));
    return;
  }
  if (fault == Fault::kStatus429) {
    WriteAllTo(fd, Response(429, "Too Many Requests", "slow down", {"Retry-After: 0"}));
    return;
  }
  if (fault == Fault::kRedirect) {
    // To another host name for the same server: the client must not send the
    // registry's Authorization there.
    WriteAllTo(fd, Response(307, "Temporary Redirect", "",
                            {"Location: http://localhost:" + std::to_string(port()) + "/__redirected" + target}));
    return;
  }
  int upstream = ConnectLoopback(upstream_port_);
  if (upstream < 0) {
    ResetConnection(fd);
    return;
  }
  std::string forward = request.method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" +
                        std::to_string(upstream_port_) + "\r\nConnection: close\r\n";
  for (const auto& [name, value] : request.headers) {
    if (name == "host" || name == "connection") continue;
    forward += name + ": " + value + "\r\n";
  }
  // The "object storage" behind a redirect is reached with its own access.
  if (redirected && !request.headers.count("authorization")) forward += "authorization: Bearer redirect-target\r\n";
  forward += "\r\n";
  WriteAllTo(upstream, forward);
  std::string response = ReadSome(upstream, 256 << 20, nullptr);
  ::close(upstream);
  size_t head_end = response.find("\r\n\r\n");
  if (head_end == std::string::npos) {
    ResetConnection(fd);
    return;
  }
  std::string head = response.substr(0, head_end + 4);
  std::string body = response.substr(head_end + 4);
  switch (fault) {
    case Fault::kReset:
      WriteAllTo(fd, head + body.substr(0, body.size() / 2));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ResetConnection(fd);
      return;
    case Fault::kTruncate:
      WriteAllTo(fd, head + body.substr(0, body.size() / 2));
      ::shutdown(fd, SHUT_WR);
      return;
    case Fault::kCorrupt:
      if (!body.empty()) body[body.size() / 2] = static_cast<char>(body[body.size() / 2] ^ 0x20);
      WriteAllTo(fd, head + body);
      return;
    default:
      WriteAllTo(fd, head + body);
      return;
  }
}

// ------------------------------------------------------------ images

TestImage SampleImage(const std::string& marker, size_t big_bytes) {
  std::mt19937 random(static_cast<unsigned>(std::hash<std::string>{}(marker)));
  std::string big(big_bytes, '\0');
  for (auto& c : big) c = static_cast<char>(random());
  TestImage image;
  image.ref = "example.com/test/img:latest";
  image.Layer().File("etc/os-release", "ID=debian\nVERSION_ID=\"12\"\n").Dir("usr/lib");
  image.Layer().File("usr/lib/big.bin", big).File("etc/marker", marker).Symlink("usr/lib/link", "big.bin");
  image.env.push_back("MARKER=" + marker);
  return image;
}

}  // namespace imagelint::testing
