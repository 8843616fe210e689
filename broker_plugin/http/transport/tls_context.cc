#include "broker_plugin/http/transport/tls_context.h"

#include <openssl/ssl.h>

#include "common/base/error.h"

namespace fleetmcp::http {

std::shared_ptr<boost::asio::ssl::context> make_tls_context(const std::string& cert_file, const std::string& key_file) {
  namespace ssl = boost::asio::ssl;
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                   ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  boost::system::error_code ec;
  ctx->use_certificate_chain_file(cert_file, ec);
  if (ec) {
    throw Error(ErrorCode::kBadRequest, "plugin_opt_http_tls_cert: cannot use " + cert_file + ": " + ec.message(),
                "give the PEM server certificate (chain first, leaf on top) the broker's user can read");
  }
  ctx->use_private_key_file(key_file, ssl::context::pem, ec);
  // OpenSSL compares the key with the certificate as it loads it ("key values mismatch").
  if ((ec && ec.message().find("mismatch") != std::string::npos) ||
      (!ec && SSL_CTX_check_private_key(ctx->native_handle()) != 1)) {
    throw Error(ErrorCode::kBadRequest, "plugin_opt_http_tls_key: " + key_file + " is not the key of " + cert_file,
                "pair the certificate with its own private key");
  }
  if (ec) {
    throw Error(ErrorCode::kBadRequest, "plugin_opt_http_tls_key: cannot use " + key_file + ": " + ec.message(),
                "give the PEM private key of plugin_opt_http_tls_cert, readable by the broker's user");
  }
  return ctx;
}

}  // namespace fleetmcp::http
