import wlcalc


def test_square():
    assert wlcalc.square(7) == 49


def test_squares_in_a_pool():
    assert wlcalc.squares(range(10)) == [n * n for n in range(10)]


def test_two_workers():
    assert wlcalc.workers() == 2


def test_installed_in_the_venv():
    assert wlcalc.__file__.startswith("/work/py/venv/lib/")
