#!/usr/bin/env bash
# Makes a machine ready for verdict, idempotently:
#   1. installs Debian's docker.io (and debootstrap, and docker-registry, the loopback registry the
#      Swarm backend's tests push to) when they are missing;
#   2. starts dockerd with overlay2 when no engine answers;
#   3. installs Debian's chromium when it is missing: the tests load the HTML reports in it;
#   4. makes the base OS image verdict uses (VERDICT_OS_IMAGE, default verdict-os:bookworm):
#      pulled from a registry when one answers, otherwise built offline with debootstrap + docker import.
# Run it as root. Every step is skipped when its result is already there.
set -euo pipefail

os_image=${VERDICT_OS_IMAGE:-verdict-os:bookworm}
suite=${VERDICT_OS_SUITE:-bookworm}
pull_from=${VERDICT_OS_PULL:-debian:${suite}-slim}

say() { printf 'engine.sh: %s\n' "$*" >&2; }

need_root() {
  if [ "$(id -u)" != 0 ]; then
    say "this step needs root: $1 (rerun with sudo)"
    exit 1
  fi
}

if ! command -v dockerd >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1 \
  || ! command -v docker-registry >/dev/null 2>&1; then
  need_root "installing docker.io, debootstrap and docker-registry"
  say "installing docker.io, debootstrap and docker-registry from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap docker-registry >/dev/null
fi

if ! command -v chromium >/dev/null 2>&1; then
  need_root "installing chromium"
  say "installing chromium from Debian's packages (the tests check the HTML reports in it)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  need_root "starting dockerd"
  say "starting dockerd (overlay2); its log is /var/log/verdict-dockerd.log"
  nohup dockerd --storage-driver=overlay2 >/var/log/verdict-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    say "dockerd did not answer within 60 s; see /var/log/verdict-dockerd.log"
    exit 1
  fi
fi

if docker image inspect "$os_image" >/dev/null 2>&1; then
  exit 0
fi

if timeout 60 docker pull -q "$pull_from" >/dev/null 2>&1; then
  say "pulled $pull_from as $os_image"
  docker tag "$pull_from" "$os_image"
  exit 0
fi

need_root "debootstrap"
say "no registry answered; building $os_image offline with debootstrap ($suite, minbase)"
rootfs=$(mktemp -d /tmp/verdict-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase "$suite" "$rootfs" >/tmp/verdict-debootstrap.log 2>&1 || {
  say "debootstrap failed; see /tmp/verdict-debootstrap.log"
  exit 1
}
tar -C "$rootfs" -c . | docker import - "$os_image" >/dev/null
say "imported $os_image"
