# shellcheck shell=sh
# A venv that sees Debian's packages (pytest; there is no package index),
# a local package installed into it by pip, tested by pytest, then used.
set -eu
cd /work/py
python3 -m venv --system-site-packages venv
. venv/bin/activate
pip install -q --no-index --no-build-isolation ./pkg
echo "pip: $(pip list --format=freeze 2>/dev/null | grep '^wlcalc==')"
echo "pytest from: $(python -c 'import pytest; print(pytest.__file__)')"
# The summary line without its duration ("4 passed in 0.31s").
python -m pytest -q tests >pytest.out
echo "pytest: $(tail -n 1 pytest.out | sed 's/ in [0-9.]*s$//')"
python -c 'import wlcalc; print("squares:", wlcalc.squares(range(6)))'
python -c 'import wlcalc; print("workers:", wlcalc.workers())'
