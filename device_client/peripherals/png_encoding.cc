#include "device_client/peripherals/png_encoding.h"

#include <png.h>

#include <cstring>

#include "device_client/base/catalogue_error.h"

namespace fleetmcp::device {
namespace {

// libpng has no format that skips a padding byte, so BGRX frames are packed to RGB first.
Frame packed_rgb(const Frame& frame) {
  Frame out{frame.width, frame.height, frame.width * 3, PixelOrder::kRgb, {}};
  out.pixels.resize(static_cast<size_t>(out.stride) * static_cast<size_t>(out.height));
  for (int y = 0; y < frame.height; ++y) {
    const uint8_t* in = frame.pixels.data() + static_cast<size_t>(y) * static_cast<size_t>(frame.stride);
    uint8_t* o = out.pixels.data() + static_cast<size_t>(y) * static_cast<size_t>(out.stride);
    for (int x = 0; x < frame.width; ++x, in += 4, o += 3) {
      o[0] = in[2];
      o[1] = in[1];
      o[2] = in[0];
    }
  }
  return out;
}

ErrorEnvelope refused(png_image& image) {
  png_image_free(&image);
  return failed_precondition("PNG encoding failed", "retry with format jpeg or another resolution");
}

}  // namespace

Result<std::string> encode_png(const Frame& input) {
  const Frame repacked = input.order == PixelOrder::kBgrx ? packed_rgb(input) : Frame{};
  const Frame& frame = input.order == PixelOrder::kBgrx ? repacked : input;
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(frame.width);
  image.height = static_cast<png_uint_32>(frame.height);
  image.format = frame.order == PixelOrder::kBgr ? PNG_FORMAT_BGR : PNG_FORMAT_RGB;
  // The simplified API counts the row stride in components, which are bytes at 8 bits.
  const auto stride = static_cast<png_int_32>(frame.stride);
  // One compression into a buffer of libpng's worst-case size (asking for the size first would
  // compress twice).
  png_alloc_size_t size = PNG_IMAGE_PNG_SIZE_MAX(image);
  std::string png(size, '\0');
  if (png_image_write_to_memory(&image, png.data(), &size, 0, frame.pixels.data(), stride, nullptr) == 0) {
    return refused(image);
  }
  png.resize(size);
  return png;
}

}  // namespace fleetmcp::device
