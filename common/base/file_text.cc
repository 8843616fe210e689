#include "common/base/file_text.h"

#include <fstream>
#include <iterator>

namespace fleetmcp {

std::optional<std::string> try_read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return text;
}

Result<std::string> read_file(const std::string& path, ErrorCode code, std::string_view what, std::string_view fix) {
  auto text = try_read_file(path);
  if (!text) {
    return ErrorEnvelope(code, "cannot read " + (what.empty() ? std::string() : std::string(what) + " ") + path, fix);
  }
  return std::move(*text);
}

}  // namespace fleetmcp
