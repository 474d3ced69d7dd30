#!/usr/bin/env bash
# On a Debian 12 machine, install the OS's python3-grpcio and python3-protobuf (as root) when they are
# missing, so the matrix also runs the client on what a Debian 12 node has: grpcio 1.51.1 and the cpp
# protobuf 4.21.12 of the 3.21.12 package. Anywhere else it does nothing (that case is then skipped).
set -euo pipefail
. /etc/os-release 2>/dev/null || exit 0
if [ "${ID:-}" != debian ] || [ "${VERSION_ID:-}" != 12 ] || [ "$(id -u)" != 0 ]; then
  exit 0
fi
installed=$(dpkg-query -W -f='${Status}\n' python3-grpcio python3-protobuf 2>/dev/null | grep -c '^install ok installed$' || true)
if [ "$installed" = 2 ]; then
  exit 0
fi
timeout 300 apt-get update -qq
DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq --no-install-recommends python3-grpcio python3-protobuf >/dev/null
