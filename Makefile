# The two commands of the README: `make run` builds and starts a node, `make test` runs every test.
# Both install the Debian packages Herald needs first.

CONFIG ?= debug

.PHONY: run test build deps

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
