"""Theorem 3.2 for ReLU in one input dimension: one network with f(x) = f*(x) and
D_(f,x)(y) = g*(x, y) for every x of a finite domain in X and every finite y, for a g*
odd in y whose g*(x, ·) is, over |y|, a sequence of *pieces*: a constant c·sign(y), or
linear y ⊗ k (rounded once from y·k).

* **Pieces** (:func:`find_pieces`): g*(x, ·) tabulated at every positive finite y is cut
  into maximal runs, each constant or y ⊗ k for one float k (greedy, longest run first).
* **A piece's program** (:func:`piece_programs`), a backward-pass program in the sense of
  :mod:`fpsmt.constructions.threshold` from y to one unit:

  - a constant piece c on [a, b): the threshold blocks c·sign(y)·1[|y| >= a] and
    −c·sign(y)·1[|y| >= b], summed (no second block for the last piece);
  - a linear piece k on [a, b) (:func:`linear_program`): below(b) ⊕ (−below(a)), where
    below(t) (:func:`below_program`) is A = u ⊗ k, u being y after the staircase of t
    (:func:`threshold.staircase`: u = y for |y| < t, t <= |u| <= U above), then
    (A ⊕ Z) ⊕ (−Z) with Z = 2^e_max·sign(y)·1[|y| >= t]: above t, A ⊕ Z = Z exactly
    (checked at A's largest value; rounding is monotone) and the result is ±0.  Below a
    both halves give the same bits, so their difference is an exact zero.  The piece runs
    at a scale k·2^-j that keeps its products normal and is scaled back by 2^j; where
    2^e_max cannot absorb A it is split (:func:`linear_split`) or refused.

  At every y at most one piece is nonzero, and every other piece gives an exact zero
  (c ⊕ −c, or the linear piece's ±0), so the pieces' outputs summed in any grouping are
  g*(x, y) exactly.
* **The network**: per domain point z with a nonzero g*(z, ·), the pieces' programs side
  by side, their outputs summed pairwise (:func:`tree_sum`), every sum of more than two
  terms taken one term per layer (:func:`binary_sums`), gated to z
  (:func:`threshold.gated_program`: D at x ≠ z a zero for every finite y, f = +0 on X);
  these networks ⊞ the Theorem 3.1 value network (a zero-gradient atom v·1[x = z] per
  point, D = 0 for every finite y), gated networks first.

Nothing is trusted: :func:`verify` runs the network written to disk by the executor at
every (x, y) with x in the domain and y every finite value, both signs (formats of at
most 16 bits), and compares f and D^AD bit for bit (a zero target met by either zero).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from fpsmt.constructions import relu as R
from fpsmt.constructions import threshold as T
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, floor_log2, parse_format, pow2

#: the most pieces per domain point the construction builds (the issue's bound)
MAX_PIECES = 64
#: candidate slopes tried around v/y at a run's first and last point
_K_NEIGHBOURS = 3


@dataclass(frozen=True)
class Piece:
    """g*(x, y) for t <= |y| < the next piece's t: ``c``·sign(y) ("const") or y ⊗ ``c``
    ("linear")."""

    t: Fraction
    kind: str
    c: Fraction


# ------------------------------------------------------------------ tables and pieces
def positive_ys(fmt: Format) -> np.ndarray:
    """Every positive finite pattern, in increasing value."""
    return np.arange(1, fmt.max_bits + 1, dtype=np.uint64)


def all_ys(fmt: Format) -> np.ndarray:
    """Every finite y: +0, the positives increasing, −0, the negatives increasing in |y|."""
    pos = np.arange(0, fmt.max_bits + 1, dtype=np.uint64)
    return np.concatenate([pos, pos | np.uint64(fmt.sign_bit)])


def canon(fmt: Format, bits) -> np.ndarray:
    """Patterns with −0 read as +0 (equal values compare equal; NaN never occurs here)."""
    b = np.asarray(bits, dtype=np.uint64)
    return np.where(b == fmt.sign_bit, np.uint64(0), b)


def _slope_candidates(fmt: Format, y: int, v: int) -> list:
    """Floats k near v/y (RN(y·k) = v only for k within about an ulp of v/y while v is
    normal; the caller keeps whichever makes the longest run)."""
    q = fmt.to_fraction(v) / fmt.to_fraction(y)
    k0 = fmt.round(q)
    out, up, down = [k0], k0, k0
    for _ in range(_K_NEIGHBOURS):
        up, down = fmt.next_up(up), fmt.next_down(down)
        out += [up, down]
    return [k for k in out if fmt.is_finite(k) and not fmt.is_zero(k)]


def _run_end(same, i: int, n: int) -> int:
    """The first j >= i where ``same(lo, hi)`` (a boolean array for positions lo..hi−1)
    is False, or n: windows of doubling size, so a short run costs little."""
    lo, w = i, 64
    while lo < n:
        hi = min(n, lo + w)
        bad = np.flatnonzero(~same(lo, hi))
        if len(bad):
            return lo + int(bad[0])
        lo, w = hi, 2 * w
    return n


def find_pieces(fmt, gs, limit=MAX_PIECES) -> list:
    """The pieces of one g*(x, ·) given at every positive finite y (``gs``: patterns, in
    the order of :func:`positive_ys`); stops after ``limit`` + 1 pieces (the caller
    refuses; None: no limit).  Greedy: from each start, the longer of the constant run and
    the longest linear run (slopes tried near v/y at the start and at the end of the best
    run so far); a zero run is a constant piece 0 (no block)."""
    from fpsmt.semantics.arith.concrete import concrete
    fmt = parse_format(fmt)
    A = concrete(fmt)
    ys = positive_ys(fmt)
    G = canon(fmt, gs)
    n = len(ys)
    Y = A.const(ys)
    pieces = []
    i = 0
    while i < n and (limit is None or len(pieces) <= limit):
        v = int(G[i])
        best = (_run_end(lambda lo, hi: G[lo:hi] == v, i, n), "const", v)
        if not fmt.is_zero(v):
            tried = set()
            probe = [i]
            while probe:
                p = probe.pop()
                for k in _slope_candidates(fmt, int(ys[p]), int(G[p])):
                    if k in tried:
                        continue
                    tried.add(k)
                    K = A.const(np.full(1, k, dtype=np.uint64))
                    j = _run_end(lambda lo, hi: canon(fmt, A.to_bits(A.mul(Y[lo:hi], K))) == G[lo:hi], i, n)
                    if j > best[0]:
                        best = (j, "linear", k)
                        probe.append(j - 1)  # the run's last point pins k down best
        j, kind, c = best
        pieces.append(Piece(fmt.to_fraction(int(ys[i])), kind, fmt.to_fraction(c)))
        i = j
    return pieces


def count_pieces(fmt, gs, cap=10_000):
    """How many pieces :func:`find_pieces` finds (``cap`` + 1 at most), for an error
    message."""
    return len(find_pieces(fmt, gs, limit=cap))


def piece_value(fmt: Format, pieces: list, y: Fraction) -> Fraction:
    """g*(x, y) as the pieces define it (exact rationals, one rounding for a linear piece)."""
    a = abs(y)
    if a == 0:
        return Fraction(0)
    cur = None
    for p in pieces:
        if p.t <= a:
            cur = p
    if cur is None:
        return Fraction(0)
    s = 1 if y > 0 else -1
    return cur.c * s if cur.kind == "const" else fmt.to_fraction(fmt.round(y * cur.c))


def overflowing_piece(fmt: Format, pieces: list):
    """(index, |y|) of the first linear piece whose y ⊗ k rounds to ±∞ within it (its
    largest |y|: the float below the next piece's t, or Ω), else None."""
    for i, p in enumerate(pieces):
        if p.kind != "linear":
            continue
        top = T.next_down(fmt, pieces[i + 1].t) if i + 1 < len(pieces) else fmt.Omega
        if T.rn(fmt, top * abs(p.c)) is None:
            return i, top
    return None


# ------------------------------------------------------------------ programs
def _swamp(fmt: Format) -> Fraction:
    return pow2(fmt.e_max)


def _high_bound(fmt: Format, b) -> Fraction:
    """The bound on |u| above the piece after the staircase of b (Ω without stages)."""
    stages = T.staircase(fmt, b)
    return stages[-1][2] if stages else fmt.Omega


def _absorbed(fmt: Format, b, k: Fraction) -> str | None:
    """None if A = u ⊗ k is absorbed by ±2^e_max wherever |y| >= b (u: y after the
    staircase of b; checked exactly at its largest: rounding is monotone), else why not."""
    if b is None:
        return None
    L = _swamp(fmt)
    A = T.rn(fmt, _high_bound(fmt, b) * k)
    if A is None or T.rn(fmt, L + abs(A)) != L or T.rn(fmt, L - abs(A)) != L:
        return f"above the piece reaches {'∞' if A is None else f'{float(abs(A)):g}'}"
    return None


def _scale(fmt: Format, a: Fraction, k: Fraction) -> int:
    """The largest j >= 0 with k·2^-j a float and a·|k|·2^-j >= 2^e_min: y ⊗ k·2^-j then
    2^j is y ⊗ k for every |y| >= a (the scaled product is normal)."""
    from fpsmt.semantics.formats import floor_log2
    j = max(0, floor_log2(a * abs(k)) - fmt.e_min)
    while j > 0 and T.rn(fmt, k * pow2(-j)) != k * pow2(-j):
        j -= 1
    return j


def last_end(fmt: Format, lo: int, hi: int, ok) -> int | None:
    """The largest pattern e in [lo, hi] (positive patterns, increasing in value) with
    ``ok(value of e)``, by bisection (``ok`` holds up to some end and not beyond), or None."""
    good = None
    while lo <= hi:
        mid = (lo + hi) // 2
        if ok(fmt.to_fraction(mid)):
            good, lo = mid, mid + 1
        else:
            hi = mid - 1
    return good


def linear_split(fmt: Format, a: Fraction, b, k: Fraction) -> list:
    """The linear piece y ⊗ k on a <= |y| < b (b None: up to Ω) as sub-pieces
    [(a_i, b_i, j_i)], each computed at the scale 2^-j_i (:func:`linear_program`): from
    the bottom, each the largest scale exact at a_i, then the longest range whose value
    above it ±2^e_max absorbs."""
    out = []
    while True:
        j = _scale(fmt, a, k)
        kj = k * pow2(-j)
        if _absorbed(fmt, b, kj) is None:
            return out + [(a, b, j)]
        # candidate ends b' (patterns, increasing in value), a < b' < b
        good = last_end(fmt, fmt.round(a) + 1, fmt.round(b) - 1, lambda e: _absorbed(fmt, e, kj) is None)
        if good is None:
            why = _absorbed(fmt, fmt.to_fraction(fmt.round(a) + 1), kj)
            raise InputError(f"the linear piece y ⊗ {float(k):g} from |y| = {float(a):g} cannot be built in "
                             f"{fmt.name}: its value {why}, more than 2^{fmt.e_max} absorbs (the construction "
                             f"cancels it outside the piece by ±2^{fmt.e_max})")
        b_i = fmt.to_fraction(good)
        out.append((a, b_i, j))
        a = b_i


def below_program(fmt: Format, b, kj: Fraction) -> list:
    """y ⊗ kj for |y| < b and a zero for |y| >= b (b None: y ⊗ kj everywhere): A = u ⊗ kj
    with u y after the staircase of b, then (A ⊕ Z) ⊕ (−Z) with Z = 2^e_max·sign(y)·1[|y| >= b]
    (two copies of one threshold block), which absorbs A above b."""
    prog_a = []
    for P, s, _ in (T.staircase(fmt, b) if b is not None else []):
        prog_a += T.stage_steps(fmt, P, s)
    prog_a.append([[(0, kj)]])
    if b is None:
        return prog_a
    z = T.block_program(T.plan(fmt, b, _swamp(fmt)))
    steps = T.parallel([prog_a, z, z], final=[[(0, 1)], [(1, 1)], [(2, 1)]])
    steps.append([[(0, Fraction(1)), (1, Fraction(1)), (2, Fraction(-1))]])
    return steps


def linear_program(fmt: Format, a: Fraction, b, k: Fraction, j: int = 0) -> list:
    """The backward program of y ⊗ k on a <= |y| < b (b None: up to Ω), a zero at every
    other finite y: below(b) ⊕ (−below(a)) at the scale 2^-j, then ×2^j (below(a) is left
    out for a = ω).  Below a both give the same bits, so the difference is an exact zero;
    in the piece the second is a zero; :func:`linear_split` chooses j (exact in the piece)
    and checks that ±2^e_max absorbs each part's value above its end."""
    kj = k * pow2(-j)
    for end in (a, b):
        why = _absorbed(fmt, end, kj) if end is not None and end > fmt.omega else None
        if why is not None:
            raise InputError(f"the linear piece y ⊗ {float(k):g} on {float(a):g} <= |y| < "
                             f"{'Ω' if b is None else f'{float(b):g}'} at scale 2^-{j}: its value {why}, more than "
                             f"{fmt.name}'s 2^{fmt.e_max} absorbs")
    if a > fmt.omega:
        steps = T.parallel([below_program(fmt, b, kj), below_program(fmt, a, kj)], final=[[(0, 1), (1, -1)]])
    else:
        steps = below_program(fmt, b, kj)
    return steps + [[[(0, pow2(e))]] for e in (T.powers(fmt, j) if j else [])]


def piece_programs(fmt: Format, pieces: list) -> list:
    """One program per nonzero piece, in increasing |y|, each ending in one unit that holds
    the piece's value in it and an exact zero at every other y (module docstring): a
    constant piece the sum of its two blocks, a linear piece the sum of its sub-pieces."""
    progs = []
    for i, p in enumerate(pieces):
        nxt = pieces[i + 1].t if i + 1 < len(pieces) else None
        if p.c == 0:
            continue
        if p.kind == "const":
            parts = [T.block_program(T.plan(fmt, p.t, p.c))]
            if nxt is not None:
                parts.append(T.block_program(T.plan(fmt, nxt, -p.c)))
        else:
            parts = [linear_program(fmt, a, b, p.c, j) for a, b, j in linear_split(fmt, p.t, nxt, p.c)]
        progs.append(parts[0] if len(parts) == 1 else T.parallel(parts))
    return progs


def tree_sum(programs: list, one=Fraction(1)) -> list:
    """The programs side by side and their outputs summed pairwise, level by level: depth
    about log2 of their number.  At every y at most one piece's output is nonzero and the
    others are exact zeros, so every grouping gives the same value, the one piece's.
    ``one``: the weight of a ×1 term (:func:`threshold.parallel`)."""
    n = len(programs)
    steps = T.parallel(programs, final=[[(i, one)] for i in range(n)], one=one)
    while n > 1:
        step = [[(2 * i, one), (2 * i + 1, one)] for i in range(n // 2)]
        if n % 2:
            step.append([(n - 1, one)])
        steps.append(step)
        n = len(step)
    return steps


def binary_sums(steps: list, one=Fraction(1)) -> list:
    """The program with every sum of more than two terms taken one term per step
    (p ⊗ 1 ⊕ src ⊗ w; the sources still to come carried by ×1): the same left-to-right
    sums, each term and partial sum rounded once, but no unit's backward value sums more
    than two terms — and a sum of two is the same in either order.  An AD framework that
    accumulates a tensor's gradient contributions in another order (PyTorch's autograd
    does: most recent use first) then computes the same bits.  ``one``: the weight of a ×1
    term (:func:`threshold.parallel`)."""
    out = []
    for step in steps:
        longest = max(len(u) for u in step)
        if longest <= 2:
            out.append(step)
            continue
        later = lambda j: sorted({src for u in step for src, _ in u[j:]})  # noqa: E731
        first = [list(u[:2]) for u in step]
        pos = {}
        for src in later(2):
            pos[src] = len(first)
            first.append([(src, one)])
        out.append(first)
        for j in range(2, longest):
            new = [[(i, one)] + ([(pos[u[j][0]], u[j][1])] if j < len(u) else []) for i, u in enumerate(step)]
            npos = {}
            for src in later(j + 1):
                npos[src] = len(new)
                new.append([(pos[src], one)])
            pos = npos
            out.append(new)
    return out


def point_network(fmt: Format, z: Fraction, programs: list):
    """The gated network of one domain point from its pieces' programs
    (:func:`piece_programs`): D(y) = the pieces' g at x = z, a zero at every other x of X,
    f = +0 on X; None where there is no program (every piece is 0).  Every backward sum
    has at most two terms (:func:`binary_sums`)."""
    if not programs:
        return None
    return T.gated_program(fmt, Fraction(z), binary_sums(tree_sum(programs)))


def network(fmt, points, progress=None, programs=None):
    """The Theorem 3.2 network for ``points`` = [(x, f*, pieces)] (x and f* patterns, x in
    X, distinct): the gated networks of the points with a nonzero g*, ⊞ a zero-gradient
    atom per point, padded to one depth.  ``programs``: each point's
    :func:`piece_programs`, where the caller has them already."""
    fmt = parse_format(fmt)
    gated = []
    for n, (z, _, pcs) in enumerate(points):
        progs = programs[n] if programs is not None else piece_programs(fmt, pcs)
        net = point_network(fmt, fmt.to_fraction(z), progs)
        if net is not None:
            gated.append(net)
        if progress is not None:
            progress(n + 1, len(points))
    atoms = R.block_copies(R.zero_gradient_atom, fmt, [[z for z, *_ in points], [v for _, v, _ in points]],
                           max([n.depth for n in gated], default=1))
    depth = atoms[0].depth  # at least every gated network's
    return R.boxplus_copies(fmt, [R.one_copy(net, depth) for net in gated] + [atoms])


def check_domain(fmt: Format, xs, constants=None) -> None:
    """Distinct finite x in X (one line naming x): the activation's X = [−M_σ, M_σ] from
    its theorem ``constants`` (:func:`specs.theorems.constants`), ReLU's by default (ELU's,
    GELU's and Swish's are the same interval; tanh's is twice as wide)."""
    if not len(xs):
        raise InputError("the domain is empty")
    c = constants or R.constants(fmt)
    top = c.M_sigma
    seen = set()
    for x in xs:
        q = fmt.to_fraction(x) if fmt.is_finite(x) else None
        if q is None or abs(q) > top:
            raise InputError(f"at x = {fmt.show(x)}: x is not in {c.activation}'s X = [-2^{floor_log2(top)}, "
                             f"2^{floor_log2(top)}] of {fmt.name}")
        if q in seen:
            raise InputError(f"at x = {fmt.show(x)}: x appears twice (+0 and -0 are one point)")
        seen.add(q)


# ------------------------------------------------------------------ verification
def within(fmt: Format, ys, bound) -> np.ndarray:
    """The mask of the patterns ``ys`` (finite) with |y| <= ``bound`` (exact comparison: the
    positive patterns are ordered as their values)."""
    mag = np.asarray(ys, dtype=np.uint64) & np.uint64(fmt.sign_bit - 1)
    return mag <= np.uint64(fmt.round(Fraction(bound)) if fmt.to_fraction(fmt.round(Fraction(bound))) <= bound
                            else fmt.round(Fraction(bound)) - 1)


def meets(fmt: Format, got, want) -> np.ndarray:
    """Per pair, whether the pattern ``got`` meets the target ``want``: the same bits, or
    either zero where the target is a zero (the array form of commands.targets.meets)."""
    return np.where(canon(fmt, want) == 0, canon(fmt, got) == 0, got == want)


def verify(fmt, net, points, tables, progress=None, sem=None, bound=None):
    """Run ``net`` by the executor at every (x, y): x of ``points`` = [(x, f*, …)], y
    every finite value (:func:`all_ys`), or every finite |y| <= ``bound`` (the saturating
    family's H_σ); ``tables[i]`` holds g*(x_i, y) at every finite y in :func:`all_ys`' order.
    Returns (mismatches [(x, y, what, got, want)] as patterns, at most 20 of each kind per
    x; the pairs checked; the pairs with a mismatch).  Block
    aware (:func:`fpsmt.constructions.blockrun.blockwise`), one x at a time; ``sem``: the
    semantics profile the network runs under (the paper's by default)."""
    from fpsmt.constructions.blockrun import blockwise
    from fpsmt.semantics.arith.concrete import concrete
    from fpsmt.semantics.network import PAPER
    sem = sem or PAPER
    fmt = parse_format(fmt)
    A = concrete(fmt)
    ys = all_ys(fmt)
    keep = slice(None) if bound is None else within(fmt, ys, bound)
    ys = ys[keep]
    bad, failing = [], 0
    for i, ((x, v, *_), want) in enumerate(zip(points, tables)):
        want = np.asarray(want, dtype=np.uint64)[keep]
        out, grad = blockwise(A, net, A.const(np.full(len(ys), x, dtype=np.uint64)), A.const(ys), sem)
        ob, gb = np.ravel(A.to_bits(out)), np.ravel(A.to_bits(grad))
        f_bad = np.flatnonzero(~meets(fmt, ob, np.full(len(ys), v, dtype=np.uint64)))
        g_bad = np.flatnonzero(~meets(fmt, gb, np.asarray(want, dtype=np.uint64)))
        bad += [(int(x), int(ys[j]), "f(x)", int(ob[j]), int(v)) for j in f_bad[:20]]
        bad += [(int(x), int(ys[j]), "D(y)", int(gb[j]), int(want[j])) for j in g_bad[:20]]
        failing += len(np.union1d(f_bad, g_bad))
        if progress is not None:
            progress(i + 1, len(points), len(f_bad) + len(g_bad))
    return bad, len(points) * len(ys), failing
