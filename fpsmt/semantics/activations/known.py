"""An activation's σ_F and σ'_F as known functions (:mod:`fpsmt.semantics.arith.functions`):
the correctly rounded value at any point (:mod:`.rounding`), the whole table for formats
of at most 16 bits, and the true facts the Z3 interpretation may use (limits, the value
at ±0, monotone pieces with exact float ends, symmetry)."""

from __future__ import annotations

from fpsmt.semantics.arith.functions import TABLE_MAX_BITS, KnownFunction, Piece
from fpsmt.semantics.activations.rounding import constant_tails, correctly_rounded, identity_tails, limit_bits, table
from fpsmt.semantics.activations.rounding import finite_bounds, value_pieces

COLUMN = {"value": 0, "derivative": 1}
_known: dict = {}


def known_function(act, fmt, which: str) -> KnownFunction:
    """σ_F (``which="value"``) or σ'_F (``"derivative"``) of a correctly rounded activation in ``fmt``."""
    real = act.real
    key = (real.key, fmt.E, fmt.M, which)
    fn = _known.get(key)
    if fn is not None:
        return fn
    col = COLUMN[which]
    lim = real.limits

    def end(e, sign):
        if e is None:
            return limit_bits(fmt, lim[sign][col])
        b = fmt.round(e)
        if fmt.to_fraction(b) != e:
            raise ValueError(f"{real.name}: a monotone piece ends at {e}, which is not a float of {fmt.name}")
        return correctly_rounded(real, fmt, b, which)
    raw = [(*p, False) for p in (value_pieces(real, fmt) if which == "value" else (real.prime_pieces or []))]
    if real.infer_tails:  # saturated tails found by enclosures (a user's σ states no σ' pieces)
        raw += [(*p, True) for p in constant_tails(real, fmt, which)]
    pieces = tuple(Piece(None if lo is None else fmt.round(lo), None if hi is None else fmt.round(hi), d,
                         end(lo, -1), end(hi, 1), const) for lo, hi, d, const in raw)
    fn = KnownFunction(
        key=f"{real.key}!{which}", fmt=fmt,
        value_fn=lambda b: correctly_rounded(real, fmt, b, which),
        table_fn=(lambda: table(real, fmt)[:, col]) if fmt.nbits <= TABLE_MAX_BITS else None,
        at_inf=(limit_bits(fmt, lim[1][col]), limit_bits(fmt, lim[-1][col])),
        never_nan=all(lim[s][col] != "nan" for s in (1, -1)),
        pieces=pieces, symmetry=real.symmetry[col],
        identity=tuple(identity_tails(real, fmt)) if real.infer_tails and which == "value" else (),
        bounds=lambda: finite_bounds(real, fmt, which))
    _known[key] = fn
    return fn
