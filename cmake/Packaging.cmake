# Debian packages with CPack (README "Install on a Pi"):
#   fleetmcp-device   the node: fleetmcp-device, its systemd unit, /etc/fleetmcp, user fleetmcp, and
#                     its self-update (fleetmcp-update.service, its script and polkit rule) and
#                     the enrolment from a Pi's boot partition (fleetmcp-enrol-boot, docs/pi-image.md)
#   fleetmcp-camera   the still-camera helper, the only program linking libcamera: apart, because
#                     Raspberry Pi OS ships its own libcamera under other package names (README
#                     "Install on a Pi" says how to build this one helper there)
#   fleetmcp-broker   mosquitto's side: fleetmcp_plugin.so, fleetctl, the topic policy, the
#                     broker configuration (/etc/fleetmcp/mosquitto.conf) and fleetmcp-broker.service
#   fleetmcp-schemas  the schema bundle both of them read (/usr/share/fleetmcp/schemas)
#
#   cmake -S . -B build-deb -DCMAKE_INSTALL_PREFIX=/usr -DFLEETMCP_BUILD_TESTS=OFF -DFLEETMCP_BUILD_BENCH=OFF
#   cmake --build build-deb -j2 --target fleetctl fleetmcp-device fleetmcp_plugin
#   (cd build-deb && cpack -G DEB)          # packages what is built (no build of `all` first)
#
# The prefix must be /usr: the programs compile in where the installed schema bundle is
# (FLEETMCP_INSTALL_SCHEMAS_DIR), and cpack refuses any other build (cmake/packaging/check.cmake).
# The packages are built from their own component install rules below, so the project's plain
# `cmake --install` rules stay as they are.
include(GNUInstallDirs)
# cpack (and `make install`) package what is built and do not build `all` first: CI builds only the
# packaged programs in Release (scripts/test.sh), and tests that cpack side by side must not each
# start a build of the whole tree in the same build directory. Build the targets above first.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(FLEETMCP_PACKAGING_DIR ${CMAKE_CURRENT_LIST_DIR}/packaging)
set(FLEETMCP_PACKAGE_PREFIX /usr)

# The device unit names the installed binary: configure a copy for the package prefix.
function(fleetmcp_configure_packaged_unit)
  set(CMAKE_INSTALL_FULL_BINDIR ${FLEETMCP_PACKAGE_PREFIX}/bin)
  configure_file(${PROJECT_SOURCE_DIR}/device_client/fleetmcp-device.service
                 ${PROJECT_BINARY_DIR}/packaging/fleetmcp-device.service @ONLY)
endfunction()
fleetmcp_configure_packaged_unit()
# The self-update (docs/device-client.md, "Self-update"): the unit names the packaged script.
set(FLEETMCP_UPDATE_SCRIPT ${FLEETMCP_PACKAGE_PREFIX}/libexec/fleetmcp/fleetmcp-update)
configure_file(${FLEETMCP_PACKAGING_DIR}/device/fleetmcp-update.service
               ${PROJECT_BINARY_DIR}/packaging/fleetmcp-update.service @ONLY)
configure_file(${FLEETMCP_PACKAGING_DIR}/device/fleetmcp-update-check.service
               ${PROJECT_BINARY_DIR}/packaging/fleetmcp-update-check.service @ONLY)
# Packages of one tree for two Debian releases (docs/pi-image.md "Which packages"): each
# release's build names its own libraries, so a trixie build carries a suffix (scripts/release-build.sh
# sets +deb13). Bookworm's have none; 0.1.0 sorts before 0.1.0+deb13, so a Pi upgraded from
# bookworm to trixie takes the trixie build when apt sees it.
set(FLEETMCP_PACKAGE_VERSION_SUFFIX "" CACHE STRING "Appended to the packages' Version (+deb13 for trixie)")
set(FLEETMCP_PACKAGE_VERSION ${PROJECT_VERSION}${FLEETMCP_PACKAGE_VERSION_SUFFIX})
# The package's own version, which fleetmcp-device reports (device_client/update/package_version.h).
file(WRITE ${PROJECT_BINARY_DIR}/packaging/version "${FLEETMCP_PACKAGE_VERSION}\n")

# ---- components -------------------------------------------------------------------------------
install(TARGETS fleetmcp-device RUNTIME DESTINATION bin COMPONENT device)
# The camera helper runs libcamera in its own process, spawned per photo (docs/catalogue.md):
# fleetmcp-device looks for it beside itself.
install(TARGETS fleetmcp-camera-still RUNTIME DESTINATION bin COMPONENT camera)
install(FILES ${PROJECT_BINARY_DIR}/packaging/fleetmcp-device.service DESTINATION lib/systemd/system COMPONENT device)
install(FILES ${PROJECT_SOURCE_DIR}/device_client/device.conf.example DESTINATION /etc/fleetmcp COMPONENT device)
install(FILES ${FLEETMCP_PACKAGING_DIR}/device/60-fleetmcp-device.rules DESTINATION lib/udev/rules.d COMPONENT device)
install(FILES ${PROJECT_BINARY_DIR}/packaging/fleetmcp-update.service DESTINATION lib/systemd/system COMPONENT device)
install(PROGRAMS ${FLEETMCP_PACKAGING_DIR}/device/fleetmcp-update DESTINATION libexec/fleetmcp COMPONENT device)
# check_for_updates (docs/protocol.md D45): the daily read of the channels, enabled by postinst.
install(FILES ${PROJECT_BINARY_DIR}/packaging/fleetmcp-update-check.service
              ${FLEETMCP_PACKAGING_DIR}/device/fleetmcp-update-check.timer DESTINATION lib/systemd/system COMPONENT device)
install(FILES ${FLEETMCP_PACKAGING_DIR}/device/60-fleetmcp-update.rules DESTINATION share/polkit-1/rules.d COMPONENT device)
install(FILES ${PROJECT_BINARY_DIR}/packaging/version DESTINATION share/fleetmcp-device COMPONENT device)
# Enrolment from a Pi's boot partition (docs/pi-image.md): the Pi image enables the unit.
install(FILES ${FLEETMCP_PACKAGING_DIR}/device/fleetmcp-enrol-boot.service DESTINATION lib/systemd/system COMPONENT device)
install(PROGRAMS ${FLEETMCP_PACKAGING_DIR}/device/fleetmcp-enrol-boot DESTINATION libexec/fleetmcp COMPONENT device)
install(FILES ${PROJECT_SOURCE_DIR}/docs/device-client.md DESTINATION share/doc/fleetmcp-device COMPONENT device)

if(FLEETMCP_BUILD_BROKER)
  install(TARGETS fleetmcp_plugin LIBRARY DESTINATION lib/fleetmcp COMPONENT broker)
  install(TARGETS fleetctl RUNTIME DESTINATION bin COMPONENT broker)
  install(FILES ${PROJECT_SOURCE_DIR}/acl/fleetmcp.acl ${PROJECT_SOURCE_DIR}/acl/README.md
          DESTINATION share/fleetmcp/acl COMPONENT broker)
  install(FILES ${PROJECT_SOURCE_DIR}/mosquitto.conf DESTINATION /etc/fleetmcp COMPONENT broker)
  install(FILES ${PROJECT_SOURCE_DIR}/mosquitto.conf DESTINATION share/doc/fleetmcp-broker
          RENAME mosquitto.conf.example COMPONENT broker)
  install(FILES ${FLEETMCP_PACKAGING_DIR}/broker/fleetmcp-broker.service DESTINATION lib/systemd/system COMPONENT broker)
  install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/plugin.md ${PROJECT_SOURCE_DIR}/docs/http-front.md
          DESTINATION share/doc/fleetmcp-broker COMPONENT broker)
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas/ DESTINATION share/fleetmcp/schemas COMPONENT schemas
        FILES_MATCHING PATTERN "*.json")

# ---- CPack --------------------------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fleetmcp)
set(CPACK_PACKAGE_VENDOR fleetmcp)
set(CPACK_PACKAGE_VERSION ${FLEETMCP_PACKAGE_VERSION})
set(CPACK_PACKAGE_CONTACT "fleetmcp maintainers <fleetmcp@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "MCP tools over MQTT for fleets of Raspberry Pi-class devices")
set(CPACK_PACKAGING_INSTALL_PREFIX ${FLEETMCP_PACKAGE_PREFIX})
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_COMPONENTS_ALL device camera schemas)
if(FLEETMCP_BUILD_BROKER)
  list(APPEND CPACK_COMPONENTS_ALL broker)
endif()
if(CMAKE_CROSSCOMPILING)
  # cmake/toolchains/linux-cross.cmake; dpkg-shlibdeps reads the target's libraries by this too.
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${FLEETMCP_CROSS_ARCH})
endif()
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/packaging/check.cmake)
file(WRITE ${PROJECT_BINARY_DIR}/packaging/check.cmake
  "# Written by cmake/Packaging.cmake: refuse packages whose programs look for schemas elsewhere.\n"
  "if(NOT \"${FLEETMCP_INSTALL_SCHEMAS_DIR}\" STREQUAL \"${FLEETMCP_PACKAGE_PREFIX}/share/fleetmcp/schemas\")\n"
  "  message(FATAL_ERROR \"fleetmcp: this build was configured with CMAKE_INSTALL_PREFIX=${CMAKE_INSTALL_PREFIX}; \"\n"
  "    \"the .debs need -DCMAKE_INSTALL_PREFIX=/usr (the programs compile in the schema path)\")\n"
  "endif()\n")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://modelcontextprotocol.io")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_DEBIAN_DEVICE_PACKAGE_NAME fleetmcp-device)
set(CPACK_COMPONENT_DEVICE_DESCRIPTION
    "fleetmcp node client\n fleetmcp-device publishes a signed capability manifest of this device over MQTT\n and runs its tools (echo, metrics, GPIO, camera ...) for MCP agents.")
set(CPACK_COMPONENT_DEVICE_DEPENDS schemas)
set(CPACK_DEBIAN_DEVICE_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_DEVICE_PACKAGE_CONTROL_EXTRA
    "${FLEETMCP_PACKAGING_DIR}/device/postinst;${FLEETMCP_PACKAGING_DIR}/device/prerm;${FLEETMCP_PACKAGING_DIR}/device/postrm;${FLEETMCP_PACKAGING_DIR}/device/conffiles")

set(CPACK_DEBIAN_CAMERA_PACKAGE_NAME fleetmcp-camera)
set(CPACK_COMPONENT_CAMERA_DESCRIPTION
    "fleetmcp still-camera helper\n fleetmcp-camera-still takes one frame with libcamera for fleetmcp-device's camera\n tools; without it a camera tool call is refused with a fix naming this package.")
set(CPACK_COMPONENT_CAMERA_DEPENDS device)

set(CPACK_DEBIAN_BROKER_PACKAGE_NAME fleetmcp-broker)
set(CPACK_COMPONENT_BROKER_DESCRIPTION
    "fleetmcp broker plugin and operator CLI\n fleetmcp_plugin.so for mosquitto 2.0 (identity, topic ACLs, manifest attestation,\n MCP over HTTP), fleetctl, the topic policy and a production mosquitto.conf.")
set(CPACK_COMPONENT_BROKER_DEPENDS schemas)
# Plugin API v5 of the 2.0 series (docs/plugin.md).
set(CPACK_DEBIAN_BROKER_PACKAGE_DEPENDS "mosquitto (>= 2.0.11), mosquitto (<< 2.1)")
set(CPACK_DEBIAN_BROKER_PACKAGE_CONTROL_EXTRA
    "${FLEETMCP_PACKAGING_DIR}/broker/postinst;${FLEETMCP_PACKAGING_DIR}/broker/prerm;${FLEETMCP_PACKAGING_DIR}/broker/postrm;${FLEETMCP_PACKAGING_DIR}/broker/conffiles")

set(CPACK_DEBIAN_SCHEMAS_PACKAGE_NAME fleetmcp-schemas)
set(CPACK_DEBIAN_SCHEMAS_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_SCHEMAS_PACKAGE_SHLIBDEPS OFF)
set(CPACK_COMPONENT_SCHEMAS_DESCRIPTION
    "fleetmcp JSON schema bundle\n The capability manifest, tool and envelope schemas with their SHA-256 index.")

include(CPack)
