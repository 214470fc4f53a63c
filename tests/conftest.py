"""Shared strategies: bit patterns that favour the values where floating point is subtle."""

import numpy as np
from hypothesis import strategies as st

from fpsmt.semantics.formats import NAMED, parse_format

NAMED_FORMATS = [parse_format(n) for n in NAMED]


def specials(fmt):
    f = fmt
    s = f.sign_bit
    base = [0, 1, f.frac_mask, f.frac_mask + 1, f.one_bits, f.one_bits + 1, f.max_bits,
            f.max_bits - 1, f.inf_bits(), f.nan_bits, f.one_bits - 1, (f.bias + 1) << f.M]
    return sorted({b | sign for b in base for sign in (0, s)})


def bits(fmt):
    """Patterns of ``fmt``: specials, extreme and mid exponents, anything."""
    f = fmt
    by_fields = st.builds(
        lambda sgn, e, m: f.from_fields(sgn, e, m),
        st.integers(0, 1),
        st.one_of(st.integers(0, min(3, f.exp_all_ones)), st.integers(max(0, f.exp_all_ones - 3), f.exp_all_ones),
                  st.integers(max(0, f.bias - 4), min(f.exp_all_ones, f.bias + 4)), st.integers(0, f.exp_all_ones)),
        st.one_of(st.integers(0, min(3, f.frac_mask)), st.integers(max(0, f.frac_mask - 3), f.frac_mask),
                  st.integers(0, f.frac_mask)))
    return st.one_of(st.sampled_from(specials(f)), by_fields, st.integers(0, (1 << f.nbits) - 1))


def finite_bits(fmt):
    return bits(fmt).filter(fmt.is_finite)


def uarr(fmt, values):
    return np.asarray(values, dtype=np.uint64 if fmt.nbits <= 64 else object)


def fpsmt(*args, **kw):
    """Run the installed console script as a user would (from a neutral folder)."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path
    script = Path(sys.executable).parent / "fpsmt"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "fpsmt.commands.cli"]
    kw.setdefault("cwd", tempfile.gettempdir())
    return subprocess.run([*cmd, *args], capture_output=True, text=True, **kw)


def x_domain(fmt):
    """Every float of X = [−2^(e_max−2), 2^(e_max−2)] (ReLU's domain of Theorem 3.1), as patterns."""
    from fractions import Fraction
    top = Fraction(2) ** (fmt.e_max - 2)
    return np.asarray([b for b in range(1 << fmt.nbits) if fmt.is_finite(b) and abs(fmt.to_fraction(b)) <= top],
                      dtype=np.uint64)


#: Theorem 3.2 targets of BRIEF §9's smallest case: D(y) = ±1 exactly at |y| >= 1 at x = 0,
#: a zero at x = 1 (f* = 0)
SIGN_AT_ONE = '''from fractions import Fraction
def domain():
    return [Fraction(0), Fraction(1)]
def f_star(x):
    return Fraction(0)
def g_star(x, y):
    if x != 0 or abs(y) < 1:
        return Fraction(0)
    return Fraction(1) if y > 0 else Fraction(-1)
'''


def construct_sign_at_one(tmp_path, fmt, activation, *flags):
    """``fpsmt construct`` on :data:`SIGN_AT_ONE` in ``fmt`` with ``flags`` (a results store
    in tmp_path, --json): exit 0, the network verified at every (x, y) and named as
    ``activation``; returns (its JSON report, its stderr)."""
    import json
    (tmp_path / "t.py").write_text(SIGN_AT_ONE)
    r = fpsmt("construct", "--targets", "t.py", "--format", fmt, "--activation", activation, "--out", "n.json",
              *flags, "--store", "s.db", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["activation"] == activation and d["verified"] == d["pairs"] > 0
    return d, r.stderr


def point_network_proved(d, stderr, activation, zero, one):
    """The point x = ``zero``'s program and network claims PROVED with every UNSAT answer
    confirmed, x = ``one`` without a program, the rows named as ``activation``'s; returns
    the network claims' report."""
    claims = {c["x"]: c for c in d["claims"]}
    assert claims[one]["status"] == "NO PROGRAM"
    net = claims[zero]["network"]
    assert claims[zero]["status"] == net["status"] == "PROVED" and not net["confirmed"]["unconfirmed"]
    assert f"(repaired, {activation})" in stderr
    return net


def atoms_inside_whole(A, whole, atoms, X, Y, depth):
    """Each atom (a network of its own, ``depth`` layers) inside ``whole`` (the atoms side by
    side, in order): every hidden layer's values and gradients of the atom in the whole are,
    bit for bit or as zeros, those of the atom alone, at inputs X with upstreams Y.  Asserts
    that and that the atoms fill the whole's hidden layers; returns (values checked, of
    them nonzero in the atoms alone, the whole's trace)."""
    from fpsmt.semantics.network import run
    fmt = whole.fmt
    zero = np.vectorize(lambda u: fmt.is_zero(int(u)))
    tw = run(A, whole, A.const(X), A.const(Y))
    off = [0] * depth
    checked = nonzero = 0
    for atom in atoms:
        ta = run(A, atom, A.const(X), A.const(Y))
        for k in range(depth - 1):
            n = atom.layers[k].n_out
            for mine, own in ((tw.post[k][..., off[k]:off[k] + n], ta.post[k]),
                              (tw.upstream[k][..., off[k]:off[k] + n], ta.upstream[k])):
                a, b = A.to_bits(mine), A.to_bits(own)
                assert ((a == b) | (zero(a) & zero(b))).all(), (k, atom)
                checked += a.size
                nonzero += int((~zero(b)).sum())
            off[k] += n
    assert off[:depth - 1] == [L.n_out for L in whole.layers[:depth - 1]]
    return checked, nonzero, tw


def targets_csv_nd(tmp_path, fmt, pts):
    """A d-dimensional targets CSV (``x1,…,xd,f,h,g1,…,gd``, hex patterns) for ``pts`` =
    [((x1 … xd), f, h, (g1 … gd)), …]; its path."""
    d = len(pts[0][0])
    lines = [",".join([f"x{j}" for j in range(1, d + 1)] + ["f", "h"] + [f"g{j}" for j in range(1, d + 1)])]
    lines += [",".join([fmt.hex(b) for b in z] + [fmt.hex(v), fmt.hex(h)] + [fmt.hex(b) for b in g])
              for z, v, h, g in pts]
    p = tmp_path / "t.csv"
    p.write_text("\n".join(lines) + "\n")
    return p


def grid_targets_nd(fmt, d, grid):
    """Grid points with f* = sin(Σx), upstreams of both signs, gradient components with
    zeros among them (no gradient atom there), every value rounded once."""
    import itertools
    import math
    from fractions import Fraction
    r = lambda v: fmt.round(Fraction(v))  # noqa: E731
    pts = []
    for k, xs in enumerate(itertools.product(grid, repeat=d)):
        g = tuple(r(0.0) if (k + j) % 3 == 0 else r((j + 1) * xs[j] + 0.5) for j in range(d))
        pts.append((tuple(fmt.from_float(x) for x in xs), r(math.sin(sum(xs))), r(1.0) if k % 2 else r(-0.5), g))
    return pts


def read_back_one_bit_off(monkeypatch):
    """Every network read back (``netio.load_network``) comes with its last output weight —
    the last zero-gradient atom's — one bit off: a wrong network the verification must
    catch at that atom's point."""
    from fpsmt.commands import netio
    real = netio.load_network

    def corrupted(path, **kw):
        net = real(path, **kw)
        last = net.layers[-1]
        last.weights[-1] = int(last.weights[-1]) ^ 0x1
        return net
    monkeypatch.setattr(netio, "load_network", corrupted)


def cli_in_process(args):
    """``fpsmt ARGS`` in this process (so that a test's monkeypatches apply): (exit code,
    stdout, stderr)."""
    import contextlib
    import io

    from fpsmt.commands import cli
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        code = cli.main(args)
    return code, o.getvalue(), e.getvalue()
