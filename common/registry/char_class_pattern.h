// The shape most schema patterns have: one ASCII character class repeated, anchored at both ends
// (^[0-9A-HJKMNP-TV-Z]{26}$, ^[\x20-\x7E]*$, ^[a-z-]{1,32}$). SchemaRegistry checks a pattern of
// this shape with a table of allowed bytes and a length test instead of RE2, whose set-up alone
// costs ~1,200 instructions per match (bench/profile.sh calls --callgrind: five matches per echo
// call between the gate and the cmd_ack). Same answers as RE2 (tests/unit/common/registry/char_class_pattern_test.cc
// compares the two on every pattern in schemas/); any other pattern is left to RE2.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>

namespace fleetmcp {

class CharClassPattern {
 public:
  // The pattern if it is ^[class]Q$ with Q one of * + {n} {m,} {m,n}, and the class a list of
  // printable ASCII characters, \xHH escapes below 0x80, escaped \ ] [ - ^ . and ranges of these,
  // not negated, with a literal '-' only last; nullopt for anything else.
  static std::optional<CharClassPattern> recognise(std::string_view pattern);

  // True when every byte of text is in the class and it has between min and max of them (ASCII
  // only, so bytes are characters).
  bool matches(std::string_view text) const {
    if (text.size() < min_ || text.size() > max_) return false;
    for (const char c : text) {
      if (!allowed_[static_cast<unsigned char>(c)]) return false;
    }
    return true;
  }

 private:
  std::array<bool, 256> allowed_{};  // by byte; none from 0x80 up
  size_t min_ = 0, max_ = std::numeric_limits<size_t>::max();
};

}  // namespace fleetmcp
