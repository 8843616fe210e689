// SemVer 2.0.0 precedence, the RFC 004 §4.4 range subset, §6.3 negotiation (Appendix A.2-A.4)
// and the §6.5 / A.14 result order.
#include "common/registry/semver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>

namespace fleetmcp {
namespace {

SemVer v(std::string_view text) {
  auto parsed = SemVer::parse(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed.value_or(SemVer{});
}

SemVerRange range(std::string_view text) {
  auto parsed = SemVerRange::parse(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed.value_or(*SemVerRange::parse("0.0.0"));
}

TEST(SemVer, ParsesCoreVersionPrereleaseAndBuild) {
  const auto a = v("1.2.3-alpha.1+build.5");
  EXPECT_EQ(a.major, 1u);
  EXPECT_EQ(a.minor, 2u);
  EXPECT_EQ(a.patch, 3u);
  EXPECT_EQ(a.prerelease, (std::vector<std::string>{"alpha", "1"}));
  EXPECT_EQ(a.build, "build.5");
  EXPECT_EQ(a.to_string(), "1.2.3-alpha.1+build.5");
  EXPECT_EQ(v("10.20.30").to_string(), "10.20.30");
  EXPECT_EQ(v("1.0.0-x-y-z.--").to_string(), "1.0.0-x-y-z.--");
  EXPECT_EQ(v("18446744073709551615.0.0").major, 18446744073709551615u);
}

TEST(SemVer, RejectsWhatSemVer2DoesNotAllow) {
  for (const char* bad : {"", "1", "1.0", "1.0.0.0", "v1.0.0", "01.0.0", "1.01.0", "1.0.01", "1.0.0-",
                          "1.0.0+", "1.0.0-01", "1.0.0-alpha..1", "1.0.0-al_pha", "1.x", "1.0.x", "*",
                          " 1.0.0", "1.0.0 ", "-1.0.0", "1.0.0-+", "18446744073709551616.0.0"}) {
    EXPECT_FALSE(SemVer::parse(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(SemVer, PrecedenceFollowsSemVer2Section11) {
  // The chain given in SemVer 2.0.0 §11, then the core fields compared numerically.
  const std::vector<std::string> ordered{
      "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
      "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "1.9.0", "1.10.0", "2.0.0"};
  for (size_t i = 0; i + 1 < ordered.size(); ++i) {
    EXPECT_LT(compare(v(ordered[i]), v(ordered[i + 1])), 0) << ordered[i] << " < " << ordered[i + 1];
    EXPECT_GT(compare(v(ordered[i + 1]), v(ordered[i])), 0) << ordered[i + 1] << " > " << ordered[i];
    EXPECT_TRUE(v(ordered[i]) < v(ordered[i + 1]));
  }
  EXPECT_EQ(compare(v("1.0.0+a"), v("1.0.0+b")), 0);  // build metadata does not count
  EXPECT_TRUE(v("1.0.0+a") == v("1.0.0"));
  EXPECT_LT(compare(v("1.0.0-1"), v("1.0.0-a")), 0);   // numeric identifiers sort first
  EXPECT_LT(compare(v("1.0.0-2"), v("1.0.0-10")), 0);  // and numerically
  EXPECT_LT(compare(v("1.0.0-B"), v("1.0.0-a")), 0);   // others by ASCII
}

TEST(SemVerRange, AcceptsExactAndComparatorSets) {
  EXPECT_TRUE(range("1.2.3").contains(v("1.2.3")));
  EXPECT_FALSE(range("1.2.3").contains(v("1.2.4")));
  EXPECT_TRUE(range("=1.2.3").contains(v("1.2.3+build")));

  const auto r = range(">=1.2.0 <2.0.0");
  EXPECT_TRUE(r.contains(v("1.2.0")));
  EXPECT_TRUE(r.contains(v("1.10.7")));
  EXPECT_FALSE(r.contains(v("1.1.9")));
  EXPECT_FALSE(r.contains(v("2.0.0")));
  EXPECT_FALSE(r.contains(v("1.2.0-rc.1")));  // prereleases order before their release
  EXPECT_TRUE(r.contains(v("2.0.0-rc.1")));   // ... so this one is inside: plain SemVer order

  EXPECT_TRUE(range(">1.0.0").contains(v("1.0.1")));
  EXPECT_FALSE(range(">1.0.0").contains(v("1.0.0")));
  EXPECT_TRUE(range("<=2.0.0").contains(v("2.0.0")));
  EXPECT_FALSE(range("<2.0.0").contains(v("2.0.0")));
  EXPECT_TRUE(range(">=1.0.0  <3.0.0").contains(v("2.0.0")));  // runs of spaces separate too
  EXPECT_TRUE(range(">=1.0.0-rc.1 <1.0.0").contains(v("1.0.0-rc.2")));
}

TEST(SemVerRange, RejectsEverythingOutsideSection4_4) {
  for (const char* bad : {"", "   ", ">=1.0.0 || <0.5.0", "1.0.0 || 2.0.0", "||", "1.x", "1.2.x", "*", "x",
                          "~1.2.3", "^1.2.3", "1.2", ">=1.2", ">= 1.2.0", "1.2.3 - 2.0.0", ">=1.0.0,<2.0.0",
                          "=>1.0.0", "!=1.0.0", ">=1.0.0\t<2.0.0", "latest"}) {
    EXPECT_FALSE(SemVerRange::parse(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(Negotiation, A2ExactPreferredVersion) {
  NegotiationRequest req;
  req.preferred = v("2.1.0");
  EXPECT_EQ(negotiate_version(req, {v("2.0.0"), v("2.1.0")}), v("2.1.0"));
}

TEST(Negotiation, A3FirstAcceptableTheProviderHas) {
  NegotiationRequest req;
  req.preferred = v("2.2.0");
  req.acceptable = {v("2.1.0"), v("2.0.0")};
  EXPECT_EQ(negotiate_version(req, {v("2.0.0"), v("2.1.0")}), v("2.1.0"));
}

TEST(Negotiation, A4RangeWithNoProviderVersionIsAMismatch) {
  NegotiationRequest req;
  req.range = range(">=3.0.0 <4.0.0");
  EXPECT_EQ(negotiate_version(req, {v("2.0.0"), v("2.1.0"), v("2.9.9")}), std::nullopt);
}

TEST(Negotiation, RangeSelectsTheHighestProviderVersionInside) {
  NegotiationRequest req;
  req.preferred = v("9.0.0");              // unsupported: falls through
  req.acceptable = {v("8.0.0")};           // unsupported: falls through
  req.range = range(">=1.0.0 <3.0.0");
  EXPECT_EQ(negotiate_version(req, {v("1.0.0"), v("2.10.0"), v("2.9.0"), v("3.0.0")}), v("2.10.0"));
}

TEST(Negotiation, PreferredBeatsAcceptableBeatsRange) {
  NegotiationRequest req;
  req.preferred = v("1.0.0");
  req.acceptable = {v("1.1.0")};
  req.range = range(">=1.0.0");
  const std::vector<SemVer> provided{v("1.0.0"), v("1.1.0"), v("1.2.0")};
  EXPECT_EQ(negotiate_version(req, provided), v("1.0.0"));
  req.preferred.reset();
  EXPECT_EQ(negotiate_version(req, provided), v("1.1.0"));
  req.acceptable.clear();
  EXPECT_EQ(negotiate_version(req, provided), v("1.2.0"));
}

TEST(Negotiation, NoHintsOrNothingInCommonFails) {
  EXPECT_EQ(negotiate_version({}, {v("1.0.0")}), std::nullopt);
  NegotiationRequest req;
  req.preferred = v("2.0.0");
  req.acceptable = {v("3.0.0")};
  EXPECT_EQ(negotiate_version(req, {v("1.0.0")}), std::nullopt);
  EXPECT_EQ(negotiate_version(req, {}), std::nullopt);
}

// A.14: five descriptors paged two at a time in (name ASC, version DESC by SemVer precedence):
// deterministic, no duplicates, no skips. 1.10.0 sorts above 1.9.0 (string order would not).
TEST(Ordering, A14NewestFirstPagesAreStableAndComplete) {
  using Row = std::pair<std::string, SemVer>;
  std::vector<Row> rows{{"org.b.review", v("2.0.0-rc.1")}, {"org.a.translate", v("1.9.0")},
                        {"org.b.review", v("2.0.0")},      {"org.a.translate", v("1.10.0")},
                        {"org.a.translate", v("1.0.0")}};
  const auto newest_first = [](const Row& a, const Row& b) {
    if (a.first != b.first) return a.first < b.first;
    return b.second < a.second;
  };
  std::sort(rows.begin(), rows.end(), newest_first);
  const std::vector<std::string> expected{"org.a.translate:1.10.0", "org.a.translate:1.9.0",
                                          "org.a.translate:1.0.0", "org.b.review:2.0.0",
                                          "org.b.review:2.0.0-rc.1"};
  std::vector<std::string> seen;
  std::set<std::string> unique;
  for (size_t cursor = 0; cursor < rows.size(); cursor += 2) {  // limit = 2
    for (size_t i = cursor; i < std::min(rows.size(), cursor + 2); ++i) {
      const auto id = rows[i].first + ":" + rows[i].second.to_string();
      seen.push_back(id);
      unique.insert(id);
    }
  }
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(unique.size(), rows.size());
}

}  // namespace
}  // namespace fleetmcp
