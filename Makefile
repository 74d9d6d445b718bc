# Strata — see README.md. `make run` bakes and renders the built-in sample; `make test` runs every test.
GO ?= go
OUT ?= out

.PHONY: setup build run test bench vet

setup:
	@bash scripts/setup.sh

build: setup
	$(GO) build -o bin/strata .

# LANGUAGE: Fyne reads it (before LANG) when it starts; under LANG=C.UTF-8 without it, Fyne logs a
# harmless "Error parsing user locale C" (SPEC "Known pitfalls").
run: build
	LANGUAGE=$${LANGUAGE:-en} ./bin/strata

test: setup
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 60m ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...
