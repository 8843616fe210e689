// systemd unit names (systemd.unit(5)): the `unit=` setting of a service.unit capability, and the
// names of the units that depend on it, which a node reports when it refuses to stop one (Doc 05
// addendum §6.1). The plugin passes such a name to an agent only when it matches this grammar, so
// what it passes on is an identifier, never a device's free text.
#pragma once

#include <string_view>

namespace fleetmcp {

// Letters, digits and ":_.@-\" (systemd's escapes), at most 256 characters, ending in a unit type
// suffix fleetmcp handles: .service .timer .socket .target .path .mount.
bool is_unit_name(std::string_view text);
// The same, ending in .service: the dependents a node names are services.
bool is_service_unit_name(std::string_view text);

}  // namespace fleetmcp
