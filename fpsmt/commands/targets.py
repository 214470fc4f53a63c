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
import functools
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


def _module(path):
    """The targets file's module, imported once per process for a file's content (the
    command asks which theorem it selects, then reads it, then may plot from it)."""
    p = Path(path)
    st = p.stat() if p.is_file() else None
    return _imported(str(p), str(p.resolve()), st and (st.st_mtime_ns, st.st_size))


@functools.lru_cache(maxsize=8)
def _imported(path, _resolved, _version):
    from fpsmt.userfiles import import_file
    return import_file(path, "targets")


def _from_csv(p, fmt):
    try:
        with open(p, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"targets file {p} cannot be read: {e}") from None
    if not rows or [c.strip() for c in rows[0]] != ["x", "f", "h", "g"]:
        raise InputError(f"{p}: the first line must be the header x,f,h,g (or x1,…,xd,f,h,g1,…,gd for d inputs)")
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


def dimension(path) -> int:
    """The input dimension d of a targets file (checked before anything is loaded): a CSV
    header ``x1,…,xd,f,h,g1,…,gd`` gives d (``x,f,h,g``: 1); a Python file whose
    ``domain()`` yields tuples of d numbers gives d (numbers: 1)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"targets file {path} does not exist")
    if p.suffix == ".py":
        from fpsmt.userfiles import user_code
        mod = _module(p)
        if not callable(getattr(mod, "domain", None)):
            return 1
        with user_code(p, "domain()"):
            first = next(iter(mod.domain()), None)
        return len(first) if isinstance(first, (tuple, list)) else 1
    try:
        with open(p, newline="", encoding="utf-8") as fh:
            head = next(csv.reader(fh), [])
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"targets file {p} cannot be read: {e}") from None
    head = [c.strip() for c in head]
    d = (len(head) - 2) // 2
    if d >= 2 and head == [f"x{j}" for j in range(1, d + 1)] + ["f", "h"] + [f"g{j}" for j in range(1, d + 1)]:
        return d
    return 1


def load_targets_nd(path, fmt: Format):
    """[((x1 … xd), f*, h*, (g1 … gd))] as bit patterns for d >= 2, from a CSV table with
    the header ``x1,…,xd,f,h,g1,…,gd`` or a Python file whose ``domain()`` yields d-tuples
    and whose ``g_star(x)`` returns d values (``f_star``, ``h_star``, ``g_star`` are called
    with the point as a tuple of floats)."""
    p = Path(path)
    d = dimension(p)
    if p.suffix != ".py":
        try:
            with open(p, newline="", encoding="utf-8") as fh:
                rows = list(csv.reader(fh))
        except (OSError, UnicodeDecodeError, csv.Error) as e:
            raise InputError(f"targets file {p} cannot be read: {e}") from None
        out = []
        for n, row in enumerate(rows[1:], start=2):
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != 2 * d + 2:
                raise InputError(f"{p}:{n}: expected {2 * d + 2} hex patterns (x1..x{d},f,h,g1..g{d}), got {len(row)}")
            try:
                v = [fmt.parse_hex(c.strip()) for c in row]
            except InputError as e:
                raise InputError(f"{p}:{n}: {e}") from None
            out.append((tuple(v[:d]), v[d], v[d + 1], tuple(v[d + 2:])))
        return out
    from fpsmt.userfiles import user_code
    mod, domain = _functions_and_domain(p)
    out = []
    for x in domain:
        if not isinstance(x, (tuple, list)) or len(x) != d:
            raise InputError(f"{p}: domain() gave {x!r}: expected a tuple of {d} numbers, as its first point")
        xb = tuple(_round(fmt, c, "domain()", x) for c in x)
        xf = tuple(_as_float(fmt, b) for b in xb)
        with user_code(p, f"f_star({xf!r})"):
            fv = mod.f_star(xf)
        with user_code(p, f"h_star({xf!r})"):
            hv = mod.h_star(xf)
        with user_code(p, f"g_star({xf!r})"):
            gv = mod.g_star(xf)
        if not isinstance(gv, (tuple, list)) or len(gv) != d:
            raise InputError(f"at x = {x!r}: g_star(x) returned {gv!r}, not {d} values")
        out.append((xb, _round(fmt, fv, "f_star(x)", x), _round(fmt, hv, "h_star(x)", x),
                    tuple(_round(fmt, c, f"g_star(x)[{j}]", x) for j, c in enumerate(gv))))
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


def _functions_and_domain(p):
    """A targets file's module, checked to define domain(), f_star, h_star and g_star, and
    its domain as a list."""
    from fpsmt.userfiles import user_code
    mod = _module(p)
    for name in ("domain", "f_star", "h_star", "g_star"):
        if not callable(getattr(mod, name, None)):
            raise InputError(f"{p} does not define {name}()")
    with user_code(p, "domain()"):
        return mod, list(mod.domain())


def _from_python(p, fmt):
    from fpsmt.userfiles import user_code
    mod, domain = _functions_and_domain(p)
    out = []
    for x in domain:
        xb = _round(fmt, x, "domain()", x)
        xf = _as_float(fmt, xb)
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
    from fpsmt.userfiles import user_code
    fn = getattr(_module(p), "df_star", None)
    if not callable(fn):
        return None
    with user_code(p, "df_star(x)"):
        return [float(fn(x)) for x in xs]


def verify(fmt, net, points, sem=None, cluster=None, progress=None):
    """Run the network at every domain point with upstream h*(x): ``(bad, f, grad)`` —
    the points where the value or D^AD differs from the targets (a zero target met by
    either zero), and the values and D^AD computed (bit patterns).  Block aware
    (:func:`fpsmt.constructions.blockrun.blockwise`); ``sem``: the semantics profile (default
    the paper's).  ``cluster`` (:class:`fpsmt.cluster.Cluster`): the network goes to its
    workers once and the points in parts, two per worker (each point's bits are its own:
    the evaluation is the same per point whatever the other points of a batch)."""
    xs = np.asarray([p[0] for p in points], dtype=np.uint64)
    ys = np.asarray([p[2] for p in points], dtype=np.uint64)
    evaluated = evaluate_parts(_evaluate, net, xs, ys, sem, cluster, progress)
    return _mismatches(fmt, points, evaluated), *evaluated


def evaluate_parts(evaluate, net, xs, ys, sem=None, cluster=None, progress=None):
    """``evaluate(net, (xs, ys, sem))`` → (values, gradients), here or — with a ``cluster``
    (:class:`fpsmt.cluster.Cluster`) — on its workers: the network sent once, the points
    in parts, two per worker (each point's bits are its own, whatever the other points of
    a part), the parts' results joined in order.  ``sem``: default the paper's."""
    from fpsmt.semantics.network import PAPER
    if cluster is None:
        return evaluate(net, (xs, ys, sem or PAPER))
    k = min(len(xs), 2 * cluster.workers())
    cuts = np.linspace(0, len(xs), k + 1).astype(int)
    parts = [(xs[a:b], ys[a:b], sem or PAPER) for a, b in zip(cuts[:-1], cuts[1:])]
    got = cluster.map_shared(evaluate, net, parts, lambda p, r: f"{len(p[0])} points evaluated",
                             progress or (lambda m: None))
    return np.concatenate([r[0] for r in got]), np.concatenate([r[1] for r in got])


def _evaluate(net, part):
    """Value and D^AD bits of ``net`` at inputs ``xs`` with upstreams ``ys`` (a task on a
    cluster's worker, or the local run)."""
    from fpsmt.semantics.arith import concrete
    from fpsmt.constructions.blockrun import blockwise
    xs, ys, sem = part
    A = concrete(net.fmt)
    out, grad = blockwise(A, net, A.const(xs), A.const(ys), sem=sem)
    return np.ravel(A.to_bits(out)), np.ravel(A.to_bits(grad))


def verify_atoms(fmt, net, points, built, kinds):
    """:func:`verify` from each point's own atoms: ``(bad, f, grad)`` as :func:`verify`
    gives them, computed by :func:`fpsmt.constructions.blockrun.own_blocks` — each copy of
    ``kinds`` (the construction's atom kinds: template, owners) run at its own point only,
    every other copy's terms taken as the zeros its lemma states.  ``net`` (the network
    as written) must be ``built`` (the builder's network, whose blocks the lemmas speak
    of) under the dense semantics (:func:`same_network`); else InputError.  The copies are
    then read from ``built``, whose entries are laid out as the builder lays them out."""
    from fpsmt.semantics.arith import concrete
    from fpsmt.constructions.blockrun import own_blocks
    if not same_network(net, built):
        raise InputError("the network as written differs from the network built; the atoms' lemmas speak of the "
                         "built one")
    A = concrete(fmt)
    xs = np.asarray([p[0] for p in points], dtype=np.uint64)  # (n,), or (n, d) for d-dimensional points
    ys = np.asarray([p[2] for p in points], dtype=np.uint64)
    out, grad = own_blocks(A, built, kinds, A.const(xs), A.const(ys))  # the file's network, in the builder's layout
    evaluated = (np.ravel(A.to_bits(out)), np.asarray(A.to_bits(grad)))
    if xs.ndim == 1:
        return _mismatches(fmt, points, evaluated), *evaluated
    return mismatches_nd(fmt, points, evaluated), *evaluated


def same_network(a, b) -> bool:
    """The same network under the dense semantics: the same format, and per layer the same
    shape, activation and biases, and the same weight at every (row, column), an absent
    entry being +0 (the IR's; JSON writes small layers dense, with their +0 entries)."""
    if a.fmt != b.fmt or len(a.layers) != len(b.layers):
        return False
    for L, M in zip(a.layers, b.layers):
        if (L.n_out, L.n_in, L.activation) != (M.n_out, M.n_in, M.activation) or \
                not np.array_equal(_patterns(L.bias), _patterns(M.bias)):
            return False
        ka, kb = L.rows * L.n_in + L.cols, M.rows * M.n_in + M.cols
        wa, wb = _patterns(L.weights), _patterns(M.weights)
        common, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
        if not np.array_equal(wa[ia], wb[ib]):
            return False
        only_a, only_b = np.ones(len(ka), bool), np.ones(len(kb), bool)
        only_a[ia], only_b[ib] = False, False
        if (wa[only_a] != 0).any() or (wb[only_b] != 0).any():
            return False
    return True


def _patterns(values) -> np.ndarray:
    return np.asarray(values if isinstance(values, np.ndarray) else [int(v) for v in values], dtype=np.uint64)


def _mismatches(fmt, points, evaluated):
    bad = []
    for p, o, d in zip(points, *evaluated):
        if not (meets(fmt, int(o), p[1]) and meets(fmt, int(d), p[3])):
            bad.append({"x": fmt.hex(p[0]), "f": fmt.hex(int(o)), "f_target": fmt.hex(p[1]),
                        "grad": fmt.hex(int(d)), "g_target": fmt.hex(p[3])})
    return bad


def mismatches_nd(fmt, points, evaluated):
    """The d-dimensional points whose value or some gradient component misses its target
    (a zero target met by either zero), with every value named in hex."""
    bad = []
    for p, o, gr in zip(points, *(np.asarray(e).tolist() for e in evaluated)):
        if not (meets(fmt, o, p[1]) and all(meets(fmt, a, b) for a, b in zip(gr, p[3]))):
            bad.append({"x": [fmt.hex(b) for b in p[0]], "f": fmt.hex(o), "f_target": fmt.hex(p[1]),
                        "grad": [fmt.hex(b) for b in gr], "g_target": [fmt.hex(b) for b in p[3]]})
    return bad


def meets(fmt, got, want):
    if fmt.is_zero(want):
        return fmt.is_zero(got)
    return got == want


# ------------------------------------------------------------------ Theorem 3.2 targets
def theorem_of(path) -> str:
    """"3.2" for a Python targets file whose ``g_star`` takes two parameters (x, y) or that
    defines ``g_pieces(x)``, else "3.1"."""
    import inspect
    p = Path(path)
    if p.suffix != ".py" or not p.is_file():
        return "3.1"
    if callable(getattr(_module(p), "g_pieces", None)):
        return "3.2"
    fn = getattr(_module(p), "g_star", None)
    if not callable(fn):
        return "3.1"
    try:
        params = [q for q in inspect.signature(fn).parameters.values()
                  if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD) and q.default is q.empty]
    except (TypeError, ValueError):
        return "3.1"
    return "3.2" if len(params) == 2 else "3.1"


def given_pieces(path) -> bool:
    """Whether a Theorem 3.2 targets file gives g* as pieces (``g_pieces(x)``)."""
    return callable(getattr(_module(Path(path)), "g_pieces", None))


def _points32(p, mod, fmt, names, constants=None):
    """The domain and f* as [(x, f*)] patterns, checked (x in X, distinct) before any g*;
    X from the activation's theorem ``constants`` (ReLU's by default)."""
    from fpsmt.constructions.theorem32 import check_domain
    from fpsmt.userfiles import user_code
    for name in names:
        if not callable(getattr(mod, name, None)):
            raise InputError(f"{p} does not define {name}()")
    with user_code(p, "domain()"):
        domain = list(mod.domain())
    points = []
    for x in domain:
        xb = _round(fmt, x, "domain()", x)
        xf = _as_float(fmt, xb)
        with user_code(p, f"f_star({xf!r})"):
            v = mod.f_star(xf)
        points.append((xb, _round(fmt, v, "f_star(x)", x)))
    check_domain(fmt, [xb for xb, _ in points], constants)
    return points


def load_pieces(path, fmt: Format, constants=None):
    """Theorem 3.2 targets given as pieces: a Python file with ``domain()``, ``f_star(x)``
    and ``g_pieces(x)`` → [(t, kind, c), …], t and c hex patterns of ``fmt``, kind
    "const" (g = c·sign(y) from |y| = t) or "linear" (g = y ⊗ c), t positive and
    increasing; g = 0 below the first t.  Returns (points [(x, f*)], pieces per point
    [theorem32.Piece]).  Refused with one line naming x and the piece.  X from the
    activation's theorem ``constants`` (ReLU's by default)."""
    from fpsmt.constructions.theorem32 import Piece, overflowing_piece
    from fpsmt.userfiles import user_code
    p = Path(path)
    mod = _module(p)
    if callable(getattr(mod, "g_star", None)):
        raise InputError(f"{p} defines both g_star and g_pieces: give g* one way")
    points = _points32(p, mod, fmt, ("domain", "f_star", "g_pieces"), constants)
    out = []
    for xb, _ in points:
        xf = _as_float(fmt, xb)
        at = f"at x = {fmt.show(xb)}"
        with user_code(p, f"g_pieces({xf!r})"):
            given = mod.g_pieces(xf)
        try:
            given = list(given)
        except TypeError:
            raise InputError(f"{at}: g_pieces(x) returned {type(given).__name__}, not a list of "
                             "(t_hex, kind, c_hex)") from None
        pcs, last = [], None
        for i, item in enumerate(given):
            where = f"{at}, piece {i + 1}"
            if not isinstance(item, (tuple, list)) or len(item) != 3:
                raise InputError(f"{where}: {item!r} is not (t_hex, kind, c_hex)")
            t_hex, kind, c_hex = item
            if not isinstance(t_hex, str) or not isinstance(c_hex, str):
                raise InputError(f"{where}: t and c are hex bit patterns (strings such as "
                                 f"{fmt.hex(fmt.one_bits)!r}), got {t_hex!r} and {c_hex!r}")
            try:
                tb, cb = fmt.parse_hex(t_hex), fmt.parse_hex(c_hex)
            except InputError as e:
                raise InputError(f"{where}: {e}") from None
            if kind not in ("const", "linear"):
                raise InputError(f"{where}: kind {kind!r} is neither 'const' nor 'linear'")
            if not fmt.is_finite(tb) or fmt.to_fraction(tb) <= 0:
                raise InputError(f"{where}: t = {fmt.show(tb)} is not a positive finite value")
            if not fmt.is_finite(cb):
                raise InputError(f"{where}: c = {fmt.show(cb)} is not finite")
            t = fmt.to_fraction(tb)
            if last is not None and t <= last:
                raise InputError(f"{where}: t = {fmt.show(tb)} does not increase (breakpoints in increasing |y|)")
            last = t
            pcs.append(Piece(t, kind, fmt.to_fraction(cb)))
        over = overflowing_piece(fmt, pcs)
        if over is not None:
            i, top = over
            raise InputError(f"{at}, piece {i + 1}: y ⊗ {fmt.show(fmt.round(pcs[i].c))} overflows at |y| = "
                             f"{fmt.show(fmt.round(top))} (g* must be finite)")
        out.append(pcs)
    return points, out


def load_targets32(path, fmt: Format, progress=None, constants=None):
    """Theorem 3.2 targets from a Python file with ``domain()``, ``f_star(x)`` and
    ``g_star(x, y)`` (x in X of the activation's theorem ``constants``, ReLU's by default):
    ``(points, tables)`` — points [(x, f*)] as patterns, and per point
    g*(x, y) at every finite y (patterns, in the order of
    :func:`fpsmt.constructions.theorem32.all_ys`), each result rounded once from its exact
    value.  Refused with one line: a format of more than 16 bits, a non-finite value,
    g*(x, ±0) not a zero, g* not odd (the first (x, y) where g*(x, −y) ≠ −g*(x, y))."""
    from fpsmt.constructions.theorem32 import all_ys, canon
    from fpsmt.userfiles import user_code
    p = Path(path)
    if fmt.nbits > 16:
        raise InputError(f"g_star(x, y) is evaluated at every finite y, which fpsmt does for formats of at most 16 "
                         f"bits; {fmt.name} has {fmt.nbits}: give g* as pieces, g_pieces(x)")
    mod = _module(p)
    # the domain and f* first: cheap, and checked before g* is tabulated
    points = _points32(p, mod, fmt, ("domain", "f_star", "g_star"), constants)
    ys = all_ys(fmt)
    yfs = [_as_float(fmt, int(b)) for b in ys]
    half = len(ys) // 2
    tables = []
    for n, (xb, _) in enumerate(points):
        x = xf = _as_float(fmt, xb)
        cache, row = {}, []
        g = mod.g_star
        for yf in yfs:
            with user_code(p, f"g_star({xf!r}, {yf!r})"):
                r = g(xf, yf)
            key = (type(r), r, math.copysign(1.0, r) if isinstance(r, float) else 0)
            try:
                b = cache[key]
            except (KeyError, TypeError):
                b = _round(fmt, r, f"g_star(x, {yf!r})", x)
                try:
                    cache[key] = b
                except TypeError:
                    pass
            row.append(b)
        tab = np.asarray(row, dtype=np.uint64)
        at = f"at x = {fmt.show(xb)}"
        for j in (0, half):  # y = +0, −0
            if not fmt.is_zero(int(tab[j])):
                raise InputError(f"{at}: g*(x, {fmt.show(int(ys[j]))}) = {fmt.show(int(tab[j]))} is not a zero "
                                 "(D^AD at a zero upstream gradient is a zero)")
        pos, neg = tab[:half], tab[half:]
        odd = canon(fmt, neg) == canon(fmt, pos ^ np.uint64(fmt.sign_bit))
        if not odd.all():
            j = int(np.flatnonzero(~odd)[0])
            raise InputError(f"{at}, y = {fmt.show(int(ys[j]))}: g* is not odd: g*(x, -y) = {fmt.show(int(neg[j]))} but "
                             f"-g*(x, y) = {fmt.show(int(pos[j]) ^ fmt.sign_bit)}")
        tables.append(tab)
        if progress is not None:
            progress(n + 1, len(points))
    return points, tables


def _as_float(fmt, b):
    """A pattern as the Python float of its value (exact), −0.0 for −0."""
    if fmt.is_zero(b):
        return -0.0 if b == fmt.sign_bit else 0.0
    return float(fmt.to_fraction(b))
