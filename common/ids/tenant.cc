#include "common/ids/tenant.h"

namespace fleetmcp {

bool is_tenant_name(std::string_view text) {
  if (text.empty() || text.size() > 63) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && (i == 0 || (c != '_' && c != '-'))) return false;
  }
  return true;
}

}  // namespace fleetmcp
