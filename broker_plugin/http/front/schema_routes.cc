#include "broker_plugin/http/front/schema_routes.h"

#include <algorithm>
#include <charconv>

#include "broker_plugin/http/transport/error_status.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kPrefix = "/schemas/";

std::string key_of(const SchemaDocument& d) { return d.name + "@" + d.version.to_string(); }

json::Value descriptor(const SchemaDocument& d, json::Allocator& a) {
  json::Value v(rapidjson::kObjectType);
  v.AddMember("id", json::string_value(d.id, a), a);
  v.AddMember("name", json::string_value(d.name, a), a);
  v.AddMember("version", json::string_value(d.version.to_string(), a), a);
  v.AddMember("uri", json::string_value(std::string(kPrefix) + key_of(d), a), a);
  v.AddMember("media_type", "application/schema+json", a);
  v.AddMember("hash_alg", "sha-256", a);
  v.AddMember("hash", json::string_value(d.sha256_hex, a), a);
  return v;
}

HttpReply descriptors(const std::vector<const SchemaDocument*>& docs, const std::optional<std::string>& next) {
  json::Document out(rapidjson::kObjectType);
  auto& a = out.GetAllocator();
  json::Value list(rapidjson::kArrayType);
  for (const SchemaDocument* d : docs) list.PushBack(descriptor(*d, a), a);
  out.AddMember("schemas", list, a);
  if (next) out.AddMember("next_cursor", json::string_value(*next, a), a);
  return HttpReply::json(200, json::to_string(out));
}

HttpReply bad(std::string_view what, std::string_view fix, int status = 400) {
  return envelope_reply(status, ErrorEnvelope(ErrorCode::kBadRequest, what, fix));
}

std::string versions_text(const std::vector<const SchemaDocument*>& docs) {
  std::string out;
  for (const SchemaDocument* d : docs) out += (out.empty() ? "" : ", ") + d->version.to_string();
  return out;
}

std::vector<SemVer> parse_versions(std::string_view list) {
  std::vector<SemVer> out;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    if (const auto v = SemVer::parse(list.substr(0, comma))) out.push_back(*v);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  return out;
}

}  // namespace

HttpReply SchemaRoutes::handle(const HttpRequest& request) const {
  if (request.method != "GET") {
    HttpReply r = bad("the schema registry is read-only", "use GET", 405);
    return std::move(r.with("Allow", "GET"));
  }
  const std::string_view path = request.path();
  if (path == "/schemas") return list(request);
  const std::string_view rest = path.substr(kPrefix.size());
  if (rest.find('@') == std::string_view::npos) return by_name(rest, request);
  const SchemaDocument* doc = schemas_.find(rest);
  if (doc != nullptr) return document(*doc, request, true);
  const std::string_view name = rest.substr(0, rest.find('@'));
  const auto versions = schemas_.versions(name);
  if (versions.empty()) return bad("no schema named " + ascii_clamp(name, 80), "GET /schemas lists them", 404);
  return bad("schema " + ascii_clamp(rest, 120) + " does not exist; versions: " + versions_text(versions),
             "ask for one of those versions, or a range with ?range=", 404);
}

HttpReply SchemaRoutes::list(const HttpRequest& request) const {
  const std::string order = request.query_param("order").value_or("newest-first");
  if (order != "newest-first" && order != "oldest-first") return bad("order must be newest-first or oldest-first", "");
  std::vector<const SchemaDocument*> docs = schemas_.list();  // name ASC, version DESC
  if (order == "oldest-first") {
    std::stable_sort(docs.begin(), docs.end(), [](const SchemaDocument* a, const SchemaDocument* b) {
      return a->name != b->name ? a->name < b->name : a->version < b->version;
    });
  }
  size_t limit = docs.size();
  if (const auto l = request.query_param("limit")) {
    size_t v = 0;
    const auto [end, ec] = std::from_chars(l->data(), l->data() + l->size(), v);
    if (ec != std::errc() || end != l->data() + l->size() || v < 1 || v > 1000) return bad("limit must be 1 to 1000", "");
    limit = v;
  }
  const std::string context = "schemas\n" + order;
  auto begin = docs.begin();
  if (const auto cursor = request.query_param("cursor")) {
    // RFC 004 §6.5: a malformed cursor, or one from another order, is a bad request.
    const auto after = cursors_.decode(context, *cursor);
    const auto it = after ? std::find_if(docs.begin(), docs.end(), [&](auto* d) { return key_of(*d) == *after; }) : docs.end();
    if (it == docs.end()) return bad("invalid cursor for this query", "start again without cursor");
    begin = it + 1;
  }
  const auto end = begin + static_cast<ptrdiff_t>(std::min<size_t>(limit, static_cast<size_t>(docs.end() - begin)));
  std::optional<std::string> next;
  if (end != docs.end()) next = cursors_.encode(context, key_of(**(end - 1)));
  return descriptors({begin, end}, next);
}

HttpReply SchemaRoutes::by_name(std::string_view name, const HttpRequest& request) const {
  const auto versions = schemas_.versions(name);
  if (versions.empty()) return bad("no schema named " + ascii_clamp(name, 80), "GET /schemas lists them", 404);
  const auto range_text = request.query_param("range");
  const auto preferred_text = request.query_param("preferred");
  const auto acceptable_text = request.query_param("acceptable");
  if (!range_text && !preferred_text && !acceptable_text) return descriptors(versions, std::nullopt);

  NegotiationRequest ask;
  if (range_text) {
    ask.range = SemVerRange::parse(*range_text);
    if (!ask.range) return bad("range is not an RFC 004 section 4.4 range", "for example >=1.0.0 <2.0.0");
  }
  if (preferred_text) {
    ask.preferred = SemVer::parse(*preferred_text);
    if (!ask.preferred) return bad("preferred is not a semantic version", "for example 1.0.0");
  }
  if (acceptable_text) ask.acceptable = parse_versions(*acceptable_text);
  std::vector<SemVer> provided;
  for (const SchemaDocument* d : versions) provided.push_back(d->version);
  const auto chosen = negotiate_version(ask, provided);
  if (!chosen) {
    return bad("no version of " + ascii_clamp(name, 80) + " matches; versions: " + versions_text(versions),
               "widen the range or pick one of those versions", 404);
  }
  const SchemaDocument* doc = schemas_.find(std::string(name) + "@" + chosen->to_string());
  HttpReply r = document(*doc, request, false);
  return std::move(r.with("Content-Location", std::string(kPrefix) + key_of(*doc)));
}

HttpReply SchemaRoutes::document(const SchemaDocument& doc, const HttpRequest& request, bool immutable) const {
  const std::string etag = "\"" + doc.sha256_hex + "\"";
  const auto if_none_match = request.header("If-None-Match");
  HttpReply r;
  if (if_none_match && (if_none_match->find(etag) != std::string_view::npos || *if_none_match == "*")) {
    r.status = 304;
  } else {
    r.status = 200;
    r.body = doc.bytes;  // exactly the file's bytes: the hash in index.json and the ETag cover them
    r.with("Content-Type", "application/schema+json");
  }
  r.with("ETag", etag);
  // An id names one immutable document (D3); a range answer may change when versions are added.
  r.with("Cache-Control", immutable ? "public, max-age=31536000, immutable" : "no-cache");
  return r;
}

}  // namespace fleetmcp::http
