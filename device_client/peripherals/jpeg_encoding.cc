#include "device_client/peripherals/jpeg_encoding.h"

#include <openssl/evp.h>
#include <turbojpeg.h>

#include <algorithm>
#include <memory>

#include "device_client/base/catalogue_error.h"

namespace fleetmcp::device {
namespace {

int tj_format(PixelOrder o) {
  switch (o) {
    case PixelOrder::kRgb: return TJPF_RGB;
    case PixelOrder::kBgr: return TJPF_BGR;
    case PixelOrder::kBgrx: return TJPF_BGRX;
  }
  return TJPF_RGB;
}

int bytes_per_pixel(PixelOrder o) { return o == PixelOrder::kBgrx ? 4 : 3; }

// Index of the red, green and blue byte within a pixel.
void channel_offsets(PixelOrder o, int& r, int& g, int& b) {
  g = 1;
  r = o == PixelOrder::kRgb ? 0 : 2;
  b = o == PixelOrder::kRgb ? 2 : 0;
}

}  // namespace

Result<std::string> encode_jpeg(const Frame& frame, int quality) {
  std::unique_ptr<void, int (*)(tjhandle)> tj(tjInitCompress(), tjDestroy);
  if (!tj) return failed_precondition("the JPEG encoder did not initialise", "check libturbojpeg");
  unsigned char* out = nullptr;
  unsigned long size = 0;
  const int rc = tjCompress2(tj.get(), frame.pixels.data(), frame.width, frame.stride, frame.height,
                             tj_format(frame.order), &out, &size, TJSAMP_420, quality, TJFLAG_FASTDCT);
  std::string jpeg;
  if (rc == 0) jpeg.assign(reinterpret_cast<const char*>(out), size);
  tjFree(out);
  if (rc != 0) return failed_precondition("JPEG encoding failed", "retry with another resolution");
  return jpeg;
}

Frame downscale(const Frame& frame, int max_width) {
  const int factor = std::max(1, (frame.width + max_width - 1) / max_width);
  Frame out{frame.width / factor, frame.height / factor, 0, PixelOrder::kRgb, {}};
  out.stride = out.width * 3;
  out.pixels.resize(static_cast<size_t>(out.stride) * static_cast<size_t>(out.height));
  const int bpp = bytes_per_pixel(frame.order);
  int r, g, b;
  channel_offsets(frame.order, r, g, b);
  for (int y = 0; y < out.height; ++y) {
    for (int x = 0; x < out.width; ++x) {
      unsigned sum[3] = {0, 0, 0};
      for (int dy = 0; dy < factor; ++dy) {
        const uint8_t* px = frame.pixels.data() + static_cast<size_t>(y * factor + dy) * static_cast<size_t>(frame.stride) +
                            static_cast<size_t>(x * factor * bpp);
        for (int dx = 0; dx < factor; ++dx, px += bpp) {
          sum[0] += px[r];
          sum[1] += px[g];
          sum[2] += px[b];
        }
      }
      uint8_t* o = out.pixels.data() + static_cast<size_t>(y) * static_cast<size_t>(out.stride) + static_cast<size_t>(x) * 3;
      for (int k = 0; k < 3; ++k) o[k] = static_cast<uint8_t>(sum[k] / static_cast<unsigned>(factor * factor));
    }
  }
  return out;
}

Result<Preview> make_preview(const Frame& frame, size_t max_bytes) {
  Preview p;
  for (int width : {320, 160}) {
    const Frame small = downscale(frame, width);
    for (int quality : {60, 45, 30}) {
      auto jpeg = encode_jpeg(small, quality);
      if (!jpeg) return std::move(jpeg).error();
      p = Preview{small.width, small.height, std::move(jpeg).value()};
      if (p.jpeg.size() <= max_bytes) return p;
    }
  }
  return p;
}

std::string base64_encode(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace fleetmcp::device
