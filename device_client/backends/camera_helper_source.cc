// The device side of camera_helper.h: spawn, read one bounded frame, map the exit code to the
// catalogue's errors with the device's own messages.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "device_client/backends/camera_helper.h"
#include "device_client/backends/camera_source.h"
#include "device_client/base/catalogue_error.h"

extern char** environ;

#ifndef FLEETMCP_LIBEXEC_DIR
#define FLEETMCP_LIBEXEC_DIR "/usr/local/libexec/fleetmcp"
#endif

namespace fleetmcp::device {
namespace {

bool read_exact(int fd, char* out, size_t n) {
  while (n > 0) {
    const ssize_t got = ::read(fd, out, n);
    if (got <= 0) return false;
    out += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

std::optional<Frame> read_frame(int fd, int max_width, int max_height) {
  std::string header;
  for (char c; header.size() < 80 && ::read(fd, &c, 1) == 1 && c != '\n';) header += c;
  Frame f;
  char order[8] = {};
  if (std::sscanf(header.c_str(), "FRAME %d %d %d %7s", &f.width, &f.height, &f.stride, order) != 4) return std::nullopt;
  const std::string o = order;
  f.order = o == "bgr" ? PixelOrder::kBgr : o == "bgrx" ? PixelOrder::kBgrx : PixelOrder::kRgb;
  const int bpp = f.order == PixelOrder::kBgrx ? 4 : 3;
  // Bounded by what was asked for: a misbehaving helper cannot make the device allocate more.
  if (f.width <= 0 || f.height <= 0 || f.width > max_width || f.height > max_height || f.stride < f.width * bpp ||
      f.stride > max_width * 4 + 256) {
    return std::nullopt;
  }
  f.pixels.resize(static_cast<size_t>(f.stride) * static_cast<size_t>(f.height));
  if (!read_exact(fd, reinterpret_cast<char*>(f.pixels.data()), f.pixels.size())) return std::nullopt;
  return f;
}

class HelperCameraSource : public CameraSource {
 public:
  HelperCameraSource(std::string helper, unsigned index) : helper_(std::move(helper)), index_(index) {}

  Result<Frame> capture(int width, int height) override {
    if (::access(helper_.c_str(), X_OK) != 0) {
      return failed_precondition("the camera helper " + helper_ + " is not installed",
                                 "install the fleetmcp-camera package (it holds fleetmcp-camera-still), or set helper= on this capability");
    }
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return failed_precondition("cannot create a pipe: " + errno_text(errno), "retry");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    const std::string cam = std::to_string(index_), w = std::to_string(width), h = std::to_string(height);
    const char* argv[] = {helper_.c_str(), "--camera", cam.c_str(), "--width", w.c_str(), "--height", h.c_str(), nullptr};
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, helper_.c_str(), &actions, nullptr, const_cast<char* const*>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    std::optional<Frame> frame;
    if (rc == 0) frame = read_frame(out[0], width, height);
    ::close(out[0]);
    if (rc != 0) return failed_precondition("cannot start the camera helper: " + errno_text(rc), "check its installation");
    int status = 0;
    ::waitpid(pid, &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 0 && frame) return std::move(*frame);
    if (code == kHelperNoCamera) {
      return failed_precondition("no camera " + cam + " on this device",
                                 "connect and enable a camera (libcamera-hello --list-cameras), or fix the camera= setting");
    }
    if (code == kHelperBusy) return resource_exhausted("the camera is in use by another program", 2000);
    return failed_precondition("the capture did not complete (helper exit " + std::to_string(code) + ")",
                               "retry; the device log has the helper's reason");
  }

 private:
  const std::string helper_;
  const unsigned index_;
};

}  // namespace

std::string default_camera_helper_path() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto beside = self.parent_path() / kCameraHelperName;
    if (std::filesystem::exists(beside, ec)) return beside.string();
  }
  return std::string(FLEETMCP_LIBEXEC_DIR) + "/" + kCameraHelperName;
}

std::unique_ptr<CameraSource> make_camera_helper_source(std::string helper, unsigned index) {
  return std::make_unique<HelperCameraSource>(std::move(helper), index);
}

}  // namespace fleetmcp::device
