#!/usr/bin/env bash
# Fill corpus/scenario_toml and corpus/scenario_json with the example and paper scenarios
# and the fuzzer's own seeds (crates/aqmsim-core/tests/fuzz_seeds)
# (the JSON target gets each converted to JSON). Idempotent; corpus/ is not committed.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-../.venv/bin/python}
[ -x "$PY" ] || PY=python3
mkdir -p corpus/scenario_toml corpus/scenario_json corpus/scenario_mutate
for f in ../examples/*.toml ../python/aqmsim/papers/*/scenarios/*.toml ../crates/aqmsim-core/tests/fuzz_seeds/*.toml; do
  n=$(echo "${f#../}" | tr / _)
  cp "$f" "corpus/scenario_toml/$n"
  "$PY" -c 'import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], "rb"))))' "$f" \
    > "corpus/scenario_json/${n%.toml}.json"
done
