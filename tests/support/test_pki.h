// A private certificate authority for TLS tests, made at test time with
// Debian's `openssl` command line (EC P-256 keys, valid two days): a CA, a
// server certificate for 127.0.0.1 and localhost (subjectAltName IP and
// DNS), a client certificate, and a second CA that signed none of them (a
// wrong CA to trust).
//
//   std::string why;
//   auto pki = MakeTestPki(dir / "pki", &why);
//   if (!NeedExternal("openssl", pki.has_value(), why)) return;
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace imagelint::testing {

struct TestPki {
  std::filesystem::path ca;            // PEM certificate of the CA
  std::filesystem::path server_cert;   // SAN IP:127.0.0.1, DNS:localhost; serverAuth
  std::filesystem::path server_key;
  std::filesystem::path client_cert;   // CN=imagelint-test-client; clientAuth
  std::filesystem::path client_key;
  std::filesystem::path other_ca;      // a CA that signed nothing here
};

// Writes the files into `dir` (created). nullopt, with `why`, when openssl
// is missing or fails.
std::optional<TestPki> MakeTestPki(const std::filesystem::path& dir, std::string* why);

}  // namespace imagelint::testing
