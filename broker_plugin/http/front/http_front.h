// The HTTP front the plugin runs (docs/protocol.md §7): a FrontHandler behind the Beast server, on its own
// io threads. It sees the plugin only through the FleetView; none of its threads calls
// mosquitto_* (docs/platform-notes.md §M3). Start it after the FleetView is ready; stop() before the
// FleetView goes away (mosquitto_plugin_cleanup): it closes every stream with its normal close,
// waits briefly for them to flush, and joins its threads.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "broker_plugin/http/front/front_handler.h"
#include "broker_plugin/http/server/http_server.h"

namespace fleetmcp::http {

// An io_context whose pending handlers can be dropped once its threads have stopped. Handlers
// may hold schedulers that hold the io_context; dropping them breaks that cycle at stop() rather
// than leaking it until the process exits.
class FrontIoContext : public boost::asio::io_context {
 public:
  using boost::asio::io_context::io_context;
  void drop_pending() { shutdown(); }
};

class HttpFront {
 public:
  using Log = std::function<void(std::string_view)>;

  // Binds the listen address at once; throws Error naming the option on failure.
  HttpFront(FrontOptions options, FleetView& fleet, std::shared_ptr<const SchemaRegistry> schemas,
            Ed25519PublicKey issuer, CallAudit audit, Log log = {});
  ~HttpFront();
  HttpFront(const HttpFront&) = delete;
  HttpFront& operator=(const HttpFront&) = delete;

  void start();
  void stop();

  uint16_t port() const { return server_->port(); }
  const std::string& resource_url() const { return resource_url_; }
  FrontHandler& handler() { return *handler_; }

 private:
  // One io_context per io thread, each run by that thread only (see http_server.h); the first also
  // runs the acceptor and the background scheduler (fan-out, change notifier).
  std::vector<std::shared_ptr<FrontIoContext>> ios_;
  std::vector<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::shared_ptr<ConnectionSettings> settings_;
  std::unique_ptr<HttpServer> server_;
  std::string resource_url_;
  std::unique_ptr<FrontHandler> handler_;
  std::vector<std::thread> threads_;
  Log log_;
  bool running_ = false;
};

}  // namespace fleetmcp::http
