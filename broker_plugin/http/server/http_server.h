// The front's HTTP server: Boost.Beast over Boost.Asio, a few io threads (no thread per
// connection), no strands. Each io thread runs an io_context of its own and a
// connection lives on one of them (round robin): a request is read, handled and answered by one
// thread, with no hand-off to another (with one io_context run by several threads, every socket
// event woke a second thread: ~5 context switches and ~12 system calls more per tools/call).
// Listens on one address; every request becomes an Exchange for the handler; TLS when
// plugin_opt_http_tls_cert/key are set (tls_context.h).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "broker_plugin/http/server/http_connection.h"

namespace fleetmcp::http {

class HttpServer {
 public:
  // Binds and listens at once (so the port is known); throws Error(kBadRequest) naming the
  // address when it cannot.
  // `ios` is not empty; the acceptor runs on the first.
  HttpServer(std::vector<std::shared_ptr<boost::asio::io_context>> ios, const std::string& host, uint16_t port,
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
  void accepted(HttpConnection::Socket socket, std::shared_ptr<boost::asio::io_context> io);
  void back_off(const boost::system::error_code& ec);


  std::vector<std::shared_ptr<boost::asio::io_context>> ios_;
  size_t next_io_ = 0;  // the acceptor's io thread only
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;  // on the acceptor's io thread
  std::chrono::milliseconds retry_delay_{0};
  std::shared_ptr<const ConnectionSettings> settings_;
  uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::weak_ptr<HttpConnection>> connections_;
  bool stopped_ = false;
};

}  // namespace fleetmcp::http
