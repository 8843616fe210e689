# Sourced by the scripts that make a Debian root with the node's .debs in it: the virtual Pi's
# disk (scripts/virtual-pi/build-image.sh) and the Pi's SD-card image (scripts/pi-image.sh).

# debs_key DEBS_DIR: the fleetmcp-device and fleetmcp-schemas .debs of DEBS_DIR by what they
# install, for an image's cache key (cpack stamps each build's archives with new times).
debs_key() {
  local d
  for d in "$1"/fleetmcp-device_*.deb "$1"/fleetmcp-schemas_*.deb; do
    dpkg-deb -f "$d"; dpkg-deb --fsys-tarfile "$d" | tar -xO
  done
}

# foreign_arch_ready ARCH: an ARCH root's programs run here (mmdebstrap's hooks run them in a
# chroot) through binfmt_misc and qemu-user-static (install-deps.sh --vm arm64). Nothing for amd64.
foreign_arch_ready() {
  [ "$1" != amd64 ] || return 0
  [ -f /proc/sys/fs/binfmt_misc/status ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  [ -f /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64
}

# debs_hooks DEBS_DIR: sets DEBS_HOOKS, the mmdebstrap options that install DEBS_DIR's
# fleetmcp-device and fleetmcp-schemas with apt, as on a Pi (README "Install on a Pi"), and the
# options every image shares (no manuals, documentation or translations).
debs_hooks() {
  DEBS_HOOKS=(
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
    --dpkgopt='path-exclude=/usr/share/locale/*'
    --customize-hook="mkdir -p \"\$1/tmp/debs\" && cp $1/fleetmcp-device_*.deb $1/fleetmcp-schemas_*.deb \"\$1/tmp/debs/\""
    --customize-hook='chroot "$1" sh -c "apt-get install -y --no-install-recommends /tmp/debs/*.deb" && rm -rf "$1/tmp/debs"'
  )
}
