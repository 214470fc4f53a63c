"""Every correctly rounded activation value equals an independent evaluation rounded once
(:mod:`reference_activations`: other formulas, its own Ziv loop and rounding, Arb balls).

Default suite: for each built-in activation and each 16-bit format, σ and σ' at every
subnormal input (±), at ±0, ±inf, NaN and the largest floats, and at the near-tie inputs
of ``data/near_ties.json``: the inputs whose exact value lies within 2^-9 of a quantum
from a rounding boundary (where a value rounded twice goes wrong).  Slow suite: every
table of at most 16 bits (σ and σ', every pattern) against the reference, and the
near-tie file checked complete.

    python tests/test_activation_tables.py --write   # regenerate data/near_ties.json
"""

import json
import os
import sys
from fractions import Fraction
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_activations import FUNCTIONS, PIECEWISE_LINEAR, Fmt, near_tie, reference  # noqa: E402
from fpsmt.semantics.activations import get_activation  # noqa: E402
from fpsmt.semantics.activations.rounding import correctly_rounded, table  # noqa: E402
from fpsmt.semantics.formats import NAMED, parse_format  # noqa: E402

NEAR = Path(__file__).resolve().parent / "data" / "near_ties.json"
THRESHOLD = Fraction(1, 2 ** 9)  # quanta from a rounding boundary
NAMES = sorted(FUNCTIONS)
SIXTEEN = ["bfloat16", "float16"]
SMALL = [n for n, (E, M) in NAMED.items() if 1 + E + M <= 16]
WHICH = ("value", "derivative")


def _mismatches(name, fmt, inputs):
    act, F = get_activation(name).real, Fmt(fmt.E, fmt.M)
    bad = []
    for b in inputs:
        for w, which in enumerate(WHICH):
            want = fmt.canonical(reference(name, F, b, w))
            got = fmt.canonical(correctly_rounded(act, fmt, b, which))
            if got != want:
                bad.append(f"{name} {which} at {fmt.hex(b)} in {fmt.name}: fpsmt {fmt.hex(got)}, "
                           f"independent {fmt.hex(want)}")
    return bad


def _edges(fmt):
    subnormals = list(range(1, 1 << fmt.M))
    out = subnormals + [b | fmt.sign_bit for b in subnormals]
    out += [0, fmt.sign_bit, fmt.inf_bits(), fmt.inf_bits(True), fmt.nan_bits, fmt.max_bits, fmt.max_bits | fmt.sign_bit,
            1 << fmt.M, (1 << fmt.M) | fmt.sign_bit]
    return out


def _near_ties_of(args):
    name, fmt_name, which, lo, hi = args
    fmt = parse_format(fmt_name)
    F = Fmt(fmt.E, fmt.M)
    out = []
    for b in range(lo, hi):
        d = near_tie(name, F, b, which)
        if d is not None and d <= THRESHOLD:
            out.append(b)
    return out


def scan_near_ties(names=NAMES, formats=SIXTEEN, workers=None):
    """{"name/format/value|derivative": [patterns]} over every pattern (the slow part)."""
    jobs, keys = [], []
    for name in names:
        if name in PIECEWISE_LINEAR:
            continue
        for f in formats:
            n = 1 << parse_format(f).nbits
            for w in range(2):
                keys.append(f"{name}/{f}/{WHICH[w]}")
                jobs.append([(name, f, w, lo, min(n, lo + 4096)) for lo in range(0, n, 4096)])
    flat = [j for js in jobs for j in js]
    with get_context("fork").Pool(workers or os.cpu_count()) as pool:
        parts = pool.map(_near_ties_of, flat, chunksize=1)
    out, i = {}, 0
    for key, js in zip(keys, jobs):
        out[key] = [b for p in parts[i:i + len(js)] for b in p]
        i += len(js)
    return out


def _stored():
    """The file's patterns (hex strings there) as ints."""
    return {k: [int(h, 16) for h in v] for k, v in json.loads(NEAR.read_text()).items()}


# ------------------------------------------------------------------ default suite
@pytest.mark.parametrize("fmt_name", SIXTEEN)
@pytest.mark.parametrize("name", NAMES)
def test_subnormal_and_edge_inputs(name, fmt_name):
    fmt = parse_format(fmt_name)
    bad = _mismatches(name, fmt, _edges(fmt))
    assert not bad, f"{len(bad)} mismatches, first: {bad[0]}"


@pytest.mark.parametrize("fmt_name", SIXTEEN)
@pytest.mark.parametrize("name", [n for n in NAMES if n not in PIECEWISE_LINEAR])
def test_near_tie_inputs(name, fmt_name):
    stored = _stored()
    fmt = parse_format(fmt_name)
    inputs = sorted({b for w in WHICH for b in stored[f"{name}/{fmt_name}/{w}"]})
    bad = _mismatches(name, fmt, inputs)
    assert not bad, f"{len(bad)} mismatches, first: {bad[0]}"


def test_the_check_fails_on_a_value_rounded_twice(monkeypatch):
    """Production values rounded through float32 first (the old bug's mechanism): the
    subnormal check finds the mismatch."""
    import ml_dtypes

    from fpsmt.semantics.activations import rounding
    exact = rounding.round_dyadic

    def via_float32(fmt, man, exp):
        v = np.float32(Fraction(man) * Fraction(2) ** exp) if abs(exp) < 400 else np.float32(0)
        return int(np.array(v).astype(ml_dtypes.bfloat16).view(np.uint16)) if fmt.name == "bfloat16" \
            else exact(fmt, man, exp)
    monkeypatch.setattr(rounding, "round_dyadic", via_float32)
    bad = _mismatches("gelu", parse_format("bfloat16"), [1, 3, 5])
    assert bad and "fpsmt 0x0000, independent 0x0001" in bad[0]


def test_near_tie_file_is_for_the_current_threshold():
    stored = _stored()
    assert set(stored) == {f"{n}/{f}/{w}" for n in NAMES if n not in PIECEWISE_LINEAR for f in SIXTEEN
                           for w in WHICH}
    assert sum(len(v) for v in stored.values()) > 0


# ------------------------------------------------------------------ slow suite
@pytest.mark.slow
@pytest.mark.parametrize("fmt_name", SMALL)
@pytest.mark.parametrize("name", NAMES)
def test_every_table_of_at_most_16_bits(name, fmt_name):
    fmt = parse_format(fmt_name)
    F = Fmt(fmt.E, fmt.M)
    t = table(get_activation(name).real, fmt)
    bad = []
    for b in range(1 << fmt.nbits):
        for w in range(2):
            want, got = fmt.canonical(reference(name, F, b, w)), fmt.canonical(int(t[b, w]))
            if want != got:
                bad.append(f"{name} {WHICH[w]} at {fmt.hex(b)}: table {fmt.hex(got)}, independent {fmt.hex(want)}")
    assert not bad, f"{len(bad)} mismatches, first: {bad[0]}"


@pytest.mark.slow
def test_the_near_tie_file_is_complete():
    assert scan_near_ties() == _stored()


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        found = scan_near_ties()
        NEAR.write_text(json.dumps({k: [f"{b:#06x}" for b in v] for k, v in found.items()}, indent=0,
                                   sort_keys=True) + "\n")
        print(f"wrote {NEAR}")
