// i2c-dev (Documentation/i2c/dev-interface.rst): I2C_RDWR with one or two messages, so a register
// read is a single combined transaction (write pointer, repeated start, read) that no other
// program's transfer can split. SMBus-only adapters (no I2C_FUNC_I2C: PC SMBus controllers, some
// bridges, i2c-stub) refuse I2C_RDWR with EOPNOTSUPP; on them every byte is one SMBus transfer
// (byte data at register r, r+1, ...): not one transaction, but the same bytes from the
// auto-incrementing register files most sensors are.
#include <fcntl.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

#include "device_client/base/catalogue_error.h"
#include "device_client/backends/i2c_bus.h"

namespace fleetmcp::device {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

class I2cDevBus : public I2cBus {
 public:
  I2cDevBus(int bus, std::string dev_dir) : path_(dev_dir + "/i2c-" + std::to_string(bus)) {}

  Result<bool> probe(int address) override {
    const auto opened = open_bus();
    if (!opened) return opened.error();
    const Fd fd(*opened);
    if (smbus_only(fd)) {
      i2c_smbus_data data{};
      return smbus(fd, address, I2C_SMBUS_READ, 0, I2C_SMBUS_BYTE, &data) == 0;
    }
    uint8_t byte = 0;
    i2c_msg msg{static_cast<__u16>(address), I2C_M_RD, 1, &byte};
    return transfer(fd, &msg, 1) == 0;
  }

  Result<std::vector<uint8_t>> read(int address, std::optional<int> reg, int length) override {
    const auto opened = open_bus();
    if (!opened) return opened.error();
    const Fd fd(*opened);
    std::vector<uint8_t> out(static_cast<size_t>(length));
    if (smbus_only(fd)) {
      for (int i = 0; i < length; i++) {
        i2c_smbus_data data{};
        const int rc = reg ? smbus(fd, address, I2C_SMBUS_READ, static_cast<uint8_t>(*reg + i), I2C_SMBUS_BYTE_DATA, &data)
                           : smbus(fd, address, I2C_SMBUS_READ, 0, I2C_SMBUS_BYTE, &data);
        if (rc != 0) return failed_transfer(address, rc);
        out[static_cast<size_t>(i)] = data.byte;
      }
      return out;
    }
    uint8_t pointer = static_cast<uint8_t>(reg.value_or(0));
    i2c_msg msgs[2] = {{static_cast<__u16>(address), 0, 1, &pointer},
                       {static_cast<__u16>(address), I2C_M_RD, static_cast<__u16>(length), out.data()}};
    const int rc = reg ? transfer(fd, msgs, 2) : transfer(fd, &msgs[1], 1);
    if (rc != 0) return failed_transfer(address, rc);
    return out;
  }

  Status write(int address, std::optional<int> reg, const std::vector<uint8_t>& data) override {
    const auto opened = open_bus();
    if (!opened) return opened.error();
    const Fd fd(*opened);
    if (smbus_only(fd)) {
      for (size_t i = 0; i < data.size(); i++) {
        i2c_smbus_data word{};
        word.byte = data[i];
        // Without a register an SMBus "write byte" sends the byte in the command slot.
        const int rc = reg ? smbus(fd, address, I2C_SMBUS_WRITE, static_cast<uint8_t>(*reg + static_cast<int>(i)), I2C_SMBUS_BYTE_DATA, &word)
                           : smbus(fd, address, I2C_SMBUS_WRITE, data[i], I2C_SMBUS_BYTE, nullptr);
        if (rc != 0) return failed_transfer(address, rc);
      }
      return {};
    }
    std::vector<uint8_t> bytes;
    if (reg) bytes.push_back(static_cast<uint8_t>(*reg));
    bytes.insert(bytes.end(), data.begin(), data.end());
    i2c_msg msg{static_cast<__u16>(address), 0, static_cast<__u16>(bytes.size()), bytes.data()};
    const int rc = transfer(fd, &msg, 1);
    if (rc != 0) return failed_transfer(address, rc);
    return {};
  }

 private:
  Result<int> open_bus() const {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      return failed_precondition("cannot open " + path_ + ": " + errno_text(errno),
                                 "enable I2C (dtparam=i2c_arm=on, raspi-config), load i2c-dev, and give the "
                                 "service user the i2c group; or fix the bus= setting");
    }
    return fd;
  }

  static bool smbus_only(const Fd& fd) {
    unsigned long funcs = 0;
    return ::ioctl(fd.get(), I2C_FUNCS, &funcs) == 0 && (funcs & I2C_FUNC_I2C) == 0;
  }

  // One SMBus transfer (I2C_SMBUS, Documentation/i2c/smbus-protocol.rst): 0 or its errno.
  static int smbus(const Fd& fd, int address, uint8_t read_write, uint8_t command, int size, i2c_smbus_data* data) {
    if (::ioctl(fd.get(), I2C_SLAVE, address) < 0) return errno;
    i2c_smbus_ioctl_data args{read_write, command, static_cast<__u32>(size), data};
    return ::ioctl(fd.get(), I2C_SMBUS, &args) < 0 ? errno : 0;
  }

  // 0 or the errno of the failed transfer.
  static int transfer(const Fd& fd, i2c_msg* msgs, int count) {
    i2c_rdwr_ioctl_data data{msgs, static_cast<__u32>(count)};
    return ::ioctl(fd.get(), I2C_RDWR, &data) < 0 ? errno : 0;
  }

  static ErrorEnvelope failed_transfer(int address, int err) {
    return failed_precondition("I2C transfer to address " + std::to_string(address) + " failed: " + errno_text(err),
                               "check wiring and power, and scan the bus (snapshot) to see which addresses answer");
  }

  const std::string path_;
};

}  // namespace

std::unique_ptr<I2cBus> make_i2c_dev_bus(int bus, std::string dev_dir) {
  return std::make_unique<I2cDevBus>(bus, std::move(dev_dir));
}

}  // namespace fleetmcp::device
