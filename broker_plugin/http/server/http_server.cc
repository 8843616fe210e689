#include "broker_plugin/http/server/http_server.h"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "common/base/error.h"

namespace fleetmcp::http {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Past a connection cap: a fixed 503 written without waiting (a new socket's send buffer is
// empty, so a non-blocking send of these few bytes goes through), then the socket is closed. Over
// TLS the client sees a failed handshake instead; either way it learns to come back later.
void refuse_busy(HttpConnection::Socket socket, bool tls) {
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nServer: fleetmcp\r\nRetry-After: 1\r\nConnection: close\r\n"
      "Content-Type: text/plain\r\nContent-Length: 60\r\n\r\n"
      "too many connections (plugin_opt_http_max_connections[...])\n";
  boost::system::error_code ignored;
  socket.non_blocking(true, ignored);
  if (!tls) socket.send(asio::buffer(kBusy.data(), kBusy.size()), 0, ignored);
  socket.shutdown(asio::socket_base::shutdown_send, ignored);
  // Closing with the client's request unread would reset the connection, and the client might
  // lose the 503: take what has arrived (a request is small) and drop it.
  std::array<char, 4096> drain{};
  socket.receive(asio::buffer(drain), 0, ignored);
  socket.close(ignored);
}

}  // namespace

HttpServer::HttpServer(std::vector<std::shared_ptr<asio::io_context>> ios, const std::string& host, uint16_t port,
                       std::shared_ptr<const ConnectionSettings> settings)
    : ios_(std::move(ios)),
      acceptor_(ios_.front()->get_executor()),  // no strand: that io_context has one thread
      retry_(acceptor_.get_executor()),
      settings_(std::move(settings)) {
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) {
    throw Error(ErrorCode::kBadRequest, "plugin_opt_http_listen: '" + host + "' is not an IP address",
                "write an address such as 127.0.0.1 or [::1]");
  }
  const tcp::endpoint endpoint(address, port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw Error(ErrorCode::kBadRequest,
                "plugin_opt_http_listen: cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message(),
                "pick a free port or another address");
  }
  port_ = acceptor_.local_endpoint().port();
}

void HttpServer::start() {
  asio::post(acceptor_.get_executor(), [this] { accept(); });
}

void HttpServer::accept() {
  auto io = ios_[next_io_];
  next_io_ = (next_io_ + 1) % ios_.size();
  // The socket gets its io_context's own executor (HttpConnection::Executor): one thread runs
  // each io_context, so the connection needs no strand.
  acceptor_.async_accept(io->get_executor(), [this, io](boost::system::error_code ec, HttpConnection::Socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) return back_off(ec);
    retry_delay_ = std::chrono::milliseconds(0);
    accepted(std::move(socket), io);
    accept();
  });
}

// EMFILE, ENFILE, ENOBUFS…: accepting again at once would spin on the same error while the
// pending connection waits in the backlog. Wait, doubling from 10 ms up to 1 s, then try again.
void HttpServer::back_off(const boost::system::error_code& ec) {
  constexpr std::chrono::milliseconds kFirst{10}, kLongest{1000};
  const auto previous = std::exchange(retry_delay_, std::clamp(retry_delay_ * 2, kFirst, kLongest));
  if (settings_->log && previous < kLongest && retry_delay_ == kLongest) {  // once per episode
    settings_->log("fleetmcp http: accept failed (" + ec.message() + "); retrying every second");
  }
  retry_.expires_after(retry_delay_);
  retry_.async_wait([this](boost::system::error_code wait_ec) {
    if (wait_ec != asio::error::operation_aborted) accept();
  });
}

void HttpServer::accepted(HttpConnection::Socket socket, std::shared_ptr<asio::io_context> io) {
  boost::system::error_code ec;
  std::unique_ptr<ConnectionLimit::Ticket> ticket;
  if (settings_->connections) {
    const auto peer = socket.remote_endpoint(ec);
    ticket = settings_->connections->admit(ec ? std::string() : peer.address().to_string());
    if (!ticket) return refuse_busy(std::move(socket), settings_->tls != nullptr);
  }
  socket.set_option(tcp::no_delay(true), ec);  // request/response latency (docs/platform-notes.md §M3)
  auto connection = std::make_shared<HttpConnection>(std::move(socket), std::move(io), settings_);
  connection->hold(std::move(ticket));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(connections_, [](const auto& w) { return w.expired(); });
    connections_.push_back(connection);
    if (stopped_) connection->shutdown();
  }
  connection->start();
}

size_t HttpServer::open_connections() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& w : connections_) {
    const auto c = w.lock();
    n += c && c->is_open() ? 1 : 0;
  }
  return n;
}

void HttpServer::stop() {
  asio::post(acceptor_.get_executor(), [this] {
    boost::system::error_code ignored;
    retry_.cancel();
    acceptor_.close(ignored);
  });
  std::vector<std::shared_ptr<HttpConnection>> live;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    for (const auto& w : connections_) {
      if (auto c = w.lock()) live.push_back(std::move(c));
    }
  }
  for (const auto& c : live) c->shutdown();
}

}  // namespace fleetmcp::http
