# Thin wrapper over go commands. `make demo` and `make test` are the README's two set-up commands.
GO      ?= go
BIN     ?= bin
# Static binaries start faster (no dynamic loader): the hook runs before every tool call.
export CGO_ENABLED ?= 0
# Stamp the git revision for --version (docs/design/decisions.md S23) even where GOFLAGS says
# -buildvcs=false; "auto" stamps nothing outside a checkout. BUILDVCS=false opts out.
BUILDVCS ?= auto

.PHONY: build demo test vet fmt-check bench install clean

# A checkout git refuses to read (another owner) cannot be stamped: build without.
build:
	$(GO) build -buildvcs=$(BUILDVCS) -o $(BIN)/ ./cmd/... 2>/dev/null || $(GO) build -buildvcs=false -o $(BIN)/ ./cmd/...

demo: build
	$(GO) run ./examples/waves -bin $(BIN)

vet:
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# -timeout: t takes about 3 minutes alone on a quiet 2-core machine (4 to 5
# beside the other packages) and three times that when it is loaded; go
# test's default of 10 minutes per package would fail it there. go test
# prints one line per package as each finishes.
TESTTIMEOUT ?= 30m
# The fault tests' own build: matrixx_fault compiles in the store's stop
# after a write's last lock check (pkg/store/fault.go), which t/fault's
# fencing proofs use; released binaries are built without it.
TESTTAGS ?= matrixx_fault
test: vet fmt-check
	$(GO) test -count=1 -timeout $(TESTTIMEOUT) -tags $(TESTTAGS) ./...

install:
	$(GO) install -buildvcs=$(BUILDVCS) ./cmd/... 2>/dev/null || $(GO) install -buildvcs=false ./cmd/...

clean:
	rm -rf $(BIN)

.PHONY: stress hosts-claude

# The real Claude Code that the t/claude scenarios run (npm, pinned in
# t/claude/claude-code.version, into the gitignored .cache/hosts/claude).
hosts-claude:
	.ci/hosts/claude.sh

# Whole-process benchmarks against their baselines (docs/benchmarks.md).
# BENCHFLAGS e.g. "-quick" or "-only list,create -runs 51".
bench:
	$(GO) run ./bench -go $(GO) $(BENCHFLAGS)

# The fault tests of t/fault at ten times their CI size (3,000 SIGKILLs of
# task writers, 1,000 of plan writers, 32,000 bad files), the claim proofs
# at the issue's size (32 claimants × 100 rounds for one task, 64 workers
# draining 2,000 tasks with dependencies, a SIGKILLed claimant, a foreign
# .lock), then the lock-takeover tests (holders paused before and after
# their ownership check: the fencing of docs/design/decisions.md S41, with and without
# flock), the odd .lock files, disk and fsync tests 20 times, then the
# task-sync proofs at full size (8 machines × 50 claim rounds, 8 machines ×
# 1,000 edits), then every attack corpus of t/attack whole, in every mode
# (make test plays a share of each: every fifth attack cold, every
# twentieth warm and without the guard, each second-line attack in two of
# its four modes); every part runs, any fails.
stress:
	@status=0; \
	FAULT_SCALE=10 $(GO) test -count=1 -timeout 30m -run 'TestKillWriters|TestKillPlanWriters|TestCorruptAndForeignFiles' -v ./t/fault/ || status=1; \
	FAULT_SCALE=10 $(GO) test -count=1 -timeout 30m -run 'TestClaim' -v ./t/fault/ || status=1; \
	$(GO) test -count=20 -timeout 30m -tags $(TESTTAGS) -run 'TestPaused|TestOddLockStale|TestDiskFull|TestReadOnlyStore|TestFsync' ./t/fault/ || status=1; \
	SYNC_SCALE=1 $(GO) test -count=1 -timeout 60m -v -run 'TestClaimRace|TestRandomEdits|TestGitMergeDriver' ./t/sync/ || status=1; \
	ATTACK_SCALE=full $(GO) test -count=1 -timeout 90m -v ./t/attack/ || status=1; \
	exit $$status
