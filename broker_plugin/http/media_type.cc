#include "broker_plugin/http/media_type.h"

#include <cctype>
#include <string>

namespace fleetmcp::http {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "q=0" (or 0.0…) among a media range's parameters.
bool refused(std::string_view params) {
  while (!params.empty()) {
    const size_t semi = params.find(';');
    const std::string p = lower(trim(params.substr(0, semi)));
    params = semi == std::string_view::npos ? std::string_view{} : params.substr(semi + 1);
    if (p.rfind("q=", 0) == 0 && p.find_first_not_of("0.", 2) == std::string::npos) return true;
  }
  return false;
}

bool range_matches(std::string_view range, std::string_view type) {
  if (range == "*/*" || range == type) return true;
  const size_t slash = type.find('/');
  return range.size() == slash + 2 && range.substr(0, slash + 1) == type.substr(0, slash + 1) && range.back() == '*';
}

// Each media range of an Accept header that is not refused, lowercased, without parameters.
template <typename Match>
bool any_range(std::optional<std::string_view> header, Match match) {
  if (!header) return false;
  std::string_view rest = *header;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const size_t semi = item.find(';');
    const std::string range = lower(trim(item.substr(0, semi)));
    if (match(range) && !(semi != std::string_view::npos && refused(item.substr(semi + 1)))) return true;
  }
  return false;
}

}  // namespace

bool accepts(std::optional<std::string_view> header, std::string_view type) {
  return any_range(header, [&](const std::string& range) { return range_matches(range, type); });
}

bool names(std::optional<std::string_view> header, std::string_view type) {
  return any_range(header, [&](const std::string& range) { return range == type; });
}

bool is_json_content_type(std::optional<std::string_view> content_type) {
  if (!content_type) return false;
  return lower(trim(content_type->substr(0, content_type->find(';')))) == "application/json";
}

}  // namespace fleetmcp::http
