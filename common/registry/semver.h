// Semantic Versioning 2.0.0 and the RFC 004 §4.4 range subset: an exact "x.y.z", or a
// space-separated AND of comparators (>=, >, <=, <, =). No "||", no wildcards.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetmcp {

struct SemVer {
  uint64_t major = 0, minor = 0, patch = 0;
  std::vector<std::string> prerelease;  // dot-separated identifiers
  std::string build;                    // ignored for precedence

  static std::optional<SemVer> parse(std::string_view text);
  std::string to_string() const;
  // SemVer 2.0.0 §11 precedence: <0, 0, >0.
  friend int compare(const SemVer& a, const SemVer& b);
  friend bool operator<(const SemVer& a, const SemVer& b) { return compare(a, b) < 0; }
  friend bool operator==(const SemVer& a, const SemVer& b) { return compare(a, b) == 0; }
};

class SemVerRange {
 public:
  // nullopt when `text` is outside the §4.4 grammar.
  static std::optional<SemVerRange> parse(std::string_view text);
  bool contains(const SemVer& v) const;

 private:
  enum class Op { kEq, kGt, kGe, kLt, kLe };
  std::vector<std::pair<Op, SemVer>> comparators_;
};

// RFC 004 §6.3: preferred exact, else first acceptable the provider has, else highest in range.
struct NegotiationRequest {
  std::optional<SemVer> preferred;
  std::vector<SemVer> acceptable;
  std::optional<SemVerRange> range;
};
// nullopt = 4003 VERSION_MISMATCH.
std::optional<SemVer> negotiate_version(const NegotiationRequest& request,
                                        const std::vector<SemVer>& provided);

}  // namespace fleetmcp
