#include "common/registry/kinds.h"

#include <algorithm>
#include <array>
#include <utility>

#include "common/base/error.h"
#include "common/ids/ulid.h"
#include "common/registry/semver.h"

namespace fleetmcp {
namespace {

constexpr std::array<std::pair<SafetyClass, std::string_view>, 3> kSafetyNames{{
    {SafetyClass::kReadOnly, "read_only"},
    {SafetyClass::kReversible, "reversible"},
    {SafetyClass::kPhysicalActuation, "physical_actuation"},
}};

constexpr std::array<std::pair<Stability, std::string_view>, 3> kStabilityNames{{
    {Stability::kAlpha, "alpha"},
    {Stability::kBeta, "beta"},
    {Stability::kStable, "stable"},
}};

// RFC-0001 §2 verb enum.
constexpr std::array<std::string_view, 6> kVerbs{"snapshot", "subscribe", "get", "set", "invoke", "stream"};
constexpr std::array<std::string_view, 4> kReadVerbs{"snapshot", "subscribe", "get", "stream"};

constexpr std::string_view kSchemaPrefix = "mcp://schemas/";

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_snake(char c) { return is_lower(c) || is_digit(c) || c == '_'; }

// ^[a-z][a-z0-9_]{0,max_len-1}$: the kind_short and cap_id patterns of RFC-0001 §3.
bool is_token(std::string_view s, size_t max_len) {
  return !s.empty() && s.size() <= max_len && is_lower(s[0]) && std::all_of(s.begin(), s.end(), is_snake);
}

bool is_verb(std::string_view s) { return std::find(kVerbs.begin(), kVerbs.end(), s) != kVerbs.end(); }

// A dotted lowercase name such as "system.metrics" or "system.echo.invoke.input".
bool is_dotted_name(std::string_view s) {
  if (s.empty() || !is_lower(s[0]) || s.back() == '.') return false;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '.' ? (s[i - 1] == '.' || !is_lower(s[i + 1])) : !is_snake(s[i])) return false;
  }
  return true;
}

// "mcp://schemas/<dotted name>@<semver>".
bool is_schema_id(std::string_view s) {
  if (!s.starts_with(kSchemaPrefix)) return false;
  s.remove_prefix(kSchemaPrefix.size());
  const size_t at = s.rfind('@');
  return at != std::string_view::npos && is_dotted_name(s.substr(0, at)) &&
         SemVer::parse(s.substr(at + 1)).has_value();
}

// A by_kind tool's action: lowercase words joined by single '_' ("set_mode"), at most 24 characters,
// so the tool name stays within the name rules of the MCP clients (letters, digits, '_').
bool is_action(std::string_view s) {
  if (s.empty() || s.size() > 24 || s.front() == '_' || s.back() == '_') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool word = s[i] >= 'a' && s[i] <= 'z';
    if (!word && !(s[i] == '_' && s[i - 1] != '_')) return false;
  }
  return true;
}

// Printable ASCII whose only "{…}" fields are {node_id} and {cap_id}.
bool is_description_template(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c < 0x20 || c > 0x7E || c == '}') return false;
    if (c != '{') continue;
    const auto rest = s.substr(i);
    if (rest.starts_with("{node_id}")) i += 8;
    else if (rest.starts_with("{cap_id}")) i += 7;
    else return false;
  }
  return true;
}

[[noreturn]] void malformed(std::string_view origin, const std::string& what) {
  throw Error(ErrorCode::kInternal, "kind registry " + std::string(origin) + ": " + what,
              "fix the kind registry file (RFC-0001 section 3.2 rows) and run scripts/update-schema-index.sh");
}

std::string require_string(const json::Value& obj, std::string_view key, std::string_view origin,
                           const std::string& where) {
  const auto v = json::get_string(obj, key);
  if (!v) malformed(origin, where + " has no string \"" + std::string(key) + "\"");
  return std::string(*v);
}

void require_only_keys(const json::Value& obj, std::initializer_list<std::string_view> allowed,
                       std::string_view origin, const std::string& where) {
  for (const auto& m : obj.GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      malformed(origin, where + " has unknown field \"" + std::string(key) + "\"");
    }
  }
}

VerbSpec parse_verb(const json::Value& row, std::string_view origin, const std::string& where) {
  if (!row.IsObject()) malformed(origin, where + " is not an object");
  require_only_keys(row, {"verb", "input", "output", "description", "stability", "action", "title"}, origin, where);
  VerbSpec spec;
  spec.verb = require_string(row, "verb", origin, where);
  spec.input_schema = require_string(row, "input", origin, where);
  spec.output_schema = require_string(row, "output", origin, where);
  spec.description = require_string(row, "description", origin, where);
  if (!is_verb(spec.verb)) malformed(origin, where + " verb \"" + spec.verb + "\" is not an RFC-0001 verb");
  if (!is_schema_id(spec.input_schema)) malformed(origin, where + " input is not an mcp://schemas/<name>@<semver> id");
  if (!is_schema_id(spec.output_schema)) malformed(origin, where + " output is not an mcp://schemas/<name>@<semver> id");
  if (!is_description_template(spec.description)) {
    malformed(origin, where + " description must be printable ASCII with no fields but {node_id} and {cap_id}");
  }
  spec.action = row.HasMember("action") ? require_string(row, "action", origin, where) : spec.verb;
  spec.title = row.HasMember("title") ? require_string(row, "title", origin, where) : spec.verb;
  if (spec.title.empty() || spec.title.size() > 64 || !is_description_template(spec.title)) malformed(origin, where + " title must be printable ASCII, at most 64 characters");
  if (!is_action(spec.action)) malformed(origin, where + " action \"" + spec.action + "\" is not lowercase words joined by '_'");
  if (row.HasMember("stability")) {
    const auto name = json::get_string(row, "stability");
    const auto* found = std::find_if(kStabilityNames.begin(), kStabilityNames.end(),
                                     [&](const auto& p) { return name == p.second; });
    if (found == kStabilityNames.end()) malformed(origin, where + " stability is not \"alpha\", \"beta\" or \"stable\"");
    spec.stability = found->first;
  }
  return spec;
}

KindSpec parse_kind(const json::Value& row, std::string_view origin, const std::string& where) {
  if (!row.IsObject()) malformed(origin, where + " is not an object");
  require_only_keys(row, {"kind", "kind_short", "schema_ref", "source", "verbs"}, origin, where);
  KindSpec spec;
  spec.kind = require_string(row, "kind", origin, where);
  spec.kind_short = require_string(row, "kind_short", origin, where);
  spec.schema_ref = require_string(row, "schema_ref", origin, where);
  if (!is_dotted_name(spec.kind)) malformed(origin, where + " kind \"" + spec.kind + "\" is not a dotted lowercase name");
  if (!is_token(spec.kind_short, 8)) {
    malformed(origin, where + " kind_short \"" + spec.kind_short + "\" does not match ^[a-z][a-z0-9_]{0,7}$");
  }
  if (!is_schema_id(spec.schema_ref)) malformed(origin, where + " schema_ref is not an mcp://schemas/<name>@<semver> id");
  const auto* verbs = json::find(row, "verbs");
  if (!verbs || !verbs->IsArray() || verbs->Empty()) malformed(origin, where + " needs a non-empty \"verbs\" array");
  for (rapidjson::SizeType i = 0; i < verbs->Size(); ++i) {
    auto verb = parse_verb((*verbs)[i], origin, where + " verb #" + std::to_string(i));
    if (spec.verb(verb.verb)) malformed(origin, where + " lists verb \"" + verb.verb + "\" twice");
    spec.verbs.push_back(std::move(verb));
  }
  return spec;
}

}  // namespace

std::string_view safety_class_name(SafetyClass c) {
  for (const auto& [cls, name] : kSafetyNames) {
    if (cls == c) return name;
  }
  return "read_only";
}

std::optional<SafetyClass> safety_class_from_name(std::string_view name) {
  for (const auto& [cls, n] : kSafetyNames) {
    if (n == name) return cls;
  }
  return std::nullopt;
}

std::string_view stability_name(Stability s) {
  for (const auto& [value, name] : kStabilityNames) {
    if (value == s) return name;
  }
  return "stable";
}

bool is_read_verb(std::string_view verb) {
  return std::find(kReadVerbs.begin(), kReadVerbs.end(), verb) != kReadVerbs.end();
}

std::string_view required_scope(SafetyClass c, std::string_view verb) {
  // docs/protocol.md §7: a read verb only reads, whatever the capability could otherwise do.
  if (is_read_verb(verb)) return "tools:call:read_only";
  switch (c) {
    case SafetyClass::kReadOnly: return "tools:call:read_only";
    case SafetyClass::kReversible: return "tools:call:reversible";
    case SafetyClass::kPhysicalActuation: return "tools:call:physical_actuation";
  }
  return "tools:call:physical_actuation";  // unreachable; the strictest scope if it ever is
}

SafetyClass verb_safety_class(std::string_view kind, SafetyClass declared, std::string_view verb) {
  if (is_read_verb(verb)) return SafetyClass::kReadOnly;
  if (kind == "manage.server" && verb == "invoke") return SafetyClass::kPhysicalActuation;
  return declared;
}

const VerbSpec* KindSpec::verb(std::string_view name) const {
  for (const auto& v : verbs) {
    if (v.verb == name) return &v;
  }
  return nullptr;
}

const std::string& KindSpec::announced_schema_ref() const {
  const VerbSpec* invoke = kind == "system.echo" ? verb("invoke") : nullptr;
  return invoke != nullptr ? invoke->input_schema : schema_ref;
}

bool KindSpec::accepts_schema_ref(std::string_view declared) const {
  // "mcp://schemas/<name>@" of a schema id, the version left out.
  const auto unversioned = [](std::string_view id) { return id.substr(0, id.rfind('@') + 1); };
  const std::string_view name = unversioned(declared);
  return is_schema_id(declared) && (name == unversioned(schema_ref) || name == unversioned(announced_schema_ref()));
}

KindRegistry KindRegistry::from_json(const json::Value& doc, std::string_view origin) {
  if (!doc.IsObject()) malformed(origin, "is not a JSON object");
  const auto* rows = json::find(doc, "kinds");
  if (!rows || !rows->IsArray() || rows->Empty()) malformed(origin, "needs a non-empty \"kinds\" array");
  KindRegistry registry;
  for (rapidjson::SizeType i = 0; i < rows->Size(); ++i) {
    auto spec = parse_kind((*rows)[i], origin, "row #" + std::to_string(i));
    if (registry.by_kind(spec.kind)) malformed(origin, "kind \"" + spec.kind + "\" has two rows");
    if (registry.by_short(spec.kind_short)) {
      malformed(origin, "kind_short \"" + spec.kind_short + "\" is used by two kinds");
    }
    registry.kinds_.push_back(std::move(spec));
  }
  return registry;
}

const KindSpec* KindRegistry::by_kind(std::string_view kind) const {
  for (const auto& k : kinds_) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

const KindSpec* KindRegistry::by_short(std::string_view kind_short) const {
  for (const auto& k : kinds_) {
    if (k.kind_short == kind_short) return &k;
  }
  return nullptr;
}

namespace {

// The four tokens joined by `sep`, built in one allocation (a name is built several times per call).
std::string joined(const ToolName& n, char sep) {
  std::string out;
  out.reserve(n.kind_short.size() + n.node_id.size() + n.cap_id.size() + n.verb.size() + 3);
  out.append(n.kind_short).append(1, sep).append(n.node_id).append(1, sep).append(n.cap_id).append(1, sep).append(n.verb);
  return out;
}

// The name when every token matches its pattern and the whole fits the budget.
std::optional<ToolNameView> checked(const ToolNameView& n) {
  if (!is_token(n.kind_short, 8) || !is_node_id(n.node_id) || !is_token(n.cap_id, 18) || !is_verb(n.verb)) {
    return std::nullopt;
  }
  // RFC-0001 §3.1: the token limits make 64 the worst case; the budget is checked all the same so
  // that a future verb or token change cannot silently exceed it.
  if (n.kind_short.size() + n.node_id.size() + n.cap_id.size() + n.verb.size() + 3 > kMaxToolNameLength) {
    return std::nullopt;
  }
  return n;
}

ToolName owned(const ToolNameView& n) {
  return ToolName{std::string(n.kind_short), std::string(n.node_id), std::string(n.cap_id), std::string(n.verb)};
}

}  // namespace

std::string ToolName::dotted() const { return joined(*this, '.'); }
std::string ToolName::dashed() const { return joined(*this, '-'); }

std::optional<ToolName> make_tool_name(std::string_view kind_short, std::string_view node_id,
                                       std::string_view cap_id, std::string_view verb) {
  const auto name = checked({kind_short, node_id, cap_id, verb});
  if (!name) return std::nullopt;
  return owned(*name);
}

std::optional<ToolName> parse_tool_name(std::string_view name) {
  const auto split = split_tool_name(name);
  if (!split) return std::nullopt;
  return owned(*split);
}

std::optional<ToolNameView> split_tool_name(std::string_view name) {
  if (name.size() > kMaxToolNameLength) return std::nullopt;
  // docs/protocol.md D9: '-' never occurs inside a token, so exactly one separator kind may appear.
  const bool dotted = name.find('.') != std::string_view::npos;
  const bool dashed = name.find('-') != std::string_view::npos;
  if (dotted == dashed) return std::nullopt;
  const char sep = dotted ? '.' : '-';
  std::array<std::string_view, 4> parts;
  size_t start = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const size_t at = name.find(sep, start);
    if ((at == std::string_view::npos) != (i == parts.size() - 1)) return std::nullopt;
    parts[i] = name.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start);
    start = at + 1;
  }
  return checked({parts[0], parts[1], parts[2], parts[3]});
}

std::string render_description(const VerbSpec& spec) {
  // The templates' phrases first, so that the sentence still reads; then a field on its own.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kWords{{
      {"device {node_id} (capability {cap_id})", "the device"},
      {"capability {cap_id} of device {node_id}", "the capability"},
      {"device {node_id}", "the device"},
      {"{node_id}", "the device"},
      {"{cap_id}", "the capability"},
  }};
  const std::string_view t = spec.description;
  std::string out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size();) {
    const auto word = std::find_if(kWords.begin(), kWords.end(), [&](const auto& w) { return t.substr(i).starts_with(w.first); });
    if (word == kWords.end()) {
      out += t[i++];
    } else {
      out += word->second;
      i += word->first.size();
    }
  }
  return out;
}

}  // namespace fleetmcp
