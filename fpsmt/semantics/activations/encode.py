"""Correctly rounded activations in the executor and in SMT, soundly.

Executor (:func:`concrete_activation`): a table lookup for formats of at most 16 bits,
otherwise the Ziv loop per distinct input (memoised).

Z3 (:func:`symbolic_activation`), chosen by format:

* at most 16 bits — the complete table, encoded as a balanced decision tree over the
  input's bit pattern whose leaves are the runs of equal outputs over consecutive
  patterns (a monotone stretch of σ_F is one leaf per distinct output);
* wider formats — an uninterpreted value: a fresh bit-vector ``r`` for σ_F(z), bound
  only by true facts: NaN gives NaN, ±∞ give the limits, σ_F(±0) is known, σ_F lies
  between its limits on a monotone σ, and two applications on one monotone piece are
  ordered.  The engine adds exact values at the points a model touches, lazily
  (:func:`refine`), until a model agrees with the true σ_F everywhere or the query is
  UNSAT.  Every fact is true of σ_F, so UNSAT is never claimed for a property the true
  σ violates; a SAT answer is reported only after the executor replays it.
* ground arguments (constants) — the value itself.
"""

from __future__ import annotations

import numpy as np
import z3

from fpsmt.semantics.activations.rounding import TABLE_MAX_BITS, correctly_rounded, table

COLUMN = {"value": 0, "derivative": 1}
_memo: dict = {}


def _rounded(act, fmt, which, bits: int) -> int:
    key = (act.real.key, fmt.E, fmt.M, which, bits)
    v = _memo.get(key)
    if v is None:
        v = correctly_rounded(act.real, fmt, bits, which)
        _memo[key] = v
    return v


def concrete_activation(A, act, which, z):
    fmt = A.fmt
    bits = np.asarray(A.to_bits(z))
    if fmt.nbits <= TABLE_MAX_BITS:
        col = table(act.real, fmt)[:, COLUMN[which]]
        out = col[bits.astype(np.int64)]
    else:
        flat = bits.ravel()
        uniq, inv = np.unique(flat, return_inverse=True)
        vals = np.array([_rounded(act, fmt, which, int(b)) for b in uniq], dtype=fmt.uint_dtype)
        out = vals[inv].reshape(bits.shape)
    return A.const(out.astype(np.uint64) if fmt.nbits <= 64 else out)


# ------------------------------------------------------------------ tables in SMT
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
    plus a constant (σ_F(x) = x near 0 for tanh, x/2 inside a binade for gelu…), greedily
    taking the longer kind at each step.  Returns [(first, last, kind, constant)]."""
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


def table_tree(act, fmt, which):
    """(placeholder bit-vector, decision tree over it, leaves) giving σ_F's pattern for each
    input pattern."""
    key = (act.real.key, fmt.E, fmt.M, which)
    if key in _trees:
        return _trees[key]
    n = fmt.nbits
    segs = segments(table(act.real, fmt)[:, COLUMN[which]])
    b = z3.BitVec(f"table!{act.real.key}!{which}!{fmt.name}", n)

    def leaf(seg):
        _, _, kind, c = seg
        return z3.BitVecVal(c, n) if kind == "const" else b + z3.BitVecVal(c % (1 << n), n)

    def build(lo, hi):  # segments lo..hi-1
        if hi - lo == 1:
            return leaf(segs[lo])
        mid = (lo + hi) // 2
        return z3.If(z3.ULE(b, z3.BitVecVal(segs[mid - 1][1], n)), build(lo, mid), build(mid, hi))
    tree = build(0, len(segs))
    _trees[key] = (b, tree, len(segs))
    return _trees[key]


# ------------------------------------------------------------------ the Z3 side
def _limit_bits(fmt, act, which, sign):
    from fpsmt.semantics.activations.rounding import _limit
    v, d = act.real.limits[sign]
    return _limit(fmt, v if which == "value" else d)


def symbolic_activation(Z, act, which, z):
    from fpsmt.semantics.arith.symbolic import _vec
    return _vec(lambda t: _apply(Z, act, which, t), 1)(z)


def _apply(Z, act, which, t):
    fmt = Z.fmt
    g = z3.simplify(t)
    if z3.is_fp_value(g):  # a constant argument: the value itself
        from fpsmt.semantics.arith.symbolic import fold_bits
        return Z.const1(_rounded(act, fmt, which, fold_bits(fmt, g)))
    bz = Z.bits_of(t)
    if fmt.nbits <= TABLE_MAX_BITS:
        b, tree, _ = table_tree(act, fmt, which)
        return z3.fpBVToFP(z3.substitute(tree, (b, bz)), Z.sort)
    # an uninterpreted value, refined lazily
    r = z3.BitVec(f"{act.real.key}!{which}!{len(Z.lazy)}", fmt.nbits)
    out = z3.fpBVToFP(r, Z.sort)
    facts = [z3.Implies(z3.fpIsNaN(t), z3.fpIsNaN(out))]
    for sign in (1, -1):
        inf = z3.And(z3.fpIsInf(t), z3.fpIsNegative(t) if sign < 0 else z3.fpIsPositive(t))
        facts.append(z3.Implies(inf, r == _limit_bits(fmt, act, which, sign)))
    facts.append(z3.Implies(z3.fpIsZero(t), r == _rounded(act, fmt, which, 0)))
    facts.append(z3.Implies(z3.Not(z3.fpIsNaN(t)), z3.Not(z3.fpIsNaN(out))) if _never_nan(act, which)
                 else z3.BoolVal(True))
    pcs = _pieces(act, which, fmt)
    for lo, hi, d in pcs:  # σ_F on a monotone piece lies between its values at the ends
        inside = _inside(Z, t, lo, hi)
        v_lo, v_hi = (Z.const1(_end_value(act, fmt, which, e, s)) for e, s in ((lo, -1), (hi, 1)))
        small, big = (v_lo, v_hi) if d > 0 else (v_hi, v_lo)
        facts.append(z3.Implies(inside, z3.And(z3.fpLEQ(small, out), z3.fpLEQ(out, big))))
    sym = act.real.symmetry[COLUMN[which]]
    for (a2, w2, t2, _, out2) in Z.lazy:  # related to earlier applications of the same function
        if a2.real.key == act.real.key and w2 == which:
            for lo, hi, d in pcs:
                both = z3.And(_inside(Z, t, lo, hi), _inside(Z, t2, lo, hi))
                first, second = (out, out2) if d > 0 else (out2, out)
                facts.append(z3.Implies(z3.And(both, z3.fpLEQ(t, t2)), z3.fpLEQ(first, second)))
                facts.append(z3.Implies(z3.And(both, z3.fpLEQ(t2, t)), z3.fpLEQ(second, first)))
            if sym:  # σ_F(−x) = −σ_F(x) (odd) or σ_F(x) (even), exactly, since RNE is odd
                facts.append(z3.Implies(z3.fpEQ(t2, z3.fpNeg(t)),
                                        z3.fpEQ(out2, z3.fpNeg(out) if sym == "odd" else out)))
    Z.facts.extend(facts)
    Z.lazy.append((act, which, t, (bz, r), out))
    return out


def _pieces(act, which, fmt):
    from fpsmt.semantics.activations.rounding import value_pieces
    return value_pieces(act.real, fmt) if which == "value" else (act.real.prime_pieces or [])


def _inside(Z, t, lo, hi):
    c = [z3.Not(z3.fpIsNaN(t))]
    if lo is not None:
        c.append(z3.fpGEQ(t, Z.const1(Z.fmt.round(lo))))
    if hi is not None:
        c.append(z3.fpLEQ(t, Z.const1(Z.fmt.round(hi))))
    return c[0] if len(c) == 1 else z3.And(*c)  # Bitwuzla's parser refuses a one-argument `and`


def _end_value(act, fmt, which, end, sign):
    """σ_F at a piece's end (a float of the format), or the limit for an open end."""
    if end is None:
        return _limit_bits(fmt, act, which, sign)
    b = fmt.round(end)
    assert fmt.to_fraction(b) == end, "piece ends must be floats"
    return _rounded(act, fmt, which, b)


def _never_nan(act, which):
    lim = act.real.limits
    return all(lim[s][0 if which == "value" else 1] != "nan" for s in (1, -1))


def lazy_variables(Z) -> dict:
    """The bit-vectors a model must give for :func:`refine` (argument and result of each
    lazy application)."""
    out = {}
    for _, _, _, (bz, r), _ in Z.lazy:
        out[str(bz)] = Z.fmt.nbits
        out[str(r)] = Z.fmt.nbits
    return out


def refine(Z, model: dict) -> int:
    """Compare each lazy application with the true σ_F at the model's argument; add the
    true value as a fact where they differ.  Returns how many facts were added."""
    fmt = Z.fmt
    added = 0
    for act, which, _, (bz, r), _ in Z.lazy:
        if str(bz) not in model or str(r) not in model:
            continue
        x = fmt.canonical(int(model[str(bz)]))
        true = _rounded(act, fmt, which, x)
        if fmt.canonical(int(model[str(r)])) != true:
            Z.facts.append(z3.Implies(bz == x, r == true))
            arg, out, v, xs = z3.fpBVToFP(bz, Z.sort), z3.fpBVToFP(r, Z.sort), Z.const1(true), Z.const1(x)
            for lo, hi, d in _pieces(act, which, fmt):  # on x's piece, the value bounds a half-line each side
                if fmt.is_finite(x) and (lo is None or fmt.to_fraction(x) >= lo) and \
                        (hi is None or fmt.to_fraction(x) <= hi):
                    inside = _inside(Z, arg, lo, hi)
                    below, above = (z3.fpLEQ(out, v), z3.fpGEQ(out, v)) if d > 0 else \
                        (z3.fpGEQ(out, v), z3.fpLEQ(out, v))
                    Z.facts.append(z3.Implies(z3.And(inside, z3.fpLEQ(arg, xs)), below))
                    Z.facts.append(z3.Implies(z3.And(inside, z3.fpGEQ(arg, xs)), above))
            added += 1
    return added
