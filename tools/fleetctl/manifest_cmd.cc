// fleetctl manifest sign|verify|example: the manifest seams of docs/protocol.md §11. Other implementations
// test against these (byte-exact output, exit codes), so keep their behaviour stable.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>

#include "common/crypto/ed25519.h"
#include "common/base/error.h"
#include "common/crypto/jcs.h"
#include "common/base/json.h"
#include "common/protocol/manifest.h"
#include "common/registry/schema_registry.h"
#include "common/ids/ulid.h"
#include "common/crypto/x509.h"
#include "tools/fleetctl/args.h"
#include "tools/fleetctl/commands.h"

namespace fleetctl {
namespace {

using fleetmcp::Error;
using fleetmcp::ErrorCode;
namespace json = fleetmcp::json;

constexpr int64_t kDefaultTtlS = 3600;

constexpr const char* kUsage =
    "usage: fleetctl manifest <sign|verify|example> [options]   (each takes --help)\n"
    "  sign     sign the manifest on stdin with a node key (docs/protocol.md section 5); JCS bytes on stdout\n"
    "  verify   run every announce check of docs/protocol.md section 5; exit 0 + etag, or exit 1 + error envelope\n"
    "  example  print an unsigned mock-device manifest (system.echo + system.metrics)\n";

constexpr const char* kSignHelp =
    "usage: fleetctl manifest sign --key KEY --cert CERT [--ttl-s N] [--now-ms MS]\n"
    "\n"
    "Reads a CapabilityManifest (JSON) on stdin and writes the signed manifest on stdout as its\n"
    "RFC 8785 (JCS) bytes, without a trailing newline, so `... | fleetctl b3` prints its etag.\n"
    "node_attestation may be missing or blank: alg is set to Ed25519, kid to the SHA-256 thumbprint\n"
    "of CERT, then payload_hash and sig are computed as docs/protocol.md section 5 says.\n"
    "issued_at_ms / expires_at_ms are kept when present; a missing issued_at_ms becomes now and a\n"
    "missing expires_at_ms becomes issued_at_ms + TTL. --now-ms or --ttl-s re-stamps both.\n"
    "\n"
    "  --key KEY      node private key, PKCS#8 PEM (node.key of an enrolment bundle)\n"
    "  --cert CERT    node certificate, PEM (node.crt); its thumbprint becomes kid\n"
    "  --ttl-s N      lifetime in seconds, 1..86400 (default 3600)\n"
    "  --now-ms MS    use MS as the current time (ms since the epoch) instead of the clock\n";

constexpr const char* kVerifyHelp =
    "usage: fleetctl manifest verify --ca CA [--cert CERT] [--revoked FILE] [--topic-node ID]\n"
    "                                [--publisher ID] [--now-ms MS] [--last-issued-ms MS]\n"
    "                                [--pinned-hw HEX] [--schemas DIR] [--json]\n"
    "\n"
    "Reads a signed manifest on stdin and runs the broker's announce checks (docs/protocol.md section 5) in order.\n"
    "Accepted: exit 0, the etag on stdout (with --json: {\"etag\",\"node_id\",\"kid\",...}).\n"
    "Refused:  exit 1, the RFC-0001 error envelope (JSON, one line) on stdout.\n"
    "\n"
    "  --ca CA              fleet CA certificate (ca.crt of `fleetctl pki init`)\n"
    "  --cert CERT          the node's certificate; default: <dir of CA>/nodes/<node_id>/node.crt\n"
    "  --revoked FILE       revocation list; default: <dir of CA>/revoked.txt (missing = none revoked)\n"
    "  --topic-node ID      node id of the announce topic ($devices/ID/announce); checked when given\n"
    "  --publisher ID       identity (certificate CN) of the publisher; checked when given\n"
    "  --now-ms MS          the broker clock (ms since the epoch); default: now\n"
    "  --last-issued-ms MS  issued_at_ms of the last accepted manifest of the node (replay check)\n"
    "  --pinned-hw HEX      hw_fingerprint.value first seen for the node\n"
    "  --schemas DIR        schema directory (default: $FLEETMCP_SCHEMAS or the installed schemas)\n"
    "  --json               print the accepted manifest's summary as JSON\n";

constexpr const char* kExampleHelp =
    "usage: fleetctl manifest example [--node-id ID]\n"
    "\n"
    "Prints an unsigned manifest of a mock device: the RFC-0005 section 9 echo capability and the\n"
    "system.metrics capability `metrics` (docs/protocol.md D2), hw_fingerprint over a mock machine_id. No\n"
    "issued_at_ms/expires_at_ms and a blank node_attestation: pipe it into `fleetctl manifest sign`.\n"
    "\n"
    "  --node-id ID   lowercase ULID (default: a new one)\n";

std::string read_stdin() {
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

void set_member(json::Value& object, const char* key, json::Value value, json::Allocator& alloc) {
  auto it = object.FindMember(key);
  if (it != object.MemberEnd()) {
    it->value = value;
  } else {
    object.AddMember(rapidjson::StringRef(key), value, alloc);
  }
}

int cmd_sign(const Argv& argv) {
  Args args(argv, {"key", "cert", "ttl-s", "now-ms"}, {});
  if (args.help()) {
    std::fputs(kSignHelp, stdout);
    return kExitOk;
  }
  const auto key = fleetmcp::Ed25519PrivateKey::load_pem_file(args.require("key")).value();
  const auto cert = fleetmcp::Certificate::load_pem_file(args.require("cert")).value();
  const auto ttl_s = args.integer("ttl-s", 1, fleetmcp::kMaxManifestTtlMs / 1000);  // a manifest lives at most 24 h
  const auto now_opt = args.integer("now-ms", 0, INT64_MAX);

  json::Document doc = json::parse_strict(read_stdin(), ErrorCode::kBadRequest).value();
  if (!doc.IsObject()) {
    throw Error(ErrorCode::kBadRequest, "the manifest on stdin is not a JSON object", "pipe a manifest object in");
  }
  auto& a = doc.GetAllocator();

  json::Value* attestation = nullptr;
  if (auto it = doc.FindMember("node_attestation"); it != doc.MemberEnd() && it->value.IsObject()) {
    attestation = &it->value;
  } else {
    set_member(doc, "node_attestation", json::Value(rapidjson::kObjectType), a);
    attestation = &doc["node_attestation"];
  }
  set_member(*attestation, "alg", json::Value("Ed25519"), a);
  set_member(*attestation, "kid", json::string_value(cert.thumbprint(), a), a);

  const bool restamp = ttl_s.has_value() || now_opt.has_value();
  const int64_t now = now_opt.value_or(fleetmcp::now_ms());
  const int64_t ttl_ms = ttl_s.value_or(kDefaultTtlS) * 1000;
  if (restamp || !doc.HasMember("issued_at_ms")) set_member(doc, "issued_at_ms", json::Value(now), a);
  if (restamp || !doc.HasMember("expires_at_ms")) {
    const int64_t issued = json::get_int64(doc, "issued_at_ms").value_or(now);
    set_member(doc, "expires_at_ms", json::Value(issued + ttl_ms), a);
  }

  const auto node_id = json::get_string(doc, "node_id");
  if (!node_id || *node_id != cert.subject_cn()) {
    std::fputs("fleetctl: warning: node_id is not the certificate's CN; verification will refuse it\n", stderr);
  }
  const std::string published = fleetmcp::sign_manifest(doc, key).value();
  std::fwrite(published.data(), 1, published.size(), stdout);
  return kExitOk;
}

std::filesystem::path dir_of(const std::string& file) {
  auto dir = std::filesystem::path(file).parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}

void print_accepted(const fleetmcp::ParsedManifest& m, bool as_json) {
  if (!as_json) {
    std::printf("%s\n", m.etag.c_str());
    return;
  }
  json::Document out(rapidjson::kObjectType);
  auto& a = out.GetAllocator();
  out.AddMember("etag", json::string_value(m.etag, a), a);
  out.AddMember("node_id", json::string_value(m.node_id, a), a);
  out.AddMember("kid", json::string_value(m.kid, a), a);
  out.AddMember("payload_hash", json::string_value(m.payload_hash, a), a);
  out.AddMember("hw_fingerprint", json::string_value(m.hw_fingerprint, a), a);
  out.AddMember("issued_at_ms", m.issued_at_ms, a);
  out.AddMember("expires_at_ms", m.expires_at_ms, a);
  out.AddMember("capabilities", static_cast<uint64_t>(m.capabilities.size()), a);
  std::printf("%s\n", json::to_string(out).c_str());
}

// The refusal is the answer: the envelope on stdout, a one-line summary on stderr.
int print_refused(const fleetmcp::ErrorEnvelope& e) {
  std::printf("%s\n", e.to_json().c_str());
  std::fprintf(stderr, "fleetctl: manifest refused: %s: %s\n", std::string(fleetmcp::error_code_name(e.code)).c_str(),
               e.message.c_str());
  return kExitRefused;
}

int cmd_verify(const Argv& argv) {
  Args args(argv,
            {"ca", "cert", "revoked", "topic-node", "publisher", "now-ms", "last-issued-ms", "pinned-hw", "schemas"},
            {"json"});
  if (args.help()) {
    std::fputs(kVerifyHelp, stdout);
    return kExitOk;
  }
  // Operator inputs first: a missing CA or schema directory is a failure (exit 3), not a refusal.
  const std::string ca_path = args.require("ca");
  const auto ca_dir = dir_of(ca_path);
  auto schemas = fleetmcp::SchemaRegistry::load(args.get("schemas").value_or(fleetmcp::SchemaRegistry::default_dir()));
  auto ca = fleetmcp::Certificate::load_pem_file(ca_path).value();
  auto revoked = std::make_shared<fleetmcp::RevocationList>(
      fleetmcp::RevocationList::load(args.get("revoked").value_or((ca_dir / "revoked.txt").string())).value());
  std::optional<fleetmcp::Certificate> cert;
  if (auto path = args.get("cert")) cert = fleetmcp::Certificate::load_pem_file(*path).value();

  const std::string topic_node = args.get("topic-node").value_or("");
  const std::string publisher = args.get("publisher").value_or("");
  fleetmcp::AnnounceContext ctx;
  ctx.now_ms = args.integer("now-ms", 0, INT64_MAX).value_or(fleetmcp::now_ms());
  ctx.topic_node_id = topic_node;
  ctx.publisher_identity = publisher;
  ctx.last_issued_at_ms = args.integer("last-issued-ms", 0, INT64_MAX);
  ctx.pinned_hw_fingerprint = args.get("pinned-hw");

  const fleetmcp::ManifestVerifier verifier(std::move(schemas), std::move(ca), std::move(revoked));
  const std::string payload = read_stdin();
  if (!cert) {
    // The enrolled certificate is found by node_id, which only a manifest that passed checks 1-3
    // provides (and which the schema restricts to a ULID, so it is safe in a path).
    const auto parsed = verifier.parse(payload);
    if (!parsed) return print_refused(parsed.error());
    const auto enrolled = ca_dir / "nodes" / parsed->node_id / "node.crt";
    if (std::filesystem::exists(enrolled)) {
      // An unreadable enrolled certificate refuses the manifest, as a missing one does.
      auto loaded = fleetmcp::Certificate::load_pem_file(enrolled.string());
      if (!loaded) return print_refused(loaded.error());
      cert = std::move(*loaded);
    }
  }
  ctx.certificate = cert ? &*cert : nullptr;
  const auto verified = verifier.verify(payload, ctx);
  if (!verified) return print_refused(verified.error());
  print_accepted(*verified, args.has("json"));
  return kExitOk;
}

int cmd_example(const Argv& argv) {
  Args args(argv, {"node-id"}, {});
  if (args.help()) {
    std::fputs(kExampleHelp, stdout);
    return kExitOk;
  }
  const std::string node_id = args.get("node-id").value_or(fleetmcp::new_node_id());
  if (!fleetmcp::is_node_id(node_id)) {
    throw Error(ErrorCode::kBadRequest, "--node-id is not a lowercase 26-character ULID",
                "use a node_id such as those `fleetctl pki enroll` prints");
  }
  fleetmcp::ManifestContent content;
  content.node_id = node_id;
  content.hw_sources = {{"machine_id", "mock-" + node_id}};
  fleetmcp::Capability echo;  // RFC-0005 section 9, verbatim
  echo.cap_id = "echo";
  echo.kind = "system.echo";
  echo.schema_ref = "mcp://schemas/system.echo.invoke.input@1.0.0";
  echo.verbs = {"invoke"};
  echo.constraints = {.rate_limit_rps = 10, .max_concurrency = 4, .deadline_ms_default = 2000};
  fleetmcp::Capability metrics;  // docs/protocol.md D2, RFC-0001 section 5
  metrics.cap_id = "metrics";
  metrics.kind = "system.metrics";
  metrics.schema_ref = "mcp://schemas/system.metrics@1.0.0";
  metrics.verbs = {"snapshot", "subscribe"};
  metrics.constraints = {.rate_limit_rps = 5, .max_concurrency = 2, .deadline_ms_default = 2000};
  content.capabilities = {echo, metrics};

  json::Document doc = fleetmcp::build_manifest(content);
  doc.RemoveMember("issued_at_ms");  // left to `manifest sign`, which stamps the current time
  doc.RemoveMember("expires_at_ms");
  std::printf("%s\n", fleetmcp::jcs::canonicalize(doc).c_str());
  return kExitOk;
}

}  // namespace

int cmd_manifest(const Argv& args) {
  return run_subcommand("manifest", {{"sign", cmd_sign}, {"verify", cmd_verify}, {"example", cmd_example}}, kUsage, args);
}

}  // namespace fleetctl
