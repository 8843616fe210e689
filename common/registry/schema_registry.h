// The schema registry: every document in schemas/ (one file per $id) and schemas/index.json with
// each file's SHA-256. Loading verifies every hash and fails closed, naming the file (RFC 004
// §5.3 offline profile). Validation uses valijson (draft 7 keywords) on RapidJSON values, walked by
// the registry's own visitor (fast_visitor.h); a failure is a ValidationFailure
// (validation_failure.h). Loading is start-up: it throws; validating never does.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/base/json.h"
#include "common/registry/kinds.h"
#include "common/registry/semver.h"
#include "common/registry/validation_failure.h"
#include "common/base/string_map.h"

namespace fleetmcp {

struct SchemaDocument {
  std::string id;        // "mcp://schemas/system.echo.invoke.input@1.0.0"
  std::string name;      // "system.echo.invoke.input"
  SemVer version;
  std::string file;      // path relative to the schemas directory
  std::string bytes;     // exact file contents, served as-is by GET /schemas/<name>@<semver>
  std::string sha256_hex;
};

class SchemaRegistry {
 public:
  // Reads <dir>/index.json and every file it names. Throws Error(kInternal) naming the file on a
  // missing file, a hash mismatch, a $id that differs from the index, or JSON that does not parse.
  static std::shared_ptr<const SchemaRegistry> load(const std::string& dir);
  // The directory compiled in (installed share dir, else the source tree), or $FLEETMCP_SCHEMAS.
  static std::string default_dir();

  // Accepts "mcp://schemas/<name>@<semver>" or "<name>@<semver>".
  const SchemaDocument* find(std::string_view id) const;
  // Highest version of `name` in `range` (RFC 004 §4.4); nullptr if none.
  const SchemaDocument* resolve(std::string_view name, const SemVerRange& range) const;
  // All versions of `name`, newest first.
  std::vector<const SchemaDocument*> versions(std::string_view name) const;
  // RFC 004 §6.5 order: name ASC, version DESC.
  std::vector<const SchemaDocument*> list() const;

  // nullopt when `doc` is valid against schema `id`. An unknown id is a failure too ("no schema
  // <id>" at path ""): a document is never valid against a schema the registry does not hold.
  std::optional<ValidationFailure> validate(std::string_view id, const json::Value& doc) const;

  const KindRegistry& kinds() const { return kinds_; }

  ~SchemaRegistry();
  SchemaRegistry(const SchemaRegistry&) = delete;
  SchemaRegistry& operator=(const SchemaRegistry&) = delete;

 private:
  SchemaRegistry();
  struct Compiled;  // valijson schemas, parsed once at load
  std::map<std::string, SchemaDocument, std::less<>> docs_;  // by full id
  // By full id, hashed rather than compared along the ids' shared prefix.
  StringMap<std::unique_ptr<Compiled>> compiled_;
  KindRegistry kinds_;
};

}  // namespace fleetmcp
