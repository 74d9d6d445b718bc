# Strata — see README.md. `make run` bakes and renders the built-in sample; `make test` runs every test.
GO ?= go
OUT ?= out

.PHONY: setup build run test test-short layering test-cluster bench vet

setup:
	@bash scripts/setup.sh

build: setup
	$(GO) build -o bin/strata .

# Under LANG=C.UTF-8 strata sets LANGUAGE=en itself before Fyne reads the locale
# (internal/earlyenv; SPEC "Known pitfalls": Fyne cannot parse "C").
run: build
	./bin/strata

test: setup
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 60m ./...

# The fast tier (docs/testing.md): no process kills, no real window, the heaviest lavapipe tests
# left to `make test`; about a minute on two cores.
test-short: setup
	$(GO) vet ./...
	$(GO) test -short -count=1 ./...

# Every import between strata packages against docs/design.md "Who may import whom".
layering:
	$(GO) test -count=1 ./internal/layering

# The cluster tier, not part of `make test`: starts a single-node Slurm on this machine
# (scripts/slurm-up.sh: root; installs Slurm 22.05 with apt when missing; idempotent), then submits
# a world's emitted bake.sbatch to it unmodified and checks the world (TestSlurmCluster, which
# skips unless STRATA_SLURM=1). `bash scripts/slurm-up.sh down` stops the daemons.
test-cluster: build
	bash scripts/slurm-up.sh
	STRATA_SLURM=1 STRATA_BIN=$(CURDIR)/bin/strata $(GO) test -count=1 -v -timeout 20m -run '^TestSlurmCluster$$' .

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...
