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
  const std::vector<std::string_view> kinds{"camera.still", "gpio.pin", "gpio.pwm", "system.echo", "system.health"};
  EXPECT_EQ(nearest("camera", kinds, 1), (std::vector<std::string_view>{"camera.still"}));
  EXPECT_EQ(nearest("Camera", kinds, 1), (std::vector<std::string_view>{"camera.still"}));
  EXPECT_EQ(nearest("health", kinds, 1), (std::vector<std::string_view>{"system.health"}));
  EXPECT_EQ(nearest("gpio", kinds, 1), (std::vector<std::string_view>{"gpio.pin"}));  // a tie goes to the earlier name
  EXPECT_EQ(nearest("gpio.pwmm", kinds, 1), (std::vector<std::string_view>{"gpio.pwm"}));
  EXPECT_EQ(nearest("sytem.echo", kinds, 1), (std::vector<std::string_view>{"system.echo"}));
  EXPECT_TRUE(nearest("anything", {}).empty());
}

TEST(Text, NearestNamesAreNearMissesNearestFirst) {
  const std::vector<std::string_view> names = {"fleet_read", "system_echo_invoke", "gpio_pin_set", "gpio_pin_get",
                                               "fleet_find_nodes"};
  EXPECT_EQ(nearest("system_echo_invok", names), (std::vector<std::string_view>{"system_echo_invoke"}));
  EXPECT_EQ(nearest("gpio_pin_sett", names), (std::vector<std::string_view>{"gpio_pin_set", "gpio_pin_get"}));
  EXPECT_EQ(nearest("gpio_pin_xet", names, 1), (std::vector<std::string_view>{"gpio_pin_set"}));  // a tie: the order given
  EXPECT_EQ(nearest("pinn", {"pin", "value"}), (std::vector<std::string_view>{"pin"}));
  EXPECT_TRUE(nearest("reboot_everything", names).empty());  // near nothing
  EXPECT_TRUE(nearest("", names).empty());
  EXPECT_TRUE(nearest(std::string(300, 'a'), {std::string_view("aaa")}).empty());
}

}  // namespace
}  // namespace fleetmcp
