// The libcamera capture runs in a helper process, fleetmcp-camera-still, spawned per photo.
// libcamera and its dependency tree (GnuTLS, LTTng, libdw, …) cost ~5 MiB of resident memory and
// a few threads in whatever process loads them; on a Pi Zero 2 with a 10 MiB budget for the
// device client (docs/protocol.md §10) they are paid only while a photo is being taken.
//
// Protocol: `fleetmcp-camera-still --camera N --width W --height H` writes one line
// "FRAME <width> <height> <stride> <rgb|bgr|bgrx>\n" and the packed pixels to stdout, exit 0; or
// exits with one of the codes below (its stderr goes to the device's log, never to an agent).
#pragma once

#include <string>

namespace fleetmcp::device {

inline constexpr int kHelperNoCamera = 2;   // no such camera, or no camera stack
inline constexpr int kHelperBusy = 3;       // held by another program
inline constexpr int kHelperFailed = 4;     // configuration or capture failed
inline constexpr const char* kCameraHelperName = "fleetmcp-camera-still";

// Next to the running executable (build tree, or both installed in bin/), else the libexec dir.
std::string default_camera_helper_path();

}  // namespace fleetmcp::device
