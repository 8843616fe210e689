#include "broker_plugin/http/mcp/mcp_endpoint.h"

#include "broker_plugin/http/mcp/mcp_get_stream.h"
#include "broker_plugin/http/base/media_type.h"
#include "broker_plugin/http/stateless/stateless_request.h"
#include "broker_plugin/http/stateless/stateless_result.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kSessionHeader = "Mcp-Session-Id";
constexpr std::string_view kVersionHeader = "MCP-Protocol-Version";

void refuse(Exchange& ex, int status, int code, std::string_view message) {
  ex.respond(HttpReply::json(status, rpc_error(nullptr, code, message)));
}

void reply(Exchange& ex, std::optional<RpcAnswer> answer) {
  if (!answer) {
    ex.abandon();
    return;
  }
  HttpReply r = HttpReply::json(answer->status, std::move(answer->body));
  for (auto& h : answer->headers) r.headers.push_back(std::move(h));
  ex.respond(std::move(r));
}

// Collects the responses of a 2025-03-26 batch; answers once the last one is in.
struct BatchReplies {
  std::shared_ptr<Exchange> exchange;
  std::vector<std::string> bodies;
  size_t outstanding = 1;  // the dispatch loop itself, released when it is done

  void settle() {
    if (--outstanding > 0) return;
    if (bodies.empty()) {
      exchange->respond(HttpReply::empty(202));
      return;
    }
    std::string array = "[";
    for (size_t i = 0; i < bodies.size(); ++i) array += (i ? "," : "") + bodies[i];
    exchange->respond(HttpReply::json(200, array + "]"));
  }
};

}  // namespace

void McpEndpoint::handle(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent) {
  const std::string& method = exchange->request().method;
  if (method == "POST") return post(exchange, agent);
  if (method == "GET") return get(exchange, *agent);
  if (method == "DELETE") return remove(exchange, *agent);
  HttpReply r = HttpReply::json(405, rpc_error(nullptr, rpc::kServerError, "Method not allowed"));
  exchange->respond(std::move(r.with("Allow", "GET, POST, DELETE")));
}

void McpEndpoint::post(const std::shared_ptr<Exchange>& ex, const SharedAgentToken& agent) {
  const HttpRequest& req = ex->request();
  const auto accept = req.header("Accept");
  if (!accepts(accept, "application/json") || !accepts(accept, "text/event-stream")) {
    return refuse(*ex, 406, rpc::kServerError,
                  "Not Acceptable: the client must accept both application/json and text/event-stream");
  }
  if (!is_json_content_type(req.header("Content-Type"))) {
    return refuse(*ex, 415, rpc::kServerError, "Unsupported Media Type: Content-Type must be application/json");
  }
  const auto parsed = json::parse_strict(req.body, ErrorCode::kBadRequest);
  if (!parsed) return ex->respond(HttpReply::json(400, rpc_error(nullptr, rpc::kParseError, "Parse error", &parsed.error())));
  const json::Document& body = *parsed;
  const RpcMessage m = classify(body);  // kInvalid for a batch (an array) too
  // The revision is chosen per request, by the request (stateless_request.h).
  if (asks_stateless(req, m)) return stateless(ex, agent, m);
  if (const auto version = req.header(kVersionHeader); version && !revision_from_name(*version)) {
    return refuse(*ex, 400, rpc::kServerError,
                  "Bad Request: unsupported MCP-Protocol-Version (supported: " + std::string(supported_revisions_text()) + ")");
  }
  if (m.kind == RpcKind::kRequest && m.method == "initialize") return initialize(ex, *agent, m);
  const auto session = session_for(*ex, *agent);
  if (!session) return;
  session->touch(wall_ms_());
  if (body.IsArray()) return batch(ex, agent, session, body);
  single(ex, agent, session, body, m);
}

void McpEndpoint::initialize(const std::shared_ptr<Exchange>& ex, const AgentToken& agent, const RpcMessage& m) {
  const auto asked = m.params && m.params->IsObject() ? json::get_string(*m.params, "protocolVersion") : std::nullopt;
  if (!asked) {
    return ex->respond(HttpReply::json(400, rpc_error(m.id, rpc::kInvalidParams, "Invalid params: protocolVersion is required")));
  }
  // Echo a revision we speak with sessions; otherwise offer our latest and let the client decide.
  const auto named = revision_from_name(*asked);
  const McpRevision revision = named && !is_stateless(*named) ? *named : kLatestRevision;
  auto created = sessions_.create(agent, revision, wall_ms_());
  if (!created) {
    if (created.error() == SessionRefusal::kTenantQuota) {
      HttpReply r = HttpReply::json(429, rpc_error(m.id, rpc::kServerError,
                                                   "Too Many Requests: the tenant holds its quota of MCP sessions "
                                                   "(plugin_opt_http_max_sessions_per_tenant); end unused ones with DELETE"));
      return ex->respond(std::move(r.with("Retry-After", "60")));
    }
    return ex->respond(HttpReply::json(503, rpc_error(m.id, rpc::kServerError, "Service Unavailable: too many MCP sessions")));
  }
  const auto& session = *created;
  elicitations_.session_started(session, m.params && m.params->IsObject() ? json::find(*m.params, "capabilities") : nullptr);
  HttpReply r = HttpReply::json(200, rpc_result(*m.id, methods_.initialize_result(revision)));
  ex->respond(std::move(r.with(std::string(kSessionHeader), session->id())));
}

void McpEndpoint::stateless(const std::shared_ptr<Exchange>& ex, const SharedAgentToken& agent, const RpcMessage& m) {
  // Nothing to do for a notification: closing a request's stream is how 2026-07-28 cancels it (below).
  if (m.kind == RpcKind::kNotification) return ex->respond(HttpReply::empty(202));
  if (m.kind != RpcKind::kRequest) {
    return refuse(*ex, 400, rpc::kInvalidRequest, "Invalid Request: a 2026-07-28 POST carries one request or notification");
  }
  const auto checked = check_stateless(ex->request(), m);
  if (!checked) return ex->respond(HttpReply::json(checked.error().status, refusal_body(checked.error(), m.id)));
  if (m.method == "subscriptions/listen") return listen(ex, agent, m);
  // A session for this request alone: in no table, gone with its answer, so any front can answer
  // any request and a token fills nothing.
  const auto session = std::make_shared<McpSession>(std::string(), *agent, checked->revision, wall_ms_());
  // Closing the response is this revision's cancel: a call in flight is cancelled as a 2025
  // notifications/cancelled cancels it (its slot freed, one audit line, no answer).
  std::string id = id_key(*m.id);
  if (m.method == "tools/call") ex->on_peer_closed([session, id] { session->cancel(id); });
  methods_.request(m, agent, session, ex->scheduler(),
                   [ex, id = std::move(id), hints = stateless_cache_hints(m)](std::optional<RpcAnswer> answer) {
                     if (answer) stamp_stateless_result(answer->body, id, hints);
                     reply(*ex, std::move(answer));
                   });
}

std::shared_ptr<McpSession> McpEndpoint::session_for(Exchange& ex, const AgentToken& agent) {
  const auto id = ex.request().header(kSessionHeader);
  if (!id || id->empty()) {
    refuse(ex, 400, rpc::kServerError, "Bad Request: Mcp-Session-Id header is required");
    return nullptr;
  }
  auto session = sessions_.find(*id);
  // Another agent's session is as unknown as a made-up one.
  if (!session || !session->owned_by(agent)) {
    refuse(ex, 404, rpc::kSessionNotFound, "Session not found");
    return nullptr;
  }
  return session;
}

void McpEndpoint::single(const std::shared_ptr<Exchange>& ex, const SharedAgentToken& agent,
                         const std::shared_ptr<McpSession>& session, const json::Value& message, const RpcMessage& m) {
  switch (m.kind) {
    case RpcKind::kInvalid:
      return ex->respond(HttpReply::json(400, rpc_error(nullptr, rpc::kInvalidRequest, "Invalid Request")));
    case RpcKind::kNotification:
      methods_.notification(m, *session);
      return ex->respond(HttpReply::empty(202));
    case RpcKind::kResponse:
      elicitations_.deliver(session->id(), message);  // the only requests the server sends
      return ex->respond(HttpReply::empty(202));
    case RpcKind::kRequest:
      methods_.request(m, agent, session, ex->scheduler(),
                       [ex](std::optional<RpcAnswer> answer) { reply(*ex, std::move(answer)); });
      return;
  }
}

void McpEndpoint::batch(const std::shared_ptr<Exchange>& ex, const SharedAgentToken& agent,
                        const std::shared_ptr<McpSession>& session, const json::Value& messages) {
  if (!allows_batches(session->revision()) || messages.Empty()) {
    return ex->respond(HttpReply::json(400, rpc_error(nullptr, rpc::kInvalidRequest,
                                                      "Invalid Request: JSON-RPC batches are only allowed in 2025-03-26")));
  }
  if (messages.Size() > options_.max_batch) {  // each request may be a device call: bound them
    return ex->respond(HttpReply::json(
        400, rpc_error(nullptr, rpc::kInvalidRequest,
                       "Invalid Request: a batch may hold at most " + std::to_string(options_.max_batch) +
                           " messages (plugin_opt_http_max_batch); send the rest in further requests")));
  }
  // Two requests with one id would get answers the client cannot tell apart, and a cancellation
  // naming that id would reach both: the whole batch is refused before any of it runs.
  if (const auto id = duplicate_request_id(messages)) {
    return ex->respond(HttpReply::json(
        400, rpc_error(nullptr, rpc::kInvalidRequest,
                       "Invalid Request: the id " + *id + " is used by more than one request of the batch; "
                       "give each request its own id (nothing in the batch was run)")));
  }
  // Every answer arrives on the exchange's scheduler (now, or when a call completes).
  auto replies = std::make_shared<BatchReplies>();
  replies->exchange = ex;
  for (const auto& message : messages.GetArray()) {
    const RpcMessage m = classify(message);
    if (m.kind == RpcKind::kNotification) methods_.notification(m, *session);
    if (m.kind == RpcKind::kInvalid) replies->bodies.push_back(rpc_error(nullptr, rpc::kInvalidRequest, "Invalid Request"));
    if (m.kind != RpcKind::kRequest) continue;
    if (m.method == "initialize") {
      replies->bodies.push_back(rpc_error(m.id, rpc::kInvalidRequest, "Invalid Request: initialize cannot be batched"));
      continue;
    }
    ++replies->outstanding;
    methods_.request(m, agent, session, ex->scheduler(), [replies](std::optional<RpcAnswer> answer) {
      if (answer) replies->bodies.push_back(std::move(answer->body));
      replies->settle();
    });
  }
  replies->settle();
}

void McpEndpoint::get(const std::shared_ptr<Exchange>& ex, const AgentToken& agent) {
  if (!accepts(ex->request().header("Accept"), "text/event-stream")) {
    return refuse(*ex, 406, rpc::kServerError, "Not Acceptable: the client must accept text/event-stream");
  }
  const auto session = session_for(*ex, agent);
  if (!session) return;
  session->touch(wall_ms_());
  open_stream(*ex, agent, session);
}

std::shared_ptr<McpGetStream> McpEndpoint::open_stream(Exchange& ex, const AgentToken& agent,
                                                       const std::shared_ptr<McpSession>& session,
                                                       std::string farewell) {
  // The stream quota, and the token re-checks that end the stream with its token (open_streams.h).
  auto stream = std::make_shared<std::weak_ptr<McpGetStream>>();
  auto ticket = streams_.open(agent, wall_ms_(), [stream](StreamStop) {
    if (const auto s = stream->lock()) s->close();
  });
  if (!ticket) {
    refuse(ex, 429, rpc::kServerError,
           "Too Many Requests: this token or its tenant holds its quota of SSE streams "
           "(plugin_opt_http_max_streams_per_caller, plugin_opt_http_max_streams_per_tenant)");
    return nullptr;
  }
  auto opened =
      McpGetStream::open(ex, session, options_.mcp_keepalive, options_.mcp_stream_buffer, metrics_, std::move(farewell));
  if (!opened) {
    refuse(ex, 409, rpc::kServerError, "Conflict: only one SSE stream is allowed per session");
    return nullptr;
  }
  *stream = opened;
  opened->hold(std::move(ticket));
  return opened;
}

void McpEndpoint::listen(const std::shared_ptr<Exchange>& ex, const SharedAgentToken& caller, const RpcMessage& m) {
  const AgentToken& agent = *caller;
  const json::Value* filter = m.params != nullptr && m.params->IsObject() ? json::find(*m.params, "notifications") : nullptr;
  if (filter != nullptr && !filter->IsObject()) filter = nullptr;
  const auto asks = [filter](const char* name) {
    return filter != nullptr && json::get_bool(*filter, name).value_or(false);
  };
  ListenFilter asked{asks("toolsListChanged"), asks("resourcesListChanged"), {}};
  const json::Value* uris = filter != nullptr ? json::find(*filter, "resourceSubscriptions") : nullptr;
  if (uris != nullptr && uris->IsArray()) {
    for (const auto& uri : uris->GetArray()) {
      if (uri.IsString()) asked.resource_uris.emplace_back(uri.GetString(), uri.GetStringLength());
    }
  }
  // A session of the stream's own, in no table: the notifiers reach it through `listens_` and
  // the resource subscriptions.
  const auto session = std::make_shared<McpSession>(std::string(), agent, McpRevision::k2026_07_28, wall_ms_());
  std::string id = id_key(*m.id);
  if (!open_stream(*ex, agent, session, ListenStreams::ended(id))) return;
  methods_.listen(caller, session, ex->scheduler(), std::move(id), std::move(asked), listens_);
}

void McpEndpoint::remove(const std::shared_ptr<Exchange>& ex, const AgentToken& agent) {
  const auto session = session_for(*ex, agent);
  if (!session) return;
  sessions_.end(session->id());
  ex->respond(HttpReply::empty(200));
}

}  // namespace fleetmcp::http
