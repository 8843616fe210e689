// SchemaRegistry: the schemas/ directory, verified against index.json, compiled once with valijson.
//
// How the documents reach valijson (the published bytes are never changed): valijson 1.0
// implements draft 7. The seeds declare draft 2020-12 but use only keywords whose meaning is the
// same in draft 7, plus "$defs". valijson resolves "$ref": "#/$defs/Capability" as a plain JSON
// pointer into the document, so "$defs" needs no special handling; "$id" and "$schema" are
// ignored by it (it reads the draft-4 "id" only). Before compiling, an in-memory copy of each
// document has four keywords renamed (keyword_renaming.h) to constraints of our own
// (own_constraints.h). Documents are validated by the fast walk (fast_visitor.h).
#include "common/registry/schema_registry.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/crypto/digest.h"
#include "common/registry/fast_visitor.h"
#include "common/registry/keyword_renaming.h"
#include "common/registry/own_constraints.h"
#include "common/registry/valijson_include.h"

namespace fleetmcp {
namespace {

namespace fs = std::filesystem;
using valijson::adapters::RapidJsonAdapter;

constexpr std::string_view kSchemaPrefix = "mcp://schemas/";
constexpr std::string_view kKindsPrefix = "mcp://registry/kinds@";

[[noreturn]] void refuse(const std::string& file, const std::string& why) {
  throw Error(ErrorCode::kInternal, "schema registry: " + file + ": " + why,
              "restore the schemas directory from the release (or run scripts/update-schema-index.sh after "
              "an intended change); the registry refuses to start on an unverified schema file");
}

// parse_strict's error names a byte offset; the operator also needs the file.
json::Document parse_file(const std::string& path, std::string_view bytes) {
  auto parsed = json::parse_strict(bytes, ErrorCode::kInternal);
  if (!parsed) refuse(path, "is not strict JSON: " + parsed.error().message);
  return std::move(parsed).value();
}

bool is_lower_hex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// A bare file name: nothing that could leave the schemas directory.
bool is_plain_file_name(std::string_view f) {
  return !f.empty() && f[0] != '.' && f.find('/') == std::string_view::npos &&
         f.find('\\') == std::string_view::npos && f.find('\0') == std::string_view::npos;
}

// "<name>@<semver>" → (name, version); name is dotted lowercase as in the manifest's schema_ref.
std::optional<std::pair<std::string, SemVer>> split_name_version(std::string_view s) {
  const size_t at = s.rfind('@');
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  const auto name = s.substr(0, at);
  const bool ok = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
  auto version = SemVer::parse(s.substr(at + 1));
  if (!ok || !version) return std::nullopt;
  return std::make_pair(std::string(name), std::move(*version));
}

std::string full_id(std::string_view id) {
  return id.starts_with(kSchemaPrefix) ? std::string(id) : std::string(kSchemaPrefix) + std::string(id);
}

}  // namespace

struct SchemaRegistry::Compiled {
  valijson::Schema schema;
};

SchemaRegistry::SchemaRegistry() = default;
SchemaRegistry::~SchemaRegistry() = default;

std::string SchemaRegistry::default_dir() {
  if (const char* env = std::getenv("FLEETMCP_SCHEMAS"); env && *env) return env;
  std::error_code ec;
  if (fs::exists(fs::path(FLEETMCP_INSTALL_SCHEMAS_DIR) / "index.json", ec)) return FLEETMCP_INSTALL_SCHEMAS_DIR;
  return FLEETMCP_SOURCE_SCHEMAS_DIR;
}

std::shared_ptr<const SchemaRegistry> SchemaRegistry::load(const std::string& dir) {
  std::shared_ptr<SchemaRegistry> reg(new SchemaRegistry());
  const fs::path base(dir);
  const std::string index_name = (base / "index.json").string();
  const auto index_text = try_read_file((base / "index.json").string());
  if (!index_text) refuse(index_name, "is missing or unreadable");
  const auto index = parse_file(index_name, *index_text);
  if (!index.IsArray() || index.Empty()) refuse(index_name, "must be a non-empty array of {id, file, sha256}");

  std::optional<std::string> kinds_file;
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  schema_check::add_own_constraints(parser);

  for (const auto& row : index.GetArray()) {
    const auto id = row.IsObject() ? json::get_string(row, "id") : std::nullopt;
    const auto file = row.IsObject() ? json::get_string(row, "file") : std::nullopt;
    const auto sha = row.IsObject() ? json::get_string(row, "sha256") : std::nullopt;
    if (!id || !file || !sha || row.MemberCount() != 3) {
      refuse(index_name, "has a row that is not {\"id\", \"file\", \"sha256\"}");
    }
    if (!is_plain_file_name(*file)) refuse(index_name, "names a file outside the directory: " + std::string(*file));
    if (!is_lower_hex64(*sha)) refuse(index_name, "has a sha256 that is not 64 lowercase hex digits");
    const std::string path = (base / std::string(*file)).string();

    // RFC 004 §5.3: verify the bytes before anything else reads them.
    auto bytes = try_read_file((base / std::string(*file)).string());
    if (!bytes) refuse(path, "is missing or unreadable");
    const std::string actual = sha256_hex(*bytes);
    if (actual != *sha) refuse(path, "SHA-256 " + actual + " does not match index.json (" + std::string(*sha) + ")");

    const auto doc = parse_file(path, *bytes);
    const auto doc_id = doc.IsObject() ? json::get_string(doc, "$id") : std::nullopt;
    if (!doc_id || *doc_id != *id) refuse(path, "$id does not match the id in index.json (" + std::string(*id) + ")");

    if (id->starts_with(kKindsPrefix)) {
      if (kinds_file) refuse(path, "is a second kind registry (first: " + *kinds_file + ")");
      reg->kinds_ = KindRegistry::from_json(doc, path);
      kinds_file = path;
      continue;
    }
    const auto nv =
        id->starts_with(kSchemaPrefix) ? split_name_version(id->substr(kSchemaPrefix.size())) : std::nullopt;
    if (!nv) refuse(path, "$id is not mcp://schemas/<name>@<semver>");
    if (*file != std::string(id->substr(kSchemaPrefix.size())) + ".json") {
      refuse(path, "file name must be <name>@<version>.json for its $id");
    }
    if (reg->docs_.count(*id)) refuse(path, "$id is listed twice in index.json");

    json::Document prepared;
    prepared.CopyFrom(doc, prepared.GetAllocator());
    schema_check::rename_keywords(prepared, prepared.GetAllocator());
    auto compiled = std::make_unique<Compiled>();
    try {
      parser.populateSchema(RapidJsonAdapter(prepared), compiled->schema);
    } catch (const std::exception& e) {  // valijson reports an unusable schema by throwing
      refuse(path, "is not a schema valijson can compile: " + ascii_clamp(e.what(), 200));
    }

    SchemaDocument sd{std::string(*id), nv->first, nv->second, std::string(*file), std::move(*bytes), actual};
    reg->compiled_.emplace(sd.id, std::move(compiled));
    reg->docs_.emplace(sd.id, std::move(sd));
  }

  if (!kinds_file) refuse(index_name, "lists no kind registry (" + std::string(kKindsPrefix) + "...)");
  // Every schema a kind row names must be here: a tool is never listed without its schemas.
  for (const auto& k : reg->kinds_.all()) {
    std::vector<std::string_view> refs{k.schema_ref};
    for (const auto& v : k.verbs) refs.insert(refs.end(), {v.input_schema, v.output_schema});
    for (const auto ref : refs) {
      if (!reg->find(ref)) {
        refuse(*kinds_file, "kind " + k.kind + " names " + std::string(ref) + ", which is not in index.json");
      }
    }
  }
  return reg;
}

const SchemaDocument* SchemaRegistry::find(std::string_view id) const {
  const auto it = docs_.find(full_id(id));
  return it == docs_.end() ? nullptr : &it->second;
}

std::vector<const SchemaDocument*> SchemaRegistry::versions(std::string_view name) const {
  std::vector<const SchemaDocument*> out;
  for (const auto& [id, doc] : docs_) {
    if (doc.name == name) out.push_back(&doc);
  }
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return b->version < a->version; });
  return out;
}

const SchemaDocument* SchemaRegistry::resolve(std::string_view name, const SemVerRange& range) const {
  for (const auto* doc : versions(name)) {
    if (range.contains(doc->version)) return doc;
  }
  return nullptr;
}

std::vector<const SchemaDocument*> SchemaRegistry::list() const {
  std::vector<const SchemaDocument*> out;
  for (const auto& [id, doc] : docs_) out.push_back(&doc);
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    if (a->name != b->name) return a->name < b->name;
    return b->version < a->version;
  });
  return out;
}

std::optional<ValidationFailure> SchemaRegistry::validate(std::string_view id, const json::Value& doc) const {
  // A full id (as the kinds and the plugin name them) is looked up as it is, without a copy.
  const auto it = id.starts_with(kSchemaPrefix) ? compiled_.find(id) : compiled_.find(full_id(id));
  if (it == compiled_.end()) return ValidationFailure{"", "schema registry has no schema " + ascii_clamp(id, 200)};
  return schema_check::fast_validate(it->second->schema, doc);
}

}  // namespace fleetmcp
