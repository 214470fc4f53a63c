"""Targets of Theorem 3.1 on a finite 1-D domain, and building and verifying its network.

Two sources:

* a CSV table with the header ``x,f,h,g``: hex bit patterns of the input, the target
  value f*(x), the upstream gradient h*(x) and the target gradient g*(x);
* a Python file defining ``domain()`` (a list of floats or hex strings) and
  ``f_star(x)``, ``h_star(x)``, ``g_star(x)``, called with the point as a Python float
  (exact: every float of the formats fpsmt knows is a float64).  Their results (ints,
  floats, Fractions) are rounded to the format once, to nearest, ties to even, from
  their exact value; a result that rounds to ±inf, or NaN, is rejected.

Checks (one line naming the offending x, exit 2): every value finite, x in X, no
duplicate x (+0 and −0 are one point), h* = 0 ⇒ g* = 0 (|h*| <= Ω holds for every
finite h*).  Verification compares f(x) and D^AD(h*(x)) bit for bit with the targets; a
zero target is met by either zero (proofs/boxplus_neutrality.py: no ReLU network of this
form can give −0 at one point and a positive value at another).
"""

from __future__ import annotations

import csv
import math
from fractions import Fraction
from pathlib import Path

import numpy as np

from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format


def load_targets(path, fmt: Format):
    """[(x, f*, h*, g*)] as bit patterns, from a CSV table or a Python file."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"targets file {path} does not exist")
    return _from_python(p, fmt) if p.suffix == ".py" else _from_csv(p, fmt)


def _from_csv(p, fmt):
    try:
        with open(p, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"targets file {p} cannot be read: {e}") from None
    if not rows or [c.strip() for c in rows[0]] != ["x", "f", "h", "g"]:
        raise InputError(f"{p}: the first line must be the header x,f,h,g")
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != 4:
            raise InputError(f"{p}:{n}: expected 4 hex patterns (x,f,h,g), got {len(row)} fields")
        try:
            out.append(tuple(fmt.parse_hex(c.strip()) for c in row))
        except InputError as e:
            raise InputError(f"{p}:{n}: {e}") from None
    return out


def _round(fmt, v, what, x):
    if isinstance(v, str):
        return fmt.parse_hex(v)
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        raise InputError(f"at x = {x!r}: {what} = {v} is not finite")
    try:
        q = Fraction(v)
    except (TypeError, ValueError):
        raise InputError(f"at x = {x!r}: {what} returned {type(v).__name__}, not a number") from None
    b = fmt.round(q, negative_zero=isinstance(v, float) and math.copysign(1.0, v) < 0)
    if not fmt.is_finite(b):
        raise InputError(f"at x = {x!r}: {what} = {v} rounds to {fmt.show(b)} in {fmt.name}: not finite")
    return b


def _from_python(p, fmt):
    from fpsmt.userfiles import import_file, user_code
    mod = import_file(p, "targets")
    for name in ("domain", "f_star", "h_star", "g_star"):
        if not callable(getattr(mod, name, None)):
            raise InputError(f"{p} does not define {name}()")
    with user_code(p, "domain()"):
        domain = list(mod.domain())
    out = []
    for x in domain:
        xb = _round(fmt, x, "domain()", x)
        xf = float(fmt.to_fraction(xb)) if not fmt.is_zero(xb) else (-0.0 if xb == fmt.sign_bit else 0.0)
        row = [xb]
        for n in ("f_star", "h_star", "g_star"):
            with user_code(p, f"{n}({xf!r})"):
                v = getattr(mod, n)(xf)
            row.append(_round(fmt, v, f"{n}(x)", x))
        out.append(tuple(row))
    return out


def true_derivative(path, xs):
    """``df_star(x)`` at each x when the targets are a Python file that defines it (for
    plots only), else None."""
    p = Path(path)
    if p.suffix != ".py":
        return None
    from fpsmt.userfiles import import_file, user_code
    fn = getattr(import_file(p, "targets"), "df_star", None)
    if not callable(fn):
        return None
    with user_code(p, "df_star(x)"):
        return [float(fn(x)) for x in xs]


def verify(fmt, net, points):
    """Run the network at every domain point with upstream h*(x): ``(bad, f, grad)`` —
    the points where the value or D^AD differs from the targets (a zero target met by
    either zero), and the values and D^AD computed (bit patterns).  Block aware
    (:func:`fpsmt.constructions.blockrun.blockwise`)."""
    from fpsmt.semantics.arith import concrete
    from fpsmt.constructions.blockrun import blockwise
    A = concrete(fmt)
    xs = np.asarray([p[0] for p in points], dtype=np.uint64)
    ys = np.asarray([p[2] for p in points], dtype=np.uint64)
    out, grad = blockwise(A, net, A.const(xs), A.const(ys))
    evaluated = (np.ravel(A.to_bits(out)), np.ravel(A.to_bits(grad)))
    bad = []
    for p, o, d in zip(points, *evaluated):
        if not (meets(fmt, int(o), p[1]) and meets(fmt, int(d), p[3])):
            bad.append({"x": fmt.hex(p[0]), "f": fmt.hex(int(o)), "f_target": fmt.hex(p[1]),
                        "grad": fmt.hex(int(d)), "g_target": fmt.hex(p[3])})
    return bad, *evaluated


def meets(fmt, got, want):
    if fmt.is_zero(want):
        return fmt.is_zero(got)
    return got == want
