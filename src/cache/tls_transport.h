// TLS to Redis (rediss://) through OpenSSL, over a Transport (the TCP one):
// OpenSSL reads and writes through it, so TLS inherits its timeouts and its
// freedom from SIGPIPE. The server's certificate is always verified — against
// the system's default CA paths or a private CA (--redis-ca) — and so is its
// name: the host name (with SNI) or the IP address the URL gives. There is
// deliberately no way to turn verification off.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <openssl/ssl.h>

#include "cache/redis_transport.h"
#include "imagelint/layer_store.h"

namespace imagelint::redis {

using TlsContext = std::shared_ptr<SSL_CTX>;

// A client context for `options` (ca_file, cert_file, key_file). Without a
// client certificate, a server's request for one is noted in the bool that
// SSL_get_app_data of the connection points to (when set), so that a later
// failure can say why (TLS 1.3 servers reject a missing certificate after
// the handshake; the client sees only a reset). Each file is
// read whole (at most 1 MiB) and must hold what it is named for; errors name
// the file: unreadable, no PEM certificate, an encrypted key (imagelint never
// prompts for a passphrase), a key that does not match the certificate.
Result<TlsContext> MakeTlsContext(const RedisOptions& options);

// The TLS handshake with `host` over `inner`, every read and write of it
// waiting at most `handshake_timeout`, later ones `io_timeout`. Errors name
// why: "certificate verify failed: unable to get local issuer certificate",
// "... hostname mismatch", an alert from the server, the transport's error.
Result<std::unique_ptr<Transport>> StartTls(std::unique_ptr<Transport> inner, const TlsContext& context,
                                            const std::string& host, std::chrono::milliseconds handshake_timeout,
                                            std::chrono::milliseconds io_timeout);

}  // namespace imagelint::redis
