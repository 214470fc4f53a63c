"""fpsmt's own encoding of IEEE-754 floating point into bit-vectors.

A query's SMT-LIB text over floats (QF_FPBV, with uninterpreted functions where the
claim has them) is rewritten into a pure bit-vector query (QF_BV / QF_UFBV) that any
bit-vector solver decides.  The floating-point operations are encoded here, from the
definition "round the exact result once, to nearest, ties to even", independently of
the solvers' own floating-point layers (Z3's ``fpa2bv``, SymFPU in cvc5 and Bitwuzla).
So the back end ``bvfp`` (this encoding, solved by Bitwuzla's bit-vector engine) takes
every IEEE-like format — bfloat16 and the 8-bit formats included, which Bitwuzla's
floating-point layer refuses — and it is a second opinion whose floating-point
semantics share no code with the others'.

Representation: a float of format (E, M) is its IEEE bit pattern (1 + E + M bits) with
every NaN replaced by one canonical NaN, so SMT-LIB's ``=`` on floats (one NaN; +0 and
−0 distinct) is bit-vector equality.  A finite float is m·2^e with the integer
significand m (the hidden bit included) and e the exponent of its last place.

Every operation rounds the *exact* value once: products exactly (2(M+1) bits), sums
aligned with three guard bits and a sticky bit jammed into the last place (which rounds
as the exact sum does: the argument is in :meth:`FloatBV.add`), quotients to M+3
significant bits plus the remainder as a sticky bit.  The rounding
(:meth:`FloatBV.round`) normalises in log-depth stages of constant shifts and then reads
the kept bits, the rounding bit and the sticky bits at fixed places; only a subnormal
result shifts again, by at most M+2 places.
Only round-to-nearest-ties-to-even is encoded; a query with any other rounding mode or
an operation not listed in :data:`SUPPORTED` is declined with :class:`Unsupported`,
which the back end reports as *unknown* — never a guess.

``tests/test_bvfloat.py`` checks every operation against the executor on every pair of
float8 values and on sampled and edge pairs of the 16-, 32- and 64-bit formats, and
shows a deliberately wrong rounding caught.
"""

from __future__ import annotations

import z3

#: the floating-point operations this encoding takes (Z3's declaration kinds)
SUPPORTED = ("fp.add", "fp.sub", "fp.mul", "fp.div", "fp.neg", "fp.abs", "fp.eq", "fp.lt", "fp.leq", "fp.gt",
             "fp.geq", "fp.isNaN", "fp.isInfinite", "fp.isZero", "fp.isNormal", "fp.isSubnormal",
             "fp.isNegative", "fp.isPositive", "to_fp (from a bit pattern, or from a float, RNE)", "fp literals",
             "=, distinct and ite on floats", "uninterpreted functions taking or giving floats")


class Unsupported(Exception):
    """The query uses something this encoding does not take (the back end then says unknown)."""


def _bv(v, w):
    return z3.BitVecVal(v, w)


def _zext(t, w):
    return t if t.size() == w else z3.ZeroExt(w - t.size(), t)


def _sext(t, w):
    return t if t.size() == w else z3.SignExt(w - t.size(), t)


def _shift_by(x, k, left):
    """x shifted by the constant k places (left, or right logically)."""
    w = x.size()
    if k >= w:
        return _bv(0, w)
    if left:
        return z3.Concat(z3.Extract(w - 1 - k, 0, x), _bv(0, k))
    return z3.Concat(_bv(0, k), z3.Extract(w - 1, k, x))


def _shift(x, amt, cap, left):
    """x shifted by ``amt`` places, a bit-vector the caller guarantees in [0, cap]: one
    stage per bit of cap, each a constant shift or none."""
    for i in range(cap.bit_length()):
        x = z3.If(z3.Extract(i, i, amt) == 1, _shift_by(x, 1 << i, left), x)
    return x


def _normalise(m, width):
    """m (at least 2 bits) shifted left until its top bit is set, and the shift (a
    bit-vector of ``width`` bits), for m != 0: log-depth stages, each shifting by a
    constant power of two k <= w − 1 when that many top bits are zero (the shift's bits
    are those stages' decisions)."""
    w = m.size()
    bits = []
    k = 1
    while 2 * k <= w - 1:
        k *= 2
    while k >= 1:
        top_zero = z3.Extract(w - 1, w - k, m) == 0
        m = z3.If(top_zero, _shift_by(m, k, left=True), m)
        bits.append(z3.If(top_zero, _bv(1, 1), _bv(0, 1)))
        k //= 2
    lz = bits[0] if len(bits) == 1 else z3.Concat(*bits)
    return m, _zext(lz, width)


class FloatBV:
    """The encoding for one format (E exponent bits, M stored significand bits)."""

    def __init__(self, E: int, M: int):
        self.E, self.M, self.n = E, M, 1 + E + M
        self.bias = (1 << (E - 1)) - 1
        self.emin = 1 - self.bias - M  # the exponent of the last place of subnormals and of the least binade
        # exponents as signed bit-vectors wide enough for every intermediate: each is below
        # 1.5·2^E + 10M + 12 in magnitude (div's: two exponents, the scaling by 2^-(2M+3),
        # a normalising shift of at most 3M+5 places, the subnormal shift), and
        # 2^(we-1) >= 2·2^E + 10M + 12 (the larger of two numbers is at least their mean)
        self.we = max(E + 2, (10 * M + 12).bit_length() + 1) + 1
        self.nan = _bv(((1 << E) - 1) << M | 1 << (M - 1), self.n) if M >= 1 else None

    # -- fields ----------------------------------------------------------------------------
    def sign(self, x):
        return z3.Extract(self.n - 1, self.n - 1, x) == 1

    def bexp(self, x):
        return z3.Extract(self.n - 2, self.M, x)

    def frac(self, x):
        return z3.Extract(self.M - 1, 0, x)

    def is_nan(self, x):
        return z3.And(self.bexp(x) == (1 << self.E) - 1, self.frac(x) != 0)

    def is_inf(self, x):
        return z3.And(self.bexp(x) == (1 << self.E) - 1, self.frac(x) == 0)

    def is_zero(self, x):
        return z3.Extract(self.n - 2, 0, x) == 0

    def is_sub(self, x):
        return z3.And(self.bexp(x) == 0, self.frac(x) != 0)

    def is_normal(self, x):
        return z3.And(self.bexp(x) != 0, self.bexp(x) != (1 << self.E) - 1)

    def canon(self, x):
        """A bit pattern as an SMT-LIB float: every NaN is the one NaN."""
        return z3.If(self.is_nan(x), self.nan, x)

    def sig(self, x):
        """The integer significand (M+1 bits, hidden bit included) of a finite x."""
        hidden = z3.If(self.bexp(x) != 0, _bv(1, 1), _bv(0, 1))
        return z3.Concat(hidden, self.frac(x))

    def exp(self, x):
        """The exponent of x's last place (a signed bit-vector of width ``we``)."""
        be = _zext(self.bexp(x), self.we)
        be = z3.If(be == 0, _bv(1, self.we), be)
        return be - (self.bias + self.M)

    def inf(self, s):
        return z3.Concat(z3.If(s, _bv(1, 1), _bv(0, 1)), _bv(((1 << self.E) - 1) << self.M, self.n - 1))

    def zero(self, s):
        return z3.Concat(z3.If(s, _bv(1, 1), _bv(0, 1)), _bv(0, self.n - 1))

    # -- rounding --------------------------------------------------------------------------
    def round(self, s, m, e, sticky=None):
        """The float nearest (ties to even) to (−1)^s·(m + δ)·2^e, where m is an unsigned
        bit-vector, e a signed one of width ``we`` and δ ∈ (0, 1) iff ``sticky``.  The caller
        guarantees that when ``sticky`` holds, m has at least M+3 significant bits (so the
        sticky bit lies below the rounding position).

        m is normalised (its leading bit moved to the top, in log-depth stages); a normal
        result then keeps the top M+1 bits, the next is the rounding bit and the rest are
        sticky — fixed positions, no shifter.  Only a subnormal result shifts, right, by
        at most M+2 places (further, every bit is below the rounding bit: the result is 0),
        the bits shifted out joining the sticky bit."""
        E, M, we = self.E, self.M, e.size()
        w = m.size()
        if w < M + 3:  # room for the kept bits, the rounding bit and one below
            m = z3.Concat(m, _bv(0, M + 3 - w))
            e = e - (M + 3 - w)
            w = M + 3
        zero = m == 0
        n, lz = _normalise(m, we)
        q0 = e - lz + (w - 1 - M)  # the exponent of the result's last place, if normal
        sub = q0 < self.emin
        sh = self.emin - q0
        cap = M + 2
        sh = z3.If(sub, z3.If(sh > cap, _bv(cap, we), sh), _bv(0, we))
        W = w + cap
        t = _shift(z3.Concat(n, _bv(0, cap)), sh, cap, left=False)
        n = z3.Extract(W - 1, cap, t)
        kept = z3.Extract(w - 1, w - 1 - M, n)
        rbit = z3.Extract(w - 2 - M, w - 2 - M, n) == 1
        lost = [z3.Extract(w - 3 - M, 0, n) != 0, z3.Extract(cap - 1, 0, t) != 0]
        if sticky is not None:
            lost.append(sticky)
        below = z3.Or(*lost)
        q = z3.If(sub, _bv(self.emin, we), q0)
        inc = self.increment(rbit, below, z3.Extract(0, 0, kept) == 1)
        mr = _zext(kept, M + 2) + z3.If(inc, _bv(1, M + 2), _bv(0, M + 2))
        carry = mr == (1 << (M + 1))
        mr = z3.If(carry, _bv(1 << M, M + 2), mr)
        q = z3.If(carry, q + 1, q)
        normal = z3.UGE(mr, 1 << M)
        be = q + (self.bias + M)  # the biased exponent when normal
        over = z3.And(normal, be >= (1 << E) - 1)
        bits = z3.Concat(z3.If(s, _bv(1, 1), _bv(0, 1)),
                         z3.If(normal, z3.Extract(E - 1, 0, be), _bv(0, E)),
                         z3.Extract(M - 1, 0, mr))
        fin = z3.If(over, self.inf(s), bits)
        if sticky is None:
            return z3.If(zero, self.zero(s), fin)
        return z3.If(z3.And(zero, z3.Not(sticky)), self.zero(s), fin)

    @staticmethod
    def increment(half, below, odd):
        """Round up: the cut part is above half an ulp, or exactly half and the kept part odd."""
        return z3.And(half, z3.Or(below, odd))

    # -- operations ------------------------------------------------------------------------
    def mul(self, a, b):
        s = z3.Xor(self.sign(a), self.sign(b))
        m = z3.ZeroExt(self.M + 1, self.sig(a)) * z3.ZeroExt(self.M + 1, self.sig(b))
        fin = self.round(s, m, self.exp(a) + self.exp(b))
        nan = z3.Or(self.is_nan(a), self.is_nan(b), z3.And(self.is_inf(a), self.is_zero(b)),
                    z3.And(self.is_zero(a), self.is_inf(b)))
        inf = z3.Or(self.is_inf(a), self.is_inf(b))
        zero = z3.Or(self.is_zero(a), self.is_zero(b))
        return z3.If(nan, self.nan, z3.If(inf, self.inf(s), z3.If(zero, self.zero(s), fin)))

    def div(self, a, b):
        M = self.M
        K = 2 * M + 3  # quotient >= 2^(K-M-1) = 2^(M+2): M+3 significant bits
        s = z3.Xor(self.sign(a), self.sign(b))
        w = 3 * M + 4
        num = z3.ZeroExt(w - (M + 1), self.sig(a)) << K
        den = z3.ZeroExt(w - (M + 1), self.sig(b))
        quo, rem = z3.UDiv(num, den), z3.URem(num, den)
        fin = self.round(s, quo, self.exp(a) - self.exp(b) - K, rem != 0)
        nan = z3.Or(self.is_nan(a), self.is_nan(b), z3.And(self.is_inf(a), self.is_inf(b)),
                    z3.And(self.is_zero(a), self.is_zero(b)))
        inf = z3.Or(self.is_inf(a), self.is_zero(b))
        zero = z3.Or(self.is_zero(a), self.is_inf(b))
        return z3.If(nan, self.nan, z3.If(inf, self.inf(s), z3.If(zero, self.zero(s), fin)))

    def add(self, a, b):
        """a + b, aligned to the operand of the larger exponent e_x with three guard bits and
        a sticky bit jammed into the last place (the classic adder, argued here).  Units of
        2^(e_x−3): X = m_x·8, the other operand's exact value Y + f (Y an integer, f in
        [0, 1) the part shifted out), and Y' = Y | [f > 0].  If f = 0, nothing changes.  If
        f > 0, then d = e_x − e_y >= 4, so x is normal (m_x >= 2^M) and |Y + f| < 2^M:
        the exact sum T has |T| > 2^(M+2), so the result's last place is at bit 2 or above
        and its rounding bit at bit 1 or above.  T and X ± Y' then agree on every bit from
        bit 1 up (of ⌊|T|⌋), and both have something nonzero below bit 1 (f, or bit 0 of
        X ± Y', which is 1): they round alike.  A shift beyond M+4 places leaves Y = 0
        and f > 0 iff y != 0."""
        M = self.M
        G = 3
        swap = self.exp(a) < self.exp(b)
        x, y = z3.If(swap, b, a), z3.If(swap, a, b)
        ex, ey = self.exp(x), self.exp(y)
        mx, my = self.sig(x), self.sig(y)
        d = ex - ey  # >= 0
        cap = M + G + 1  # a shift this far moves all of my·8 below the kept bits
        d = z3.If(d > cap, _bv(cap, self.we), d)
        t = _shift(z3.Concat(my, _bv(0, G + cap)), d, cap, left=False)
        Y = z3.Extract(M + G + cap, cap, t)
        sticky = z3.Extract(cap - 1, 0, t) != 0
        Y = Y | z3.If(sticky, _bv(1, M + 1 + G), _bv(0, M + 1 + G))
        W = M + G + 3  # |X ± Y| < 2^(M+2+G): signed room
        X = _zext(z3.Concat(mx, _bv(0, G)), W)
        Y = _zext(Y, W)
        X = z3.If(self.sign(x), -X, X)
        Y = z3.If(self.sign(y), -Y, Y)
        S = X + Y
        neg = S < 0
        mag = z3.If(neg, -S, S)
        fin = z3.If(S == 0, self.zero(z3.And(self.sign(a), self.sign(b))), self.round(neg, mag, ex - G))
        nan = z3.Or(self.is_nan(a), self.is_nan(b),
                    z3.And(self.is_inf(a), self.is_inf(b), self.sign(a) != self.sign(b)))
        return z3.If(nan, self.nan, z3.If(self.is_inf(a), a, z3.If(self.is_inf(b), b, fin)))

    def neg(self, a):
        return z3.If(self.is_nan(a), self.nan, a ^ _bv(1 << (self.n - 1), self.n))

    def abs(self, a):
        return z3.If(self.is_nan(a), self.nan, a & _bv((1 << (self.n - 1)) - 1, self.n))

    def key(self, a):
        """A signed bit-vector ordering the non-NaN floats as their values (−0 = +0)."""
        mag = z3.ZeroExt(1, z3.Extract(self.n - 2, 0, a))
        return z3.If(self.sign(a), -mag, mag)

    def lt(self, a, b):
        return z3.And(z3.Not(self.is_nan(a)), z3.Not(self.is_nan(b)), self.key(a) < self.key(b))

    def leq(self, a, b):
        return z3.And(z3.Not(self.is_nan(a)), z3.Not(self.is_nan(b)), self.key(a) <= self.key(b))

    def feq(self, a, b):
        return z3.And(z3.Not(self.is_nan(a)), z3.Not(self.is_nan(b)), self.key(a) == self.key(b))

    def convert(self, src: "FloatBV", a):
        """a (a float of ``src``'s format) rounded once to this format."""
        e = _sext(src.exp(a), max(src.we, self.we))  # wide enough for both formats' exponents
        fin = self.round(src.sign(a), src.sig(a), e)
        return z3.If(src.is_nan(a), self.nan, z3.If(src.is_inf(a), self.inf(src.sign(a)),
                                                   z3.If(src.is_zero(a), self.zero(src.sign(a)), fin)))


_RNE = {z3.Z3_OP_FPA_RM_NEAREST_TIES_TO_EVEN}


class Translator:
    """Rewrites Z3 terms over floats into terms over bit-vectors (memoised over the DAG)."""

    def __init__(self):
        self.memo: dict = {}
        self.formats: dict = {}
        self.funcs: dict = {}

    def fmt(self, sort) -> FloatBV:
        key = (sort.ebits(), sort.sbits() - 1)
        if key not in self.formats:
            self.formats[key] = FloatBV(*key)
        return self.formats[key]

    def sort_of(self, s):
        if s.kind() == z3.Z3_FLOATING_POINT_SORT:
            return z3.BitVecSort(s.ebits() + s.sbits())
        if s.kind() == z3.Z3_ROUNDING_MODE_SORT:
            raise Unsupported("a rounding mode as a value")
        return s

    def __call__(self, t):
        stack = [t]
        memo = self.memo
        while stack:
            u = stack[-1]
            k = u.get_id()
            if k in memo:
                stack.pop()
                continue
            pending = [c for c in u.children() if c.get_id() not in memo]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            memo[k] = self.node(u, [memo[c.get_id()] for c in u.children()])
        return memo[t.get_id()]

    def _rne(self, u):
        if u.decl().kind() not in _RNE:
            raise Unsupported(f"rounding mode {u.sexpr()}: only roundNearestTiesToEven is encoded")

    def node(self, u, a):
        if z3.is_quantifier(u):
            raise Unsupported("a quantifier")
        d = u.decl()
        k = d.kind()
        s = u.sort()
        if z3.is_fprm(u) and not a:
            return u  # a rounding-mode constant, checked by its operation
        ch = u.children()
        if not z3.is_fp(u) and k != z3.Z3_OP_UNINTERPRETED and not any(z3.is_fp(c) for c in ch):
            if all(x.eq(c) for x, c in zip(a, ch)):
                return u  # no float below: the node as it is
            return d(*a)  # a bit-vector or Boolean node over translated children
        if k == z3.Z3_OP_FPA_NUM:
            return self.fmt(s).canon(_bv(z3.simplify(z3.fpToIEEEBV(u)).as_long(), s.ebits() + s.sbits()))
        if k in (z3.Z3_OP_FPA_PLUS_INF, z3.Z3_OP_FPA_MINUS_INF, z3.Z3_OP_FPA_NAN, z3.Z3_OP_FPA_PLUS_ZERO,
                 z3.Z3_OP_FPA_MINUS_ZERO):
            f = self.fmt(s)
            return {z3.Z3_OP_FPA_PLUS_INF: f.inf(False), z3.Z3_OP_FPA_MINUS_INF: f.inf(True),
                    z3.Z3_OP_FPA_NAN: f.nan, z3.Z3_OP_FPA_PLUS_ZERO: f.zero(False),
                    z3.Z3_OP_FPA_MINUS_ZERO: f.zero(True)}[k]
        if k == z3.Z3_OP_FPA_FP:  # (fp sign exponent significand)
            return self.fmt(s).canon(z3.Concat(*a))
        if k == z3.Z3_OP_FPA_TO_FP:
            f = self.fmt(s)
            if len(ch) == 1 and z3.is_bv(ch[0]):
                return f.canon(a[0])
            if len(ch) == 2 and z3.is_fprm(ch[0]) and z3.is_fp(ch[1]):
                self._rne(ch[0])
                return f.convert(self.fmt(ch[1].sort()), a[1])
            raise Unsupported(f"conversion {d.name()} from {ch[-1].sort()}")
        if k in (z3.Z3_OP_FPA_ADD, z3.Z3_OP_FPA_SUB, z3.Z3_OP_FPA_MUL, z3.Z3_OP_FPA_DIV):
            self._rne(ch[0])
            f = self.fmt(s)
            x, y = a[1], a[2]
            if k == z3.Z3_OP_FPA_ADD:
                return f.add(x, y)
            if k == z3.Z3_OP_FPA_SUB:
                return f.add(x, f.neg(y))
            return f.mul(x, y) if k == z3.Z3_OP_FPA_MUL else f.div(x, y)
        if k == z3.Z3_OP_FPA_NEG:
            return self.fmt(s).neg(a[0])
        if k == z3.Z3_OP_FPA_ABS:
            return self.fmt(s).abs(a[0])
        if k in (z3.Z3_OP_FPA_EQ, z3.Z3_OP_FPA_LT, z3.Z3_OP_FPA_LE, z3.Z3_OP_FPA_GT, z3.Z3_OP_FPA_GE):
            f = self.fmt(ch[0].sort())
            x, y = a
            return {z3.Z3_OP_FPA_EQ: lambda: f.feq(x, y), z3.Z3_OP_FPA_LT: lambda: f.lt(x, y),
                    z3.Z3_OP_FPA_LE: lambda: f.leq(x, y), z3.Z3_OP_FPA_GT: lambda: f.lt(y, x),
                    z3.Z3_OP_FPA_GE: lambda: f.leq(y, x)}[k]()
        preds = {z3.Z3_OP_FPA_IS_NAN: "is_nan", z3.Z3_OP_FPA_IS_INF: "is_inf", z3.Z3_OP_FPA_IS_ZERO: "is_zero",
                 z3.Z3_OP_FPA_IS_NORMAL: "is_normal", z3.Z3_OP_FPA_IS_SUBNORMAL: "is_sub"}
        if k in preds:
            return getattr(self.fmt(ch[0].sort()), preds[k])(a[0])
        if k in (z3.Z3_OP_FPA_IS_NEGATIVE, z3.Z3_OP_FPA_IS_POSITIVE):
            f = self.fmt(ch[0].sort())
            neg = f.sign(a[0]) if k == z3.Z3_OP_FPA_IS_NEGATIVE else z3.Not(f.sign(a[0]))
            return z3.And(z3.Not(f.is_nan(a[0])), neg)
        if k == z3.Z3_OP_EQ:
            return a[0] == a[1]
        if k == z3.Z3_OP_DISTINCT:
            return z3.Distinct(*a)
        if k == z3.Z3_OP_ITE:
            return z3.If(a[0], a[1], a[2])
        if k == z3.Z3_OP_UNINTERPRETED:
            if z3.is_fprm(u):
                raise Unsupported("an uninterpreted rounding mode")
            if d.arity() == 0:
                if z3.is_fp(u):  # a free float: its canonical bit pattern
                    v = z3.BitVec(f"{d.name()}!fp", s.ebits() + s.sbits())
                    return self.fmt(s).canon(v)
                return u
            key = d.name()
            if key not in self.funcs:
                doms = [self.sort_of(d.domain(i)) for i in range(d.arity())]
                self.funcs[key] = z3.Function(f"{d.name()}!bv", *doms, self.sort_of(d.range()))
            r = self.funcs[key](*a)
            return self.fmt(s).canon(r) if z3.is_fp(u) else r
        raise Unsupported(f"{d.name()}")


def to_bitvectors(text: str) -> str:
    """The SMT-LIB text of a QF_FPBV query, rewritten over bit-vectors only (declarations
    and assertions, no check-sat).  Raises :class:`Unsupported`."""
    assertions = z3.parse_smt2_string(text)
    tr = Translator()
    s = z3.Solver()
    for f in assertions:
        s.add(tr(f))
    return s.sexpr()
