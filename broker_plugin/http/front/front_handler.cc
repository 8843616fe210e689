#include "broker_plugin/http/front/front_handler.h"

#include <algorithm>

#include "broker_plugin/http/auth/http_get.h"
#include "broker_plugin/http/transport/error_status.h"
#include "broker_plugin/http/base/jsonrpc.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kMcpPath = "/mcp";
constexpr std::string_view kToolsCallPath = "/mcp/tools/call";

}  // namespace

FrontHandler::FrontHandler(FrontConfig config, FleetView& fleet, CallAudit audit)
    : config_(std::move(config)),
      fleet_(fleet),
      log_(std::move(audit), metrics_, config_.wall_ms, config_.options.audit_refusal_interval.count()),
      per_node_(config_.schemas, config_.options.tool_names, config_.options.page_size),
      compact_(per_node_),
      kinds_(per_node_),
      resources_(per_node_.cursors(), config_.options.page_size),
      commits_(config_.options.commit_token_ttl.count(), config_.options.max_commit_tokens_per_caller),
      gate_(*config_.schemas, limiter_, commits_),
      calls_(gate_, fleet, log_, config_.wall_ms, config_.steady_ms),
      fanout_(fleet, *config_.schemas, config_.background, config_.options.lease_renew, config_.steady_ms),
      sessions_(config_.options.max_sessions,
                SessionQuota{config_.options.max_sessions_per_caller, config_.options.max_sessions_per_tenant}),
      streams_(std::make_shared<OpenStreams>(StreamQuota{config_.options.max_streams_per_caller,
                                                         config_.options.max_streams_per_tenant,
                                                         config_.options.max_stream})),
      issuer_keys_(config_.options.trusted_issuers, http_get, [wall = config_.wall_ms] { return wall() / 1000; },
                   config_.log),
      resource_(config_.resource_url, config_.options.authorization_servers, config_.options.trusted_issuers),
      auth_(config_.issuer, config_.options.token_audience, fleet, &issuer_keys_, config_.resource_url),
      origins_(config_.options.allowed_origins),
      schema_routes_(*config_.schemas, per_node_.cursors()),
      mcp_methods_(config_.options, fleet, surface(), compact_, calls_, elicitations_, resources_, fanout_, *streams_,
                   metrics_, log_, resource_, config_.wall_ms, config_.steady_ms),
      mcp_(config_.options, mcp_methods_, sessions_, elicitations_, *streams_, listens_, metrics_, config_.wall_ms),
      rfc0009_(config_.options, *config_.schemas, fleet, calls_, fanout_, *streams_, metrics_, log_, resource_,
               config_.wall_ms, config_.steady_ms),
      list_changed_(fleet, sessions_, listens_, list_digest(), NodeResources::list_digest) {
  fleet_.set_change_listener([weak = std::weak_ptr<bool>(alive_), this, background = config_.background] {
    // The broker thread must not wait for digests and notifications: hand the work over.
    background->post([weak, this] {
      if (!weak.lock()) return;
      list_changed_.on_fleet_change();
      resources_.on_fleet_change(*fleet_.snapshot());
    });
  });
  arm_sweep();
  arm_stream_check();
}

const ToolSurface& FrontHandler::surface() const {
  switch (config_.options.tools_mode) {
    case ToolsMode::kPerNode: break;
    case ToolsMode::kCompact: return compact_;
    case ToolsMode::kByKind: return kinds_;
  }
  return per_node_;
}

ListChangedNotifier::Digest FrontHandler::list_digest() const {
  return [&tools = surface()](const FleetSnapshot& fleet, std::string_view tenant) { return tools.digest(fleet, tenant); };
}

FrontHandler::~FrontHandler() {
  fleet_.set_change_listener(nullptr);
  sweep_.reset();
  stream_check_.reset();
  sessions_.end_all(SessionEnd::kShutdown);
  listens_.end_all();
}

void FrontHandler::arm_sweep() {
  const auto every = std::min(config_.options.session_idle, std::chrono::milliseconds(60000));
  sweep_ = config_.background->after(every, [this] {
    sessions_.sweep(config_.wall_ms(), config_.options.session_idle.count());
    arm_sweep();
  });
}

// Every second: streams whose token expired or was revoked (SIGHUP re-reads the list), or that
// reached plugin_opt_http_max_stream_ms, are closed (issue 17, item 6).
void FrontHandler::arm_stream_check() {
  stream_check_ = config_.background->after(std::chrono::milliseconds(1000), [this] {
    streams_->check(config_.wall_ms(), [this](std::string_view jti) { return fleet_.token_revoked(jti); });
    arm_stream_check();
  });
}

void FrontHandler::shutdown() {
  sweep_.reset();
  stream_check_.reset();
  sessions_.end_all(SessionEnd::kShutdown);
  listens_.end_all();
}

void FrontHandler::handle(const std::shared_ptr<Exchange>& exchange) {
  const HttpRequest& req = exchange->request();
  const std::string_view path = req.path();
  if (path == kMcpPath || path == kToolsCallPath) return authenticated(exchange, path == kMcpPath);
  if (schema_routes_.matches(path)) return exchange->respond(schema_routes_.handle(req));
  if (resource_.is_metadata_path(path)) {
    return exchange->respond(HttpReply::json(200, resource_.metadata_json()));
  }
  if (path == "/healthz") {
    // Counts only, no node ids: it is unauthenticated, like /metrics.
    const auto snapshot = fleet_.snapshot();
    std::string nodes;
    for (const auto& [state, n] : snapshot->count_by_state()) {
      nodes += (nodes.empty() ? "\"" : ",\"") + std::string(state) + "\":" + std::to_string(n);
    }
    return exchange->respond(HttpReply::json(200, "{\"status\":\"ok\",\"fleet_generation\":" +
                                                      std::to_string(snapshot->generation()) + ",\"nodes\":{" + nodes +
                                                      "},\"serving\":" + std::to_string(snapshot->count_serving()) + "}"));
  }
  if (path == "/metrics") {
    HttpReply r;
    r.body = metrics_.render(*fleet_.snapshot(), fleet_.stats(), sessions_.size());
    r.with("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    return exchange->respond(std::move(r));
  }
  exchange->respond(envelope_reply(404, ErrorEnvelope(ErrorCode::kBadRequest, "no such resource",
                                                      "the front serves /mcp, /mcp/tools/call, /schemas, /healthz, /metrics")));
}

std::optional<HttpReply> FrontHandler::screen(HttpRequest& head) {
  const std::string_view path = head.path();
  if (path != kMcpPath && path != kToolsCallPath) return std::nullopt;
  auto who = caller(head, path == kMcpPath);
  if (!who) return std::move(who).error();
  head.authentication = Authentication(std::move(who).value());
  return std::nullopt;
}

Authentication FrontHandler::authenticate(std::optional<std::string_view> authorization) {
  return auth_.authenticate(authorization, config_.wall_ms() / 1000);
}

Authentication FrontHandler::verdict(const HttpRequest& req) {
  const int64_t now_s = config_.wall_ms() / 1000;
  if (req.authentication && (!*req.authentication || now_s < (**req.authentication)->exp)) return *req.authentication;
  return auth_.authenticate(req.header("Authorization"), now_s);
}

void FrontHandler::authenticated(const std::shared_ptr<Exchange>& exchange, bool mcp) {
  auto who = caller(exchange->request(), mcp);
  if (!who) return exchange->respond(std::move(who).error());
  const SharedAgentToken& agent = *who;
  if (mcp) mcp_.handle(exchange, agent);
  else rfc0009_.handle(exchange, agent);
}

Result<SharedAgentToken, HttpReply> FrontHandler::caller(const HttpRequest& req, bool mcp) {
  const std::string_view via = mcp ? "mcp" : "rfc0009";
  // DNS rebinding: a browser page from elsewhere must not reach the fleet through localhost.
  if (const auto origin = req.header("Origin"); origin && !origins_.allows(*origin)) {
    const ErrorEnvelope e(ErrorCode::kSafetyDenied, "Origin not allowed", "call from an allowed origin (plugin_opt_http_allowed_origins)");
    return mcp ? HttpReply::json(403, rpc_error(nullptr, rpc::kServerError, "Forbidden: Origin not allowed", &e))
               : envelope_reply(403, e);
  }
  auto who = verdict(req);
  if (!who) {
    const AuthProblem& problem = who.error();
    const ErrorEnvelope e(ErrorCode::kSafetyDenied, "Unauthorized: " + problem.description,
                          "send Authorization: Bearer <a token from fleetctl token issue, or from an authorization server the "
                          "resource metadata lists>");
    log_.refused(via, nullptr, "", nullptr, e);
    HttpReply r = mcp ? HttpReply::json(401, rpc_error(nullptr, rpc::kServerError, e.message, &e)) : envelope_reply(401, e);
    r.with("WWW-Authenticate", problem.token_present ? resource_.challenge("invalid_token", problem.description, "")
                                                      : resource_.challenge());
    return r;
  }
  return std::move(who).value();
}

}  // namespace fleetmcp::http
