#!/usr/bin/env bash
# Regenerates the committed Swift for every .proto in Sources/*/Protobuf (*.pb.swift next to each
# .proto). The generated code is committed instead of using the SwiftPM protobuf plugin, which
# compiles protoc from source (~8 min on a cold build). Run after editing a .proto; commit the result.
# protoc-gen-swift comes from $PROTOC_GEN_SWIFT, else PATH (if it is the right version), else it is
# built once from swift-protobuf into a cache directory.
set -euo pipefail
cd "$(dirname "$0")/.."

# Keep in step with the swift-protobuf version in Package.swift: generated code targets that runtime.
swift_protobuf_version=1.39.0
proto_dirs=(Sources/HeraldStatus/Protobuf Sources/HeraldSilent/Protobuf)
cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/herald/protoc-gen-swift-$swift_protobuf_version"

command -v protoc >/dev/null || {
    echo "generate-protobuf: protoc not found; install it with: sudo apt-get install protobuf-compiler" >&2
    exit 1
}

plugin_version() { "$1" --version 2>/dev/null | awk '{print $NF}'; }

plugin=""
if [ -n "${PROTOC_GEN_SWIFT:-}" ]; then
    [ -x "$PROTOC_GEN_SWIFT" ] || { echo "generate-protobuf: PROTOC_GEN_SWIFT=$PROTOC_GEN_SWIFT is not executable" >&2; exit 1; }
    plugin="$PROTOC_GEN_SWIFT"
elif command -v protoc-gen-swift >/dev/null \
    && [ "$(plugin_version "$(command -v protoc-gen-swift)")" = "$swift_protobuf_version" ]; then
    plugin="$(command -v protoc-gen-swift)"
elif [ -x "$cache_dir/protoc-gen-swift" ]; then
    plugin="$cache_dir/protoc-gen-swift"
else
    echo "generate-protobuf: building protoc-gen-swift $swift_protobuf_version into $cache_dir (a few minutes, once)"
    mkdir -p "$cache_dir"
    rm -rf "$cache_dir/src"
    git -c advice.detachedHead=false clone --quiet --depth 1 --branch "$swift_protobuf_version" \
        https://github.com/apple/swift-protobuf.git "$cache_dir/src"
    swift build --package-path "$cache_dir/src" -c release --product protoc-gen-swift >/dev/null
    cp "$(swift build --package-path "$cache_dir/src" -c release --show-bin-path)/protoc-gen-swift" "$cache_dir/protoc-gen-swift"
    rm -rf "$cache_dir/src"
    plugin="$cache_dir/protoc-gen-swift"
fi

version="$(plugin_version "$plugin")"
[ "$version" = "$swift_protobuf_version" ] \
    || echo "generate-protobuf: warning: $plugin is version ${version:-unknown}, Herald uses $swift_protobuf_version" >&2

shopt -s nullglob
for proto_dir in "${proto_dirs[@]}"; do
    protos=("$proto_dir"/*.proto)
    [ ${#protos[@]} -gt 0 ] || { echo "generate-protobuf: no .proto files in $proto_dir" >&2; exit 1; }
    protoc --plugin=protoc-gen-swift="$plugin" \
        --proto_path="$proto_dir" \
        --swift_out="$proto_dir" \
        --swift_opt=Visibility=Public \
        --swift_opt=FileNaming=DropPath \
        --swift_opt=UseAccessLevelOnImports=true \
        "${protos[@]}"
    outputs=("${protos[@]/%.proto/.pb.swift}")
    echo "generate-protobuf: generated ${outputs[*]}"
done
