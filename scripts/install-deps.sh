#!/usr/bin/env bash
# Installs the Debian packages Herald builds against, when missing. Quiet when all are present.
set -euo pipefail

# protobuf-compiler: the Status vector generator builds its Python message classes with protoc.
# etcd-server: the cluster tests start real etcd members on 127.0.0.1; iproute2: network namespaces.
packages=(liblmdb-dev libsecp256k1-dev pkg-config protobuf-compiler etcd-server iproute2)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
