# The official BLAKE3 C implementation, as Debian ships it inside librust-blake3-dev.
# We compile its portable code plus the SIMD back ends for this CPU family; blake3_dispatch.c
# picks the fastest one at run time.
file(GLOB _blake3_dirs LIST_DIRECTORIES true "/usr/share/cargo/registry/blake3-*/c")
list(SORT _blake3_dirs COMPARE NATURAL ORDER DESCENDING)
list(GET _blake3_dirs 0 BLAKE3_C_DIR)
if(NOT EXISTS "${BLAKE3_C_DIR}/blake3.h")
  message(FATAL_ERROR "BLAKE3 C sources not found: install librust-blake3-dev (scripts/install-deps.sh)")
endif()
message(STATUS "BLAKE3 C sources: ${BLAKE3_C_DIR}")

set(_b3_src ${BLAKE3_C_DIR}/blake3.c ${BLAKE3_C_DIR}/blake3_dispatch.c ${BLAKE3_C_DIR}/blake3_portable.c)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  list(APPEND _b3_src
    ${BLAKE3_C_DIR}/blake3_sse2_x86-64_unix.S
    ${BLAKE3_C_DIR}/blake3_sse41_x86-64_unix.S
    ${BLAKE3_C_DIR}/blake3_avx2_x86-64_unix.S
    ${BLAKE3_C_DIR}/blake3_avx512_x86-64_unix.S)
  enable_language(ASM)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  list(APPEND _b3_src ${BLAKE3_C_DIR}/blake3_neon.c)
  set(_b3_defs BLAKE3_USE_NEON=1)
else()
  set(_b3_defs BLAKE3_NO_SSE2 BLAKE3_NO_SSE41 BLAKE3_NO_AVX2 BLAKE3_NO_AVX512)
endif()

add_library(fleetmcp_blake3 STATIC ${_b3_src})
target_include_directories(fleetmcp_blake3 SYSTEM PUBLIC ${BLAKE3_C_DIR})
target_compile_definitions(fleetmcp_blake3 PRIVATE ${_b3_defs})
target_compile_options(fleetmcp_blake3 PRIVATE -w)   # upstream code, upstream warnings
add_library(fleetmcp::blake3 ALIAS fleetmcp_blake3)
