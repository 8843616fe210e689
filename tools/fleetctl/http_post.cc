#include "tools/fleetctl/http_post.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>

#include "common/base/error.h"

namespace fleetctl {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using boost::system::error_code;
using fleetmcp::Error;
using fleetmcp::ErrorCode;

Error bad_url(std::string_view url) {
  return Error(ErrorCode::kBadRequest, "not an http:// or https:// URL: " + std::string(url.substr(0, 200)),
               "for example https://127.0.0.1:8443/mcp (scripts/local-fleet.sh prints FLEETMCP_URL)");
}

http::request<http::string_body> make_request(const HttpPost& post) {
  http::request<http::string_body> req(http::verb::post, post.url.target, 11);
  req.set(http::field::host, post.url.host);
  req.set(http::field::user_agent, "fleetctl");
  req.set(http::field::content_type, "application/json");
  req.set(http::field::accept, "application/json");
  req.set(http::field::authorization, "Bearer " + post.bearer_token);
  req.body() = post.body;
  req.prepare_payload();
  return req;
}

// One request and its answer as a chain of asynchronous steps (resolve, connect, TLS handshake,
// write, read), so that the caller's io_context.run_for() bounds the whole exchange. Plain
// coroutines would read better, but clang 14 (the sanitizer build) cannot compile Boost 1.74's.
class PostExchange {
 public:
  PostExchange(asio::io_context& io, asio::ssl::context& tls, const HttpPost& post)
      : post_(post), resolver_(io), stream_(io, tls), request_(make_request(post)) {
    parser_.body_limit(16 * 1024 * 1024);
  }

  void start() {
    resolver_.async_resolve(post_.url.host, post_.url.port, [this](error_code ec, auto endpoints) {
      if (ec) return fail(ec);
      beast::get_lowest_layer(stream_).async_connect(endpoints, [this](error_code ec, auto) {
        if (ec) return fail(ec);
        if (!post_.url.tls) return send(stream_.next_layer());
        handshake();
      });
    });
  }

  const std::optional<HttpAnswer>& answer() const { return answer_; }
  const std::optional<error_code>& failure() const { return failure_; }

 private:
  void handshake() {
    // SNI, and the certificate must name the host we dialled (a name or an IP address).
    if (!SSL_set_tlsext_host_name(stream_.native_handle(), post_.url.host.c_str())) {
      return fail(error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category()));
    }
    stream_.set_verify_callback(asio::ssl::host_name_verification(post_.url.host));
    stream_.async_handshake(asio::ssl::stream_base::client, [this](error_code ec) {
      if (ec) return fail(ec);
      send(stream_);
    });
  }

  template <class Stream>
  void send(Stream& stream) {
    http::async_write(stream, request_, [this, &stream](error_code ec, size_t) {
      if (ec) return fail(ec);
      http::async_read(stream, buffer_, parser_, [this](error_code ec, size_t) {
        if (ec) return fail(ec);
        const auto& res = parser_.get();
        answer_ = HttpAnswer{res.result_int(), std::string(res[http::field::content_type]), res.body()};
      });
    });
  }

  void fail(error_code ec) { failure_ = ec; }

  const HttpPost& post_;
  asio::ip::tcp::resolver resolver_;
  beast::ssl_stream<beast::tcp_stream> stream_;
  http::request<http::string_body> request_;
  beast::flat_buffer buffer_;
  http::response_parser<http::string_body> parser_;
  std::optional<HttpAnswer> answer_;
  std::optional<error_code> failure_;
};

}  // namespace

HttpUrl parse_http_url(std::string_view url) {
  HttpUrl out;
  std::string_view rest;
  if (url.starts_with("https://")) {
    out.tls = true;
    rest = url.substr(8);
  } else if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else {
    throw bad_url(url);
  }
  const size_t slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  out.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  size_t port_colon = authority.rfind(':');
  if (authority.starts_with('[')) {  // [::1]:8443
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) throw bad_url(url);
    out.host = std::string(authority.substr(1, close - 1));
    port_colon = close + 1 < authority.size() && authority[close + 1] == ':' ? close + 1 : std::string_view::npos;
  } else {
    out.host = std::string(authority.substr(0, port_colon));
  }
  out.port = port_colon == std::string_view::npos ? (out.tls ? "443" : "80") : std::string(authority.substr(port_colon + 1));
  if (out.host.empty() || out.port.empty() || out.port.find_first_not_of("0123456789") != std::string::npos) {
    throw bad_url(url);
  }
  return out;
}

HttpAnswer post_json(const HttpPost& post) {
  asio::io_context io;
  asio::ssl::context tls(asio::ssl::context::tls_client);
  if (post.url.tls) {
    tls.set_verify_mode(asio::ssl::verify_peer);
    error_code ec;
    if (post.ca_file.empty()) {
      tls.set_default_verify_paths(ec);
    } else {
      tls.load_verify_file(post.ca_file, ec);
    }
    if (ec) throw Error(ErrorCode::kBadRequest, "cannot load the CA file " + post.ca_file + ": " + ec.message(),
                        "give --cacert the fleet's ca.crt (PEM)");
  }
  PostExchange exchange(io, tls, post);
  exchange.start();
  io.run_for(post.timeout);
  if (exchange.failure()) {
    throw Error(ErrorCode::kInternal,
                "POST " + post.url.host + ":" + post.url.port + post.url.target + " failed: " +
                    exchange.failure()->message(),
                "is the broker running with plugin_opt_http_listen, and is the URL (FLEETMCP_URL) right? For "
                "https give --cacert the fleet's ca.crt");
  }
  if (!exchange.answer()) {
    throw Error(ErrorCode::kDeadlineExceeded,
                "no answer from " + post.url.host + ":" + post.url.port + " within " +
                    std::to_string(post.timeout.count()) + " ms",
                "raise --timeout-s, or check the broker's log");
  }
  return *exchange.answer();
}

}  // namespace fleetctl
