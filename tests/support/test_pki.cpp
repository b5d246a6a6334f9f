#include "support/test_pki.h"

#include <vector>

#include "support/test_support.h"

namespace imagelint::testing {

namespace fs = std::filesystem;

namespace {

bool Openssl(const std::vector<std::string>& args, std::string* why) {
  std::vector<std::string> argv = {"openssl"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto result = RunCommand(argv, "", 60);
  if (result.exit_code == 0) return true;
  *why = "openssl " + args.at(0) + " failed: " + result.err;
  return false;
}

// A self-signed CA: its certificate and key.
bool MakeCa(const fs::path& cert, const fs::path& key, const std::string& name, std::string* why) {
  return Openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                  key.string(), "-out", cert.string(), "-days", "2", "-subj", "/CN=" + name, "-addext",
                  "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"},
                 why);
}

// A key and a certificate for `subject` signed by the CA, with `extensions` (an -extfile).
bool MakeLeaf(const fs::path& dir, const std::string& stem, const std::string& subject, const std::string& extensions,
              const std::string& serial, const fs::path& ca_cert, const fs::path& ca_key, std::string* why) {
  const fs::path csr = dir / (stem + ".csr");
  const fs::path ext = dir / (stem + ".ext");
  WriteFileText(ext, extensions);
  return Openssl({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                  (dir / (stem + ".key")).string(), "-out", csr.string(), "-subj", subject},
                 why) &&
         Openssl({"x509", "-req", "-in", csr.string(), "-CA", ca_cert.string(), "-CAkey", ca_key.string(),
                  "-set_serial", serial, "-days", "2", "-extfile", ext.string(), "-out",
                  (dir / (stem + ".crt")).string()},
                 why);
}

}  // namespace

std::optional<TestPki> MakeTestPki(const fs::path& dir, std::string* why) {
  if (!HaveProgram("openssl")) {
    *why = "Debian's openssl command line is not installed";
    return std::nullopt;
  }
  fs::create_directories(dir);
  TestPki pki;
  pki.ca = dir / "ca.crt";
  pki.server_cert = dir / "server.crt";
  pki.server_key = dir / "server.key";
  pki.client_cert = dir / "client.crt";
  pki.client_key = dir / "client.key";
  pki.other_ca = dir / "other-ca.crt";
  const fs::path ca_key = dir / "ca.key";
  bool made = MakeCa(pki.ca, ca_key, "imagelint test CA", why) &&
              MakeCa(pki.other_ca, dir / "other-ca.key", "imagelint other test CA", why) &&
              MakeLeaf(dir, "server", "/CN=localhost",
                       "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n", "2", pki.ca, ca_key,
                       why) &&
              MakeLeaf(dir, "client", "/CN=imagelint-test-client", "extendedKeyUsage=clientAuth\n", "3", pki.ca,
                       ca_key, why);
  if (!made) return std::nullopt;
  return pki;
}

}  // namespace imagelint::testing
