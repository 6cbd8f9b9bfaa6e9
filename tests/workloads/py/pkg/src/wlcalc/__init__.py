"""A local package: squares in a Pool of 2 processes."""
import multiprocessing
import os

_barrier = None


def square(n):
    return n * n


def squares(ns):
    with multiprocessing.Pool(2) as pool:
        return pool.map(square, ns)


def _keep(barrier):
    global _barrier
    _barrier = barrier


def _meet(_):
    # Both tasks wait here until the other arrives: two processes, or a
    # BrokenBarrierError after 10 s.
    _barrier.wait(10)
    return os.getpid()


def workers():
    """How many distinct processes ran two tasks that must run together."""
    barrier = multiprocessing.Barrier(2)
    with multiprocessing.Pool(2, _keep, (barrier,)) as pool:
        return len(set(pool.map(_meet, range(2), chunksize=1)))
