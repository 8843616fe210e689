// ASCII text helpers shared by every program: trimming, case folding and near misses. Protocol text (topics,
// config keys, HTTP tokens, ULIDs) is ASCII, so none of these consult the C locale.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fleetmcp {

// What trim() strips by default: the blanks of config lines, HTTP optional whitespace and the
// trailing newline of a file.
inline constexpr std::string_view kAsciiBlanks = " \t\r\n";

// `s` without leading and trailing characters of `blanks`; a view into `s`, no copy.
std::string_view trim(std::string_view s, std::string_view blanks = kAsciiBlanks);

// The pieces of `text` between each `sep`, empty ones included ("a..b" -> "a", "", "b"); views into `text`.
std::vector<std::string_view> split(std::string_view text, char sep);
// The words of `text` separated by runs of spaces and tabs, no empty ones; views into `text`.
std::vector<std::string_view> split_words(std::string_view text);

constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
// `s` with A-Z folded to a-z; other bytes as they are.
std::string lowercase(std::string_view s);
bool has_ascii_upper(std::string_view s);
// Equal ignoring the case of A-Z (HTTP header names, media types).
bool ascii_iequals(std::string_view a, std::string_view b);

// The `max_count` names of `names` nearest to `asked`, nearest first, then in the order given: for
// "did you mean" hints to a caller. Near means a name `asked` begins or is a dot-separated word of
// ("camera" -> "camera.still"), or one at most max(2, |asked| / 3) single-byte edits away (insert,
// delete, replace), ignoring A-Z case; so an unrelated word suggests nothing.
std::vector<std::string_view> nearest(std::string_view asked, const std::vector<std::string_view>& names,
                                      size_t max_count = 3);

}  // namespace fleetmcp
