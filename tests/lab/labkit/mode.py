"""Which run this is: `make test` checks behaviour (LAB_MODE unset or
"check": short measurements, floors that physics sets, checks.py), `make
lab` measures speed (LAB_MODE=bench: the long measurements and repeats
the benchmark's figures need, benchmark.py).  tests/lab/vm.sh passes
LAB_MODE into the VM with the other LAB_* settings."""
import os

BENCH = os.environ.get("LAB_MODE", "check") == "bench"
