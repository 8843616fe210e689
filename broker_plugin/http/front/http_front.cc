#include "broker_plugin/http/front/http_front.h"

#include <pthread.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <iostream>

#include "broker_plugin/http/transport/asio_scheduler.h"
#include "broker_plugin/http/transport/tls_context.h"

namespace fleetmcp::http {
namespace {

int64_t wall_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

int64_t steady_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

constexpr std::chrono::milliseconds kStopFlush{2000};

// The front's connections and mosquitto's (devices, agents) share one descriptor limit: warn when
// the front alone may take more than half of it (docs/http-front.md "Limits and quotas").
void warn_about_descriptor_limit(const FrontOptions& options, const HttpFront::Log& log) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  if (options.max_connections <= limit.rlim_cur / 2) return;
  log("warning: plugin_opt_http_max_connections " + std::to_string(options.max_connections) +
      " is over half the broker's file descriptor limit (" + std::to_string(limit.rlim_cur) +
      "): HTTP clients could leave too few for devices; lower it or raise the limit (ulimit -n, LimitNOFILE)");
}

// The Host names the front answers to besides loopback ones (host_policy.h): the listen address
// unless it is a wildcard (0.0.0.0, ::), the resource URL's host, and the operator's list.
std::vector<std::string> served_host_names(const FrontOptions& options, std::string_view resource_url) {
  std::vector<std::string> names = options.allowed_hosts;
  if (options.listen_host != "0.0.0.0" && options.listen_host != "::") names.push_back(options.listen_host);
  if (const size_t scheme = resource_url.find("://"); scheme != std::string_view::npos) {
    std::string_view authority = resource_url.substr(scheme + 3);
    authority = authority.substr(0, authority.find_first_of("/?#"));
    const size_t port = authority.starts_with('[') ? authority.find("]:") + 1 : authority.rfind(':');
    names.emplace_back(authority.substr(0, port == 0 ? std::string_view::npos : port));
  }
  return names;
}

}  // namespace

HttpFront::HttpFront(FrontOptions options, FleetView& fleet, std::shared_ptr<const SchemaRegistry> schemas,
                     Ed25519PublicKey issuer, CallAudit audit, Log log)
    : settings_(std::make_shared<ConnectionSettings>()),
      log_(log ? std::move(log) : Log([](std::string_view line) { std::cerr << line << '\n'; })) {
  std::vector<std::shared_ptr<boost::asio::io_context>> server_ios;
  for (int i = 0; i < std::max(1, options.io_threads); ++i) {
    // One thread each (start()), and only that thread ever runs it: asio skips cross-thread
    // wake-ups, and every handler of the io_context runs serialised on that thread, which is why
    // the connections, the acceptor and the background scheduler use its executor with no strand
    // (asio_scheduler.h, http_connection.h). Keep it so: an io_context run by two threads would
    // need strands back.
    ios_.push_back(std::make_shared<FrontIoContext>(1));
    work_.push_back(boost::asio::make_work_guard(*ios_.back()));
    server_ios.push_back(ios_.back());
  }
  settings_->max_body_bytes = options.max_body_bytes;
  settings_->max_header_bytes = options.max_header_bytes;
  settings_->read_timeout = options.read_timeout;
  settings_->header_timeout = options.header_timeout;
  settings_->connections = std::make_shared<ConnectionLimit>(ConnectionCaps{
      .total = options.max_connections,
      .per_address = options.max_connections_per_address,
      .per_prefix = options.max_connections_per_prefix,
      .unauthenticated = options.max_connections - options.reserved_connections,
      .per_tenant = options.max_connections_per_tenant,
  });
  warn_about_descriptor_limit(options, log_);
  settings_->log = log_;
  if (!options.tls_cert.empty()) settings_->tls = make_tls_context(options.tls_cert, options.tls_key);
  server_ = std::make_unique<HttpServer>(std::move(server_ios), options.listen_host, options.listen_port, settings_);
  resource_url_ = http::resource_url(options, server_->port());
  settings_->hosts = std::make_shared<HostPolicy>(served_host_names(options, resource_url_));

  FrontConfig config;
  config.options = std::move(options);
  config.schemas = std::move(schemas);
  config.issuer = issuer;
  config.resource_url = resource_url_;
  config.background = std::make_shared<AsioScheduler>(ios_.front());
  config.wall_ms = wall_ms;
  config.steady_ms = steady_ms;
  config.log = log_;
  handler_ = std::make_unique<FrontHandler>(std::move(config), fleet, std::move(audit));
  FrontHandler* handler = handler_.get();
  settings_->handler = [handler](std::shared_ptr<Exchange> exchange) { handler->handle(exchange); };
  settings_->on_status = [handler](int status) { handler->metrics().count_http(status); };
  settings_->screen = [handler](HttpRequest& head) { return handler->screen(head); };
  settings_->authenticate = [handler](std::optional<std::string_view> authorization) {
    return handler->authenticate(authorization);
  };
}

HttpFront::~HttpFront() { stop(); }

void HttpFront::start() {
  if (running_) return;
  running_ = true;
  server_->start();
  for (const auto& io : ios_) {
    threads_.emplace_back([this, io] {  // the io_context's one thread (see the constructor)
      pthread_setname_np(pthread_self(), "fleetmcp-http");  // for top -H, perf, bench/profile.sh
      // The io threads' boundary: an exception escaping a handler is logged, and the thread
      // goes back to serving the other connections.
      for (;;) {
        try {
          io->run();
          return;
        } catch (const std::exception& e) {
          log_(std::string("fleetmcp http: io thread caught: ") + e.what());
        }
      }
    });
  }
}

void HttpFront::stop() {
  if (!running_) return;
  running_ = false;
  handler_->shutdown();
  server_->stop();
  // Give the streams a moment to write their close frames.
  const auto deadline = std::chrono::steady_clock::now() + kStopFlush;
  while (server_->open_connections() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (auto& work : work_) work.reset();
  for (const auto& io : ios_) io->stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
  for (const auto& io : ios_) io->drop_pending();
}

}  // namespace fleetmcp::http
