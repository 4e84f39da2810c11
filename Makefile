# Inkstone. `make run` sets everything up and runs on embedded defaults;
# `make test` runs the whole test suite.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test setup lint bench bench-quick clean

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

setup: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py ensure_admin

run: setup
	$(BIN)/python scripts/run.py

test: $(STAMP)
	bash scripts/test.sh

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy .

bench: $(STAMP)
	$(BIN)/python manage.py bench

bench-quick: $(STAMP)
	$(BIN)/python manage.py bench --quick

clean:
	rm -rf $(VENV) var
