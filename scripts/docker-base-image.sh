#!/usr/bin/env bash
# The Debian base images docker/Dockerfile starts FROM (debian:12 and debian:12-slim), made
# locally when the Docker engine has none and cannot pull them (a machine with no image
# registry). On a normal machine `docker-compose build` pulls them and this is not needed.
#   scripts/docker-base-image.sh            # imports debian:12 and debian:12-slim if missing
# Made with mmdebstrap --variant=minbase bookworm from the machine's apt sources (~25 s), then
# `docker import`. Both tags are the same minimal image: slim only differs by trimmed docs.
set -euo pipefail

if docker image inspect debian:12 >/dev/null 2>&1 && docker image inspect debian:12-slim >/dev/null 2>&1; then
  echo "docker-base-image: debian:12 and debian:12-slim present"
  exit 0
fi
command -v mmdebstrap >/dev/null || { echo "docker-base-image: mmdebstrap missing (apt-get install mmdebstrap)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
# --dpkgopt/--aptopt as Debian's official images: no docs or man pages, no apt caches kept.
mmdebstrap --quiet --variant=minbase \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  bookworm "$tmp/rootfs.tar"
docker import --change 'CMD ["bash"]' "$tmp/rootfs.tar" debian:12 >/dev/null
docker tag debian:12 debian:12-slim
echo "docker-base-image: imported debian:12 and debian:12-slim in $((SECONDS - start)) s"
