#include "broker_plugin/http/http_server.h"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include "common/error.h"

namespace fleetmcp::http {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

}  // namespace

HttpServer::HttpServer(std::shared_ptr<asio::io_context> io, const std::string& host, uint16_t port,
                       std::shared_ptr<const ConnectionSettings> settings)
    : io_(std::move(io)), acceptor_(asio::make_strand(*io_)), settings_(std::move(settings)) {
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
  acceptor_.async_accept(asio::make_strand(*io_), [this](boost::system::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      socket.set_option(tcp::no_delay(true), ec);  // request/response latency (notes §3)
      auto connection = std::make_shared<HttpConnection>(std::move(socket), io_, settings_);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        std::erase_if(connections_, [](const auto& w) { return w.expired(); });
        connections_.push_back(connection);
        if (stopped_) connection->shutdown();
      }
      connection->start();
    }
    accept();  // errors such as EMFILE are transient: keep accepting
  });
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
