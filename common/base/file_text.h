// Whole-file reads, the one way every program here loads a PEM, a config, a schema or a state
// file. Files are read as bytes: no newline translation, no encoding assumed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/base/result.h"

namespace fleetmcp {

// The file's bytes, or nullopt when it cannot be opened or read.
std::optional<std::string> try_read_file(const std::string& path);

// The file's bytes, or the envelope (code, "cannot read <what> <path>", fix).
Result<std::string> read_file(const std::string& path, ErrorCode code = ErrorCode::kInternal, std::string_view what = "",
                      std::string_view fix = "check the path and its permissions");

}  // namespace fleetmcp
