#include "broker_plugin/http/mcp/mcp_get_stream.h"

#include "broker_plugin/http/transport/sse_event.h"

namespace fleetmcp::http {

std::shared_ptr<McpGetStream> McpGetStream::open(Exchange& exchange, const std::shared_ptr<McpSession>& session,
                                                 std::chrono::milliseconds keepalive, size_t buffer,
                                                 FrontMetrics& metrics, std::string farewell) {
  auto self = std::make_shared<McpGetStream>(exchange.scheduler(), session, keepalive, metrics);
  self->farewell_ = std::move(farewell);
  if (!session->attach(self)) return nullptr;
  // A 2026-07-28 listen stream's session has no id, and the revision has no such header.
  std::vector<Header> headers;
  if (!session->id().empty()) headers.push_back({"Mcp-Session-Id", session->id()});
  self->stream_ = exchange.open_stream(std::move(headers), StreamLimits{buffer, {}});
  self->stream_->on_end([s = self](StreamEnd) { s->end(); });
  metrics.stream_opened(StreamKind::kMcpGet);
  self->arm_keepalive();
  return self;
}

void McpGetStream::arm_keepalive() {
  timer_ = scheduler_->after(keepalive_, [weak = weak_from_this()] {
    const auto s = weak.lock();
    if (!s || s->ended_) return;
    s->stream_->send(sse_comment("keepalive"), false);
    s->arm_keepalive();
  });
}

void McpGetStream::notify(std::string message_json) {
  scheduler_->post([weak = weak_from_this(), message = std::move(message_json)] {
    const auto s = weak.lock();
    if (s && !s->ended_) s->stream_->send(sse_event("message", message), true);
  });
}

void McpGetStream::close() {
  scheduler_->post([weak = weak_from_this()] {
    const auto s = weak.lock();
    if (!s || s->ended_) return;
    if (!s->farewell_.empty()) s->stream_->send(sse_event("message", s->farewell_), false);
    s->end();
  });
}

void McpGetStream::end() {
  if (ended_) return;
  ended_ = true;
  timer_.reset();
  if (const auto session = session_.lock()) {
    session->detach(this);
    // A listen stream's session (it has no id) lives as long as its stream: the resource
    // subscriptions it holds end with it.
    if (session->id().empty()) session->end(SessionEnd::kStreamEnded);
  }
  metrics_.stream_closed(StreamKind::kMcpGet);
  stream_->finish();  // after DELETE, a dead peer, an overflow, shutdown or its token's end alike
  ticket_.reset();
}

}  // namespace fleetmcp::http
