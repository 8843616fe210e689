#include "tests/support/front_fixture.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <unistd.h>

#include "tests/support/test_schemas.h"
#include "common/crypto/agent_token.h"
#include "common/ids/ulid.h"

#ifndef FLEETMCP_SOURCE_DIR
#error "FLEETMCP_SOURCE_DIR must name the source tree (schemas/)"
#endif

namespace fleetmcp::http::testing {
namespace {

std::vector<MemoryCapability> acme_caps() {
  return {
      {"echo", "system.echo", {"invoke"}, SafetyClass::kReadOnly, {10, 4, 2000}},
      {"metrics", "system.metrics", {"snapshot", "subscribe"}, SafetyClass::kReadOnly, {5, 2, 2000}},
      {"relay0", "test.relay", {"set", "get"}, SafetyClass::kPhysicalActuation, {2, 1, 2000}},
  };
}

}  // namespace

std::shared_ptr<const SchemaRegistry> test_registry() {
  static const std::shared_ptr<const SchemaRegistry> registry = [] {
    const auto dir = std::filesystem::temp_directory_path() / ("fleetmcp-http-schemas-" + std::to_string(::getpid()));
    write_test_schemas(std::string(FLEETMCP_SOURCE_DIR) + "/schemas", dir.string());
    auto r = SchemaRegistry::load(dir.string());
    std::filesystem::remove_all(dir);
    return r;
  }();
  return registry;
}

FrontFixture::FrontFixture(FrontOptionList options) : wall_base_ms(now_ms()) {
  auto clock = [s = scheduler, base = wall_base_ms] { return base + s->now_ms(); };
  fleet = std::make_unique<MemoryFleet>(test_registry(), scheduler, clock);
  fleet->add_node("acme", std::string(kNode), acme_caps());
  fleet->add_node("acme", std::string(kNode2), {{"echo", "system.echo", {"invoke"}, SafetyClass::kReadOnly, {10, 4, 2000}}});
  fleet->add_node("other", std::string(kOther), {{"echo", "system.echo", {"invoke"}, SafetyClass::kReadOnly, {10, 4, 2000}}});

  FrontConfig config;
  // The unit tests were written against the per-node projection; by_kind tests ask for it.
  const bool mode_given =
      std::any_of(options.begin(), options.end(), [](const auto& o) { return o.first == "http_tools_mode"; });
  if (!mode_given) options.emplace_back("http_tools_mode", "per_node");
  config.options = parse_front_options(front_option_set(options)).value();
  config.schemas = test_registry();
  config.issuer = issuer_.public_key();
  config.resource_url = "http://127.0.0.1:8080/mcp";
  config.background = scheduler;
  config.wall_ms = clock;
  config.steady_ms = [s = scheduler] { return s->now_ms(); };
  front = std::make_unique<FrontHandler>(std::move(config), *fleet,
                                         CallAudit([a = audit](std::string_view line) { a->emplace_back(line); }));
  scheduler->run();
}

FrontFixture::~FrontFixture() {
  // As HttpFront::stop() does: end the sessions and let their streams finish while the front
  // still exists; only then destroy it.
  front->shutdown();
  for (const auto& ex : exchanges) {
    if (ex->stream) ex->stream->end(StreamEnd::kShutdown);  // as HttpServer::stop() does
  }
  exchanges.clear();
  scheduler->run();
  front.reset();
  scheduler->run();
  fleet.reset();
  scheduler->clear();
}

std::string FrontFixture::token(std::string_view tenant, std::string_view scopes, std::string_view sub, int64_t ttl_s,
                                std::string_view aud) {
  AgentToken t;
  t.sub = sub;
  t.tenant = tenant;
  t.aud = aud;
  t.jti = new_msg_id();
  last_jti = t.jti;
  t.iat = (wall_base_ms + scheduler->now_ms()) / 1000;
  t.exp = t.iat + ttl_s;
  std::string rest(scopes);
  for (size_t at = 0; at < rest.size();) {
    const size_t space = rest.find(' ', at);
    t.scopes.insert(rest.substr(at, space - at));
    at = space == std::string::npos ? rest.size() : space + 1;
  }
  return issue_agent_token(t, issuer_).value();
}

std::shared_ptr<MemoryExchange> FrontFixture::send(HttpRequest request) {
  auto ex = std::make_shared<MemoryExchange>(std::move(request), scheduler);
  exchanges.push_back(ex);
  front->handle(ex);
  scheduler->run();
  return ex;
}

std::shared_ptr<MemoryExchange> FrontFixture::post_mcp(const std::string& body, const std::string& session,
                                                       const std::string& bearer, std::vector<Header> extra) {
  HttpRequest r;
  r.method = "POST";
  r.target = "/mcp";
  r.body = body;
  r.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}};
  if (!bearer.empty()) r.headers.emplace_back("Authorization", "Bearer " + bearer);
  if (!session.empty()) r.headers.emplace_back("Mcp-Session-Id", session);
  for (auto& h : extra) r.headers.push_back(std::move(h));
  return send(std::move(r));
}

std::string FrontFixture::open_session(const std::string& bearer, std::string_view version) {
  const auto init = post_mcp(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":")" +
                                 std::string(version) + R"(","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})",
                             "", bearer);
  const auto id = init->reply ? header_of(*init->reply, "Mcp-Session-Id") : std::nullopt;
  if (!id) throw std::runtime_error("initialize did not create a session");
  post_mcp(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", *id, bearer);
  return *id;
}

std::shared_ptr<MemoryExchange> FrontFixture::rpc(const std::string& session, const std::string& bearer,
                                                  std::string_view method, std::string_view params_json, int id) {
  std::string body = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":")" + std::string(method) + "\"";
  if (!params_json.empty()) body += ",\"params\":" + std::string(params_json);
  return post_mcp(body + "}", session, bearer);
}

std::shared_ptr<MemoryExchange> FrontFixture::post_tools_call(const std::string& bearer, const std::string& body,
                                                              std::string_view accept) {
  HttpRequest r;
  r.method = "POST";
  r.target = "/mcp/tools/call";
  r.body = body;
  r.headers = {{"Content-Type", "application/json"}, {"Accept", std::string(accept)}};
  if (!bearer.empty()) r.headers.emplace_back("Authorization", "Bearer " + bearer);
  return send(std::move(r));
}

json::Document body_of(const MemoryExchange& exchange) {
  if (!exchange.reply) throw std::runtime_error("no reply");
  return json::parse_strict(exchange.reply->body).value();
}

std::optional<std::string> header_of(const HttpReply& reply, std::string_view name) {
  for (const auto& [k, v] : reply.headers) {
    if (k.size() == name.size() && std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      return v;
    }
  }
  return std::nullopt;
}

std::vector<json::Document> sse_data(const MemoryStream& stream, std::vector<std::string>* events) {
  std::vector<json::Document> out;
  for (const auto& frame : stream.frames) {
    std::string event, data;
    size_t at = 0;
    while (at < frame.text.size()) {
      const size_t nl = frame.text.find('\n', at);
      const std::string line = frame.text.substr(at, nl - at);
      at = nl == std::string::npos ? frame.text.size() : nl + 1;
      if (line.rfind("event: ", 0) == 0) event = line.substr(7);
      if (line.rfind("data: ", 0) == 0) data += line.substr(6);
    }
    if (data.empty()) continue;  // comments
    if (events) events->push_back(event);
    out.push_back(json::parse_strict(data).value());
  }
  return out;
}

}  // namespace fleetmcp::http::testing
