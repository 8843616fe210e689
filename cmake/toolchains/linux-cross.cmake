# Cross builds for a Raspberry Pi's CPU with Debian's cross compilers and multiarch libraries
# (scripts/cross-build.sh installs both). Pick the target with FLEETMCP_CROSS_ARCH (a Debian
# architecture name), e.g.
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/linux-cross.cmake \
#         -DFLEETMCP_CROSS_ARCH=arm64 -DFLEETMCP_BUILD_BROKER=OFF -DCMAKE_INSTALL_PREFIX=/usr
#   arm64: 64-bit Raspberry Pi OS / Debian on Pi 3, 4, 5, Zero 2 (aarch64-linux-gnu)
#   armhf: 32-bit Raspberry Pi OS on Pi 2, 3 and Zero 2 (arm-linux-gnueabihf; ARMv7, so not the
#          ARMv6 Pi 1 and Zero W, which Debian's armhf does not run on)
set(FLEETMCP_CROSS_ARCH "arm64" CACHE STRING "Debian architecture to build for (arm64 or armhf)")
if(FLEETMCP_CROSS_ARCH STREQUAL "arm64")
  set(CMAKE_SYSTEM_PROCESSOR aarch64)
  set(FLEETMCP_CROSS_TRIPLET aarch64-linux-gnu)
elseif(FLEETMCP_CROSS_ARCH STREQUAL "armhf")
  set(CMAKE_SYSTEM_PROCESSOR armv7l)
  set(FLEETMCP_CROSS_TRIPLET arm-linux-gnueabihf)
else()
  message(FATAL_ERROR "FLEETMCP_CROSS_ARCH=${FLEETMCP_CROSS_ARCH}: use arm64 or armhf")
endif()
# The try_compile projects CMake runs need to know the architecture too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES FLEETMCP_CROSS_ARCH)

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${FLEETMCP_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${FLEETMCP_CROSS_TRIPLET}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${FLEETMCP_CROSS_TRIPLET})

# Multiarch: the target's libraries live in /usr/lib/<triplet> (CMAKE_LIBRARY_ARCHITECTURE makes
# find_library look there), its headers in /usr/include and /usr/include/<triplet>. Programs come
# from the build machine; the build machine's own libraries are never linked.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${FLEETMCP_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig")
