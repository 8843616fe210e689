#include "common/registry/char_class_pattern.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/base/json.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp {
namespace {

// Every "pattern" in the published schemas.
std::set<std::string> schema_patterns() {
  std::set<std::string> patterns;
  const std::function<void(const json::Value&)> collect = [&](const json::Value& v) {
    if (v.IsObject()) {
      for (const auto& m : v.GetObject()) {
        if (std::string_view(m.name.GetString()) == "pattern" && m.value.IsString()) patterns.insert(m.value.GetString());
        collect(m.value);
      }
    } else if (v.IsArray()) {
      for (const auto& e : v.GetArray()) collect(e);
    }
  };
  for (const auto& entry : std::filesystem::directory_iterator(SchemaRegistry::default_dir())) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    collect(json::parse_strict(text.str()).value());
  }
  return patterns;
}

// Strings around each pattern's edges: every byte alone and inside allowed text, lengths around
// the bounds, multi-byte characters, a trailing newline.
std::vector<std::string> probes() {
  std::vector<std::string> out = {"", "\n", "a\n", "\xC3\xA9", "ab\xC3\xA9", "-", "--", "^", "]", "\\", "."};
  for (int c = 1; c < 256; ++c) {
    const std::string b(1, static_cast<char>(c));
    out.insert(out.end(), {b, std::string("a").append(b), b + "a", std::string(26, 'A').append(b), std::string(25, '0').append(b)});
  }
  for (const std::string fill : {"a", "A", "0", "f", "Z", "z", "-", "_", " ", "~", "x"}) {
    for (size_t n : {0, 1, 2, 17, 18, 19, 25, 26, 27, 31, 32, 33, 63, 64, 65, 85, 86, 87, 1024}) {
      std::string s;
      for (size_t i = 0; i < n; ++i) s += fill;
      out.push_back(s);
    }
  }
  out.push_back("01HZX9K3M4P7Q8R9S0T1V2W3XY");
  out.push_back("01hzx9k3m4p7q8r9s0t1v2w3xy");
  out.push_back("01HZX9K3M4P7Q8R9S0T1V2W3XI");  // I is not Crockford
  out.push_back("01hzx9k3m4p7q8r9s0t1v2w3xu");  // nor u
  return out;
}

void expect_same_as_re2(const std::string& pattern) {
  const auto simple = CharClassPattern::recognise(pattern);
  ASSERT_TRUE(simple) << pattern;
  const RE2 re2(pattern);
  ASSERT_TRUE(re2.ok()) << pattern;
  for (const std::string& text : probes()) {
    EXPECT_EQ(simple->matches(text), RE2::PartialMatch(text, re2)) << pattern << " on \"" << text << "\"";
  }
}

TEST(CharClassPattern, AgreesWithRe2OnEverySchemaPatternOfItsShape) {
  size_t recognised = 0;
  for (const std::string& pattern : schema_patterns()) {
    if (!CharClassPattern::recognise(pattern)) continue;
    ++recognised;
    expect_same_as_re2(pattern);
  }
  EXPECT_GE(recognised, 6u) << "the ULID, hex, printable-ASCII, short-name and base64url patterns";
}

TEST(CharClassPattern, AgreesWithRe2OnOtherShapesItReads) {
  for (const std::string pattern : {"^[a-z-]{1,32}$", "^[\\-a]+$", "^[a\\]\\\\\\^\\.]*$", "^[\\x20-\\x7E]{2,}$",
                                    "^[A-Za-z0-9_-]{86}$", "^[b-b]{0}$", "^[ -~]{3,5}$"}) {
    expect_same_as_re2(pattern);
  }
}

TEST(CharClassPattern, LeavesEveryOtherPatternToRe2) {
  for (const std::string_view pattern :
       {"^[^a]$", "^[\\d]+$", "^[\\w]+$", "^[a-z]{2}x$", "^(a)$", "^[[:alpha:]]$", "^[a-z]{,3}$", "[a-z]+$",
        "^[a-z]+", "^[a-z]+$$", "^[]$", "^[-a]$", "^[z-a]$", "^[a-z]{3,2}$", "^[a-z]{1,2$", "^[\\x80-\\xFF]$",
        "^[\\u0041]$", "^[a-z]?$", "^[a-z]{2}{3}$", "^[é]$", "^[0-9]+\\.[0-9]+$", "^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$"}) {
    EXPECT_FALSE(CharClassPattern::recognise(pattern)) << pattern;
  }
}

}  // namespace
}  // namespace fleetmcp
