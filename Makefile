# Inkstone. `make run` sets everything up and runs on embedded defaults;
# `make test` runs the whole test suite.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev

.PHONY: run test setup lint bench bench-quick mutate clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUNTIME): requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(RUNTIME)

$(DEV): requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $(RUNTIME) $(DEV)

setup: $(RUNTIME)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py ensure_admin

run: setup
	$(BIN)/python scripts/run.py

test: $(DEV)
	bash scripts/test.sh

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/mypy .

bench: $(DEV)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py bench --json var/bench.json

bench-quick: $(DEV)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py bench --quick --json var/bench-quick.json

mutate: $(DEV)
	$(BIN)/mutmut run --max-children 2
	$(BIN)/mutmut results

clean:
	rm -rf $(VENV) var
