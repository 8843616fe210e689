// ISO-8601 UTC timestamps, the form Doc 05 §2.4.2 uses for every absolute time
// ("2025-01-01T12:34:56Z", here with milliseconds when they are not zero).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fleetmcp::device {

std::string iso_utc_from_ms(int64_t unix_ms);
// Accepts "YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)"; nullopt for anything else.
std::optional<int64_t> ms_from_iso_utc(std::string_view text);

}  // namespace fleetmcp::device
