#include "common/ids/unit_name.h"

#include <array>

namespace fleetmcp {
namespace {

constexpr size_t kMaxUnitName = 256;

bool has_unit_characters(std::string_view text) {
  if (text.empty() || text.size() > kMaxUnitName) return false;
  for (const char c : text) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && c != ':' && c != '_' && c != '.' && c != '@' && c != '-' && c != '\\') return false;
  }
  return true;
}

// A name is more than its suffix.
bool ends_with_suffix(std::string_view text, std::string_view suffix) {
  return text.size() > suffix.size() && text.ends_with(suffix);
}

}  // namespace

bool is_unit_name(std::string_view text) {
  if (!has_unit_characters(text)) return false;
  constexpr std::array<std::string_view, 6> kSuffixes{".service", ".timer", ".socket", ".target", ".path", ".mount"};
  for (const std::string_view suffix : kSuffixes) {
    if (ends_with_suffix(text, suffix)) return true;
  }
  return false;
}

bool is_service_unit_name(std::string_view text) {
  return has_unit_characters(text) && ends_with_suffix(text, ".service");
}

}  // namespace fleetmcp
