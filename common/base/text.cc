#include "common/base/text.h"

#include <algorithm>

namespace fleetmcp {

std::string_view trim(std::string_view s, std::string_view blanks) {
  const size_t first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(blanks) - first + 1);
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const auto at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

bool has_ascii_upper(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

bool ascii_iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

namespace {

// Levenshtein distance, one row at a time.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool names_a_part(std::string_view asked, std::string_view name) {
  if (asked.empty()) return false;
  if (name.starts_with(asked)) return true;
  for (const std::string_view word : split(name, '.')) {
    if (word == asked) return true;
  }
  return false;
}

}  // namespace

std::string nearest_name(std::string_view asked, const std::vector<std::string>& names) {
  const std::string want = lowercase(asked);
  const std::string* best = nullptr;
  size_t best_distance = 0;
  for (const std::string& name : names) {
    const std::string candidate = lowercase(name);
    // A name that contains what was asked as a part beats any spelling distance.
    const size_t distance = names_a_part(want, candidate) ? 0 : 1 + edit_distance(want, candidate);
    if (best == nullptr || distance < best_distance) {
      best = &name;
      best_distance = distance;
    }
  }
  return best != nullptr ? *best : std::string();
}

}  // namespace fleetmcp
