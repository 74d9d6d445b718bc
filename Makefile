# Strata — see README.md. `make run` bakes and renders the built-in sample; `make test` runs every test.
GO ?= go
OUT ?= out

.PHONY: setup build run test bench vet

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

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...
