# The two commands of the README: `make run` builds and starts a node, `make test` runs every test.
# Both install the Debian packages Herald needs first.

CONFIG ?= debug

.PHONY: run test build deps fuzz

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
