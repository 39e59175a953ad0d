# agentgate: `make run` starts the gateway on an embedded NATS server with the
# bundled examples; `make test` runs every test.
GO ?= go

.PHONY: run build test vet fmt bench clean

run:
	$(GO) run ./cmd/agentgate serve

build:
	$(GO) build -o bin/agentgate ./cmd/agentgate

test: vet
	$(GO) test -race -count=1 ./...

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }

fmt:
	gofmt -w .

bench:
	$(GO) run ./cmd/agentgate-bench

clean:
	rm -rf bin data
