#include "common/base/text.h"

#include <algorithm>
#include <utility>

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

// Levenshtein distance, or limit + 1 once every alignment needs more than `limit` edits.
size_t distance_within(std::string_view a, std::string_view b, size_t limit) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) return limit + 1;
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    size_t best = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
      best = std::min(best, row[j]);
    }
    if (best > limit) return limit + 1;
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

std::vector<std::string_view> nearest(std::string_view asked, const std::vector<std::string_view>& names,
                                      size_t max_count) {
  constexpr size_t kLongest = 256;  // a longer name is nobody's typo; it costs nothing to compare
  if (asked.size() > kLongest) return {};
  const std::string want = lowercase(asked);
  const size_t limit = std::max<size_t>(2, want.size() / 3);
  std::vector<std::pair<size_t, std::string_view>> near;  // (rank, name), in the order given
  for (std::string_view name : names) {
    const std::string candidate = lowercase(name);
    // A name that holds what was asked as a part beats any spelling distance.
    const size_t rank = names_a_part(want, candidate) ? 0 : 1 + distance_within(want, candidate, limit);
    if (rank <= limit + 1) near.emplace_back(rank, name);
  }
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string_view> out;
  for (size_t i = 0; i < near.size() && i < max_count; ++i) out.push_back(near[i].second);
  return out;
}

}  // namespace fleetmcp
