#include "tools/fleetctl/http_post.h"

#include <utility>  // before Boost.Asio 1.74's awaitable.hpp, which uses std::exchange without it

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <exception>
#include <optional>

#include "common/error.h"

namespace fleetctl {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::use_awaitable;
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

HttpAnswer to_answer(const http::response<http::string_body>& res) {
  return HttpAnswer{res.result_int(), std::string(res[http::field::content_type]), res.body()};
}

template <class Stream>
asio::awaitable<HttpAnswer> send_and_receive(Stream& stream, const HttpPost& post) {
  auto req = make_request(post);
  co_await http::async_write(stream, req, use_awaitable);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(16 * 1024 * 1024);
  co_await http::async_read(stream, buffer, parser, use_awaitable);
  co_return to_answer(parser.get());
}

asio::awaitable<HttpAnswer> post_plain(const HttpPost& post) {
  auto executor = co_await asio::this_coro::executor;
  asio::ip::tcp::resolver resolver(executor);
  beast::tcp_stream stream(executor);
  co_await stream.async_connect(co_await resolver.async_resolve(post.url.host, post.url.port, use_awaitable),
                                use_awaitable);
  co_return co_await send_and_receive(stream, post);
}

asio::awaitable<HttpAnswer> post_tls(const HttpPost& post, asio::ssl::context& tls) {
  auto executor = co_await asio::this_coro::executor;
  asio::ip::tcp::resolver resolver(executor);
  beast::ssl_stream<beast::tcp_stream> stream(executor, tls);
  // SNI, and the certificate must name the host we dialled (a name or an IP address).
  if (!SSL_set_tlsext_host_name(stream.native_handle(), post.url.host.c_str())) {
    throw Error(ErrorCode::kInternal, "cannot set the TLS server name", "report this as a bug");
  }
  stream.set_verify_callback(asio::ssl::host_name_verification(post.url.host));
  co_await beast::get_lowest_layer(stream).async_connect(
      co_await resolver.async_resolve(post.url.host, post.url.port, use_awaitable), use_awaitable);
  co_await stream.async_handshake(asio::ssl::stream_base::client, use_awaitable);
  co_return co_await send_and_receive(stream, post);
}

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
    boost::system::error_code ec;
    if (post.ca_file.empty()) {
      tls.set_default_verify_paths(ec);
    } else {
      tls.load_verify_file(post.ca_file, ec);
    }
    if (ec) throw Error(ErrorCode::kBadRequest, "cannot load the CA file " + post.ca_file + ": " + ec.message(),
                        "give --cacert the fleet's ca.crt (PEM)");
  }
  std::optional<HttpAnswer> answer;
  std::exception_ptr failure;
  asio::co_spawn(io, post.url.tls ? post_tls(post, tls) : post_plain(post),
                 [&](std::exception_ptr e, HttpAnswer a) {
                   if (e) failure = e; else answer = std::move(a);
                 });
  io.run_for(post.timeout);
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const boost::system::system_error& e) {
      throw Error(ErrorCode::kInternal,
                  "POST " + post.url.host + ":" + post.url.port + post.url.target + " failed: " + e.code().message(),
                  "is the broker running with plugin_opt_http_listen, and is the URL (FLEETMCP_URL) right? For "
                  "https give --cacert the fleet's ca.crt");
    }
  }
  if (!answer) {
    throw Error(ErrorCode::kDeadlineExceeded,
                "no answer from " + post.url.host + ":" + post.url.port + " within " +
                    std::to_string(post.timeout.count()) + " ms",
                "raise --timeout-s, or check the broker's log");
  }
  return *answer;
}

}  // namespace fleetctl
