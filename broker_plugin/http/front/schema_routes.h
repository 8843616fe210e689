// The schema registry over HTTP (docs/protocol.md §7, RFC 004):
//   GET /schemas                       descriptors {id, name, version, uri, media_type, hash_alg,
//                                      hash} in RFC 004 §6.5 order (name ASC, version DESC by
//                                      default; ?order=oldest-first), paginated with ?limit and an
//                                      opaque ?cursor bound to the order (a mismatch is 400)
//   GET /schemas/<name>@<semver>       the file's exact bytes, ETag = its SHA-256, cached forever
//   GET /schemas/<name>?range=…        RFC 004 §4.4 range (and ?preferred=, ?acceptable=a,b per
//                                      §6.3): the negotiated version's bytes, Content-Location
//                                      naming it; none in range is 404 naming the versions there are
//   GET /schemas/<name>                the descriptors of every version of <name>
// hash is lowercase hex (as in schemas/index.json). Public: schemas are not secret.
#pragma once

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/surface/list_cursor.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::http {

class SchemaRoutes {
 public:
  SchemaRoutes(const SchemaRegistry& schemas, const CursorCodec& cursors) : schemas_(schemas), cursors_(cursors) {}

  bool matches(std::string_view path) const { return path == "/schemas" || path.starts_with("/schemas/"); }
  HttpReply handle(const HttpRequest& request) const;

 private:
  HttpReply list(const HttpRequest& request) const;
  HttpReply document(const SchemaDocument& doc, const HttpRequest& request, bool immutable) const;
  HttpReply by_name(std::string_view name, const HttpRequest& request) const;

  const SchemaRegistry& schemas_;
  const CursorCodec& cursors_;
};

}  // namespace fleetmcp::http
