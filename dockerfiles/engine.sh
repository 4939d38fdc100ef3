#!/usr/bin/env bash
# Makes a machine ready for verdict, idempotently:
#   1. installs Debian's docker.io (and debootstrap, and docker-registry, the loopback registry the
#      Swarm backend's tests push to) when they are missing;
#   2. starts dockerd with overlay2 when no engine answers;
#   3. installs Debian's chromium when it is missing: the tests load the HTML reports in it;
#   4. makes the base OS image verdict uses (VERDICT_OS_IMAGE, default verdict-os:bookworm):
#      pulled from a registry when one answers, otherwise built offline with debootstrap + docker import.
# With `--suite NAME` (repeatable) it also makes verdict-os:NAME for the other Debian suites that
# toolchain versions need (bullseye: Python 3.9, OpenJDK 11; trixie: Python 3.13, OpenJDK 21), so
# that verdict need not make them during a run (it does, as root, when they are missing).
# Run it as root. Every step is skipped when its result is already there.
set -euo pipefail

extra_suites=()
while [ $# -gt 0 ]; do
  case "$1" in
    --suite) extra_suites+=("${2:?--suite needs a Debian suite name}"); shift 2 ;;
    --suite=*) extra_suites+=("${1#--suite=}"); shift ;;
    *) printf 'engine.sh: unknown argument %s (usage: engine.sh [--suite NAME]...)\n' "$1" >&2; exit 2 ;;
  esac
done

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

# Makes image $1 from Debian suite $2: pulled as $3 when a registry answers, else debootstrapped.
make_os_image() {
  local image=$1 suite=$2 pull=$3
  if docker image inspect "$image" >/dev/null 2>&1; then
    return 0
  fi
  if timeout 60 docker pull -q "$pull" >/dev/null 2>&1; then
    say "pulled $pull as $image"
    docker tag "$pull" "$image"
    return 0
  fi
  need_root "debootstrap"
  say "no registry answered; building $image offline with debootstrap ($suite, minbase)"
  local rootfs
  rootfs=$(mktemp -d /tmp/verdict-rootfs.XXXXXX)
  if ! debootstrap --variant=minbase "$suite" "$rootfs" >"/tmp/verdict-debootstrap-$suite.log" 2>&1; then
    rm -rf "$rootfs"
    say "debootstrap failed; see /tmp/verdict-debootstrap-$suite.log"
    exit 1
  fi
  tar -C "$rootfs" -c . | docker import - "$image" >/dev/null
  rm -rf "$rootfs"
  say "imported $image"
}

make_os_image "$os_image" "$suite" "$pull_from"
for extra in "${extra_suites[@]}"; do
  make_os_image "verdict-os:$extra" "$extra" "debian:$extra-slim"
done
