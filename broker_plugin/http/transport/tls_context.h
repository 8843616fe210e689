// TLS for the HTTP front (plugin_opt_http_tls_cert and plugin_opt_http_tls_key): one server context
// shared by every connection, TLS 1.2 or newer, certificate chain and private key from PEM files.
// Built when the front starts, so a wrong file refuses to start the broker and names the option.
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <string>

namespace fleetmcp::http {

// Throws Error(kBadRequest) "plugin_opt_http_tls_…: …" when a file is unusable or the key does
// not belong to the certificate.
std::shared_ptr<boost::asio::ssl::context> make_tls_context(const std::string& cert_file, const std::string& key_file);

}  // namespace fleetmcp::http
