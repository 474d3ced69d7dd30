#!/usr/bin/env bash
# Build the molecule node image from Debian packages (no container registry is reachable):
# debootstrap a minimal bookworm with systemd and Python, then import it into podman.
# Installs podman, runc and debootstrap first when they are missing. Idempotent.
# python3-yaml is there as on typical cloud node images (cloud-init needs it); the role would
# install it otherwise. python3-grpcio (1.51) and python3-protobuf (3.21) are Debian's, for the kubelet
# stand-in's PodResources socket and the collection's reader of it (the podresources_client role finds
# them installed; python3-apt lets its package task check that without a network). openssh-server is
# there for scripts/bench_transition.py --connection ssh (how fleets connect: SSH with pipelining); it
# is not started at boot (the nodes share the host network, and port 22 with it): the bench gives each
# node's sshd its own 127.0.0.1 port and starts it.
# The image carries the package list as a label: a list that changed rebuilds it.
set -euo pipefail

image="${1:-localhost/numa-gate-node:bookworm}"
packages="systemd,systemd-sysv,python3,python3-yaml,python3-grpcio,python3-protobuf,python3-apt,openssh-server,dbus,iproute2,procps"

missing=()
for tool in podman runc debootstrap; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if podman image exists "$image" &&
   [ "$(podman image inspect --format '{{index .Labels "numa-gate.packages"}}' "$image")" = "$packages" ]; then
  exit 0
fi

# The machine's own configured Debian mirror, never a hard-coded one.
mirror=""
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
  mirror=$(awk '$1 == "deb" && $2 !~ /^\[/ {print $2; exit}' /etc/apt/sources.list)
fi
if [ -z "$mirror" ]; then
  echo "molecule_image.sh: no Debian mirror found in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list" >&2
  exit 1
fi

rootfs=$(mktemp -d /tmp/numa-gate-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase --include="$packages" bookworm "$rootfs" "$mirror" >/dev/null
# Not at boot: the bench starts sshd on a loopback port of its own (see above).
rm -f "$rootfs/etc/systemd/system/multi-user.target.wants/ssh.service" "$rootfs/etc/systemd/system/sshd.service"
tar -C "$rootfs" -c . | podman import --quiet --change "LABEL numa-gate.packages=$packages" - "$image" >/dev/null
echo "built $image"
