"""Fake solver back ends for the tests: they answer without looking at the query.

They are plain module functions so that a worker process (started with ``spawn``)
imports them by name, like the real runners of :mod:`fpsmt.proof.solve.backends`.
"""


def always_unsat(text, variables, experimental=False, seed=0):
    return "unsat", None, ""


def always_sat_zero(text, variables, experimental=False, seed=0):
    """SAT with every variable 0 (a model the replay checks like any other)."""
    return "sat", {n: 0 for n in variables}, ""


def slow_unsat(text, variables, experimental=False, seed=0):
    """UNSAT after a second: a confirmation that arrives after the first answer."""
    import time
    time.sleep(1.0)
    return "unsat", None, ""


def slow_sat_minus_zero(text, variables, experimental=False, seed=0):
    """SAT after two seconds with every variable −0 (its sign bit alone): a second opinion
    that arrives after a first answer."""
    import time
    time.sleep(2.0)
    return "sat", {n: 1 << (w - 1) for n, w in variables.items()}, ""


def sleepy_unsat(text, variables, experimental=False, seed=0):
    """UNSAT after twenty seconds: a confirmation that a short race window misses."""
    import time
    time.sleep(20.0)
    return "unsat", None, ""


def slow_unsat_telling_its_niceness(text, variables, experimental=False, seed=0):
    """UNSAT after two seconds, its reason the niceness it was working at by then."""
    import os
    import time
    time.sleep(2.0)
    return "unsat", None, f"nice {os.getpriority(os.PRIO_PROCESS, 0)}"
