// CapabilityManifest (RFC-0001 §2, manifest@1.4.0): building, signing and verifying exactly as
// docs/protocol.md §5 says.
//
//   P0 = JCS(M with sig = "" and payload_hash = "")     payload_hash = hex BLAKE3-256(P0)
//   P1 = JCS(M with sig = "" and payload_hash = hash)   sig = base64url(Ed25519(P1)), 86 chars
//   etag = hex BLAKE3-256(JCS(M as published))
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/base/json.h"
#include "common/base/result.h"
#include "common/crypto/ed25519.h"
#include "common/registry/kinds.h"
#include "common/registry/schema_registry.h"
#include "common/crypto/x509.h"

namespace fleetmcp {

inline constexpr std::string_view kManifestVersion = "1.1.0";                  // docs/protocol.md D1
// manifest@1.3.0 was manifest@1.1.0 plus the Doc 05 kinds and their clamps (the v1.4 kind registry
// amendment, docs/protocol.md D11, published as manifest@1.2.0) and logs.audit (v1.5); the wire
// format, and so manifest_version, is unchanged (D1). manifest@1.4.0 adds the optional hostname,
// node labels and capability labels (docs/protocol.md D42); every 1.3.0 manifest is a 1.4.0 one.
inline constexpr std::string_view kManifestSchemaId = "mcp://schemas/manifest@1.4.0";
inline constexpr size_t kMaxManifestBytes = 64 * 1024;
inline constexpr int64_t kMaxManifestTtlMs = 86'400'000;
inline constexpr int64_t kMaxClockSkewMs = 60'000;

struct CapabilityConstraints {
  double rate_limit_rps = 1;
  int max_concurrency = 1;
  int deadline_ms_default = 2000;
};

struct Capability {
  std::string cap_id, kind, schema_ref;
  std::vector<std::string> verbs;
  SafetyClass safety_class = SafetyClass::kReadOnly;
  CapabilityConstraints constraints;
  std::string label;  // what it is on the device ("BCM 17, output"); "" = none (manifest@1.4.0)
};

// The grammars manifest@1.4.0 gives its optional texts (docs/protocol.md §5.1), for whoever fills
// them from a configuration or the host: a text that fails is left out, never sent to be refused.
bool is_capability_label(std::string_view text);  // 1..64 of letters, digits, space and ._,:/@=+-
bool is_node_label(std::string_view text);        // 1..63 of letters, digits and ._:=/-
bool is_host_name(std::string_view text);         // RFC 1123 dot-separated labels, 253 at most

// hw_fingerprint.value: hex BLAKE3-256 of "name=value\n" per source, in the order given.
std::string hw_fingerprint_value(const std::vector<std::pair<std::string, std::string>>& sources);

// What a node signs. Times in ms since the epoch.
struct ManifestContent {
  std::string node_id;
  std::vector<std::pair<std::string, std::string>> hw_sources;  // (source name, raw value)
  std::string kid;  // certificate thumbprint
  int64_t issued_at_ms = 0, expires_at_ms = 0;
  std::vector<Capability> capabilities;
  std::string hostname;             // "" = not announced (manifest@1.4.0)
  std::vector<std::string> labels;  // the operator's node labels (manifest@1.4.0)
};

json::Document build_manifest(const ManifestContent& content);

// Fills node_attestation.payload_hash and .sig of `manifest` in place (alg and kid must be set)
// and returns the published bytes: JCS of the signed manifest. E_MANIFEST_INVALID without alg
// and kid.
Result<std::string> sign_manifest(json::Document& manifest, const Ed25519PrivateKey& key);

std::string manifest_etag(const json::Value& manifest);  // hex BLAKE3-256 of its JCS

// A manifest that passed checks 1–3 of docs/protocol.md §5 (parse, kinds, schema).
struct ParsedManifest {
  json::Document doc;
  std::string node_id, kid, sig, payload_hash, hw_fingerprint, etag;
  // JCS(M as published), the etag's input, and where the sig and payload_hash strings (quotes
  // included) stand in it: check 7 derives P0 and P1 from it by blanking them (docs/protocol.md §5).
  std::string canonical;
  size_t sig_begin = 0, sig_end = 0, hash_begin = 0, hash_end = 0;
  int64_t issued_at_ms = 0, expires_at_ms = 0;
  std::vector<Capability> capabilities;
  std::string hostname;             // "" when the manifest has none
  std::vector<std::string> labels;
};

// What checks 4–9 read of a manifest that passed checks 1–3: views into a ParsedManifest or into
// the plugin's cached summary of one (broker_plugin/announces/manifest_summary.h), so the same checks
// run on either without copying it.
struct ManifestFacts {
  std::string_view node_id, kid, hw_fingerprint;
  int64_t issued_at_ms = 0, expires_at_ms = 0;

  ManifestFacts() = default;
  ManifestFacts(const ParsedManifest& m)  // NOLINT: implicit, a parsed manifest is its facts
      : node_id(m.node_id), kid(m.kid), hw_fingerprint(m.hw_fingerprint), issued_at_ms(m.issued_at_ms),
        expires_at_ms(m.expires_at_ms) {}
};

// What the verifier needs to know about the announce beyond its bytes.
struct AnnounceContext {
  int64_t now_ms = 0;
  std::string_view topic_node_id;       // "" = not checked (offline verification)
  std::string_view publisher_identity;  // certificate CN of the publisher; "" = not checked
  const Certificate* certificate = nullptr;  // presented or enrolled cert of the node (checks 6, 7)
  // The caller already verified that `certificate` chains to the fleet CA and is valid now (the
  // plugin does so once per connection, and before re-checking an announce restored from
  // persistence), so check 6 does not repeat the chain verification.
  bool chain_verified = false;
  std::optional<int64_t> last_issued_at_ms;  // check 8
  std::optional<std::string> pinned_hw_fingerprint;  // check 9
};

// docs/protocol.md §6.1 verification, every check in the table's order; the first failure is
// returned with that check's code and a message naming what failed. The one sequence of checks:
// `fleetctl manifest verify`, the tests and vectors run verify(); the plugin's AnnounceVerifier runs
// check_after_parse() with check 7 answered from its verdict cache.
class ManifestVerifier {
 public:
  ManifestVerifier(std::shared_ptr<const SchemaRegistry> schemas, Certificate ca,
                   std::shared_ptr<const RevocationList> revoked);

  // Checks 1–9.
  Result<ParsedManifest> verify(std::string_view payload, const AnnounceContext& ctx) const;

  // Checks 1–3: what depends on the bytes alone (with check 7, what the plugin caches).
  Result<ParsedManifest> parse(std::string_view payload) const;

  // Checks 4–9 in order. `check_signature(const Certificate&) -> Status` is check 7 as the caller
  // has it: verify() checks the document; the plugin answers from its verdict cache. It is called
  // only once checks 4–6 passed, so with the certificate the manifest's kid names.
  template <typename CheckSignature>
  Status check_after_parse(const ManifestFacts& m, const AnnounceContext& ctx, CheckSignature&& check_signature) const {
    if (Status time = check_time(m, ctx.now_ms); !time) return time;        // 4
    if (Status identity = check_identity(m, ctx); !identity) return identity;  // 5, 6
    if (Status signature = check_signature(*ctx.certificate); !signature) return signature;  // 7
    return check_history(m, ctx);                                            // 8, 9
  }

  // The single checks, in table order.
  Status check_time(const ManifestFacts& m, int64_t now_ms) const;                 // 4
  Status check_identity(const ManifestFacts& m, const AnnounceContext& ctx) const;  // 5, 6
  static Status check_signature(const ParsedManifest& m, const Certificate& cert);  // 7
  Status check_history(const ManifestFacts& m, const AnnounceContext& ctx) const;   // 8, 9

  const SchemaRegistry& schemas() const { return *schemas_; }
  const Certificate& ca() const { return ca_; }
  void set_revocations(std::shared_ptr<const RevocationList> revoked) { revoked_ = std::move(revoked); }

 private:
  std::shared_ptr<const SchemaRegistry> schemas_;
  Certificate ca_;
  std::shared_ptr<const RevocationList> revoked_;
};

}  // namespace fleetmcp
