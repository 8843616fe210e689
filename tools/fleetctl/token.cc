// fleetctl token issue | verify: agent bearer tokens (docs/protocol.md §2, common/crypto/agent_token.h).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <set>
#include <string>

#include "common/crypto/agent_token.h"
#include "common/crypto/ed25519.h"
#include "common/base/file_text.h"
#include "common/base/error.h"
#include "common/base/json.h"
#include "common/ids/tenant.h"
#include "common/ids/ulid.h"
#include "tools/fleetctl/args.h"
#include "tools/fleetctl/commands.h"

namespace fleetctl {
namespace {

using fleetmcp::AgentToken;
using fleetmcp::Error;
using fleetmcp::ErrorCode;

constexpr const char* kIssueHelp =
    "usage: fleetctl token issue --dir DIR --tenant T --scope \"SCOPE ...\" [--ttl 1h] [--sub NAME]\n"
    "                            [--aud AUD] [--json]\n\n"
    "Prints an agent bearer token (EdDSA JWT) signed with DIR/issuer.key.\n\n"
    "  --tenant T    the tenant whose nodes the agent may see, ^[a-z0-9][a-z0-9_-]{0,62}$\n"
    "  --scope S     space-separated: devices:read tools:call:read_only tools:call:reversible\n"
    "                tools:call:physical_actuation, or fleet:bridge alone for a broker bridge's\n"
    "                remote_password (docs/sharding.md)\n"
    "  --ttl D       lifetime: <n>s, <n>m, <n>h or <n>d, at most 365d (default 1h)\n"
    "  --sub NAME    the agent's name, also its MQTT username and client id (default <tenant>.agent)\n"
    "  --aud AUD     audience (default fleetmcp)\n"
    "  --json        print {token, sub, tenant, scope, aud, iat, exp, jti} instead\n";

constexpr const char* kVerifyHelp =
    "usage: fleetctl token verify --pub issuer.pub [--aud AUD] < token\n\n"
    "Verifies the token on stdin (signature, alg, expiry, iat, audience). Exit 0 and the claims as\n"
    "JSON on stdout, or exit 1 and the error envelope on stderr.\n\n"
    "  --pub FILE    the issuer's public key (DIR/issuer.pub)\n"
    "  --aud AUD     expected audience (default fleetmcp)\n";

constexpr const char* kTokenHelp =
    "usage: fleetctl token <issue|verify> [options]   (fleetctl token <sub> --help for details)\n\n"
    "  issue    sign a new agent token with the fleet's issuer key\n"
    "  verify   check a token from stdin against the issuer's public key\n";

constexpr std::string_view kDefaultAud = "fleetmcp";
constexpr int64_t kMaxTtlS = 365 * 86400;
constexpr int64_t kLeewayS = 30;

bool all_of(std::string_view s, bool (*ok)(char)) { return std::all_of(s.begin(), s.end(), ok); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "90s", "30m", "1h", "7d" -> seconds.
int64_t parse_ttl(const std::string& text) {
  static constexpr std::pair<char, int64_t> kUnits[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
  const auto unit = std::find_if(std::begin(kUnits), std::end(kUnits),
                                 [&](const auto& u) { return !text.empty() && text.back() == u.first; });
  const std::string digits = text.substr(0, text.empty() ? 0 : text.size() - 1);
  if (unit == std::end(kUnits) || digits.empty() || digits.size() > 8 || !all_of(digits, is_digit)) {
    throw Error(ErrorCode::kBadRequest, "--ttl must be a number followed by s, m, h or d", "for example --ttl 1h");
  }
  const int64_t seconds = std::stoll(digits) * unit->second;
  if (seconds < 1 || seconds > kMaxTtlS) throw Error(ErrorCode::kBadRequest, "--ttl must be from 1s to 365d", "for example --ttl 7d");
  return seconds;
}

// sub doubles as the MQTT username: keep it to characters no topic filter or log line treats
// specially.
bool is_name(std::string_view s) {
  return !s.empty() && s.size() <= 128 && all_of(s, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' || c == '_' || c == '.' ||
           c == '@' || c == ':';
  });
}

std::set<std::string, std::less<>> parse_scopes(const std::string& text) {
  static constexpr std::string_view kKnown[] = {fleetmcp::kScopeDevicesRead, fleetmcp::kScopeCallReadOnly,
                                                fleetmcp::kScopeCallReversible, fleetmcp::kScopeCallPhysical,
                                                fleetmcp::kScopeFleetBridge};
  std::set<std::string, std::less<>> scopes;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto space = std::min(rest.find(' '), rest.size());
    const std::string_view scope = rest.substr(0, space);
    rest = rest.substr(std::min(space + 1, rest.size()));
    if (scope.empty()) continue;
    if (std::find(std::begin(kKnown), std::end(kKnown), scope) == std::end(kKnown)) {
      throw Error(ErrorCode::kBadRequest, "unknown scope '" + std::string(scope) + "'",
                  "use devices:read, tools:call:read_only, tools:call:reversible, tools:call:physical_actuation "
                  "(or fleet:bridge for a broker bridge)");
    }
    scopes.emplace(scope);
  }
  if (scopes.empty()) throw Error(ErrorCode::kBadRequest, "--scope is empty", "for example --scope devices:read");
  // A bridge token makes its holder a bridge, whatever else it says: mixing would be misleading.
  if (scopes.count(fleetmcp::kScopeFleetBridge) != 0 && scopes.size() != 1) {
    throw Error(ErrorCode::kBadRequest, "fleet:bridge is a scope of its own",
                "issue bridge tokens with --scope fleet:bridge only, agent tokens without it");
  }
  return scopes;
}

std::string claims_json(const AgentToken& t, const std::string* token) {
  fleetmcp::json::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  using fleetmcp::json::string_value;
  if (token) doc.AddMember("token", string_value(*token, a), a);
  std::string scope;
  for (const auto& s : t.scopes) scope += (scope.empty() ? "" : " ") + s;
  doc.AddMember("sub", string_value(t.sub, a), a);
  doc.AddMember("tenant", string_value(t.tenant, a), a);
  doc.AddMember("scope", string_value(scope, a), a);
  doc.AddMember("aud", string_value(t.aud, a), a);
  doc.AddMember("iat", fleetmcp::json::Value(t.iat), a);
  doc.AddMember("exp", fleetmcp::json::Value(t.exp), a);
  doc.AddMember("jti", string_value(t.jti, a), a);
  return fleetmcp::json::to_string(doc);
}

int token_issue(const Argv& argv) {
  Args args(argv, {"dir", "tenant", "scope", "ttl", "sub", "aud"}, {"json"});
  if (args.help()) return print_help(kIssueHelp);
  if (!args.positionals().empty()) throw Error(ErrorCode::kBadRequest, "token issue takes no arguments", "see --help");
  AgentToken t;
  t.tenant = args.require("tenant");
  if (!fleetmcp::is_tenant_name(t.tenant)) {
    throw Error(ErrorCode::kBadRequest, "--tenant must match " + std::string(fleetmcp::kTenantPattern), "for example --tenant acme");
  }
  t.scopes = parse_scopes(args.require("scope"));
  // The sub is the MQTT username and client id: one tenant's default must never be another's
  // (issue 24). Tenant names have no '.', so "<tenant>.agent" and the ids derived from it
  // ("<tenant>.agent-…") cannot be another tenant's default.
  t.sub = args.get("sub").value_or(t.tenant + ".agent");
  t.aud = args.get("aud").value_or(std::string(kDefaultAud));
  if (!is_name(t.sub) || !is_name(t.aud)) {
    throw Error(ErrorCode::kBadRequest, "--sub and --aud take 1..128 of [A-Za-z0-9._@:-]", "for example --sub claude");
  }
  const int64_t ttl = parse_ttl(args.get("ttl").value_or("1h"));
  const std::filesystem::path key_path = std::filesystem::path(args.require("dir")) / "issuer.key";
  const auto issuer = fleetmcp::Ed25519PrivateKey::load_pem_file(key_path.string()).value();
  t.iat = fleetmcp::now_ms() / 1000;
  t.exp = t.iat + ttl;
  t.jti = fleetmcp::new_node_id();  // lowercase, like node_ids: revoked.txt holds both
  const std::string token = fleetmcp::issue_agent_token(t, issuer).value();
  std::cout << (args.has("json") ? claims_json(t, &token) : token) << "\n";
  return kExitOk;
}

std::string read_stdin_token() {
  constexpr size_t kLimit = 64 * 1024;
  std::string text;
  for (std::istreambuf_iterator<char> it(std::cin), end; it != end && text.size() <= kLimit; ++it) text.push_back(*it);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

int token_verify(const Argv& argv) {
  Args args(argv, {"pub", "aud"}, {});
  if (args.help()) return print_help(kVerifyHelp);
  if (!args.positionals().empty()) throw Error(ErrorCode::kBadRequest, "token verify reads the token from stdin", "see --help");
  const std::string pub_path = args.require("pub");
  const std::string aud = args.get("aud").value_or(std::string(kDefaultAud));
  const std::string pem = fleetmcp::read_file(pub_path, ErrorCode::kInternal, "", "check --pub").value();
  const auto issuer = fleetmcp::ed25519_public_key_from_pem(pem, pub_path).value();
  const std::string token = read_stdin_token();
  // A refused token is the expected "no" of this command: exit 1 with the envelope, not a failure.
  const auto t = fleetmcp::verify_agent_token(token, issuer, aud, fleetmcp::now_ms() / 1000, kLeewayS);
  if (!t) {
    std::cerr << t.error().to_json() << "\n";
    return kExitRefused;
  }
  std::cout << claims_json(*t, nullptr) << "\n";
  return kExitOk;
}

}  // namespace

int cmd_token(const Argv& args) {
  return run_subcommand("token", {{"issue", token_issue}, {"verify", token_verify}}, kTokenHelp, args);
}

}  // namespace fleetctl
