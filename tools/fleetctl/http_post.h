// One HTTP(S) POST of a JSON body with a bearer token, for fleetctl call: Boost.Beast over
// Boost.Asio, TLS through OpenSSL (the same stack as the broker's HTTP front). One connection per
// request, closed after the answer.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace fleetctl {

struct HttpUrl {
  bool tls = false;
  std::string host, port, target;  // target: path (and query), "/" at least
};

// "http[s]://host[:port][/path]" (IPv6 hosts in brackets). Throws Error(kBadRequest) otherwise.
HttpUrl parse_http_url(std::string_view url);

struct HttpPost {
  HttpUrl url;
  std::string bearer_token;
  std::string body;     // application/json
  std::string ca_file;  // https: the CA that signed the server's certificate; empty = system store
  std::chrono::milliseconds timeout{30000};  // for the whole exchange
};

struct HttpAnswer {
  unsigned status = 0;
  std::string content_type;
  std::string body;
};

// Throws Error(kInternal) when the server cannot be reached or TLS fails, and
// Error(kDeadlineExceeded) when no whole answer arrived within the timeout.
HttpAnswer post_json(const HttpPost& request);

}  // namespace fleetctl
