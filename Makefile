# Quick start: `make run` serves on this machine; `make test` runs the suite.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint gpu-test device-check devbundle bench-quick clean clean-numba

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[service,test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/deltamatch serve

test: $(STAMP)
	$(BIN)/ruff check deltamatch tests bench
	$(BIN)/python -m pytest -q tests

lint: $(STAMP)
	$(BIN)/ruff check deltamatch tests bench

# On the device machine only (see scripts/device-check.sh): GPU tests, e2e, GPU benchmark.
device-check:
	bash scripts/device-check.sh

# Here, before a device call: .devbundle/ with what the device image lacks for the service (the
# shared tool's list, and the service's own extras beyond it: /docs offline, the metrics).
devbundle:
	../shared/tools/device-bundle fastapi-offline prometheus-client

bench-quick: $(STAMP)
	$(BIN)/deltamatch bench --quick

clean: clean-numba
	rm -rf $(VENV) build *.egg-info

# numba's cache misses a callee's change in another module (docs/CONTRIBUTING.md).
clean-numba:
	find deltamatch bench -name '*.nbi' -delete -o -name '*.nbc' -delete
