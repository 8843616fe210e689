#include "common/base/text.h"

#include <gtest/gtest.h>

namespace fleetmcp {
namespace {

TEST(Text, TrimStripsBlanksAtBothEndsOnly) {
  EXPECT_EQ(trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(trim("a"), "a");
  EXPECT_EQ(trim(" \t\r\n "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("\v a \f"), "\v a \f");  // not in kAsciiBlanks
}

TEST(Text, TrimWithOwnBlanks) {
  EXPECT_EQ(trim(" a\t", " "), "a\t");
  const std::string device_tree_model("Raspberry Pi 4\0", 15);
  EXPECT_EQ(trim(device_tree_model, std::string_view(" \0", 2)), "Raspberry Pi 4");
}

TEST(Text, TrimReturnsAViewIntoItsInput) {
  const std::string text = "  value  ";
  const std::string_view trimmed = trim(text);
  EXPECT_EQ(trimmed.data(), text.data() + 2);
}

TEST(Text, LowercaseFoldsAsciiOnly) {
  EXPECT_EQ(lowercase("01JD3X-Ab_z"), "01jd3x-ab_z");
  EXPECT_EQ(lowercase("\xC3\x84"), "\xC3\x84");  // UTF-8 Ä stays as it is
  EXPECT_EQ(lowercase(""), "");
  EXPECT_TRUE(has_ascii_upper("01jd3X"));
  EXPECT_FALSE(has_ascii_upper("01jd3x\xC3\x84"));
}

TEST(Text, AsciiIequals) {
  EXPECT_TRUE(ascii_iequals("Mcp-Session-Id", "mcp-session-id"));
  EXPECT_TRUE(ascii_iequals("", ""));
  EXPECT_FALSE(ascii_iequals("abc", "abcd"));
  EXPECT_FALSE(ascii_iequals("a-b", "a_b"));
  EXPECT_FALSE(ascii_iequals("Mcp-Session-Id", "mcp-session-ix"));
}

TEST(Text, SplitKeepsEmptyPieces) {
  EXPECT_EQ(split("a.b.c", '.'), (std::vector<std::string_view>{"a", "b", "c"}));
  EXPECT_EQ(split("a..b.", '.'), (std::vector<std::string_view>{"a", "", "b", ""}));
  EXPECT_EQ(split("", '.'), (std::vector<std::string_view>{""}));
  EXPECT_EQ(split("abc", '.'), (std::vector<std::string_view>{"abc"}));
}

TEST(Text, SplitWordsDropsRunsOfBlanks) {
  EXPECT_EQ(split_words("  topic read\t\t$devices/+/status  "),
            (std::vector<std::string_view>{"topic", "read", "$devices/+/status"}));
  EXPECT_TRUE(split_words(" \t ").empty());
  EXPECT_TRUE(split_words("").empty());
}

TEST(Text, NearestNamePrefersANameThatContainsWhatWasAsked) {
  const std::vector<std::string> kinds{"camera.still", "gpio.pin", "gpio.pwm", "system.echo", "system.health"};
  EXPECT_EQ(nearest_name("camera", kinds), "camera.still");
  EXPECT_EQ(nearest_name("Camera", kinds), "camera.still");
  EXPECT_EQ(nearest_name("health", kinds), "system.health");
  EXPECT_EQ(nearest_name("gpio", kinds), "gpio.pin");  // a tie goes to the earlier name
  EXPECT_EQ(nearest_name("gpio.pwmm", kinds), "gpio.pwm");
  EXPECT_EQ(nearest_name("sytem.echo", kinds), "system.echo");
  EXPECT_EQ(nearest_name("anything", {}), "");
}

}  // namespace
}  // namespace fleetmcp
