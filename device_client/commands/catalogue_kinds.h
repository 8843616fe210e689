// Registers the Doc 05 catalogue (docs/catalogue.md) in a HandlerCatalogue: for each kind its
// settings (the allow-list: which pin, bus, unit, camera …), its backend (simulated on --simulate
// nodes or with backend=sim, real otherwise) and the constraints it gets when its line gives none.
#pragma once

#include "device_client/commands/handler_catalogue.h"

namespace fleetmcp::device {

void add_catalogue_kinds(HandlerCatalogue& catalogue);

}  // namespace fleetmcp::device
