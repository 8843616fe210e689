// The standalone SSE stream a client opens with GET /mcp: server-initiated messages for its
// session (notifications/tools/list_changed), plus a comment every keep-alive interval so dead
// connections are found and idle proxies do not cut it. It never carries responses, but for a
// 2026-07-28 listen stream's own when the server ends it (open()'s farewell).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/base/front_metrics.h"
#include "broker_plugin/http/mcp/mcp_session.h"
#include "broker_plugin/http/streams/open_streams.h"

namespace fleetmcp::http {

class McpGetStream : public SessionListener, public std::enable_shared_from_this<McpGetStream> {
 public:
  // Nullptr when the session already has one (the caller answers 409). `farewell`, when not empty,
  // is the last message when the server ends the stream (close(): shutdown, its token's end, its
  // lifetime), not when the client does: a 2026-07-28 listen stream's closing result
  // (listen_streams.h).
  static std::shared_ptr<McpGetStream> open(Exchange& exchange, const std::shared_ptr<McpSession>& session,
                                            std::chrono::milliseconds keepalive, size_t buffer, FrontMetrics& metrics,
                                            std::string farewell = {});

  // Keeps the stream's place under the stream quota until the stream ends.
  void hold(std::unique_ptr<OpenStreams::Ticket> ticket) { ticket_ = std::move(ticket); }

  void notify(std::string message_json) override;
  void close() override;

  McpGetStream(std::shared_ptr<Scheduler> scheduler, std::weak_ptr<McpSession> session,
               std::chrono::milliseconds keepalive, FrontMetrics& metrics)
      : scheduler_(std::move(scheduler)), session_(std::move(session)), keepalive_(keepalive), metrics_(metrics) {}

 private:
  void arm_keepalive();
  void end();

  std::shared_ptr<Scheduler> scheduler_;
  std::weak_ptr<McpSession> session_;
  std::chrono::milliseconds keepalive_;
  FrontMetrics& metrics_;
  std::shared_ptr<EventStream> stream_;
  std::unique_ptr<Timer> timer_;
  std::unique_ptr<OpenStreams::Ticket> ticket_;
  std::string farewell_;
  bool ended_ = false;
};

}  // namespace fleetmcp::http
