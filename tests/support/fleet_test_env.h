// What the plugin's integration test programs share: command-line options naming the broker's
// ports and the PKI directory `fleetctl pki init/enroll` made, node bundles loaded from it,
// signed manifests (made by tests/support/test_pki.h), and TAP-style assertions ("ok - …" / "not ok - …").
#pragma once

#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/crypto/ed25519.h"
#include "common/protocol/manifest.h"
#include "common/ids/ulid.h"
#include "common/crypto/x509.h"
#include "tests/support/mqtt_test_client.h"
#include "tests/support/test_pki.h"

namespace fleetmcp::testing {

// --name value pairs; a missing required option is a usage error.
class ToolArgs {
 public:
  ToolArgs(int argc, char** argv) {
    for (int i = 1; i + 1 < argc; i += 2) values_[argv[i]] = argv[i + 1];
  }
  std::string get(const std::string& name, const std::string& fallback = "") const {
    const auto it = values_.find("--" + name);
    return it == values_.end() ? fallback : it->second;
  }
  std::string require(const std::string& name) const {
    const auto it = values_.find("--" + name);
    if (it == values_.end()) throw std::runtime_error("missing --" + name);
    return it->second;
  }
  int number(const std::string& name, int fallback) const {
    const std::string v = get(name);
    return v.empty() ? fallback : std::stoi(v);
  }

 private:
  std::map<std::string, std::string> values_;
};

struct NodeBundle {
  std::string node_id, dir;
  Certificate certificate;
  Ed25519PrivateKey key;
};

inline NodeBundle load_bundle(const std::string& pki_dir, const std::string& node_id) {
  const std::string dir = pki_dir + "/nodes/" + node_id;
  return {node_id, dir, Certificate::load_pem_file(dir + "/node.crt").value(),
          Ed25519PrivateKey::load_pem_file(dir + "/node.key").value()};
}

struct Broker {
  int tls_port = 0, plain_port = 0;
  std::string ca_file;

  static Broker from(const ToolArgs& args) {
    return {std::stoi(args.require("tls-port")), std::stoi(args.require("plain-port")),
            args.require("pki") + "/ca.crt"};
  }
  ClientOptions node(const NodeBundle& n, std::optional<Received> will = std::nullopt, bool clean = true) const {
    ClientOptions o;
    o.client_id = n.node_id;
    o.port = tls_port;
    o.ca_file = ca_file;
    o.cert_file = n.dir + "/node.crt";
    o.key_file = n.dir + "/node.key";
    o.will = std::move(will);
    o.clean_start = clean;
    return o;
  }
  ClientOptions agent(const std::string& sub, const std::string& token, std::optional<Received> will = std::nullopt) const {
    ClientOptions o;
    o.client_id = sub + "-" + new_node_id().substr(16);
    o.port = plain_port;
    o.username = sub;
    o.password = token;
    o.will = std::move(will);
    return o;
  }
  ClientOptions anonymous() const {
    ClientOptions o;
    o.port = plain_port;
    return o;
  }
};

// The mock device's manifest (tests/support/test_pki.h) for `n`, and `content` signed with its key.
inline ManifestContent example_manifest(const NodeBundle& n, int64_t issued_at_ms, int64_t ttl_ms = 3'600'000) {
  return example_content(n.node_id, n.certificate, issued_at_ms, ttl_ms);
}

inline std::string sign(const NodeBundle& signer, const ManifestContent& content) {
  return signed_manifest(signer.key, content);
}

inline std::string devices_topic(const std::string& node_id, const std::string& leaf) {
  return "$devices/" + node_id + "/" + leaf;
}

// The main() of a test program: `body` runs with the options; an exception is a usage or setup
// error, printed with the program's name (exit 2), never taken for a test result.
template <class Body>
int run_program(const char* name, int argc, char** argv, Body body) {
  try {
    return body(ToolArgs(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  }
}

// TAP-style results; the process exit code is failures() != 0.
class Tap {
 public:
  bool check(bool ok, const std::string& what) {
    std::printf("%s - %s\n", ok ? "ok" : "not ok", what.c_str());
    std::fflush(stdout);
    if (!ok) ++failures_;
    ++count_;
    return ok;
  }
  int finish() {
    std::printf("# %d checks, %d failed\n", count_, failures_);
    return failures_ == 0 ? 0 : 1;
  }

 private:
  int count_ = 0, failures_ = 0;
};

}  // namespace fleetmcp::testing
