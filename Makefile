# hookexec — `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
PYTHON ?= python3
CC ?= cc
CXX ?= c++
BUILD := build
LIB := $(BUILD)/libhookexec.so
CLI := $(BUILD)/hookexec
VERSION := $(shell sed -n 's/^\#define HOOKEXEC_VERSION "\(.*\)"/\1/p' include/hookexec.h)
GO_SOURCES := $(shell find core capi cmd -name '*.go' -not -name '*_test.go' 2>/dev/null) go.mod go.sum
C_SOURCES := $(wildcard capi/*.c) include/hookexec.h

.DEFAULT_GOAL := help
.PHONY: help all test test-go test-c test-cpp test-python demo demo-cli-agent bench stress fuzz clean libhookexec.so hookexec

help: ## list the targets
	@grep -hE '^[a-zA-Z0-9_./-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-22s %s\n", $$1, $$2}'

$(LIB): $(GO_SOURCES) $(C_SOURCES) capi/exports.map ## the C shared library (Go core + C layer)
	@mkdir -p $(BUILD)
	CGO_ENABLED=1 $(GO) build -buildmode=c-shared -ldflags='-extldflags=-Wl,--version-script=$(CURDIR)/capi/exports.map' -o $@ ./capi
	@rm -f $(BUILD)/libhookexec.h  # cgo's generated header; include/hookexec.h is the public one

libhookexec.so: $(LIB) ## alias for build/libhookexec.so

$(CLI): $(GO_SOURCES) include/hookexec.h ## the hookexec command
	@mkdir -p $(BUILD)
	$(GO) build -ldflags='-X main.version=$(VERSION)' -o $@ ./cmd/hookexec

hookexec: $(CLI) ## alias for build/hookexec

all: $(LIB) $(CLI) ## the library and the command

$(BUILD)/test_capi: tests/c/test_capi.c include/hookexec.h $(LIB) ## the C test program
	$(CC) -std=c11 -Wall -Wextra -Werror -pthread -Iinclude -o $@ $< -L$(BUILD) -lhookexec -Wl,-rpath,'$$ORIGIN'

$(BUILD)/test_hookexec_hpp: tests/cpp/test_hookexec_hpp.cpp include/hookexec.hpp include/hookexec.h $(LIB) ## the C++ wrapper's tests
	$(CXX) -std=c++17 -Wall -Wextra -Werror -pthread -Iinclude -o $@ $< -L$(BUILD) -lhookexec -Wl,-rpath,'$$ORIGIN'

$(BUILD)/cpp_host: examples/cpp_host/main.cpp include/hookexec.hpp include/hookexec.h $(LIB) ## the example C++ host
	$(CXX) -std=c++17 -Wall -Wextra -Werror -pthread -Iinclude -o $@ $< -L$(BUILD) -lhookexec -Wl,-rpath,'$$ORIGIN'

test: test-go test-c test-cpp test-python ## everything: Go (race), C and C++ against the public headers, Python against the real .so

test-go: ## Go unit and integration tests with the race detector
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

test-c: $(BUILD)/test_capi ## the C test program
	cd tests/c && ../../$(BUILD)/test_capi

test-cpp: $(BUILD)/test_hookexec_hpp $(BUILD)/cpp_host ## the C++ RAII wrapper's tests and the example C++ host
	$(BUILD)/test_hookexec_hpp
	$(BUILD)/cpp_host

test-python: $(LIB) ## the pytest suite driving the real library
	HOOKEXEC_LIBRARY=$(CURDIR)/$(LIB) PYTHONPATH=$(CURDIR)/pybind $(PYTHON) -m pytest -q tests/python

demo: $(LIB) ## a small Python agent firing real tool events through hookexec, then the cli-agent walkthrough
	PYTHONPATH=$(CURDIR)/pybind $(PYTHON) examples/python_agent/agent.py
	@echo
	PYTHONPATH=$(CURDIR)/pybind $(PYTHON) examples/cli_agent/walkthrough.py

demo-cli-agent: $(LIB) ## the cli-agent drop-in walkthrough
	PYTHONPATH=$(CURDIR)/pybind $(PYTHON) examples/cli_agent/walkthrough.py

bench: $(LIB) ## benchmarks: ratios against baselines measured in the same run
	$(GO) test -run '^$$' -bench . -benchmem ./core/...
	PYTHONPATH=$(CURDIR)/pybind $(PYTHON) tests/bench/bench_fire.py

FUZZTIME ?= 30s
# package:target pairs `make fuzz` runs; `go test` runs their committed seed corpora.
FUZZ_TARGETS := core/template:FuzzEscapeProperty core/template:FuzzCompile core/match:FuzzCompile \
	core/config:FuzzLoad core/decide:FuzzRead
STRESS_FIRES ?= 100000

stress: $(LIB) ## the long forms: fault catalogue 20x with overshoot figures, then a soak of $(STRESS_FIRES) fires from 8 threads through the .so
	$(GO) test -count=1 -run TestFaults ./tests/faults -faults.rounds=20
	HOOKEXEC_LIBRARY=$(CURDIR)/$(LIB) $(PYTHON) tests/stress/soak.py --fires $(STRESS_FIRES) --threads 8

fuzz: ## each fuzz target for FUZZTIME (default 30s); new failing inputs land in testdata/fuzz
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $${t%%:*} $${t##*:} for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZTIME) ./$${t%%:*}; \
	done

clean: ## remove build outputs
	rm -rf $(BUILD)
