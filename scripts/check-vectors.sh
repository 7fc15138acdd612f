#!/usr/bin/env bash
# Regenerates the cross-implementation vectors with their independent Python implementations
# (coincurve/libsecp256k1, pycryptodome, eth-hash, Google protobuf, PyNaCl) and fails when they differ
# from the committed fixtures the Swift tests read. Run by `make test`. Without Python, pip or
# protoc it says so and skips: the Swift tests still check Herald against the committed files.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() { echo "check-vectors: skipped ($1); the committed fixtures are still checked by the Swift tests" >&2; exit 0; }
command -v python3 >/dev/null || skip "no python3"
command -v protoc >/dev/null || skip "no protoc (apt-get install protobuf-compiler)"
python3 -m pip install -q --disable-pip-version-check coincurve pycryptodome "eth-hash[pycryptodome]" protobuf pynacl base58 >/dev/null 2>&1 \
    || skip "pip could not install coincurve, pycryptodome, eth-hash, protobuf, pynacl, base58"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for pair in "Tests/HeraldCryptoTests/vectors/generate_crypto_vectors.py:Tests/HeraldCryptoTests/vectors/crypto.json" \
            "Tests/HeraldStatusTests/vectors/generate_status_vectors.py:Tests/HeraldStatusTests/vectors/status.json" \
            "Tests/HeraldAriesTests/vectors/didcomm_v1.py:Tests/HeraldAriesTests/vectors/didcomm_v1.json"; do
    script=${pair%%:*}
    fixture=${pair#*:}
    case "$script" in
        *didcomm_v1.py) python3 "$script" vectors "$scratch/out.json" >/dev/null ;;
        *) python3 "$script" "$scratch/out.json" >/dev/null ;;
    esac
    if cmp -s "$scratch/out.json" "$fixture"; then
        echo "check-vectors: $fixture matches its generator"
    else
        echo "check-vectors: $fixture differs from what $script writes now; rerun the script and commit" >&2
        status=1
    fi
done
exit $status
