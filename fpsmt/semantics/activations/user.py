"""User-defined activations: ``--activation FILE.py:NAME``.

FILE.py defines ``NAME(x, m)`` and ``NAME_prime(x, m)``, written with the functions of
the mpmath-like context ``m`` (``m.exp``, ``m.log1p``, ``m.erf``, ``m.tanh``, ``m.sigmoid``,
``m.sin``, ``m.sqrt``, ``m.pi``, ``m.mpf`` …).  fpsmt calls them with mpmath's ``mp`` for
values, with a rigorous context on python-flint's Arb balls for the enclosures that
decide correctly rounded values, and with mpmath's intervals (tanh, erf, erfc and
sigmoid from Arb) to check declared monotone pieces.  Optional:

* ``NAME_pieces = [(lo, hi, +1 | -1), …]``: intervals (numbers or None for ∓∞) on which σ
  is non-decreasing (+1) or non-increasing (−1).  Each is checked rigorously: σ' is
  enclosed on a subdivision of the piece and must have the declared sign everywhere; a
  wrong declaration is refused with the offending interval.
* ``NAME_limits = {1: (σ(+∞), σ'(+∞)), -1: (σ(−∞), σ'(−∞))}`` with numbers, ``"inf"``,
  ``"-inf"`` or ``"nan"``; otherwise they are evaluated with mpmath at ±inf.
* ``NAME_exact(q)`` / ``NAME_prime_exact(q)``: the exact rational value at a rational
  point where it is rational (e.g. 1/2 at 0), so that exact midpoints are decided exactly.
* ``NAME_torch(x, torch)``: σ written with torch's functions, which ``construct --torch``
  runs (torch's own rounding, compared with the targets like any other).
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from pathlib import Path

import mpmath

from fpsmt.errors import InputError
from fpsmt.userfiles import import_file
from fpsmt.semantics.activations.realfun import IV, MP, RealActivation

MAX_SPLITS = 4000
#: a piece reaching ±∞ is checked up to ±2^FAR, beyond every finite float of formats with
#: E <= 15 (float128's Ω < 2^16384)
FAR = mpmath.mpf(2) ** 16400
INFER_EVALUATIONS = 4000  # enclosures of σ' spent looking for a turning point


class UserActivation(RealActivation):
    infer_tails = True

    def __init__(self, module, name, path):
        self._f = getattr(module, name)
        self._fp = getattr(module, name + "_prime")
        self.name = f"{Path(path).name}:{name}"
        self._path = path
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
        self._key = f"user-{name}-{digest}"
        self._exact = getattr(module, name + "_exact", None)
        #: ``NAME_torch(x, torch)``: σ in torch's own functions, for ``construct --torch``
        self.torch = getattr(module, name + "_torch", None)
        self._exact_prime = getattr(module, name + "_prime_exact", None)
        self.pieces = [(_num(lo), _num(hi), int(d)) for lo, hi, d in getattr(module, name + "_pieces", None) or []] \
            or None
        lim = getattr(module, name + "_limits", None)
        self.limits = {int(k): tuple(_lim(v) for v in vals) for k, vals in lim.items()} if lim else \
            {s: (self._limit(self._f, s), self._limit(self._fp, s)) for s in (1, -1)}

    @property
    def key(self):
        return self._key

    def verify_pieces(self, pieces) -> bool:
        """The pieces a format's turning point gave (:func:`~fpsmt.semantics.activations.rounding.value_pieces`),
        proved monotone as stated: for a user's σ one sign change of σ' is not a fact of
        analysis, so each piece is checked with interval arithmetic like a declared one."""
        return all(_not_monotone(self, lo, hi, d) is None for lo, hi, d in pieces)

    def _call(self, fn, what, *args):
        """A call into the user's file: arithmetic failures are the Ziv loop's to retry at a
        higher precision; anything else is one error line naming the file."""
        try:
            return fn(*args)
        except (ArithmeticError, ValueError, mpmath.libmp.NoConvergence):
            raise
        except (Exception, SystemExit) as e:
            from fpsmt.userfiles import user_code
            with user_code(self._path, what):
                raise e

    def f(self, x, m):
        return self._call(self._f, self.name.split(":")[-1] + "(x)", x, m)

    def fprime(self, x, m):
        return self._call(self._fp, self.name.split(":")[-1] + "_prime(x)", x, m)

    def exact(self, q):
        return None if self._exact is None else self._call(self._exact, "exact(q)", q)

    def exact_prime(self, q):
        return None if self._exact_prime is None else self._call(self._exact_prime, "prime_exact(q)", q)

    def _limit(self, fn, sign):
        """σ(±∞): mpmath at ±inf, else at ±2^4096 (a value within far less than any
        format's half-ulp of a finite limit); declare NAME_limits to state it exactly."""
        v = None
        for x in (mpmath.inf, mpmath.mpf(2) ** 4096):
            try:
                with mpmath.workprec(300):
                    v = fn(x if sign > 0 else -x, MP)
            except Exception:
                v = None
            if isinstance(v, (int, float, Fraction)):
                v = mpmath.mpf(v)
            if isinstance(v, mpmath.mpf) and not mpmath.isnan(v):
                break
        if v is None:
            return "nan"
        if isinstance(v, (int, float, Fraction)):
            v = mpmath.mpf(v)
        if not isinstance(v, mpmath.mpf) or mpmath.isnan(v):
            return "nan"
        if mpmath.isinf(v) or abs(v) > mpmath.mpf(2) ** 4000:
            return "inf" if v > 0 else "-inf"
        if abs(v) < mpmath.mpf(2) ** -4000:  # below any format's half-ulp of 0 (e^(−x²) at 2^4096…)
            return Fraction(0)
        man, exp = v.man_exp
        return Fraction(man * (-1 if v < 0 else 1)) * Fraction(2) ** exp


def _num(v):
    return None if v is None else Fraction(v)


def _lim(v):
    return v if isinstance(v, str) else Fraction(v)


def _check_real(act, label):
    """Evaluate σ and σ' at a few points; refuse non-real results."""
    for x in (mpmath.mpf(-2), mpmath.mpf("0.5"), mpmath.mpf(3)):
        for fn, nm in ((act.f, "NAME"), (act.fprime, "NAME_prime")):
            try:
                v = fn(x, MP)
            except Exception as e:
                raise InputError(f"activation {label}: {nm.replace('NAME', label)} fails at {x}: "
                                 f"{type(e).__name__}: {e}") from None
            if isinstance(v, (int, float, Fraction)):
                continue
            if not isinstance(v, mpmath.mpf):
                raise InputError(f"activation {label} returns a non-real ({type(v).__name__}: {v}) at {x}")


def check_pieces(act, label):
    """Prove each declared monotone piece with interval arithmetic, or refuse it."""
    for lo, hi, d in act.pieces or []:
        bad = _not_monotone(act, lo, hi, d)
        if bad is not None:
            u, v = bad
            raise InputError(f"activation {label}: the declared piece ({lo}, {hi}, {d:+d}) is not monotone as "
                             f"declared: σ' is not {'>= 0' if d > 0 else '<= 0'} on [{mpmath.nstr(u, 8)}, "
                             f"{mpmath.nstr(v, 8)}]")


def _bound(e, default):
    return mpmath.mpf(default) if e is None else mpmath.mpf(e.numerator) / e.denominator


def _sign_on(act, u, v):
    """+1 / −1 where σ' is proved >= 0 / <= 0 on [u, v] by interval arithmetic, else 0."""
    mpmath.iv.prec = 80
    try:
        y = mpmath.iv.mpf(act.fprime(mpmath.iv.mpf([u, v]), IV))
    except Exception:
        return 0
    return 1 if y.a >= 0 else -1 if y.b <= 0 else 0


def _not_monotone(act, lo, hi, d, max_splits=MAX_SPLITS):
    """None when σ' has the sign d on the piece (proved on a subdivision), else an
    interval [u, v] where it could not be shown."""
    stack = _initial_split(_bound(lo, -FAR), _bound(hi, FAR))
    splits = 0
    while stack:
        u, v = stack.pop()
        if _sign_on(act, u, v) == d:
            continue
        splits += 1
        if splits > max_splits or (v - u) <= abs(u + v) * mpmath.mpf(2) ** -60 + mpmath.mpf(2) ** -1000:
            return u, v
        mid = (u + v) / 2
        stack += [(u, mid), (mid, v)]
    return None


def infer_pieces(act):
    """Monotone pieces for an activation that declares none, found rigorously (σ''s sign
    enclosed by interval arithmetic on a subdivision): σ non-decreasing (or
    non-increasing) everywhere, or one turning point — σ non-increasing, then
    non-decreasing — located per format from σ''s rigorous sign at floats
    (:func:`fpsmt.semantics.activations.rounding.value_pieces`).  Returns a sentence saying
    what was found, for the user; None when nothing was."""
    for d in (1, -1):
        if _not_monotone(act, None, None, d, max_splits=400) is None:
            act.pieces = [(None, None, d)]
            return f"non-{'de' if d > 0 else 'in'}creasing on (-inf, inf)"
    # one sign change of σ', − then +, isolated by bisection of the intervals of unknown
    # sign (at most INFER_EVALUATIONS enclosures; an interval left unknown ends the search)
    signs = []
    stack = list(reversed(_initial_split(-FAR, FAR)))
    budget = INFER_EVALUATIONS
    while stack:
        u, v = stack.pop()
        s = _sign_on(act, u, v)
        budget -= 1
        if budget < 0:
            return None
        if s == 0 and (v - u) > mpmath.mpf(2) ** -20 * (1 + abs(u)):
            mid = (u + v) / 2
            stack += [(mid, v), (u, mid)]
            continue
        if signs and signs[-1][2] == s:
            signs[-1] = (signs[-1][0], v, s)
        else:
            signs.append((u, v, s))
        if len(signs) > 3:
            return None
    pattern = [s for _, _, s in signs]
    if pattern == [-1, 1] or (pattern == [-1, 0, 1] and signs[1][1] - signs[1][0] < 0.25):
        zone = signs[1] if len(signs) == 3 else (signs[0][1], signs[0][1])
        act.turning = float((zone[0] + zone[1]) / 2)
        return f"non-increasing, then non-decreasing, with one turning point near {act.turning:.6g} " \
            "(located per format)"
    return None


def _initial_split(a, b):
    """Subintervals by binade, so that pieces reaching far out stay few."""
    pts = {a, b}
    for k in range(-60, 1030, 4):
        for s in (1, -1):
            p = s * mpmath.mpf(2) ** k
            if a < p < b:
                pts.add(p)
    if a < 0 < b:
        pts.add(mpmath.mpf(0))
    pts = sorted(pts)
    return list(zip(pts, pts[1:]))


def load_user_activation(spec: str):
    from fpsmt.semantics.activations.kinds import Rounded
    from fpsmt.resources import resolve
    path, _, name = spec.rpartition(":")
    path = str(resolve(path))  # example:FILE.py is a shipped example
    module = import_file(path, "activation")
    for need in (name, name + "_prime"):
        if not callable(getattr(module, need, None)):
            raise InputError(f"{path} does not define {need}(x, m)")
    act = UserActivation(module, name, path)
    _check_real(act, name)
    if act.pieces is not None:
        check_pieces(act, name)
    else:
        found = infer_pieces(act)
        import sys
        print(f"fpsmt: note: {act.name} declares no monotone pieces ({name}_pieces); "
              + (f"inferred by interval arithmetic on {name}_prime: {found}" if found else
                 "none could be inferred by interval arithmetic on its derivative (conditions may stay UNKNOWN; "
                 f"declare {name}_pieces)"), file=sys.stderr)
    return Rounded(act)
