// fleetctl pki init | enroll | revoke: the fleet's test PKI (docs/protocol.md §2, CONTRIBUTING "PKI directory").
#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/crypto/agent_token.h"
#include "common/crypto/ed25519.h"
#include "common/base/error.h"
#include "common/base/json.h"
#include "common/base/text.h"
#include "common/ids/tenant.h"
#include "common/ids/ulid.h"
#include "common/crypto/x509.h"
#include "tools/fleetctl/args.h"
#include "tools/fleetctl/commands.h"

namespace fleetctl {
namespace {

namespace fs = std::filesystem;
using fleetmcp::Certificate;
using fleetmcp::Ed25519PrivateKey;
using fleetmcp::Ed25519PublicKey;
using fleetmcp::Error;
using fleetmcp::ErrorCode;

constexpr const char* kInitHelp =
    "usage: fleetctl pki init --dir DIR [--days N] [--san DNS:host,IP:1.2.3.4] [--force]\n\n"
    "Creates a test PKI in DIR: ca.key/ca.crt (Ed25519 root CA), issuer.key/issuer.pub (agent token\n"
    "signing key), server.key/server.crt (broker TLS certificate, CN=localhost, SAN DNS:localhost,\n"
    "IP:127.0.0.1 plus --san), an empty revoked.txt and nodes/. Private keys are mode 0600.\n\n"
    "  --dir DIR    where to write (created if missing)\n"
    "  --days N     validity of the CA and server certificates in days (default 3650)\n"
    "  --san LIST   extra server certificate names, comma-separated DNS:name or IP:address\n"
    "  --force      replace an existing CA (every node enrolled under it stops verifying)\n";

constexpr const char* kEnrollHelp =
    "usage: fleetctl pki enroll --dir DIR --tenant T [--count N] [--broker URI] [--days N] [--json]\n\n"
    "Enrols N new nodes (default 1) under the CA in DIR. Each gets a lowercase ULID node_id, an Ed25519\n"
    "key and a leaf certificate CN=<node_id>, O=<tenant>, in the bundle DIR/nodes/<node_id>/ (node.key,\n"
    "node.crt, ca.crt, device.conf) to copy onto the device. Prints one node_id per line.\n\n"
    "  --tenant T    tenant id, ^[a-z0-9][a-z0-9_-]{0,62}$\n"
    "  --count N     how many nodes (1..100000; progress on stderr above 20)\n"
    "  --broker URI  the broker the device connects to (default mqtts://127.0.0.1:8883)\n"
    "  --days N      certificate validity in days (default 365, never beyond the CA's)\n"
    "  --json        print a JSON array of {node_id, bundle, kid} instead\n";

constexpr const char* kBridgeHelp =
    "usage: fleetctl pki bridge --dir DIR --sub SUB [--days N]\n\n"
    "Makes the client certificate a broker's bridge presents to another broker (docs/sharding.md):\n"
    "DIR/bridges/<SUB>/ bridge.key, bridge.crt (CN=<SUB>, O=fleet:bridge) and ca.crt, to copy onto the\n"
    "broker that bridges, with a fleet:bridge token of the same sub (fleetctl token issue --sub SUB).\n\n"
    "  --sub SUB   the bridge's name: the token's sub and the bridge's remote_username\n"
    "  --days N    certificate validity in days (default 365, never beyond the CA's)\n";

constexpr const char* kRevokeHelp =
    "usage: fleetctl pki revoke --dir DIR <node_id|jti>...\n\n"
    "Adds node_ids and agent token jtis to DIR/revoked.txt (the broker plugin reloads it on SIGHUP).\n"
    "Entries already present are left alone; prints each entry it added.\n";

constexpr const char* kPkiHelp =
    "usage: fleetctl pki <init|enroll|bridge|revoke> [options]   (fleetctl pki <sub> --help for details)\n\n"
    "  init     create a test root CA, the agent token issuer key and the broker server certificate\n"
    "  enroll   create node keys, certificates and device bundles\n"
    "  bridge   create a bridge's client key and certificate (mutual TLS between brokers)\n"
    "  revoke   add node_ids or token jtis to the revocation list\n";

constexpr std::string_view kDefaultBroker = "mqtts://127.0.0.1:8883";
constexpr int64_t kClockSkewS = 300;  // notBefore in the past: devices' clocks (no RTC on a Pi) lag

// ---- OpenSSL ownership -----------------------------------------------------------------------

struct OsslFree {
  void operator()(X509* p) const { X509_free(p); }
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
using X509Ptr = std::unique_ptr<X509, OsslFree>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, OsslFree>;

[[noreturn]] void openssl_failed(std::string_view what) {
  ERR_clear_error();
  throw Error(ErrorCode::kInternal, "OpenSSL failed to " + std::string(what), "report this as a bug");
}

// The signing key as OpenSSL wants it. Going through PKCS#8 keeps the seed inside the two
// libraries' own code instead of copying raw key bytes around here.
PkeyPtr to_evp(const Ed25519PrivateKey& key) {
  const std::string pem = key.to_pem();
  std::unique_ptr<BIO, OsslFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  PkeyPtr pkey(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!pkey) openssl_failed("load an Ed25519 key");
  return pkey;
}

PkeyPtr to_evp(const Ed25519PublicKey& key) {
  PkeyPtr pkey(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, key.data(), key.size()));
  if (!pkey) openssl_failed("load an Ed25519 public key");
  return pkey;
}

// ---- files ------------------------------------------------------------------------------------

// Writes via a temporary file and rename(), so a reader (a device, the plugin, a script polling
// the directory) never sees half a key, and an overwrite with --force is all or nothing.
void write_file(const fs::path& path, std::string_view data, mode_t mode) {
  const std::string tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
  bool ok = fd >= 0 && ::fchmod(fd, mode) == 0;  // fchmod: the umask must not widen or narrow it
  for (size_t done = 0; ok && done < data.size();) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    ok = n > 0;
    done += ok ? static_cast<size_t>(n) : 0;
  }
  if (fd >= 0) ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw Error(ErrorCode::kInternal, "cannot write " + path.string(), "check the directory exists and is writable");
  }
}

void make_dirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorCode::kInternal, "cannot create directory " + dir.string(), "check the path and permissions");
}

// ---- certificates -----------------------------------------------------------------------------

enum class Profile { kRootCa, kServer, kNode };

struct CertRequest {
  Profile profile;
  std::string cn, o;
  std::string san;  // OpenSSL subjectAltName syntax, already validated
  int64_t not_after_s = 0;
};

void add_extension(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value) {
  std::unique_ptr<X509_EXTENSION, OsslFree> ext(X509V3_EXT_conf_nid(nullptr, ctx, nid, value.c_str()));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) openssl_failed("add a certificate extension");
}

void add_extensions(X509* cert, X509* issuer, const CertRequest& req) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer ? issuer : cert, cert, nullptr, nullptr, 0);
  const bool ca = req.profile == Profile::kRootCa;
  add_extension(cert, &ctx, NID_basic_constraints, ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
  add_extension(cert, &ctx, NID_key_usage, ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature");
  if (!ca) add_extension(cert, &ctx, NID_ext_key_usage, req.profile == Profile::kServer ? "serverAuth" : "clientAuth");
  // SKI before AKI: a self-signed certificate's AKI is computed from its own SKI.
  add_extension(cert, &ctx, NID_subject_key_identifier, "hash");
  add_extension(cert, &ctx, NID_authority_key_identifier, "keyid:always");
  if (!req.san.empty()) add_extension(cert, &ctx, NID_subject_alt_name, req.san);
}

// A random positive 16-byte serial (RFC 5280 §4.1.2.2 allows up to 20), high bit clear so DER
// needs no sign byte, next bit set so it is always exactly 16 bytes.
void set_random_serial(X509* cert) {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) openssl_failed("generate a serial number");
  bytes[0] = static_cast<unsigned char>((bytes[0] & 0x7F) | 0x40);
  std::unique_ptr<BIGNUM, OsslFree> bn(BN_bin2bn(bytes, sizeof bytes, nullptr));
  if (!bn || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert))) openssl_failed("set a serial number");
}

void set_subject(X509* cert, const CertRequest& req) {
  X509_NAME* name = X509_get_subject_name(cert);
  auto add = [&](const char* field, const std::string& value) {
    if (!X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(value.c_str()),
                                    -1, -1, 0)) {
      openssl_failed("set the certificate subject");
    }
  };
  if (!req.o.empty()) add("O", req.o);
  add("CN", req.cn);
}

// Issues a certificate for `subject_key`, signed by `issuer_key`; issuer == nullptr: self-signed.
X509Ptr issue_certificate(const CertRequest& req, const Ed25519PublicKey& subject_key, X509* issuer,
                          EVP_PKEY* issuer_key) {
  X509Ptr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1) openssl_failed("create a certificate");
  set_random_serial(cert.get());
  set_subject(cert.get(), req);
  const X509_NAME* issuer_name = issuer ? X509_get_subject_name(issuer) : X509_get_subject_name(cert.get());
  auto pub = to_evp(subject_key);
  if (X509_set_issuer_name(cert.get(), issuer_name) != 1 || X509_set_pubkey(cert.get(), pub.get()) != 1 ||
      !ASN1_TIME_set(X509_getm_notBefore(cert.get()), std::time(nullptr) - kClockSkewS) ||
      !ASN1_TIME_set(X509_getm_notAfter(cert.get()), static_cast<time_t>(req.not_after_s))) {
    openssl_failed("fill in a certificate");
  }
  add_extensions(cert.get(), issuer, req);
  // Ed25519 signs the whole TBSCertificate itself: no separate digest (md = nullptr).
  if (X509_sign(cert.get(), issuer_key, nullptr) <= 0) openssl_failed("sign a certificate");
  return cert;
}

std::string cert_pem(X509* cert) { return Certificate::from_x509(cert).value().to_pem(); }

// ---- option parsing ---------------------------------------------------------------------------


bool is_dns_name(std::string_view s) {
  if (s.empty() || s.size() > 253 || s.front() == '.' || s.front() == '-') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '*';
  });
}

bool is_ip_address(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

// "DNS:a,IP:1.2.3.4" -> validated items. Each item is checked so nothing but a name or an address
// can reach OpenSSL's extension syntax.
std::string server_san(const std::optional<std::string>& extra) {
  std::string san = "DNS:localhost,IP:127.0.0.1";
  if (!extra) return san;
  for (size_t start = 0; start <= extra->size();) {
    const auto comma = std::min(extra->find(',', start), extra->size());
    const std::string item = extra->substr(start, comma - start);
    start = comma + 1;
    const bool ok = (item.rfind("DNS:", 0) == 0 && is_dns_name(std::string_view(item).substr(4))) ||
                    (item.rfind("IP:", 0) == 0 && is_ip_address(item.substr(3)));
    if (!ok) {
      throw Error(ErrorCode::kBadRequest, "--san item '" + item + "' is not DNS:<name> or IP:<address>",
                  "for example --san DNS:broker.local,IP:192.168.1.10");
    }
    san += "," + item;
  }
  return san;
}

// mqtts://host[:port] with a plain host name, IPv4 or [IPv6]. device.conf is a line format, so
// anything else (spaces, '#', newlines) must never get in.
bool is_broker_uri(std::string_view uri) {
  constexpr std::string_view kScheme = "mqtts://";
  if (uri.substr(0, kScheme.size()) != kScheme || uri.size() == kScheme.size() || uri.size() > 255) return false;
  return std::all_of(uri.begin() + kScheme.size(), uri.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == ':' || c == '[' || c == ']';
  });
}

// ---- pki init ---------------------------------------------------------------------------------

struct InitPlan {
  fs::path dir;
  int64_t not_after_s;
  std::string san;
};

void write_key(const fs::path& path, const Ed25519PrivateKey& key) { write_file(path, key.to_pem(), 0600); }

// Private keys 0600, the rest world-readable (certificates and public keys are public). Prints each path written.
void write_pki(const fs::path& dir, const Ed25519PrivateKey& ca_key, X509* ca, const Ed25519PrivateKey& server_key,
               X509* server, const Ed25519PrivateKey& issuer_key) {
  write_key(dir / "ca.key", ca_key);
  write_file(dir / "ca.crt", cert_pem(ca), 0644);
  write_key(dir / "issuer.key", issuer_key);
  write_file(dir / "issuer.pub", fleetmcp::ed25519_public_key_to_pem(issuer_key.public_key()), 0644);
  write_key(dir / "server.key", server_key);
  write_file(dir / "server.crt", cert_pem(server), 0644);
  // A new CA and issuer key make every old node certificate and token invalid anyway.
  write_file(dir / "revoked.txt", "", 0644);
  for (const char* f : {"ca.key", "ca.crt", "issuer.key", "issuer.pub", "server.key", "server.crt", "revoked.txt"}) {
    std::cout << (dir / f).string() << "\n";
  }
}

int pki_init(const Argv& argv) {
  Args args(argv, {"dir", "days", "san"}, {"force"});
  if (args.help()) return print_help(kInitHelp);
  if (!args.positionals().empty()) throw Error(ErrorCode::kBadRequest, "pki init takes no arguments", "see --help");
  const InitPlan plan{args.require("dir"), std::time(nullptr) + args.integer("days", 3650, 1, 36500) * 86400,
                      server_san(args.get("san"))};
  if (!args.has("force") && (fs::exists(plan.dir / "ca.key") || fs::exists(plan.dir / "ca.crt"))) {
    throw Error(ErrorCode::kBadRequest, "a CA already exists in " + plan.dir.string(),
                "use another --dir, or --force to replace it (nodes enrolled under it stop verifying)");
  }
  // A directory we create holds the CA key, so only its owner may list it; an existing one (even
  // ".") keeps the mode its owner chose.
  const bool fresh = !fs::exists(plan.dir);
  make_dirs(plan.dir / "nodes");
  std::error_code ignored;  // a mode we cannot set is no reason to stop
  if (fresh) fs::permissions(plan.dir, fs::perms::owner_all, ignored);

  const auto ca_key = Ed25519PrivateKey::generate();
  auto ca_evp = to_evp(ca_key);
  auto ca = issue_certificate({Profile::kRootCa, "fleetmcp test root CA", "", "", plan.not_after_s},
                              ca_key.public_key(), nullptr, ca_evp.get());
  const auto server_key = Ed25519PrivateKey::generate();
  auto server = issue_certificate({Profile::kServer, "localhost", "", plan.san, plan.not_after_s},
                                  server_key.public_key(), ca.get(), ca_evp.get());
  write_pki(plan.dir, ca_key, ca.get(), server_key, server.get(), Ed25519PrivateKey::generate());
  return kExitOk;
}

// ---- pki enroll -------------------------------------------------------------------------------

// The CA as loaded from DIR, checked to be a usable pair before anything is issued.
struct LoadedCa {
  Certificate cert;
  PkeyPtr key;
};

LoadedCa load_ca(const fs::path& dir) {
  if (!fs::exists(dir / "ca.crt") || !fs::exists(dir / "ca.key")) {
    throw Error(ErrorCode::kBadRequest, "no CA in " + dir.string(), "run fleetctl pki init --dir " + dir.string());
  }
  LoadedCa ca{Certificate::load_pem_file((dir / "ca.crt").string()).value(),
              to_evp(Ed25519PrivateKey::load_pem_file((dir / "ca.key").string()).value())};
  if (X509_check_private_key(ca.cert.native(), ca.key.get()) != 1) {
    ERR_clear_error();
    throw Error(ErrorCode::kInternal, "ca.key does not belong to ca.crt in " + dir.string(),
                "restore the pair, or start over with fleetctl pki init --force");
  }
  return ca;
}

std::string device_conf(const std::string& node_id, const std::string& tenant, const std::string& broker) {
  return "# fleetmcp device configuration, written by fleetctl pki enroll\n"
         "node_id = " + node_id + "\n"
         "tenant = " + tenant + "\n"
         "broker = " + broker + "\n"
         "key = node.key\n"
         "cert = node.crt\n"
         "ca = ca.crt\n"
         "telemetry_interval_ms = 5000\n"
         "manifest_ttl_s = 3600\n"
         // RFC-0005 §9 mock-device constraints for echo; metrics samples are heavier, so fewer.
         "capability.echo = system.echo rate_limit_rps=10 max_concurrency=4 deadline_ms_default=2000\n"
         "capability.metrics = system.metrics rate_limit_rps=5 max_concurrency=2 deadline_ms_default=2000\n";
}

struct EnrolledNode {
  std::string node_id, bundle, kid;
};

struct EnrollPlan {
  fs::path dir;
  std::string tenant, broker;
  int64_t not_after_s;
};

// Builds the bundle in a hidden directory and renames it into place, so nodes/<id>/ is complete
// whenever it exists.
EnrolledNode enroll_one(const EnrollPlan& plan, const LoadedCa& ca, const std::string& ca_pem) {
  const std::string node_id = fleetmcp::new_node_id();
  const auto key = Ed25519PrivateKey::generate();
  auto cert = issue_certificate({Profile::kNode, node_id, plan.tenant, "", plan.not_after_s}, key.public_key(),
                                ca.cert.native(), ca.key.get());
  const auto leaf = Certificate::from_x509(cert.get()).value();
  const fs::path bundle = plan.dir / "nodes" / node_id, staging = plan.dir / "nodes" / ("." + node_id + ".tmp");
  make_dirs(staging);
  std::error_code ignored;  // node.key is 0600 either way; the 0700 directory is extra
  fs::permissions(staging, fs::perms::owner_all, ignored);
  write_key(staging / "node.key", key);
  write_file(staging / "node.crt", leaf.to_pem(), 0644);
  write_file(staging / "ca.crt", ca_pem, 0644);
  write_file(staging / "device.conf", device_conf(node_id, plan.tenant, plan.broker), 0644);
  std::error_code ec;
  fs::rename(staging, bundle, ec);
  if (ec) throw Error(ErrorCode::kInternal, "cannot create bundle " + bundle.string(), "check the directory");
  return {node_id, fs::absolute(bundle).lexically_normal().string(), leaf.thumbprint()};
}

void print_enrolled(const std::vector<EnrolledNode>& nodes, bool as_json) {
  if (!as_json) {
    for (const auto& n : nodes) std::cout << n.node_id << "\n";
    return;
  }
  fleetmcp::json::Document doc(rapidjson::kArrayType);
  auto& a = doc.GetAllocator();
  for (const auto& n : nodes) {
    fleetmcp::json::Value item(rapidjson::kObjectType);
    item.AddMember("node_id", fleetmcp::json::string_value(n.node_id, a), a);
    item.AddMember("bundle", fleetmcp::json::string_value(n.bundle, a), a);
    item.AddMember("kid", fleetmcp::json::string_value(n.kid, a), a);
    doc.PushBack(item, a);
  }
  std::cout << fleetmcp::json::to_string(doc) << "\n";
}

int pki_enroll(const Argv& argv) {
  Args args(argv, {"dir", "tenant", "count", "broker", "days"}, {"json"});
  if (args.help()) return print_help(kEnrollHelp);
  if (!args.positionals().empty()) throw Error(ErrorCode::kBadRequest, "pki enroll takes no arguments", "see --help");
  EnrollPlan plan{args.require("dir"), args.require("tenant"), args.get("broker").value_or(std::string(kDefaultBroker)), 0};
  if (!fleetmcp::is_tenant_name(plan.tenant)) {
    throw Error(ErrorCode::kBadRequest, "--tenant must match " + std::string(fleetmcp::kTenantPattern), "for example --tenant acme");
  }
  if (!is_broker_uri(plan.broker)) {
    throw Error(ErrorCode::kBadRequest, "--broker must be mqtts://host[:port]", "for example --broker mqtts://10.0.0.2:8883");
  }
  const int64_t count = args.integer("count", 1, 1, 100000);
  const int64_t days = args.integer("days", 365, 1, 36500);
  const LoadedCa ca = load_ca(plan.dir);
  // A leaf outliving its CA would never verify after the CA expires; stop at the CA's end.
  plan.not_after_s = std::min<int64_t>(std::time(nullptr) + days * 86400, ca.cert.not_after_ms() / 1000);
  const std::string ca_pem = ca.cert.to_pem();

  std::vector<EnrolledNode> nodes;
  const int64_t step = std::max<int64_t>(1, count / 20);
  for (int64_t i = 1; i <= count; ++i) {
    nodes.push_back(enroll_one(plan, ca, ca_pem));
    if (count > 20 && (i % step == 0 || i == count)) std::cerr << "enrolled " << i << "/" << count << "\n";
  }
  print_enrolled(nodes, args.has("json"));
  return kExitOk;
}

// ---- pki bridge -------------------------------------------------------------------------------

int pki_bridge(const Argv& argv) {
  Args args(argv, {"dir", "sub", "days"}, {});
  if (args.help()) return print_help(kBridgeHelp);
  if (!args.positionals().empty()) throw Error(ErrorCode::kBadRequest, "pki bridge takes no arguments", "see --help");
  const fs::path dir = args.require("dir");
  const std::string sub = args.require("sub");
  // The sub names a directory and is the bridge's MQTT username: the tenant-name alphabet.
  if (!fleetmcp::is_tenant_name(sub)) {
    throw Error(ErrorCode::kBadRequest, "--sub must match " + std::string(fleetmcp::kTenantPattern), "for example --sub bridge-site-a");
  }
  const int64_t days = args.integer("days", 365, 1, 36500);
  const LoadedCa ca = load_ca(dir);
  const int64_t not_after_s = std::min<int64_t>(std::time(nullptr) + days * 86400, ca.cert.not_after_ms() / 1000);
  const auto key = Ed25519PrivateKey::generate();
  auto cert = issue_certificate({Profile::kNode, sub, std::string(fleetmcp::kScopeFleetBridge), "", not_after_s},
                                key.public_key(), ca.cert.native(), ca.key.get());
  const fs::path out = dir / "bridges" / sub;
  make_dirs(out);
  write_key(out / "bridge.key", key);
  write_file(out / "bridge.crt", cert_pem(cert.get()), 0644);
  write_file(out / "ca.crt", ca.cert.to_pem(), 0644);
  std::cout << fs::absolute(out).lexically_normal().string() << "\n";
  return kExitOk;
}

// ---- pki revoke -------------------------------------------------------------------------------

// Appends in one write() on an O_APPEND descriptor so a concurrent reader sees whole lines.
void append_lines(const fs::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0) ::close(fd);
  if (!ok) throw Error(ErrorCode::kInternal, "cannot append to " + path.string(), "check the file permissions");
}

// True when the file is non-empty and its last byte is not a newline (a hand edit).
bool lacks_final_newline(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec || size == 0) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  char last = '\n';
  const bool read_ok = fd >= 0 && ::pread(fd, &last, 1, static_cast<off_t>(size - 1)) == 1;
  if (fd >= 0) ::close(fd);
  return read_ok && last != '\n';
}

int pki_revoke(const Argv& argv) {
  Args args(argv, {"dir"}, {});
  if (args.help()) return print_help(kRevokeHelp);
  const fs::path dir = args.require("dir"), path = dir / "revoked.txt";
  if (args.positionals().empty()) throw Error(ErrorCode::kBadRequest, "nothing to revoke", "pass node_ids or jtis");
  if (!fs::is_directory(dir)) throw Error(ErrorCode::kBadRequest, "no PKI directory " + dir.string(), "check --dir");
  auto list = fleetmcp::RevocationList::load(path.string()).value();
  std::string added;
  for (const auto& arg : args.positionals()) {
    const std::string id = fleetmcp::lowercase(arg);
    if (!fleetmcp::is_node_id(id)) {
      throw Error(ErrorCode::kBadRequest, "'" + arg + "' is not a node_id or token jti (a 26-character ULID)",
                  "copy the id from fleetctl pki enroll or fleetctl token issue --json");
    }
    if (list.contains(id)) continue;
    list.add(id);
    added += id + "\n";
  }
  if (added.empty()) return kExitOk;
  append_lines(path, (lacks_final_newline(path) ? "\n" : "") + added);
  std::cout << added;
  return kExitOk;
}

}  // namespace

int cmd_pki(const Argv& args) {
  return run_subcommand("pki", {{"init", pki_init}, {"enroll", pki_enroll}, {"bridge", pki_bridge}, {"revoke", pki_revoke}},
                        kPkiHelp, args);
}

}  // namespace fleetctl
