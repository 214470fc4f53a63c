"""Known functions in the Z3 interpretation (:class:`~fpsmt.semantics.arith.functions.KnownFunction`).

Chosen by format:

* at most :data:`TABLE_MAX_BITS` bits — the complete table, encoded as a balanced
  decision tree over the argument's bit pattern whose leaves are the runs of equal
  results over consecutive patterns, or of "pattern plus a constant" (σ_F(x) = x near 0
  for tanh, x/2 inside a binade for gelu…);
* wider formats — an uninterpreted value: a fresh bit-vector ``r`` for F(t), bound only
  by the function's true facts: NaN gives NaN, ±∞ give the limits, F(±0) is known, F
  lies between its values at the ends of a monotone piece, two applications on one piece
  are ordered, two applications to one argument pattern have one value (congruence),
  symmetry.  :func:`refine` adds true values at the points a model touches, lazily, until
  a model agrees with F everywhere or the query is UNSAT.  Every fact is
  true of F, so UNSAT is never claimed for a property the true F violates; a SAT answer
  is reported only after the executor replays it.
* ground arguments (constants) — the value itself.

An application to a term F was applied to before (the same AST) is the earlier one's value,
so that two runs of one computation in a claim (a join's premise and conclusion) are one
term, not two values the solver must find equal.
"""

from __future__ import annotations

import numpy as np
import z3

from fpsmt.semantics.arith.functions import KnownFunction

TABLE_MAX_BITS = 16  # tables of wider formats are not encoded (tests lower it to force the lazy encoding)
_trees: dict = {}


def _suffix_run(col):
    """For each index i, how many consecutive entries from i on equal col[i]."""
    n = len(col)
    change = np.nonzero(np.diff(col))[0]
    ends = np.concatenate([change, [n - 1]])
    run_end = np.repeat(ends, np.diff(np.concatenate([[-1], ends])))
    return run_end - np.arange(n) + 1


def segments(col):
    """Cover the table by segments on which the output is constant, or is the input pattern
    plus a constant, greedily taking the longer kind at each step.
    Returns [(first, last, kind, constant)]."""
    col = col.astype(np.int64)
    n = len(col)
    off = col - np.arange(n)
    const_len, off_len = _suffix_run(col), _suffix_run(off)
    out, i = [], 0
    while i < n:
        if off_len[i] > const_len[i]:
            out.append((i, i + int(off_len[i]) - 1, "offset", int(off[i])))
            i += int(off_len[i])
        else:
            out.append((i, i + int(const_len[i]) - 1, "const", int(col[i])))
            i += int(const_len[i])
    return out


def table_tree(fn: KnownFunction):
    """(placeholder bit-vector, decision tree over it, number of leaves) giving F's pattern
    for each argument pattern."""
    fmt = fn.fmt
    key = (fn.key, fmt.E, fmt.M)
    if key in _trees:
        return _trees[key]
    n = fmt.nbits
    segs = segments(np.asarray(fn.table()))
    b = z3.BitVec(f"table!{fn.key}!{fmt.name}", n)

    def leaf(seg):
        _, _, kind, c = seg
        return z3.BitVecVal(c, n) if kind == "const" else b + z3.BitVecVal(c % (1 << n), n)

    def build(lo, hi):  # segments lo..hi-1
        if hi - lo == 1:
            return leaf(segs[lo])
        mid = (lo + hi) // 2
        return z3.If(z3.ULE(b, z3.BitVecVal(segs[mid - 1][1], n)), build(lo, mid), build(mid, hi))
    _trees[key] = (b, build(0, len(segs)), len(segs))
    return _trees[key]


def apply(Z, fn: KnownFunction, t):
    """F(t) for one term ``t`` of the interpretation ``Z``."""
    fmt = Z.fmt
    g = z3.simplify(t)
    if z3.is_fp_value(g):  # a constant argument: the value itself
        return Z.const1(fn.value(Z.fold(g)))
    seen = Z.applied.get((fn.key, t.get_id()))
    if seen is not None and seen[0].eq(t):  # F applied to this very term before: the same value
        return seen[1]
    bz = Z.bits_of(t)
    if fn.tabulated and fmt.nbits <= TABLE_MAX_BITS:
        b, tree, _ = table_tree(fn)
        return z3.fpBVToFP(z3.substitute(tree, (b, bz)), Z.sort)
    r = z3.BitVec(f"{fn.key}!{len(Z.lazy)}", fmt.nbits)
    out = z3.fpBVToFP(r, Z.sort)
    facts = [z3.Implies(z3.fpIsNaN(t), z3.fpIsNaN(out))]
    for sign, lim in zip((1, -1), fn.at_inf):
        inf = z3.And(z3.fpIsInf(t), z3.fpIsNegative(t) if sign < 0 else z3.fpIsPositive(t))
        facts.append(z3.Implies(inf, r == lim))
    facts.append(z3.Implies(z3.fpIsZero(t), r == fn.value(0)))
    if fn.never_nan:
        facts.append(z3.Implies(z3.Not(z3.fpIsNaN(t)), z3.Not(z3.fpIsNaN(out))))
    for p in fn.pieces:  # F on a monotone piece lies between its values at the ends
        small, big = (p.at_lo, p.at_hi)[::p.direction]
        between = [z3.fpLEQ(Z.const1(small), out), z3.fpLEQ(out, Z.const1(big))]
        # the sign of a zero, which fpLEQ does not see: a smaller end of +0 means σ >= 0 there
        # (RNE gives −0 only from a negative number), so σ >= 0 on the piece (σ is monotone on
        # it and the end is its infimum, attained or a limit) and F is never −0; a larger end
        # of −0 means σ < 0 there, so F is never +0 on the piece.  Not on a constant piece,
        # where σ need not be monotone: GELU's left tail is −0 while its limit at −∞ is +0
        if small == 0 and not p.constant:
            between.append(z3.Not(z3.And(z3.fpIsZero(out), z3.fpIsNegative(out))))
        if big == fmt.sign_bit and not p.constant:
            between.append(z3.Not(z3.And(z3.fpIsZero(out), z3.fpIsPositive(out))))
        facts.append(z3.Implies(_inside(Z, t, p), z3.And(*between)))
    rng = fn.bounds() if fn.bounds is not None else None
    if rng is not None:  # F's range over the finite floats (an enclosure of the real function)
        fin = z3.Not(z3.Or(z3.fpIsNaN(t), z3.fpIsInf(t)))
        facts.append(z3.Implies(fin, z3.And(z3.fpLEQ(Z.const1(rng[0]), out), z3.fpLEQ(out, Z.const1(rng[1])))))
    for x in Z.anchors:  # true values at the claim's anchors bound F on their pieces
        facts += _half_lines(Z, fn, t, out, x)
    for lo, hi in fn.identity:  # F(t) = t there (found by enclosures: rounding.identity_tails)
        facts.append(z3.Implies(z3.And(z3.fpGEQ(t, Z.const1(lo)), z3.fpLEQ(t, Z.const1(hi))), r == bz))
    for (fn2, t2, (bz2, r2), out2) in Z.lazy:  # related to earlier applications of the same function
        if fn2.key == fn.key:
            facts.append(z3.Implies(bz == bz2, r == r2))  # F is a function: one argument, one value
            for p in fn.pieces:
                both = z3.And(_inside(Z, t, p), _inside(Z, t2, p))
                first, second = (out, out2) if p.direction > 0 else (out2, out)
                facts.append(z3.Implies(z3.And(both, z3.fpLEQ(t, t2)), z3.fpLEQ(first, second)))
                facts.append(z3.Implies(z3.And(both, z3.fpLEQ(t2, t)), z3.fpLEQ(second, first)))
            if fn.symmetry:  # F(−x) = −F(x) (odd) or F(x) (even), exactly, since RNE is odd
                facts.append(z3.Implies(z3.fpEQ(t2, z3.fpNeg(t)),
                                        z3.fpEQ(out2, z3.fpNeg(out) if fn.symmetry == "odd" else out)))
    Z.facts.extend(facts)
    Z.lazy.append((fn, t, (bz, r), out))
    Z.applied[(fn.key, t.get_id())] = (t, out)
    return out


def _inside(Z, t, piece):
    c = [z3.Not(z3.fpIsNaN(t))]
    if piece.lo is not None:
        c.append(z3.fpGEQ(t, Z.const1(piece.lo)))
    if piece.hi is not None:
        c.append(z3.fpLEQ(t, Z.const1(piece.hi)))
    return c[0] if len(c) == 1 else z3.And(*c)  # Bitwuzla's parser refuses a one-argument `and`


def lazy_variables(Z) -> dict:
    """The bit-vectors a model must give for :func:`refine` (argument and result of each
    lazy application)."""
    out = {}
    for _, _, (bz, r), _ in Z.lazy:
        out[str(bz)] = Z.fmt.nbits
        out[str(r)] = Z.fmt.nbits
    return out


def refine(Z, model: dict) -> int:
    """Compare each lazy application with the true F at the model's argument; add the
    true value as a fact where they differ.  Returns how many facts were added."""
    fmt = Z.fmt
    added = 0
    for fn, _, (bz, r), _ in Z.lazy:
        if str(bz) not in model or str(r) not in model:
            continue
        x = fmt.canonical(int(model[str(bz)]))
        true = fn.value(x)
        if fmt.canonical(int(model[str(r)])) != true:
            Z.facts.append(z3.Implies(bz == x, r == true))
            Z.facts.extend(_half_lines(Z, fn, z3.fpBVToFP(bz, Z.sort), z3.fpBVToFP(r, Z.sort), x))
            added += 1
    return added


def _half_lines(Z, fn, arg, out, x) -> list:
    """F's true value at the pattern x bounds out = F(arg) on x's monotone piece: a
    half-line each side of x."""
    fmt, facts = Z.fmt, []
    true = fn.value(x)
    v, xs = Z.const1(true), Z.const1(x)
    q = fmt.to_fraction(x) if fmt.is_finite(x) else None
    for p in fn.pieces:
        if q is not None and (p.lo is None or fmt.to_fraction(p.lo) <= q) and \
                (p.hi is None or q <= fmt.to_fraction(p.hi)):
            inside = _inside(Z, arg, p)
            below, above = (z3.fpLEQ(out, v), z3.fpGEQ(out, v)) if p.direction > 0 else \
                (z3.fpGEQ(out, v), z3.fpLEQ(out, v))
            facts.append(z3.Implies(z3.And(inside, z3.fpLEQ(arg, xs)), below))
            facts.append(z3.Implies(z3.And(inside, z3.fpGEQ(arg, xs)), above))
    return facts
