#include "common/protocol/manifest.h"

#include <algorithm>
#include <array>
#include <climits>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_set>

#include "common/base/bytes.h"
#include "common/crypto/digest.h"
#include "common/base/error.h"
#include "common/crypto/jcs.h"

namespace fleetmcp {
namespace {

constexpr std::string_view kAlg = "Ed25519";
constexpr std::string_view kHwAlgo = "blake3-256";

// The canonical-form buffer, reused by every manifest signed or hashed on this thread, so the JCS
// passes of signing and of manifest_etag do not allocate.
thread_local std::string t_canonical;

const std::string& canonical(const json::Value& value) {
  t_canonical.clear();
  jcs::canonicalize(value, t_canonical);
  return t_canonical;
}

ErrorEnvelope manifest_invalid(const std::string& message, const std::string& fix) {
  return ErrorEnvelope(ErrorCode::kManifestInvalid, message, fix);
}

ErrorEnvelope attestation_failed(const std::string& message, const std::string& fix) {
  return ErrorEnvelope(ErrorCode::kAttestationFailed, message, fix);
}

// Adds the member `key` as "" when it is missing (signing fills what the caller left out).
void ensure_string_member(json::Value& object, std::string_view key, json::Allocator& alloc) {
  if (!object.HasMember(rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size())))) {
    object.AddMember(json::string_value(key, alloc), json::Value(rapidjson::kStringType), alloc);
  }
}

void set_string(json::Value& slot, std::string_view text, json::Allocator& alloc) {
  slot.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

json::Value string_array(const std::vector<std::string>& items, json::Allocator& alloc) {
  json::Value array(rapidjson::kArrayType);
  for (const auto& item : items) array.PushBack(json::string_value(item, alloc), alloc);
  return array;
}

// rate_limit_rps is a JSON number; whole values are written as integers so the published bytes
// read "10", not "10.0" (JCS prints both as 10, but humans read the raw retained message too).
json::Value number_value(double x) {
  if (x == static_cast<double>(static_cast<int64_t>(x))) return json::Value(static_cast<int64_t>(x));
  return json::Value(x);
}

json::Value capability_value(const Capability& cap, json::Allocator& alloc) {
  json::Value constraints(rapidjson::kObjectType);
  constraints.AddMember("rate_limit_rps", number_value(cap.constraints.rate_limit_rps), alloc);
  constraints.AddMember("max_concurrency", cap.constraints.max_concurrency, alloc);
  constraints.AddMember("deadline_ms_default", cap.constraints.deadline_ms_default, alloc);

  json::Value v(rapidjson::kObjectType);
  v.AddMember("cap_id", json::string_value(cap.cap_id, alloc), alloc);
  if (!cap.label.empty()) v.AddMember("label", json::string_value(cap.label, alloc), alloc);
  v.AddMember("kind", json::string_value(cap.kind, alloc), alloc);
  v.AddMember("schema_ref", json::string_value(cap.schema_ref, alloc), alloc);
  v.AddMember("verbs", string_array(cap.verbs, alloc), alloc);
  v.AddMember("safety_class", json::string_value(safety_class_name(cap.safety_class), alloc), alloc);
  v.AddMember("constraints", constraints, alloc);
  return v;
}

// A validation path is built from the document's keys; all but an unexpected extra key are
// schema-fixed names. Keep only the characters field names are made of, so no device-chosen
// bytes reach the message beyond what identifies the field.
std::string safe_path(std::string_view path) {
  std::string out;
  for (char c : path.substr(0, 120)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '/' || c == '.' || c == '-';
    out.push_back(ok ? c : '?');
  }
  return out.empty() ? "/" : out;
}

// parse_strict names a duplicate key in its message; that key is device text, so the refusal
// keeps only the part of the message before the first quote.
std::string without_quoted(std::string_view message) {
  const auto quote = message.find('"');
  std::string out(message.substr(0, quote));
  while (!out.empty() && (out.back() == ' ' || out.back() == ':')) out.pop_back();
  return out;
}

Result<json::Document> parse_payload(std::string_view payload) {
  if (payload.size() > kMaxManifestBytes) {
    return manifest_invalid("manifest is " + std::to_string(payload.size()) + " bytes, over the limit of " +
                               std::to_string(kMaxManifestBytes) + " bytes",
                           "publish fewer or smaller capabilities; a manifest must fit in 64 KiB");
  }
  auto parsed = json::parse_strict(payload, ErrorCode::kManifestInvalid, {.max_bytes = kMaxManifestBytes, .max_depth = 16});
  if (parsed) return parsed;
  // Re-templated here because the verifier's messages go back to devices and into audit logs.
  return manifest_invalid("manifest is not strict JSON: " + without_quoted(parsed.error().message),
                         "publish exactly one JSON object: valid UTF-8, no duplicate keys, nothing after it "
                         "(sign it with fleetmcp-device or fleetctl manifest sign)");
}

// Check 2 runs on the raw parse, before the schema, so an unknown kind is reported as
// E_KIND_UNSUPPORTED even when the same manifest has other defects.
Status check_kinds(const json::Value& doc, const KindRegistry& kinds) {
  if (!doc.IsObject()) return {};
  const json::Value* caps = json::find(doc, "capabilities");
  if (caps == nullptr || !caps->IsArray()) return {};
  for (rapidjson::SizeType i = 0; i < caps->Size(); ++i) {
    const json::Value& cap = (*caps)[i];
    if (!cap.IsObject()) continue;
    const auto kind = json::get_string(cap, "kind");
    if (!kind || kinds.by_kind(*kind) != nullptr) continue;
    std::string registered;
    for (const auto& spec : kinds.all()) registered += (registered.empty() ? "" : ", ") + spec.kind;
    return ErrorEnvelope(ErrorCode::kKindUnsupported,
                "capabilities[" + std::to_string(i) + "].kind is not a registered kind (registered: " + registered + ")",
                "use a registered kind (GET /schemas lists their contracts) or remove that capability; "
                "a new kind needs an RFC-0001 registry amendment");
  }
  return {};
}

// Check 3's last part, RFC 004 §11: a capability's schema_ref is the device's claim about its
// kind's contract; it must name that contract (any version), or it is refused rather than trusted.
// The message names the kind and the expected id (registry data), never the declared string.
Status check_schema_refs(const std::vector<Capability>& caps, const KindRegistry& kinds) {
  for (size_t i = 0; i < caps.size(); ++i) {
    const KindSpec* kind = kinds.by_kind(caps[i].kind);  // check 2 passed: every kind is registered
    if (kind == nullptr || kind->accepts_schema_ref(caps[i].schema_ref)) continue;
    return manifest_invalid("capabilities[" + std::to_string(i) + "].schema_ref does not name the contract of kind " +
                                kind->kind + " (" + kind->announced_schema_ref() + ")",
                            "declare schema_ref " + kind->announced_schema_ref() +
                                " for that capability and re-sign the manifest; calls are checked against the "
                                "broker's own copy of the kind's schemas");
  }
  return {};
}

Result<int64_t> required_int64(const json::Value& object, std::string_view key) {
  const auto v = json::get_int64(object, key);
  if (!v) {
    return manifest_invalid(std::string(key) + " is not a 64-bit integer",
                           "write " + std::string(key) + " as integer milliseconds since the Unix epoch");
  }
  return *v;
}

std::string string_member(const json::Value& object, std::string_view key) {
  return std::string(json::get_string(object, key).value_or(""));
}

Capability capability_from(const json::Value& v) {
  Capability cap;
  cap.cap_id = string_member(v, "cap_id");
  cap.kind = string_member(v, "kind");
  cap.schema_ref = string_member(v, "schema_ref");
  cap.label = string_member(v, "label");
  for (const auto& verb : v["verbs"].GetArray()) cap.verbs.emplace_back(verb.GetString(), verb.GetStringLength());
  cap.safety_class = safety_class_from_name(string_member(v, "safety_class")).value_or(SafetyClass::kReadOnly);
  const json::Value& c = v["constraints"];
  cap.constraints.rate_limit_rps = json::get_number(c, "rate_limit_rps").value_or(1);
  cap.constraints.max_concurrency =
      static_cast<int>(std::min<int64_t>(json::get_int64(c, "max_concurrency").value_or(1), INT_MAX));
  cap.constraints.deadline_ms_default =
      static_cast<int>(std::min<int64_t>(json::get_int64(c, "deadline_ms_default").value_or(2000), INT_MAX));
  return cap;
}

// JCS(M) with its sig string blanked and, when `blank_hash`, its payload_hash too: P1 and P0 of
// docs/protocol.md §5. Both are string values with the same keys around them, so blanking their canonical
// text in place gives exactly the canonical form of the blanked document.
std::string blanked(const ParsedManifest& m, bool blank_hash) {
  std::string text = m.canonical;
  // The later span first, so the earlier one's offsets still hold.
  const bool hash_first = m.hash_begin < m.sig_begin;
  const auto blank = [&](size_t begin, size_t end) { text.replace(begin, end - begin, "\"\""); };
  if (blank_hash && !hash_first) blank(m.hash_begin, m.hash_end);
  blank(m.sig_begin, m.sig_end);
  if (blank_hash && hash_first) blank(m.hash_begin, m.hash_end);
  return text;
}

}  // namespace

// Check 7.
Status ManifestVerifier::check_signature(const ParsedManifest& m, const Certificate& cert) {
  if (blake3_256_hex(blanked(m, /*blank_hash=*/true)) != m.payload_hash) {  // P0
    return attestation_failed(
        "node_attestation.payload_hash does not match the BLAKE3-256 of the canonical manifest (P0, docs/protocol.md "
        "section 5): the manifest was changed after signing or hashed differently",
        "re-sign the manifest on the device after every change (hash JCS with sig and payload_hash blanked)");
  }
  const auto sig = base64url_decode(m.sig);
  if (!sig || sig->size() != 64) {
    return attestation_failed("node_attestation.sig is not a base64url Ed25519 signature",
                             "re-sign the manifest; sig is 86 base64url characters without padding");
  }
  const auto key = cert.ed25519_public_key();
  if (!key) return key.error();
  if (!ed25519_verify(*key, blanked(m, /*blank_hash=*/false), *sig)) {  // P1
    return attestation_failed("node_attestation.sig does not verify with the Ed25519 key of certificate " + m.kid +
                                 " for node " + m.node_id,
                             "sign with the private key that belongs to the node's enrolled certificate "
                             "(node.key next to node.crt), over JCS with only sig blanked");
  }
  return {};
}

namespace {

// Chain verification (an X.509 store set up per call plus an Ed25519 signature check, ~80 us) has
// the same answer every time for the same (CA, leaf DER) pair; only the validity windows move with
// the clock. So a leaf that chained once is remembered by (CA thumbprint, leaf thumbprint) and later
// announces compare the windows directly. Only successes are remembered, and only certificates the
// CA signed succeed, so devices cannot grow the set at will; the bound is a backstop.
class VerifiedChains {
 public:
  bool contains(const std::string& key) const {
    std::shared_lock lock(mutex_);
    return keys_.count(key) != 0;
  }
  void add(std::string key) {
    std::unique_lock lock(mutex_);
    if (keys_.size() >= kMaxEntries) keys_.clear();
    keys_.insert(std::move(key));
  }

 private:
  static constexpr size_t kMaxEntries = 1 << 20;
  mutable std::shared_mutex mutex_;
  std::unordered_set<std::string> keys_;
};

VerifiedChains& verified_chains() {
  static VerifiedChains chains;
  return chains;
}

// Certificate times are whole seconds and is_issued_by compares at second resolution; so does this.
bool within_validity(const Certificate& cert, int64_t now_ms) {
  const int64_t t = now_ms / 1000 * 1000;
  return cert.not_before_ms() <= t && t <= cert.not_after_ms();
}

bool chains_to(const Certificate& leaf, const Certificate& ca, int64_t now_ms) {
  std::string key = ca.thumbprint() + leaf.thumbprint();
  if (verified_chains().contains(key)) return within_validity(leaf, now_ms) && within_validity(ca, now_ms);
  if (!leaf.is_issued_by(ca, now_ms)) return false;
  verified_chains().add(std::move(key));
  return true;
}

}  // namespace

std::string hw_fingerprint_value(const std::vector<std::pair<std::string, std::string>>& sources) {
  std::string text;
  for (const auto& [name, value] : sources) text += name + "=" + value + "\n";
  return blake3_256_hex(text);
}

json::Document build_manifest(const ManifestContent& content) {
  json::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();

  json::Value sources(rapidjson::kArrayType);
  for (const auto& source : content.hw_sources) sources.PushBack(json::string_value(source.first, a), a);
  json::Value hw(rapidjson::kObjectType);
  hw.AddMember("algo", json::string_value(kHwAlgo, a), a);
  hw.AddMember("value", json::string_value(hw_fingerprint_value(content.hw_sources), a), a);
  hw.AddMember("sources", sources, a);

  json::Value attestation(rapidjson::kObjectType);
  attestation.AddMember("alg", json::string_value(kAlg, a), a);
  attestation.AddMember("kid", json::string_value(content.kid, a), a);
  attestation.AddMember("sig", "", a);
  attestation.AddMember("payload_hash", "", a);

  json::Value caps(rapidjson::kArrayType);
  for (const auto& cap : content.capabilities) caps.PushBack(capability_value(cap, a), a);

  doc.AddMember("manifest_version", json::string_value(kManifestVersion, a), a);
  doc.AddMember("node_id", json::string_value(content.node_id, a), a);
  if (!content.hostname.empty()) doc.AddMember("hostname", json::string_value(content.hostname, a), a);
  if (!content.labels.empty()) doc.AddMember("labels", string_array(content.labels, a), a);
  doc.AddMember("hw_fingerprint", hw, a);
  doc.AddMember("node_attestation", attestation, a);
  doc.AddMember("issued_at_ms", content.issued_at_ms, a);
  doc.AddMember("expires_at_ms", content.expires_at_ms, a);
  doc.AddMember("capabilities", caps, a);
  return doc;
}

Result<std::string> sign_manifest(json::Document& manifest, const Ed25519PrivateKey& key) {
  auto& a = manifest.GetAllocator();
  const json::Value* found = manifest.IsObject() ? json::find(manifest, "node_attestation") : nullptr;
  if (found == nullptr || !found->IsObject() || !json::get_string(*found, "alg") || !json::get_string(*found, "kid")) {
    return manifest_invalid("cannot sign: the manifest has no node_attestation object with alg and kid",
                            "set node_attestation.alg to \"Ed25519\" and .kid to the certificate thumbprint");
  }
  json::Value& attestation = manifest["node_attestation"];
  // Both members exist before either is referenced: adding a member may move the member array.
  ensure_string_member(attestation, "sig", a);
  ensure_string_member(attestation, "payload_hash", a);
  json::Value& sig_slot = attestation["sig"];
  json::Value& hash_slot = attestation["payload_hash"];
  set_string(sig_slot, "", a);
  set_string(hash_slot, "", a);
  const std::string payload_hash = blake3_256_hex(canonical(manifest));  // P0
  set_string(hash_slot, payload_hash, a);
  const Ed25519Signature sig = key.sign(canonical(manifest));  // P1
  set_string(sig_slot, base64url_encode(sig), a);
  return jcs::canonicalize(manifest);
}

namespace {

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// A first character that is a letter or digit, then up to max - 1 of it or of `more`.
bool word_of(std::string_view text, size_t max, std::string_view more) {
  if (text.empty() || text.size() > max || !alnum(text.front())) return false;
  return std::all_of(text.begin(), text.end(), [&](char c) { return alnum(c) || more.find(c) != std::string_view::npos; });
}

}  // namespace

bool is_capability_label(std::string_view text) { return word_of(text, 64, " ._,:/@=+-"); }

bool is_node_label(std::string_view text) { return word_of(text, 63, "._:=/-"); }

bool is_host_name(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  while (true) {
    const auto dot = text.find('.');
    const std::string_view part = text.substr(0, dot);
    if (!word_of(part, 63, "-") || part.back() == '-') return false;
    if (dot == std::string_view::npos) return true;
    text.remove_prefix(dot + 1);
  }
}

std::string manifest_etag(const json::Value& manifest) { return blake3_256_hex(canonical(manifest)); }

ManifestVerifier::ManifestVerifier(std::shared_ptr<const SchemaRegistry> schemas, Certificate ca,
                                   std::shared_ptr<const RevocationList> revoked)
    : schemas_(std::move(schemas)), ca_(std::move(ca)), revoked_(std::move(revoked)) {}

Result<ParsedManifest> ManifestVerifier::parse(std::string_view payload) const {
  auto doc = parse_payload(payload);  // check 1
  if (!doc) return std::move(doc).error();
  ParsedManifest m;
  m.doc = std::move(*doc);
  if (Status kinds = check_kinds(m.doc, schemas_->kinds()); !kinds) return std::move(kinds).error();  // check 2
  if (auto failure = schemas_->validate(kManifestSchemaId, m.doc)) {  // check 3
    const std::string path = safe_path(failure->path);
    const std::string where = path == "/" ? "the top level" : path;
    return manifest_invalid("manifest does not match " + std::string(kManifestSchemaId) + " at " + where + ": " +
                                failure->message,
                            "fix the manifest at " + where +
                                " (the schema is served at GET /schemas/manifest@1.4.0) and re-sign it");
  }
  const json::Value& doc_root = m.doc;
  const json::Value& attestation = doc_root["node_attestation"];
  m.node_id = string_member(doc_root, "node_id");
  m.kid = string_member(attestation, "kid");
  m.sig = string_member(attestation, "sig");
  m.payload_hash = string_member(attestation, "payload_hash");
  m.hw_fingerprint = string_member(doc_root["hw_fingerprint"], "value");
  m.hostname = string_member(doc_root, "hostname");
  if (const json::Value* labels = json::find(doc_root, "labels")) {
    for (const auto& label : labels->GetArray()) m.labels.emplace_back(label.GetString(), label.GetStringLength());
  }
  const auto issued = required_int64(doc_root, "issued_at_ms");
  if (!issued) return issued.error();
  const auto expires = required_int64(doc_root, "expires_at_ms");
  if (!expires) return expires.error();
  m.issued_at_ms = *issued;
  m.expires_at_ms = *expires;
  const auto& caps = doc_root["capabilities"].GetArray();
  m.capabilities.reserve(caps.Size());
  for (const auto& cap : caps) m.capabilities.push_back(capability_from(cap));
  if (Status refs = check_schema_refs(m.capabilities, schemas_->kinds()); !refs) return std::move(refs).error();  // check 3
  std::array<jcs::ValueSpan, 2> spans{{{&attestation["sig"]}, {&attestation["payload_hash"]}}};
  jcs::canonicalize(doc_root, m.canonical, spans);
  m.sig_begin = spans[0].begin;
  m.sig_end = spans[0].end;
  m.hash_begin = spans[1].begin;
  m.hash_end = spans[1].end;
  m.etag = blake3_256_hex(m.canonical);
  return m;
}

Status ManifestVerifier::check_time(const ManifestFacts& m, int64_t now_ms) const {
  const int64_t ttl = m.expires_at_ms - m.issued_at_ms;
  if (ttl <= 0) {
    return manifest_invalid("expires_at_ms is not after issued_at_ms (expires - issued = " + std::to_string(ttl) +
                                " ms)",
                            "set expires_at_ms to issued_at_ms plus the manifest TTL (at most 86400000 ms)");
  }
  if (ttl > kMaxManifestTtlMs) {
    return manifest_invalid("manifest lifetime expires_at_ms - issued_at_ms = " + std::to_string(ttl) +
                                " ms exceeds the 24 h maximum of 86400000 ms",
                            "lower the manifest TTL (manifest_ttl_s in device.conf) to at most 86400 s");
  }
  if (m.issued_at_ms > now_ms + kMaxClockSkewMs) {
    return manifest_invalid("issued_at_ms is " + std::to_string(m.issued_at_ms - now_ms) +
                                " ms ahead of the broker clock (at most 60000 ms allowed)",
                            "check the device clock (NTP); issued_at_ms is " +
                                std::to_string(m.issued_at_ms - now_ms) + " ms ahead of the broker");
  }
  if (now_ms >= m.expires_at_ms) {
    return manifest_invalid("manifest expired " + std::to_string(now_ms - m.expires_at_ms) +
                                " ms ago (expires_at_ms is not after the broker clock)",
                            "re-sign and re-announce the manifest with a fresh issued_at_ms/expires_at_ms; if it "
                            "was just signed, check the device clock (NTP)");
  }
  return {};
}

// Checks 5 and 6: the topic, the publisher, then the certificate: present, its thumbprint is the
// kid, it chains to the fleet CA, its node is not revoked, and last its CN (a certificate of
// another node is reported by its kid, which names both thumbprints). node_id passed the schema
// pattern, so it may be named in messages.
Status ManifestVerifier::check_identity(const ManifestFacts& m, const AnnounceContext& ctx) const {
  const std::string node_id(m.node_id);
  if (!ctx.topic_node_id.empty() && m.node_id != ctx.topic_node_id) {
    return attestation_failed("node_id " + node_id + " does not match the announce topic's node id",
                              "publish the manifest on $devices/<its own node_id>/announce");
  }
  if (!ctx.publisher_identity.empty() && m.node_id != ctx.publisher_identity) {
    return attestation_failed("node_id " + node_id + " is not the identity (certificate CN) of the publisher",
                              "a node may only announce its own manifest: use the node_id of the certificate the "
                              "device connects with");
  }
  const Certificate* cert = ctx.certificate;
  if (cert == nullptr) {
    return attestation_failed("no certificate is known for node " + node_id + " (none presented and none enrolled)",
                              "enroll the node (fleetctl pki enroll) and connect with its certificate; offline, "
                              "pass the node certificate (fleetctl manifest verify --cert)");
  }
  if (m.kid != cert->thumbprint()) {
    return attestation_failed("node_attestation.kid " + std::string(m.kid) + " is not the thumbprint of node " +
                                  node_id + "'s certificate (" + cert->thumbprint() + ")",
                              "set kid to the lowercase hex SHA-256 of the DER of the node's own certificate and "
                              "re-sign");
  }
  if (!ctx.chain_verified && !chains_to(*cert, ca_, ctx.now_ms)) {
    return attestation_failed("the certificate of node " + node_id +
                                  " does not chain to the fleet CA or is outside its validity period",
                              "re-enroll the node with this fleet's CA (fleetctl pki enroll) and install the new "
                              "bundle on the device");
  }
  if (revoked_ != nullptr && revoked_->contains(m.node_id)) {
    return attestation_failed(
        "node " + node_id + " is revoked",
        "an operator revoked this node; re-enroll it under a new node_id if it is trusted again");
  }
  if (cert->subject_cn() != m.node_id) {
    return attestation_failed("the certificate CN does not equal node_id " + node_id,
                              "use the node_id the certificate was issued for (its CN), or sign with that node's "
                              "key and certificate");
  }
  return {};
}

Status ManifestVerifier::check_history(const ManifestFacts& m, const AnnounceContext& ctx) const {
  if (ctx.last_issued_at_ms && m.issued_at_ms < *ctx.last_issued_at_ms) {  // check 8
    return manifest_invalid("issued_at_ms is " + std::to_string(*ctx.last_issued_at_ms - m.issued_at_ms) +
                                " ms older than the last accepted manifest of node " + std::string(m.node_id) +
                                " (replay)",
                            "announce a freshly signed manifest; if the device clock went backwards, fix it (NTP)");
  }
  if (ctx.pinned_hw_fingerprint && m.hw_fingerprint != *ctx.pinned_hw_fingerprint) {  // check 9
    return attestation_failed("hw_fingerprint.value of node " + std::string(m.node_id) +
                                  " differs from the one first seen for this node",
                              "if the hardware was replaced, re-enroll the node (fleetctl pki enroll); otherwise "
                              "treat the node's credentials as copied to another device");
  }
  return {};
}

Result<ParsedManifest> ManifestVerifier::verify(std::string_view payload, const AnnounceContext& ctx) const {
  auto parsed = parse(payload);  // 1–3
  if (!parsed) return parsed;
  const ParsedManifest& m = *parsed;
  Status rest = check_after_parse(m, ctx, [&](const Certificate& cert) { return check_signature(m, cert); });  // 4–9
  if (!rest) return std::move(rest).error();
  return parsed;
}

}  // namespace fleetmcp
