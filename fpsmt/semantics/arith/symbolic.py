"""The Z3 interpretation: values are Z3 floating-point terms (in NumPy object arrays).

A float variable is declared as a bit-vector ``b`` of the format's width and used as
``((_ to_fp E M+1) b)``: models then give bit patterns directly, and the fields of a
variable are plain extracts of ``b``.  Fields of any other term are read through an
auxiliary bit-vector ``a`` with the side constraint ``(= ((_ to_fp E M+1) a) t)``
(SMT-LIB ``=`` on floats is bit identity up to NaN).  Every solver that checks terms
built here must also assert :attr:`Z3Arith.side`.

Only SMT-LIB 2 standard FP operations are used, so the same formula can be handed to
cvc5 and Bitwuzla as text.
"""

from __future__ import annotations

import numpy as np
import z3

from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format
from fpsmt.semantics.arith import symbolic_functions
from fpsmt.semantics.arith.base import INT_BITS, UNINTERPRETABLE, Arith


def sort_of(fmt: Format):
    """Z3's ``FPSort(E, M + 1)``; Z3 needs M >= 2 (its sbits >= 3)."""
    if fmt.M < 2:
        raise InputError(f"{fmt.name}: Z3's floating-point theory needs at least 2 mantissa bits")
    return z3.FPSort(fmt.E, fmt.M + 1)


def _applies(t, names) -> bool:
    """Whether the term applies any of the functions ``names`` anywhere."""
    seen, stack = set(), [t]
    while stack:
        u = stack.pop()
        if u.get_id() in seen or not z3.is_app(u):
            continue
        seen.add(u.get_id())
        if u.decl().name() in names:
            return True
        stack.extend(u.children())
    return False


def obj(x):
    """A 0-d object array holding one term (NumPy would try to iterate some terms)."""
    out = np.empty((), dtype=object)
    out[()] = x
    return out


def _vec(fn, nin):
    u = np.frompyfunc(fn, nin, 1)

    def apply(*args):
        r = u(*args)
        return r if isinstance(r, np.ndarray) else obj(r)
    return apply


def _as_obj(v):
    return obj(v) if isinstance(v, z3.ExprRef) else np.asarray(v, dtype=object)


def smt_eq(a, b):
    """SMT-LIB ``=`` (structural equality) between two terms."""
    return z3.BoolRef(z3.Z3_mk_eq(a.ctx_ref(), a.as_ast(), b.as_ast()), a.ctx)


#: the least fraction width (M) at which a product by a symbolic power of two is written
#: by scaling rather than by fp.mul (Z3Arith._mul1)
SCALE_FROM_M = 16


class Z3Arith(Arith):
    """Floating-point terms of Z3's FP theory."""

    def __init__(self, fmt: Format, prefix: str = "", uninterpreted=(), anchors=()):
        super().__init__(fmt)
        bad = set(uninterpreted) - UNINTERPRETABLE
        if bad:
            raise InputError(f"cannot leave {', '.join(sorted(bad))} uninterpreted "
                             f"(only {', '.join(sorted(UNINTERPRETABLE))})")
        self.sort = sort_of(fmt)
        self.rm = z3.RNE()
        self.side: list = []  # definitional constraints of auxiliary variables
        self.vars: dict = {}  # name -> bit-vector variable
        self._bv_of: dict = {}  # term id -> (the term, the bit-vector it was built from): held, so
        # that its id is not reused by another term while this interpretation lives
        self._aux = 0
        self._prefix = prefix
        self._consts: dict = {}
        self._const_bits: dict = {}  # term id -> bit pattern, for the constants of const1
        self._pow2: dict = {}  # term id -> (the term, its exponent k) of a term made by pow2 (2^k);
        # holding the term keeps its id from being reused by another while this interpretation lives
        rm = self.rm
        if "add" in uninterpreted:  # ⊕ as any binary function of two floats (Claim.uninterpreted)
            fa = z3.Function(self._prefix + "fpsmt_add", self.sort, self.sort, self.sort)
            self._add = _vec(lambda a, b: fa(a, b), 2)
        else:
            self._add = _vec(self._add1, 2)
        if "mul" in uninterpreted:  # ⊗ as any binary function of two floats (Claim.uninterpreted)
            f = z3.Function(self._prefix + "fpsmt_mul", self.sort, self.sort, self.sort)
            self._mul = _vec(lambda a, b: f(a, b), 2)
        else:
            self._mul = _vec(self._mul1, 2)
        self._act = {} if "act" in uninterpreted else None  # known function key -> z3 Function
        self._neg = _vec(z3.fpNeg, 1)
        self._div = _vec(lambda a, b: z3.fpDiv(rm, a, b), 2)
        self.lazy: list = []  # lazily refined known-function applications (see symbolic_functions)
        self.applied: dict = {}  # (function key, argument id) -> (argument, value) of those applications
        self.anchors = tuple(fmt.canonical(int(b)) for b in anchors)  # patterns (Claim.anchors)
        self.facts: list = []  # true facts about them, added as the solver needs them
        self._lt = _vec(z3.fpLT, 2)
        self._le = _vec(z3.fpLEQ, 2)
        self._eq = _vec(z3.fpEQ, 2)
        self._isnan = _vec(z3.fpIsNaN, 1)
        self._isinf = _vec(z3.fpIsInf, 1)
        self._iszero = _vec(z3.fpIsZero, 1)
        self._sign = _vec(z3.fpIsNegative, 1)
        self._if = _vec(z3.If, 3)
        self._and = _vec(lambda a, b: z3.And(a, b), 2)
        self._or = _vec(lambda a, b: z3.Or(a, b), 2)
        self._not = _vec(z3.Not, 1)
        self._fields = _vec(self._fields1, 1)
        self._from_fields = _vec(self._from_fields1, 3)
        self._next_up = _vec(self._next_up1, 1)

    # ------------------------------------------------------------ variables
    def bv_term(self, bv):
        t = z3.fpBVToFP(bv, self.sort)
        self._bv_of[t.get_id()] = (t, bv)
        return t

    def var(self, name: str):
        """A float variable: returns its value (0-d object array); its bits are ``self.vars[name]``."""
        bv = z3.BitVec(self._prefix + name, self.fmt.nbits)
        self.vars[name] = bv
        return obj(self.bv_term(bv))

    def int_var(self, name: str):
        """An integer variable: a signed bit-vector of INT_BITS (registered in ``self.vars``)."""
        bv = z3.BitVec(self._prefix + name, INT_BITS)
        self.vars[name] = bv
        return bv

    # ------------------------------------------------------------ queries
    def render(self, constraints) -> str:
        """SMT-LIB 2 text asserting ``constraints`` with every side constraint and fact."""
        s = z3.Solver()
        s.add(*constraints, *self.side, *self.facts)
        return s.sexpr()

    def lazy_variables(self) -> dict:
        """Bit-vectors a model must give so that lazily applied functions can be refined."""
        return symbolic_functions.lazy_variables(self)

    def refine(self, model: dict) -> int:
        """Add true values where a model disagrees with a lazily applied function; how many."""
        return symbolic_functions.refine(self, model) if self.lazy else 0

    def truth(self, b):
        v = np.asarray(b, dtype=object)
        return np.vectorize(lambda t: z3.is_true(z3.simplify(t)), otypes=[bool])(v)

    def to_bits(self, a):
        """The patterns of ground terms (folded by Z3's simplifier; NaN canonical)."""
        v = np.asarray(a, dtype=object)
        return np.vectorize(lambda t: fold_bits(self.fmt, t), otypes=[object])(v)

    def fold(self, t) -> int:
        return fold_bits(self.fmt, t)

    def const1(self, bits: int):
        bits = self.fmt.canonical(self.fmt.check_bits(int(bits)))
        t = self._consts.get(bits)
        if t is None:
            s, e, f = self.fmt.fields(bits)
            t = z3.fpFP(z3.BitVecVal(s, 1), z3.BitVecVal(e, self.fmt.E), z3.BitVecVal(f, self.fmt.M))
            self._consts[bits] = t
            self._const_bits[t.get_id()] = bits
        return t

    # ------------------------------------------------------------ paired runs (fpsmt.proof.approx)
    def paired_operations(self, alone, whole, absent=()) -> list:
        """Walk the terms of two runs of one program side by side (``alone``, ``whole``:
        lists of 0-d values; ``absent``: terms the whole adds to some of its sums):
        ("mul" or "add", (a0, a1), (w0, w1)) for every pair of uninterpreted ⊗ / ⊕
        applications, ("absent", x, z) where the whole adds z to x and the alone run does
        not.  Empty when no operation is uninterpreted.  Terms as 0-d values."""
        names = {self._prefix + "fpsmt_mul": "mul", self._prefix + "fpsmt_add": "add"}

        def op(t):
            return names.get(t.decl().name()) if z3.is_app(t) else None
        def term(v):
            return np.asarray(v, dtype=object)[()]
        terms = [(term(a), term(w)) for a, w in zip(alone, whole)]
        if not any(_applies(a, names) for a, _ in terms):
            return []
        absent_ids = {term(z).get_id() for z in absent}
        out, seen = [], set()

        def go(a, w):
            key = (a.get_id(), w.get_id())
            if key in seen or a.eq(w) or not (z3.is_app(a) and z3.is_app(w)):
                return
            seen.add(key)
            if op(w) == "add" and w.arg(1).get_id() in absent_ids and not (
                    op(a) == "add" and a.arg(1).get_id() in absent_ids):
                out.append(("absent", obj(w.arg(0)), obj(w.arg(1))))
                go(a, w.arg(0))
                return
            if a.decl() != w.decl() or a.num_args() != w.num_args():
                return
            if op(a):
                out.append((op(a), (obj(a.arg(0)), obj(a.arg(1))), (obj(w.arg(0)), obj(w.arg(1)))))
            for i in range(a.num_args()):
                go(a.arg(i), w.arg(i))
        for a, w in terms:
            go(a, w)
        return out

    # ------------------------------------------------------------ exact products by constants
    def _mul1(self, a, b):
        """a ⊗ b (RNE), written without a multiplier where one factor is a constant whose
        products are exact: x ⊗ 1 = x, x ⊗ −1 = −x, x ⊗ ±0 = a zero of sign s(x) xor s(0)
        for finite x and NaN otherwise, x ⊗ NaN = NaN — IEEE 754 identities (the exact
        product is representable, so RNE returns it), checked against fp.mul in every
        format by tests/test_arith.py.  A factor that is an if-then-else of such
        constants (σ'(z) of ReLU) is distributed over its branches.  A factor made by
        :meth:`pow2` (2^k for a symbolic k), or its negation, scales the other's exponent
        instead (:meth:`_scaled`: RNE(x · 2^k) from x's fields, rounding only where the
        result is subnormal) in formats of at least SCALE_FROM_M fraction bits, where a
        multiplier is large (float32, float64; in float8_e4m3 the theorem's row took 13%
        longer with it); an if-then-else of those and the constants above is distributed
        too.  Anything else is fp.mul."""
        for scale in (False, True) if self.fmt.M >= SCALE_FROM_M else (False,):
            for x, c in ((a, b), (b, a)):
                r = self._by_special(x, c, scale)
                if r is not None:
                    return r
        return z3.fpMul(self.rm, a, b)

    def _pow2_exponent(self, c):
        entry = self._pow2.get(c.get_id())
        return entry[1] if entry is not None and entry[0].eq(c) else None

    def _by_special(self, x, c, scale):
        """x ⊗ c without a multiplier, or None: c one of the constants :meth:`_by_const`
        knows, or (with ``scale``) 2^k made by :meth:`pow2` or its negation
        (:meth:`_scaled`), or an if-then-else whose branches are all such factors
        (distributed over them)."""
        r = self._by_const(x, c)
        if r is not None:
            return r
        if scale:
            k = self._pow2_exponent(c)
            if k is not None:
                return self._scaled(x, k)
            if z3.is_app_of(c, z3.Z3_OP_FPA_NEG) and self._pow2_exponent(c.arg(0)) is not None:
                return z3.fpNeg(self._scaled(x, self._pow2_exponent(c.arg(0))))
        if z3.is_app_of(c, z3.Z3_OP_ITE):
            hi, lo = self._by_special(x, c.arg(1), scale), self._by_special(x, c.arg(2), scale)
            if hi is not None and lo is not None:
                return z3.If(c.arg(0), hi, lo)
        return None

    def _scaled(self, x, k):
        """x ⊗ 2^k (RNE) for a symbolic k as :meth:`pow2` makes it, without a multiplier:
        2^k is +inf above e_max and +0 below the least subnormal (x ⊗ inf, x ⊗ +0);
        otherwise the exact value x · 2^k has x's significand and sign, its exponent
        moved by k: infinite beyond e_max, a normal float from x's normalized significand,
        or below e_min that significand shifted right and rounded to nearest, ties to
        even (a carry into the exponent field is the least normal).  NaN, ±inf and ±0
        are kept.  Checked against fp.mul by tests/test_arith.py."""
        f = self.fmt
        M, E = f.M, f.E
        W = M + 4  # the significand's bits, shifted: a normalized one, the dropped bits, the carry
        C = lambda n: z3.BitVecVal(n, INT_BITS)  # noqa: E731
        V = lambda n: z3.BitVecVal(n, W)  # noqa: E731
        nan, inf = self.const1(f.nan_bits), self.const1(f.inf_bits())
        times_inf = z3.If(z3.Or(z3.fpIsNaN(x), z3.fpIsZero(x)), nan, z3.If(z3.fpIsNegative(x), z3.fpNeg(inf), inf))
        s, e, m = self._fields1(x)
        sub = e == 0
        sig = z3.Concat(z3.If(sub, z3.BitVecVal(0, 1), z3.BitVecVal(1, 1)), m)  # M + 1 bits
        lz = V(M + 1)
        for i in range(M + 1):  # the highest set bit decides: 0 for a normal x
            lz = z3.If(z3.Extract(i, i, sig) == 1, V(M - i), lz)
        lz_int = z3.ZeroExt(INT_BITS - W, lz) if W < INT_BITS else z3.Extract(INT_BITS - 1, 0, lz)  # lz <= M + 1
        te = z3.If(sub, C(f.e_min), z3.ZeroExt(INT_BITS - E, e) - C(f.bias)) - lz_int
        t = te + k  # x · 2^k = 1.f · 2^t
        nsig = z3.ZeroExt(W - (M + 1), sig) << lz  # leading one at bit M
        normal = z3.Concat(s, z3.Extract(E - 1, 0, t + C(f.bias)), z3.Extract(M - 1, 0, nsig))
        sh = C(f.e_min) - t
        sh = z3.If(sh > C(M + 2), C(M + 2), sh)  # further right, every value rounds to 0 alike
        sh = z3.Extract(W - 1, 0, sh) if W <= INT_BITS else z3.ZeroExt(W - INT_BITS, sh)
        q = z3.LShR(nsig, sh)
        rest = nsig & ((V(1) << sh) - V(1))
        half = V(1) << (sh - V(1))
        q = q + z3.If(self._round_up(rest, half, q), V(1), V(0))  # at most 2^M: the least normal's pattern
        subnormal = z3.Concat(s, z3.ZeroExt(E + M - W, q) if E + M > W else z3.Extract(E + M - 1, 0, q))
        big = z3.If(s == 1, z3.fpNeg(inf), inf)
        moved = z3.If(t > C(f.e_max), big, z3.fpBVToFP(z3.If(t >= C(f.e_min), normal, subnormal), self.sort))
        kept = z3.If(z3.Or(z3.fpIsNaN(x), z3.fpIsInf(x), z3.fpIsZero(x)), x, moved)
        return z3.If(k > C(f.e_max), times_inf, z3.If(k < C(f.e_min - f.M), self._by_const(x, self.const1(0)), kept))

    @staticmethod
    def _round_up(rest, half, q):
        """RNE's carry: the dropped bits ``rest`` above half a unit, or at half with ``q`` odd."""
        return z3.Or(z3.UGT(rest, half), z3.And(rest == half, z3.Extract(0, 0, q) == 1))

    def _by_const(self, x, c):
        """x ⊗ c for a constant c of the identities above (not an if-then-else: see
        :meth:`_by_special`), or None."""
        bits = self._const_bits.get(c.get_id())
        if bits is None:
            return None
        f = self.fmt
        if bits == f.one_bits:
            return x
        if bits == f.one_bits | f.sign_bit:
            return z3.fpNeg(x)
        if bits == f.nan_bits:
            return self.const1(f.nan_bits)
        if bits in (0, f.sign_bit):
            neg = z3.fpIsNegative(x) if bits == 0 else z3.Not(z3.fpIsNegative(x))
            return z3.If(z3.Or(z3.fpIsNaN(x), z3.fpIsInf(x)), self.const1(f.nan_bits),
                         z3.If(neg, self.const1(f.sign_bit), self.const1(0)))
        return None

    def _add1(self, a, b):
        """a ⊕ b (RNE), written without an adder where one term is the constant −0:
        x ⊕ −0 = x for every x (−0 is ⊕'s exact identity: +0 ⊕ −0 = +0, −0 ⊕ −0 = −0,
        NaN and infinities pass through), checked against fp.add in every format by
        tests/test_arith.py.  Not +0, which turns −0 into +0.  Anything else is fp.add."""
        neg0 = self.fmt.sign_bit
        if self._const_bits.get(b.get_id()) == neg0:
            return a
        if self._const_bits.get(a.get_id()) == neg0:
            return b
        return z3.fpAdd(self.rm, a, b)

    def const(self, bits):
        arr = np.asarray(bits, dtype=object)
        return _vec(self.const1, 1)(arr)

    # ------------------------------------------------------------ operations
    def add(self, a, b):
        return self._add(a, b)

    def mul(self, a, b):
        return self._mul(a, b)

    def neg(self, a):
        return self._neg(a)

    def div(self, a, b):
        return self._div(a, b)

    def apply(self, fn, a):
        if getattr(self, "_parent", None) is not None and self.fmt.nbits > symbolic_functions.TABLE_MAX_BITS:
            raise InputError(f"{fn.key} in {self.fmt.name} inside a {self._parent.fmt.name} query: a function "
                             "refined lazily is not encoded in a second format")
        if self._act is not None:  # uninterpreted (Claim.uninterpreted "act"): any function of the
            # argument's bit pattern, one per key (over bit-vectors, so that Ackermann's reduction
            # leaves a pure bit-vector query: fpsmt.proof.solve.backends.Z3_UF_TACTIC)
            if fn.key not in self._act:
                name = "fpsmt_act_" + "".join(c if c.isalnum() else "_" for c in fn.key)
                bv = z3.BitVecSort(self.fmt.nbits)
                self._act[fn.key] = z3.Function(self._prefix + name, bv, bv)
            f = self._act[fn.key]
            return _vec(lambda t: z3.fpBVToFP(f(self.bits_of(t)), self.sort), 1)(a)
        return _vec(lambda t: symbolic_functions.apply(self, fn, t), 1)(a)

    def lt(self, a, b):
        return self._lt(a, b)

    def le(self, a, b):
        return self._le(a, b)

    def eq(self, a, b):
        return self._eq(a, b)

    def is_nan(self, a):
        return self._isnan(a)

    def is_inf(self, a):
        return self._isinf(a)

    def is_zero(self, a):
        return self._iszero(a)

    def signbit(self, a):
        return self._sign(a)  # fp.isNegative: true for -0 and -inf, false for NaN

    def where(self, cond, a, b):
        return self._if(cond, a, b)

    def and_(self, a, b):
        return self._and(a, b)

    def or_(self, a, b):
        return self._or(a, b)

    def not_(self, a):
        return self._not(a)

    # ------------------------------------------------------------ fields
    def bits_of(self, t):
        """A bit-vector equal to the pattern of term ``t`` (unspecified for NaN)."""
        entry = self._bv_of.get(t.get_id())
        bv = entry[1] if entry is not None and entry[0].eq(t) else None
        if bv is None:
            v = z3.simplify(t)
            if z3.is_fp_value(v):  # a ground term: its pattern is a constant
                return z3.BitVecVal(fold_bits(self.fmt, v), self.fmt.nbits)
            self._aux += 1
            bv = z3.BitVec(f"{self._prefix}aux!{self._aux}", self.fmt.nbits)
            self.side.append(smt_eq(z3.fpBVToFP(bv, self.sort), t))
            self._bv_of[t.get_id()] = (t, bv)
        return bv

    def _fields1(self, t):
        f = self.fmt
        b = self.bits_of(t)
        return (z3.Extract(f.nbits - 1, f.nbits - 1, b), z3.Extract(f.nbits - 2, f.M, b),
                z3.Extract(f.M - 1, 0, b))

    def fields(self, a):
        u = np.frompyfunc(self._fields1, 1, 3)
        return tuple(r if isinstance(r, np.ndarray) else obj(r) for r in u(a))

    def _from_fields1(self, s, e, m):
        f = self.fmt

        def bv(v, n):
            return v if isinstance(v, z3.BitVecRef) else z3.BitVecVal(int(v), n)
        return z3.fpFP(bv(s, 1), bv(e, f.E), bv(m, f.M))

    def from_fields(self, sign, exponent, fraction):
        return self._from_fields(_as_obj(sign), _as_obj(exponent), _as_obj(fraction))

    def _exact_product_sort(self):
        """A sort in which the product of two finite values of the format is exact."""
        f = self.fmt
        need = max(2 * f.e_max + 2, -2 * (f.e_min - f.M) + 2)
        E = 2
        while (1 << (E - 1)) - 1 < need:
            E += 1
        return z3.FPSort(E, 2 * (f.M + 1) + 1)

    def products_equal(self, a, b, c, d):
        wide = self._exact_product_sort()
        rm = self.rm

        def one(a, b, c, d):
            w = [z3.fpToFP(rm, t, wide) for t in (a, b, c, d)]
            fin = [z3.Not(z3.Or(z3.fpIsNaN(t), z3.fpIsInf(t))) for t in (a, b, c, d)]
            return z3.And(*fin, z3.fpEQ(z3.fpMul(rm, w[0], w[1]), z3.fpMul(rm, w[2], w[3])))
        return _vec(one, 4)(a, b, c, d)

    # ------------------------------------------------------------ integers
    def int_const(self, k):
        return z3.BitVecVal(int(k), INT_BITS)

    @staticmethod
    def _int(v):
        if isinstance(v, np.ndarray):
            v = v[()]
        return z3.BitVecVal(v, INT_BITS) if isinstance(v, int) else v

    def int_add(self, a, b):
        return self._int(a) + self._int(b)

    def int_sub(self, a, b):
        return self._int(a) - self._int(b)

    def int_neg(self, a):
        return -self._int(a)

    def int_cmp(self, op, a, b):
        a, b = self._int(a), self._int(b)
        return obj({"lt": lambda: a < b, "le": lambda: a <= b, "eq": lambda: a == b}[op]())  # signed

    def int_where(self, cond, a, b):
        c = cond[()] if isinstance(cond, np.ndarray) else cond
        return z3.If(c, self._int(a), self._int(b))

    def exponent(self, a):
        f = self.fmt
        _, e, _ = self.fields(a)
        e = e[()] if isinstance(e, np.ndarray) else e
        ew = z3.ZeroExt(INT_BITS - f.E, e)
        return z3.If(ew == 0, z3.BitVecVal(1, INT_BITS), ew) - z3.BitVecVal(f.bias, INT_BITS)

    def significand_odd(self, a):
        _, _, m = self.fields(a)
        m = m[()] if isinstance(m, np.ndarray) else m
        return obj(z3.Extract(0, 0, m) == 1)

    def _is_pow21(self, t):
        f = self.fmt
        s, e, m = self._fields1(t)
        one_bit = z3.And(m != 0, m & (m - 1) == 0)
        return z3.And(s == 0, e != (1 << f.E) - 1, z3.If(e == 0, one_bit, m == 0))

    def is_pow2(self, a):
        return _vec(self._is_pow21, 1)(a)

    def pow2(self, k):
        f = self.fmt
        k = self._int(k)
        C = lambda n: z3.BitVecVal(n, INT_BITS)  # noqa: E731
        normal = self._from_fields1(0, z3.Extract(f.E - 1, 0, k + C(f.bias)), 0)
        width = max(INT_BITS, f.M + 1)  # the shift must reach bit M − 1 (float64: bit 51)
        shift = z3.ZeroExt(width - INT_BITS, k - C(f.e_min - f.M))
        sub_frac = z3.Extract(f.M - 1, 0, z3.BitVecVal(1, width) << shift)
        subnormal = self._from_fields1(0, 0, sub_frac)
        r = z3.If(k > C(f.e_max), self.const1(f.inf_bits()),
                  z3.If(k >= C(f.e_min), normal, z3.If(k >= C(f.e_min - f.M), subnormal, self.const1(0))))
        self._pow2[r.get_id()] = (r, k)  # a product by r scales instead (_mul1)
        return obj(r)

    def _next_up1(self, t):
        f = self.fmt
        b = self.bits_of(t)
        n = f.nbits
        sign = z3.Extract(n - 1, n - 1, b) == 1
        r = z3.If(sign, b - 1, b + 1)
        r = z3.If(z3.fpIsZero(t), z3.BitVecVal(1, n), r)
        r = z3.If(z3.And(z3.fpIsInf(t), z3.Not(sign)), b, r)
        res = z3.fpBVToFP(r, self.sort)
        return z3.If(z3.fpIsNaN(t), self.const1(f.nan_bits), res)

    def next_up(self, a):
        return self._next_up(a)

    # ------------------------------------------------ other formats (wide accumulation)
    def _new_sibling(self, fmt: Format) -> "Z3Arith":
        """Terms of another sort in the same query: they share this interpretation's side
        constraints and facts (a solver that asserts this one's asserts the sibling's)."""
        sib = Z3Arith(fmt, prefix=self._prefix)
        sib.side, sib.facts = self.side, self.facts
        sib._parent = self
        return sib

    def convert(self, src: Arith, a):
        sort, rm = self.sort, self.rm
        return _vec(lambda t: z3.fpToFP(rm, t, sort), 1)(_as_obj(a))


def fold_bits(fmt: Format, t) -> int:
    """The bit pattern of a ground term, folded by Z3's simplifier (NaN canonical)."""
    v = z3.simplify(t)
    if not z3.is_fp_value(v):
        raise ValueError(f"term does not fold to a constant: {t}")
    if v.isNaN():
        return fmt.nan_bits
    return z3.simplify(z3.fpToIEEEBV(v)).as_long()


def model_bits(fmt: Format, model, bv) -> int:
    """A variable's bit pattern in a model (NaN canonical)."""
    return fmt.canonical(model.eval(bv, model_completion=True).as_long())
