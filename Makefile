# The two commands of the README: `make run` builds and starts a node, `make test` runs every test.
# Both install the Debian packages Herald needs first.

CONFIG ?= debug

.PHONY: run test build deps fuzz package prove-install prove-prometheus prove-status-page openapi-fuzz

deps:
	@scripts/install-deps.sh

build: deps
	swift build -c $(CONFIG) --product herald

run: build
	.build/$(CONFIG)/herald serve $(ARGS)

test: deps
	scripts/check-vectors.sh
	swift build --build-tests
	swift test --skip-build

# Fuzzing (docs/security.md): `make fuzz` builds every libFuzzer target under Fuzz/, then runs
# each for FUZZ_SECONDS (or FUZZ_RUNS executions); `make fuzz-gorush` (or fuzz-FuzzGorush) one.
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?= -1

fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) scripts/fuzz.sh

fuzz-%: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) scripts/fuzz.sh $*

# `make package`: the release binary with the Swift runtime linked in (and -z now: a read-only GOT), then herald_<version>_amd64.deb from it.
package: deps
	swift build -c release --static-swift-stdlib -Xlinker -z -Xlinker now --build-path .build-package --product herald
	packaging/build-deb.sh .build-package/release/herald

# `make prove-install` (as root): installs that package in a throw-away Debian root and runs it (docs/packaging.md).
prove-install: package
	packaging/prove-install.sh

# The operator's kit (docs/observability.md): promtool checks and unit-tests the rules, then the dashboard and rules are proven on a real Prometheus against a node and a 3-node cluster (HERALD_BIN/HERALD_DEV_BIN pick the binaries).
prove-prometheus:
	promtool check rules ops/prometheus/herald-rules.yaml
	promtool test rules ops/prometheus/herald-rules.test.yaml
	ops/prove-prometheus.sh --all

# The status page in headless Chromium (docs/operations.md): a node, then a 3-node cluster; the rendered DOM checked against GET /status, screenshots into docs/.
prove-status-page:
	ops/prove-status-page.sh --screenshot docs/status-page.png
	ops/prove-status-page.sh --cluster --screenshot docs/status-page-cluster.png

# The OpenAPI description (docs/openapi.yaml) validated, then fuzzed with schemathesis against a live node and a cluster of one; never builds (OPENAPI_FUZZ_BIN_DIR picks the binaries).
openapi-fuzz:
	openapi-spec-validator docs/openapi.yaml
	scripts/openapi-fuzz.sh
