#!/usr/bin/env bash
# Installs the Debian packages Herald builds against, when missing. Quiet when all are present.
set -euo pipefail

# protobuf-compiler: the Status vector generator builds its Python message classes with protoc.
# etcd-server: the cluster tests start real etcd members on 127.0.0.1; iproute2: network namespaces.
# libsodium-dev: DIDComm v1 envelopes (the Aries front door).
# libnghttp2-dev: the HTTP/2 codec of provider connections with delivery.http2-codec: nghttp2.
packages=(liblmdb-dev libsecp256k1-dev libsodium-dev libnghttp2-dev pkg-config protobuf-compiler etcd-server iproute2)

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
# ACA-Py's own DIDComm packers (aries-askar and marshmallow are what they import) pack and open the
# Aries tests' envelopes as a real wallet does.
python_packages=("pywebpush==2.5.0" "http-ece==1.2.1" "py-vapid==1.9.6" "protobuf" "requests" "pynacl==1.6.2" "base58>=2.1,<2.2"
    "aries-askar==0.5.0" "marshmallow>=3.26.1,<3.27")
if ! python3 -c "import pywebpush, http_ece, py_vapid, google.protobuf, requests, nacl, base58, aries_askar, marshmallow" 2>/dev/null; then
    echo "install-deps: installing ${python_packages[*]} from PyPI"
    python3 -m pip install -q --disable-pip-version-check "${python_packages[@]}" >/dev/null
fi

# ACA-Py 1.7.0 installs only on Python 3.13+, but the two modules the tests run are plain Python
# that runs on 3.11: its wheel is unpacked where Tests/HeraldServerTests/EndToEnd/wallets/
# acapy_didcomm.py looks for it.
# The home directory as Python's expanduser finds it, with or without HOME set.
home="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
acapy="${HERALD_ACAPY_PATH:-$home/.cache/herald/acapy-agent-1.7.0}"
if [ ! -f "$acapy/acapy_agent/askar/didcomm/v1.py" ]; then
    echo "install-deps: unpacking acapy-agent 1.7.0 into $acapy"
    wheels="$(mktemp -d)"
    python3 -m pip download -q --disable-pip-version-check --no-deps --python-version 3.13 --only-binary=:all: -d "$wheels" acapy-agent==1.7.0 >/dev/null
    mkdir -p "$acapy"
    python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$wheels"/acapy_agent-1.7.0-*.whl "$acapy"
    rm -rf "$wheels"
fi
