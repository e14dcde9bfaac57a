# Thin wrapper over go commands. `make demo` and `make test` are the README's two set-up commands.
GO      ?= go
BIN     ?= bin

.PHONY: build demo test vet fmt-check bench install clean

build:
	$(GO) build -o $(BIN)/ ./cmd/...

demo: build
	$(GO) run ./examples/waves -bin $(BIN)

vet:
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: vet fmt-check
	$(GO) test -count=1 ./...

install:
	$(GO) install ./cmd/...

clean:
	rm -rf $(BIN)
