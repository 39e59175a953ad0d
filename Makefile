# agentgate: `make run` starts the gateway on an embedded NATS server with the
# bundled examples; `make test` runs every test.
GO ?= go

# go.mod asks for Go 1.27 (kaptinlin/jsonschema v0.9.10 needs it). With an
# older go command on the PATH (1.21 or later), this makes it fetch the
# go1.27.3 toolchain through the module proxy once (about 76 MB, cached in
# the module cache) and run every recipe with it. Override to use another.
export GOTOOLCHAIN ?= go1.27.3

# One set of build flags for every way the binary is built: make build,
# deploy/Dockerfile and deploy/.ko.yaml (deploy's lint test checks that
# they agree): static (no cgo), reproducible paths, version and commit
# stamped for `agentgate version`.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BUILD_FLAGS = -trimpath -ldflags "-s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)"

.PHONY: run build test test-build vet fmt bench clean certs

run:
	$(GO) run ./cmd/agentgate serve

build:
	CGO_ENABLED=0 $(GO) build $(BUILD_FLAGS) -o bin/agentgate ./cmd/agentgate

# A test CA and node certificates for deploy/nats (needs openssl).
certs:
	cd deploy/nats && ./gen-certs.sh certs

test: vet
	$(GO) test -race -count=1 ./...

# Builds agentgate with BUILD_FLAGS in a test and checks the result is
# static and stamped (slow: -trimpath recompiles every dependency).
test-build:
	AGENTGATE_TEST_BUILD=1 $(GO) test -count=1 -run TestBuild -timeout 30m ./deploy

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }

fmt:
	gofmt -w .

bench:
	$(GO) run ./cmd/agentgate-bench

clean:
	rm -rf bin data
