// Files a test writes (a fixture directory, a config, a tampered schema): the whole text, replacing
// what was there. Reading goes through the product's own common/base/file_text.h (read_file).
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fleetmcp::testing {

inline void write_test_file(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace fleetmcp::testing
