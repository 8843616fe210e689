// One still from libcamera: acquire the camera, configure a StillCapture stream in a packed RGB
// format, queue one request, wait for it, copy the frame out of the mmapped dmabuf, release.
// libcamera allows one CameraManager per process, so it is started once and shared.
#include <sys/mman.h>

#include <chrono>
#include <condition_variable>
#include <libcamera/libcamera.h>
#include <mutex>

#include "device_client/backends/camera_source.h"
#include "device_client/base/catalogue_error.h"

namespace fleetmcp::device {
namespace {

using namespace std::chrono_literals;

Result<libcamera::CameraManager*> camera_manager() {
  static std::mutex mutex;
  static std::unique_ptr<libcamera::CameraManager> manager;
  std::lock_guard lock(mutex);
  if (!manager) {
    auto m = std::make_unique<libcamera::CameraManager>();
    if (m->start() != 0) {
      return failed_precondition("the libcamera stack did not start", "check the camera stack (libcamera-hello --list-cameras)");
    }
    manager = std::move(m);
  }
  return manager.get();
}

Result<PixelOrder> order_of(const libcamera::PixelFormat& f) {
  if (f == libcamera::formats::RGB888) return PixelOrder::kBgr;  // DRM RGB888 is B, G, R in memory
  if (f == libcamera::formats::BGR888) return PixelOrder::kRgb;
  if (f == libcamera::formats::XRGB8888) return PixelOrder::kBgrx;
  return failed_precondition("the camera cannot deliver packed RGB", "use a camera with an RGB-capable ISP");
}

// Waits for the one request of a capture.
class Completion : public libcamera::Object {
 public:
  void done(libcamera::Request*) {
    std::lock_guard lock(mutex_);
    finished_ = true;
    cv_.notify_all();
  }
  bool wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [this] { return finished_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool finished_ = false;
};

class LibcameraSource : public CameraSource {
 public:
  explicit LibcameraSource(unsigned index) : index_(index) {}

  Result<Frame> capture(int width, int height) override {
    std::lock_guard lock(mutex_);
    const auto manager = camera_manager();
    if (!manager) return manager.error();
    auto cameras = (*manager)->cameras();
    if (index_ >= cameras.size()) {
      return failed_precondition("no camera " + std::to_string(index_) + " on this device (" +
                                     std::to_string(cameras.size()) + " found)",
                                 "connect and enable a camera (libcamera-hello --list-cameras), or fix the camera= setting");
    }
    std::shared_ptr<libcamera::Camera> camera = cameras[index_];
    if (camera->acquire() != 0) return resource_exhausted("the camera is in use by another program", 2000);
    struct Release {
      libcamera::Camera* c;
      ~Release() {
        c->stop();
        c->release();
      }
    } release{camera.get()};
    return take(*camera, width, height);
  }

 private:
  static Result<Frame> take(libcamera::Camera& camera, int width, int height) {
    auto config = camera.generateConfiguration({libcamera::StreamRole::StillCapture});
    if (!config || config->empty()) return failed_precondition("the camera offers no still stream", "check the camera");
    libcamera::StreamConfiguration& sc = config->at(0);
    sc.size = {static_cast<unsigned>(width), static_cast<unsigned>(height)};
    sc.pixelFormat = libcamera::formats::RGB888;
    sc.bufferCount = 1;
    if (config->validate() == libcamera::CameraConfiguration::Invalid || camera.configure(config.get()) != 0) {
      return failed_precondition("the camera refused the still configuration", "try another resolution");
    }
    const auto order = order_of(sc.pixelFormat);
    if (!order) return order.error();
    libcamera::FrameBufferAllocator allocator(camera.shared_from_this());
    if (allocator.allocate(sc.stream()) < 0) return failed_precondition("cannot allocate a frame buffer", "free memory (gpu_mem)");
    const auto& buffer = allocator.buffers(sc.stream()).front();
    std::unique_ptr<libcamera::Request> request = camera.createRequest();
    if (!request || request->addBuffer(sc.stream(), buffer.get()) != 0) {
      return failed_precondition("cannot build a capture request", "check the camera");
    }
    Completion completion;
    camera.requestCompleted.connect(&completion, &Completion::done);
    if (camera.start() != 0 || camera.queueRequest(request.get()) != 0) {
      return failed_precondition("the camera did not start", "check the camera cable and power");
    }
    const bool finished = completion.wait(10s);
    camera.requestCompleted.disconnect(&completion);
    if (!finished || request->status() != libcamera::Request::RequestComplete) {
      return failed_precondition("the capture did not complete", "retry; check the camera if it persists");
    }
    return copy_out(*buffer, sc, *order);
  }

  static Result<Frame> copy_out(const libcamera::FrameBuffer& buffer, const libcamera::StreamConfiguration& sc, PixelOrder order) {
    const libcamera::FrameBuffer::Plane& plane = buffer.planes().front();
    const size_t length = plane.offset + plane.length;
    void* map = mmap(nullptr, length, PROT_READ, MAP_SHARED, plane.fd.get(), 0);
    if (map == MAP_FAILED) return failed_precondition("cannot map the frame: " + errno_text(errno), "check the camera");
    Frame f{static_cast<int>(sc.size.width), static_cast<int>(sc.size.height), static_cast<int>(sc.stride), order, {}};
    const auto* begin = static_cast<const uint8_t*>(map) + plane.offset;
    f.pixels.assign(begin, begin + static_cast<size_t>(f.stride) * static_cast<size_t>(f.height));
    munmap(map, length);
    return f;
  }

  std::mutex mutex_;
  const unsigned index_;
};

}  // namespace

std::unique_ptr<CameraSource> make_libcamera_source(unsigned index) { return std::make_unique<LibcameraSource>(index); }

}  // namespace fleetmcp::device
