// The front's HTTP server: Boost.Beast over Boost.Asio, a few io threads (no thread per
// connection), one strand per connection. Listens on one address; every request becomes an
// Exchange for the handler; TLS when plugin_opt_http_tls_cert/key are set (tls_context.h).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "broker_plugin/http/http_connection.h"

namespace fleetmcp::http {

class HttpServer {
 public:
  // Binds and listens at once (so the port is known); throws Error(kBadRequest) naming the
  // address when it cannot.
  HttpServer(std::shared_ptr<boost::asio::io_context> io, const std::string& host, uint16_t port,
             std::shared_ptr<const ConnectionSettings> settings);

  uint16_t port() const { return port_; }
  void start();
  // Stops accepting and asks every connection to end (streams get StreamEnd::kShutdown).
  void stop();
  // Connections whose socket is still open (an answered call's connection may outlive its socket
  // while the call's completion still holds it).
  size_t open_connections() const;

 private:
  void accept();
  void accepted(HttpConnection::Socket socket);
  void back_off(const boost::system::error_code& ec);


  std::shared_ptr<boost::asio::io_context> io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;  // on the acceptor's strand
  std::chrono::milliseconds retry_delay_{0};
  std::shared_ptr<const ConnectionSettings> settings_;
  uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::weak_ptr<HttpConnection>> connections_;
  bool stopped_ = false;
};

}  // namespace fleetmcp::http
