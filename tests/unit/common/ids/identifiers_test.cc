// The identifier grammar of common/ids: each predicate accepts exactly what the pattern that JSON
// Schemas and error texts carry accepts (checked with RE2 over every byte in every position).
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <string>

#include "common/ids/tenant.h"
#include "common/ids/ulid.h"

namespace fleetmcp {
namespace {

// Every single-byte change of `base`, plus shorter and longer variants: the predicate and the
// pattern agree on each.
template <typename Predicate>
void expect_predicate_matches_pattern(std::string_view pattern, Predicate predicate, const std::string& base) {
  const RE2 re{std::string(pattern)};
  ASSERT_TRUE(re.ok()) << pattern;
  auto agree = [&](const std::string& text) {
    EXPECT_EQ(predicate(text), RE2::FullMatch(text, re)) << "'" << text << "' against " << pattern;
  };
  agree(base);
  agree("");
  agree(base.substr(0, base.size() - 1));
  agree(base + base.back());
  for (size_t at = 0; at < base.size(); ++at) {
    for (int byte = 1; byte < 256; ++byte) {
      std::string text = base;
      text[at] = static_cast<char>(byte);
      agree(text);
    }
  }
}

TEST(Identifiers, NodeIdPredicateIsItsPattern) {
  expect_predicate_matches_pattern(kNodeIdPattern, is_node_id, "01jd3x0000000000000000000a");
}

TEST(Identifiers, MsgIdPredicateIsItsPattern) {
  expect_predicate_matches_pattern(kMsgIdPattern, is_msg_id, "01JD3X0000000000000000000A");
}

TEST(Identifiers, TenantPredicateIsItsPattern) {
  expect_predicate_matches_pattern(kTenantPattern, is_tenant_name, "acme-site_9");
  expect_predicate_matches_pattern(kTenantPattern, is_tenant_name, std::string(63, 'a'));
}

TEST(Identifiers, TenantNames) {
  EXPECT_TRUE(is_tenant_name("acme"));
  EXPECT_TRUE(is_tenant_name("a-b_c9"));
  EXPECT_TRUE(is_tenant_name("9"));
  EXPECT_FALSE(is_tenant_name(""));
  EXPECT_FALSE(is_tenant_name("-acme"));
  EXPECT_FALSE(is_tenant_name("_acme"));
  EXPECT_FALSE(is_tenant_name("Acme"));
  EXPECT_FALSE(is_tenant_name("a/b"));
  EXPECT_FALSE(is_tenant_name("a+"));
  EXPECT_TRUE(is_tenant_name(std::string(63, 'a')));
  EXPECT_FALSE(is_tenant_name(std::string(64, 'a')));
}

}  // namespace
}  // namespace fleetmcp
