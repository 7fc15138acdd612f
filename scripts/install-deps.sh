#!/usr/bin/env bash
# Installs the Debian packages Herald builds against, when missing. Quiet when all are present.
set -euo pipefail

# protobuf-compiler: the Status vector generator builds its Python message classes with protoc.
# etcd-server: the cluster tests start real etcd members on 127.0.0.1; iproute2: network namespaces.
# libsodium-dev: DIDComm v1 envelopes (the Aries front door).
packages=(liblmdb-dev libsecp256k1-dev libsodium-dev pkg-config protobuf-compiler etcd-server iproute2)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
        sudo="sudo"
    fi
    echo "install-deps: installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Web Push relay's tests send real pushes with pywebpush (and py-vapid) and decrypt what the
# mock APNs received with http_ece; the silent-sync tests register with Google's protobuf runtime;
# the Aries tests pack and unpack DIDComm envelopes with PyNaCl: independent implementations, from
# PyPI.
python_packages=("pywebpush==2.5.0" "http-ece==1.2.1" "py-vapid==1.9.6" "protobuf" "requests" "pynacl==1.6.2" "base58")
if ! python3 -c "import pywebpush, http_ece, py_vapid, google.protobuf, requests, nacl, base58" 2>/dev/null; then
    echo "install-deps: installing ${python_packages[*]} from PyPI"
    python3 -m pip install -q --disable-pip-version-check "${python_packages[@]}" >/dev/null
fi
