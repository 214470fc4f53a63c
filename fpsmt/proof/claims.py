"""The claim language: ∃, ∀ and ∃∀ statements over the floats of a format.

A claim is data: named variables with domains, constraints, hypotheses and a goal,
written once as Python functions of a :class:`Scope`.  The engine evaluates the same
functions with Z3 terms (to solve) and with the executor (to replay a model), so a
statement cannot mean one thing to the solver and another to the replay.

Shapes (``Claim.kind``)::

    exists         ∃ v.  such_that(v)                     PROVED with a witness, or
                                                          REFUTED: no witness exists (UNSAT)
    forall         ∀ v.  given(v) → goal(v)               PROVED (the negation is UNSAT), or
                                                          REFUTED with a counterexample
    exists_forall  ∃ w.  such_that(w) ∧ ∀ u. given(w, u) → goal(w, u)
                   solved by a counterexample-guided loop (propose w, refute its ∀ part,
                   add the refutation, repeat); PROVED with w, REFUTED when no w survives
                   the refutations found (a proof that no witness exists), UNKNOWN when
                   the loop reaches its round limit.

Domains: :func:`Float` (a float of the claim's format, optionally finite, normal,
subnormal, nonzero, of a sign, in a closed range) and :func:`Int` (a bounded integer).
A symbolic network parameter is a Float variable passed to :meth:`Scope.run`.

Inside the functions, float values support ``+ - * unary- abs()`` (IEEE, RNE) and
``< <= > >=`` (IEEE); ``x.eq(y)`` is IEEE equality, ``x.same(y)`` bit identity (NaN
equal to NaN); predicates ``is_nan() is_inf() is_zero() is_finite() is_normal()
is_subnormal() is_negative() is_positive()``; ``next_up() next_down()``; booleans
combine with ``& | ~`` and ``implies``.  Python numbers and ``"0x…"`` strings are
constants; a number that the format cannot represent exactly is refused.

A claim may ``assume`` other claims by name: they must be proved first (in the same
format), the result records them, and :meth:`Scope.instance` instantiates an assumed
∀ claim at given terms as a hypothesis — big lemmas are proved in stages, then chained.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import numpy as np

from fpsmt.errors import InputError
from fpsmt.semantics.arith.base import INT_LIMIT, UNINTERPRETABLE
from fpsmt.semantics.formats import Format, pow2


# ------------------------------------------------------------------ domains
@dataclass(frozen=True)
class FloatDomain:
    finite: bool = False
    normal: bool = False
    subnormal: bool = False
    nonzero: bool = False
    sign: str | None = None  # "+" or "-" (the sign bit; with NaN excluded)
    lo: object = None  # bound (number, "0x…" pattern, or callable(fmt) -> either)
    hi: object = None
    not_nan: bool = False
    mag_lo: object = None  # |v| in [mag_lo, mag_hi] (both signs), bounds as for lo and hi
    mag_hi: object = None
    pow2: bool = False  # a positive power of two (subnormal ones included)

    kind = "float"


@dataclass(frozen=True)
class IntDomain:
    lo: object
    hi: object  # ints or callables(fmt) -> int

    kind = "int"


def Float(*, finite=False, normal=False, subnormal=False, nonzero=False, sign=None, range=None,
          not_nan=False, magnitude=None, pow2=False) -> FloatDomain:
    """A float of the claim's format.  ``range=(lo, hi)`` is a closed IEEE interval whose
    bounds are numbers, ``"0x…"`` patterns or functions of the format; ``magnitude=(lo,
    hi)`` the same for |v| (0 <= lo: both signs, e.g. ±[1, 2)); ``pow2``: a positive power
    of two (with a range, an enumeration takes only the powers in it)."""
    if sign not in (None, "+", "-"):
        raise InputError(f"sign must be '+' or '-', got {sign!r}")
    if normal and subnormal:
        raise InputError("a float cannot be both normal and subnormal")
    lo, hi = range if range is not None else (None, None)
    mlo, mhi = magnitude if magnitude is not None else (None, None)
    return FloatDomain(finite, normal, subnormal, nonzero, sign, lo, hi, not_nan, mlo, mhi, pow2)


def Int(lo, hi) -> IntDomain:
    """A bounded integer lo <= k <= hi (bounds may be functions of the format)."""
    return IntDomain(lo, hi)


Param = Float  # a symbolic network parameter is a float variable


def order_variables(net, prefix="perm") -> dict:
    """The integer variables a claim under ``order=any`` declares for ``net`` (one per
    position of every row and D^AD column of two or more terms, each in [0, n−1]):
    ``{**order_variables(net), …}`` in its variables, :meth:`Scope.any_order` in its
    functions."""
    from fpsmt.semantics.network import any_order_variables
    return {name: Int(0, n - 1) for name, (_, _, _, _, n) in any_order_variables(net, prefix).items()}


def choice_variables(net, sem) -> dict:
    """The variables a ∀ claim about one run of ``net`` declares for the choices a profile
    leaves open (``order=any``: :func:`order_variables`; ``activation=ulp:K``: one step in
    [−K, K] per hidden neuron for σ and for σ'); :meth:`Scope.chosen_run` reads them."""
    from fpsmt.semantics.network import ANY, ulp_variables
    from fpsmt.semantics.network import parse_semantics
    sem = parse_semantics(sem)
    out = dict(order_variables(net)) if sem.order == ANY else {}
    if sem.ulp_rows:
        out.update({n: Int(-sem.ulp, sem.ulp) for n in ulp_variables(net)})
    return out


# ------------------------------------------------------------------ claims
@dataclass
class Claim:
    name: str
    kind: str  # "exists" | "forall" | "exists_forall"
    witness: dict = field(default_factory=dict)  # ∃ variables: name -> domain
    universal: dict = field(default_factory=dict)  # ∀ variables: name -> domain
    such_that: Callable | None = None  # constraints on the ∃ variables
    given: Callable | None = None  # hypotheses of the ∀ part
    goal: Callable | None = None  # conclusion of the ∀ part
    assumes: tuple = ()
    doc: str = ""
    formats: tuple | None = None  # formats the claim is stated for (None: any)
    #: for a disjunction: {branch name: condition}; reports say which branch a witness takes
    branches: dict | None = None
    #: the user's file the claim comes from (None: shipped with fpsmt); what its functions
    #: raise is then bad input (one line naming the file), not an internal error
    origin: str | None = None
    #: decide by enumeration in the executor before asking a solver, when the space of the
    #: variables is small enough (up to ``exhaustive.CLAIM_LIMIT`` points, e.g. one float over
    #: one binade of float32, or every (z, x) pair of a 16-bit format)
    enumerate: bool = False
    #: operations decided as uninterpreted functions ("mul", "add": ⊗ or ⊕ is then any
    #: binary function of two floats; "act": σ, σ' and every other known function are
    #: then any unary function of a float, one per function).  What is proved so holds for every such function,
    #: fp.mul / fp.add with RNE included: congruence (a = b gives a ⊗ c = b ⊗ c) is then a
    #: question of logic, not of a multiplier or adder circuit; facts about the rounded
    #: operation enter as instances of claims decided with it interpreted.  The executor
    #: interprets every operation, so such a claim is never enumerated, and a solver's
    #: model is a counterexample only if it replays.
    uninterpreted: tuple = ()
    #: ``anchors(fmt)``: float patterns at which the lazy encoding of a wide format states
    #: every known function's true value as bounds (on the point's monotone piece, F(y) <=
    #: F(p) for y <= p and F(y) >= F(p) for y >= p: what a refinement at p adds), before
    #: any model is seen — e.g. the ends of the intervals a layer maps, so that σ's image
    #: of an interval is bounded at once instead of point by point.  True facts, so they
    #: change no answer; they are part of the claim's SMT text.
    anchors: Callable | None = None
    #: the semantics profile the claim's networks run under (``--semantics`` syntax, e.g.
    #: ``"order=pairwise,backward=torch"``; None: the paper's): the default of
    #: :meth:`Scope.run`, :meth:`Scope.row_terms`, :meth:`Scope.first_grads` and σ of
    #: :meth:`Scope.sigma` while the claim is encoded, replayed or enumerated
    semantics: str | None = None
    #: for reports of a claim about one run of a block (``proofs/common.py`` ``whole``):
    #: ``s -> (network, params, inputs, upstreams)``, so that a counterexample's network and
    #: point can be written out; it is not part of the statement
    block: Callable | None = field(default=None, compare=False)

    def __post_init__(self):
        if self.kind not in ("exists", "forall", "exists_forall"):
            raise InputError(f"claim {self.name}: unknown kind {self.kind!r}")
        for name, dom in {**self.witness, **self.universal}.items():
            if not isinstance(dom, (FloatDomain, IntDomain)):
                raise InputError(f"claim {self.name}: variable {name!r} has an unsupported domain {dom!r} "
                                 "(use Float(...), Int(lo, hi) or Param())")
            if not name.isidentifier():
                raise InputError(f"claim {self.name}: variable name {name!r} is not an identifier")
        overlap = set(self.witness) & set(self.universal)
        if overlap:
            raise InputError(f"claim {self.name}: variables both ∃ and ∀: {', '.join(sorted(overlap))}")
        if self.kind == "exists" and (self.universal or self.such_that is None):
            raise InputError(f"claim {self.name}: an exists claim has witness variables and such_that only")
        if self.kind == "forall" and (self.witness or self.goal is None):
            raise InputError(f"claim {self.name}: a forall claim has universal variables and a goal only")
        if self.kind == "exists_forall" and (not self.witness or not self.universal or self.goal is None):
            raise InputError(f"claim {self.name}: an exists_forall claim needs witness and universal variables "
                             "and a goal")
        self.assumes = tuple(self.assumes)
        self.uninterpreted = tuple(self.uninterpreted)
        bad = set(self.uninterpreted) - UNINTERPRETABLE
        if bad:
            raise InputError(f"claim {self.name}: cannot leave {', '.join(sorted(bad))} uninterpreted "
                             f"(only {', '.join(sorted(UNINTERPRETABLE))})")
        if self.uninterpreted and (self.enumerate or self.kind != "forall"):
            raise InputError(f"claim {self.name}: an operation left uninterpreted needs a forall claim "
                             "that is not enumerated")
        if not self.doc:
            self.doc = ""
        if self.semantics is not None:
            from fpsmt.semantics.network import parse_semantics
            try:
                self.semantics = parse_semantics(self.semantics).spec
            except InputError as e:
                raise InputError(f"claim {self.name}: {e}") from None

    @property
    def profile(self):
        """The claim's :class:`fpsmt.semantics.network.Semantics` (the paper's by default)."""
        from fpsmt.semantics.network import PAPER, parse_semantics
        return PAPER if self.semantics is None else parse_semantics(self.semantics)

    @property
    def variables(self):
        return {**self.witness, **self.universal}

    def applies_to(self, fmt: Format) -> bool:
        return self.formats is None or fmt.name in self.formats


def exists(name, variables, such_that, *, assumes=(), doc="", formats=None, branches=None, semantics=None) -> Claim:
    return Claim(name, "exists", witness=dict(variables), such_that=such_that, assumes=assumes, doc=doc,
                 formats=formats, branches=branches, semantics=semantics)


def forall(name, variables, goal, *, given=None, assumes=(), doc="", formats=None, enumerate=False,
           uninterpreted=(), anchors=None, semantics=None) -> Claim:
    return Claim(name, "forall", universal=dict(variables), given=given, goal=goal, assumes=assumes, doc=doc,
                 formats=formats, enumerate=enumerate, uninterpreted=uninterpreted, anchors=anchors,
                 semantics=semantics)


def exists_forall(name, witness, universal, goal, *, such_that=None, given=None, assumes=(), doc="",
                  formats=None, semantics=None) -> Claim:
    return Claim(name, "exists_forall", witness=dict(witness), universal=dict(universal), such_that=such_that,
                 given=given, goal=goal, assumes=assumes, doc=doc, formats=formats, semantics=semantics)


# ------------------------------------------------------------ the values
class B:
    """A boolean in an interpretation."""

    __slots__ = ("s", "v")

    def __init__(self, scope, v):
        self.s, self.v = scope, v

    def __and__(self, o):
        return B(self.s, self.s.A.and_(self.v, _b(self.s, o)))

    __rand__ = __and__

    def __or__(self, o):
        return B(self.s, self.s.A.or_(self.v, _b(self.s, o)))

    __ror__ = __or__

    def __invert__(self):
        return B(self.s, self.s.A.not_(self.v))

    def implies(self, o):
        return (~self) | o

    def __bool__(self):
        raise TypeError("claim booleans are symbolic: combine them with & | ~ .implies(), not and/or/not/if")


def _b(scope, o):
    if isinstance(o, B):
        return o.v
    if isinstance(o, (bool, np.bool_)):
        return scope.true().v if o else scope.false().v
    raise TypeError(f"expected a claim boolean, got {o!r}")


class F:
    """A float of the claim's format in an interpretation (IEEE operations, RNE)."""

    __slots__ = ("s", "v")

    def __init__(self, scope, v):
        self.s, self.v = scope, v

    def _o(self, o):
        return self.s.lift(o).v

    def __add__(self, o):
        return F(self.s, self.s.A.add(self.v, self._o(o)))

    def __radd__(self, o):
        return F(self.s, self.s.A.add(self._o(o), self.v))

    def __sub__(self, o):
        return F(self.s, self.s.A.sub(self.v, self._o(o)))

    def __rsub__(self, o):
        return F(self.s, self.s.A.sub(self._o(o), self.v))

    def __mul__(self, o):
        return F(self.s, self.s.A.mul(self.v, self._o(o)))

    def __rmul__(self, o):
        return F(self.s, self.s.A.mul(self._o(o), self.v))

    def __truediv__(self, o):
        return F(self.s, self.s.A.div(self.v, self._o(o)))

    def __rtruediv__(self, o):
        return F(self.s, self.s.A.div(self._o(o), self.v))

    def __neg__(self):
        return F(self.s, self.s.A.neg(self.v))

    def __abs__(self):
        return F(self.s, self.s.A.abs(self.v))

    def __lt__(self, o):
        return B(self.s, self.s.A.lt(self.v, self._o(o)))

    def __le__(self, o):
        return B(self.s, self.s.A.le(self.v, self._o(o)))

    def __gt__(self, o):
        return B(self.s, self.s.A.gt(self.v, self._o(o)))

    def __ge__(self, o):
        return B(self.s, self.s.A.ge(self.v, self._o(o)))

    def __eq__(self, o):  # pragma: no cover - guard against a silent Python identity test
        raise TypeError("use x.eq(y) (IEEE equality) or x.same(y) (bit identity), not ==")

    __hash__ = None

    def eq(self, o):
        return B(self.s, self.s.A.eq(self.v, self._o(o)))

    def ne(self, o):
        return ~self.eq(o)

    def same(self, o):
        return B(self.s, self.s.A.same(self.v, self._o(o)))

    def is_nan(self):
        return B(self.s, self.s.A.is_nan(self.v))

    def is_inf(self):
        return B(self.s, self.s.A.is_inf(self.v))

    def is_zero(self):
        return B(self.s, self.s.A.is_zero(self.v))

    def is_finite(self):
        return B(self.s, self.s.A.is_finite(self.v))

    def is_negative(self):
        """The sign bit is set and x is not NaN (true for -0)."""
        return B(self.s, self.s.A.signbit(self.v))

    def is_positive(self):
        return ~self.is_negative() & ~self.is_nan()

    def is_subnormal(self):
        return ~self.is_zero() & (abs(self) < self.s.min_normal)

    def is_normal(self):
        return self.is_finite() & (abs(self) >= self.s.min_normal)

    def significand_odd(self) -> B:
        """The last stored significand bit is 1 (an odd significand)."""
        return B(self.s, self.s.A.significand_odd(self.v))

    def is_pow2(self) -> B:
        """x is a positive power of two 2^k (subnormal ones included)."""
        return B(self.s, self.s.A.is_pow2(self.v))

    def exponent(self) -> "I":
        """e_x = floor(log2 |x|) for a normal x, read from the exponent field; e_min for
        subnormals and zeros (meaningless for infinities and NaN)."""
        return I(self.s, self.s.A.exponent(self.v))

    def next_up(self):
        return F(self.s, self.s.A.next_up(self.v))

    def next_down(self):
        return F(self.s, self.s.A.next_down(self.v))


class I:
    """A bounded integer in an interpretation (exact; bounds keep it far from wrapping)."""

    __slots__ = ("s", "v")

    def __init__(self, scope, v):
        self.s, self.v = scope, v

    def _o(self, o):
        return o.v if isinstance(o, I) else self.s.int_const(int(o))

    def __add__(self, o):
        return I(self.s, self.s.A.int_add(self.v, self._o(o)))

    __radd__ = __add__

    def __sub__(self, o):
        return I(self.s, self.s.A.int_sub(self.v, self._o(o)))

    def __rsub__(self, o):
        return I(self.s, self.s.A.int_sub(self._o(o), self.v))

    def __neg__(self):
        return I(self.s, self.s.A.int_neg(self.v))

    def __lt__(self, o):
        return self.s._icmp("lt", self.v, self._o(o))

    def __le__(self, o):
        return self.s._icmp("le", self.v, self._o(o))

    def __gt__(self, o):
        return self.s._icmp("lt", self._o(o), self.v)

    def __ge__(self, o):
        return self.s._icmp("le", self._o(o), self.v)

    def __eq__(self, o):  # pragma: no cover
        raise TypeError("use k.eq(j) for integers in claims")

    __hash__ = None

    def eq(self, o):
        return self.s._icmp("eq", self.v, self._o(o))

    def pow2(self):
        """The float RNE(2^k): exact for e_min − M <= k <= e_max, +inf above, +0 below."""
        return self.s.pow2(self.v)


# ------------------------------------------------------------------ scope
class Scope:
    """The variables of a claim in one interpretation, plus helpers for its functions."""

    def __init__(self, A, fmt: Format, values: dict, instances=None, sem=None):
        from fpsmt.semantics.network import PAPER
        self.A = A
        self.fmt = fmt
        self._vals = values
        self._instances = instances  # callback (claim name, terms) -> B, set by the engine
        self.lets: dict = {}
        self.sem = sem or PAPER  # the claim's semantics profile (Claim.semantics)

    def __getattr__(self, name):
        vals = self.__dict__.get("_vals")
        if vals is not None and name in vals:
            return vals[name]
        raise AttributeError(f"claim has no variable {name!r}")

    def __getitem__(self, name):
        return self._vals[name]

    # -- constants
    def const(self, x) -> F:
        """A constant: an exactly representable number, or a ``"0x…"`` pattern."""
        return F(self, self.A.const(self.bits_of(x)))

    def bits_of(self, x) -> int:
        f = self.fmt
        if isinstance(x, str):
            return f.parse_hex(x)
        if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
            return f.from_float(x)
        q = Fraction(x)
        b = f.round(q, negative_zero=isinstance(x, float) and str(x).startswith("-"))
        if not f.is_finite(b) or f.to_fraction(b) != q:
            raise InputError(f"constant {x!r} is not representable in {f.name}")
        return b

    def ceil(self, q) -> F:
        """The least float >= the exact rational q, so that ``v >= s.ceil(q)`` is ``v >= q``."""
        f = self.fmt
        q = Fraction(q)
        b = f.round(q)
        if f.is_finite(b) and f.to_fraction(b) < q:
            b = f.next_up(b)
        return F(self, self.A.const(b))

    def floor(self, q) -> F:
        """The greatest float <= q, so that ``v <= s.floor(q)`` is ``v <= q``."""
        f = self.fmt
        q = Fraction(q)
        b = f.round(q)
        if f.is_finite(b) and f.to_fraction(b) > q:
            b = f.next_down(b)
        return F(self, self.A.const(b))

    def lift(self, o) -> F:
        return o if isinstance(o, F) else self.const(o)

    def true(self) -> B:
        return self.const(0).eq(0)

    def false(self) -> B:
        return ~self.true()

    @property
    def Omega(self) -> F:
        return F(self, self.A.const(self.fmt.max_bits))

    @property
    def omega(self) -> F:
        return F(self, self.A.const(1))

    @property
    def min_normal(self) -> F:
        return F(self, self.A.const(1 << self.fmt.M))

    def inf(self, negative=False) -> F:
        return F(self, self.A.const(self.fmt.inf_bits(negative)))

    def nan(self) -> F:
        return F(self, self.A.const(self.fmt.nan_bits))

    def all(self, *bs) -> B:
        out = self.true()
        for b in _flat(bs):
            out = out & b
        return out

    def any(self, *bs) -> B:
        out = self.false()
        for b in _flat(bs):
            out = out | b
        return out

    def where(self, c: B, a, b):
        a, b = self.lift(a), self.lift(b)
        return F(self, self.A.where(c.v, a.v, b.v))

    def iwhere(self, c: B, a, b) -> I:
        """The integer ``a`` where ``c`` holds, else ``b`` (ints or :class:`I`)."""
        a, b = (x.v if isinstance(x, I) else self.int_const(int(x)) for x in (a, b))
        return I(self, self.A.int_where(c.v, a, b))

    def products_equal(self, a, b, c, d) -> B:
        """a·b = c·d in exact arithmetic (all four finite): no rounding at all."""
        a, b, c, d = (self.lift(v).v for v in (a, b, c, d))
        return B(self, self.A.products_equal(a, b, c, d))

    def let(self, name, x: F) -> F:
        """Name an intermediate value: replay compares it between solver and executor."""
        self.lets[name] = x
        return x

    # -- activations
    def sigma(self, activation, x) -> F:
        """σ_F(x), correctly rounded (``activation``: a name, ``FILE.py:NAME`` or an Activation)."""
        from fpsmt.semantics.activations import get_activation
        return F(self, self.sem.act_of(get_activation(activation)).value(self.A, self.lift(x).v))

    def sigma_prime(self, activation, x) -> F:
        """σ'_F(x), correctly rounded, with the activation's kink convention."""
        from fpsmt.semantics.activations import get_activation
        return F(self, self.sem.act_of(get_activation(activation)).derivative(self.A, self.lift(x).v))

    # -- networks
    def any_order(self, net, prefix="perm"):
        """For a claim under ``order=any`` that declares :func:`order_variables` of ``net``:
        the run's ``choices`` (pass them to :meth:`run`) and the condition that every row's
        values are a permutation (a hypothesis of the claim: ``given``)."""
        from fpsmt.semantics.network import any_order_choices, any_order_variables
        names = any_order_variables(net, prefix)
        choices, conds = any_order_choices(self.A, {n: self[n].v for n in names}, names)
        return choices, self.all(*[B(self, c) for c in conds])

    def chosen_run(self, net, x, y=None, params=None, pre=False):
        """One run of ``net`` under the scope's profile, its open choices (``order=any``,
        ``activation=ulp:K``) read from the claim's :func:`choice_variables`: (outputs,
        gradient, hypothesis) — the hypothesis (a B, true without choices) says the choices
        are a permutation per row and the steps one function per activation; a ∀ claim
        assumes it (``given``), so that what it proves holds for every order and every
        implementation.  With ``pre``, a fourth part: the pre-activations, per layer a list
        of F per neuron."""
        from fpsmt.semantics.network import ANY, ulp_choices, ulp_consistent, ulp_variables
        choices, conds = {}, []
        if self.sem.order == ANY:
            choices, cond = self.any_order(net)
            conds.append(cond)
        if self.sem.ulp_rows:
            names = ulp_variables(net)
            choices.update(ulp_choices({n: self[n].v for n in names}, names))
        out, grad, (pres, _, _) = self.run(net, x, y, params=params, trace=True, choices=choices or None)
        if self.sem.ulp_rows:
            from fpsmt.semantics.network import Trace
            t = Trace(None, None, [_stack([p.v for p in layer]) for layer in pres], [], [], [])
            conds += [B(self, c) for c in ulp_consistent(self.A, net, t, choices)]
        return (out, grad, self.all(*conds)) + ((pres,) if pre else ())

    def run(self, net, x, y=None, params=None, sem=None, trace=False, zeros=None, keep_absent=False, given_pre=None,
            choices=None):
        """Run a network on floats ``x`` (list) with upstream gradients ``y``; symbolic
        parameters from ``params`` ({name: F}).  Returns (outputs, gradient) as lists of F;
        with ``trace``, also per layer (pre-activations, outputs, gradients w.r.t. outputs),
        each a list of F per neuron — for staged proofs about blocks inside a network.
        ``zeros``: {"forward": {layer: [F per row]}, "backward": {layer: [F per input
        column]}}, stand-ins for the absent entries' terms
        (:class:`fpsmt.semantics.network.Zeros`); :meth:`zeros` gives the scope's own.  With
        ``trace`` and ``keep_absent`` the trace has a fourth part: per layer, the absent
        entries' terms ({row: F} forward, {input column: F} backward).  ``given_pre`` ({layer: [F
        per row]}): that layer's pre-activations are these terms instead of its sum
        (:func:`fpsmt.semantics.network.run`)."""
        from fpsmt.semantics.network import Zeros, run
        def stacked(vs):
            return _stack([self.lift(v).v for v in vs])

        def per_layer(d):  # {layer: [terms]} -> {layer: values along the last axis}
            return {k: stacked(vs) for k, vs in d.items()}
        X = stacked(x)
        Y = None if y is None else stacked(y)
        P = None if params is None else {k: self.lift(v).v for k, v in params.items()}
        Z = None if zeros is None else Zeros(per_layer(zeros.get("forward", {})), per_layer(zeros.get("backward", {})),
                                             bool(zeros.get("others", False)))
        G = None if given_pre is None else per_layer(given_pre)
        t = run(self.A, net, X, Y, P, sem or self.sem, Z, keep_absent=trace and keep_absent, given_pre=G,
                choices=choices)
        out = [F(self, t.out[..., i]) for i in range(net.n_out)]
        grad = None if t.grad is None else [F(self, t.grad[..., j]) for j in range(net.n_in)]
        if not trace:
            return out, grad

        def cols(v):
            return None if v is None else [F(self, v[..., i]) for i in range(np.shape(v)[-1])]
        parts = ([cols(v) for v in t.pre], [cols(v) for v in t.post], [cols(v) for v in t.upstream])
        if keep_absent:
            parts += ([tuple({i: F(self, v) for i, v in d.items()} for d in layer) for layer in t.absent],)
        return out, grad, parts

    def row_terms(self, net, k, direction, values, params=None, row=0, sem=None) -> list:
        """The products of one row's fold in layer ``k`` of ``net``, in the fold's order
        (:func:`fpsmt.semantics.network.row_terms`): forward, row ``row`` with ``values`` the
        layer's inputs; backward, input column ``row`` with ``values`` the gradients w.r.t.
        the layer's pre-activations."""
        from fpsmt.semantics.network import row_terms
        P = None if params is None else {n: self.lift(v).v for n, v in params.items()}
        V = _stack([self.lift(v).v for v in values])
        return [F(self, t) for t in row_terms(self.A, net.layers[k], P, V, direction, row, sem or self.sem)]

    def first_grads(self, net, trace, sem=None) -> list:
        """The first layer's gradients w.r.t. its pre-activations, one per neuron (from a
        traced run's (pre, post, upstream)): the factors D^AD's terms multiply by the
        weights."""
        sem = sem or self.sem
        pre, post, up = trace[:3]
        act = net.layers[0].act
        d = sem.backward_formula(act)(self.A, sem.act_of(act), _stack([u.v for u in up[0]]),
                                      _stack([p.v for p in pre[0]]), _stack([h.v for h in post[0]]))
        return [F(self, d[..., i]) for i in range(np.shape(d)[-1])]

    def input_terms(self, net, params, trace, col=0, sem=None) -> list:
        """The terms of D^AD w.r.t. input ``col``: the first layer's gradients w.r.t. its
        pre-activations (:meth:`first_grads`) times its weights, in the fold's order."""
        return self.row_terms(net, 0, "backward", self.first_grads(net, trace, sem), params, col, sem)

    def zeros(self, net, first=1) -> dict:
        """The stand-ins for ``net``'s absent terms from layer ``first`` on, as this scope's
        variables of those names (:meth:`fpsmt.semantics.network.Zeros.names`; declare them
        with :func:`zero_variables`)."""
        from fpsmt.semantics.network import Zeros
        names = Zeros.names(net, first)
        return {d: {k: [self[n] for n in ns] for k, ns in by.items()} for d, by in names.items()}

    # -- assumed claims
    def instance(self, claim_name, **terms) -> B:
        """The assumed ∀ claim ``claim_name`` instantiated at ``terms`` (given → goal)."""
        if self._instances is None:
            raise InputError("instance() is available only while the engine discharges a claim")
        return self._instances(self, claim_name, terms)

    # -- integers
    def int_const(self, k: int):
        return self.A.int_const(int(k))

    def _icmp(self, op, a, b) -> B:
        return B(self, self.A.int_cmp(op, a, b))

    def pow2(self, k) -> F:
        return F(self, self.A.pow2(k))

    def int_pow2(self, k: int) -> F:
        """The constant 2^k (k a Python int) rounded to the format."""
        return F(self, self.A.const(self.fmt.round(pow2(int(k)))))


def _stack(vals):
    """Values of one shape along a new last axis; constants (shape ()) broadcast to the
    variables' shape (the executor enumerates a claim's variables as arrays)."""
    shape = np.broadcast_shapes(*[np.shape(v) for v in vals])
    return np.stack([np.broadcast_to(v, shape) for v in vals], axis=-1)


def _flat(bs):
    for b in bs:
        if isinstance(b, (list, tuple)):
            yield from _flat(b)
        else:
            yield b


def zero_variables(net, first=1) -> dict:
    """{name: +0 or −0} for the stand-ins of ``net``'s absent terms (:meth:`Scope.zeros`)."""
    from fpsmt.semantics.network import Zeros
    names = Zeros.names(net, first)
    return {n: Float(range=(0, 0)) for by in names.values() for ns in by.values() for n in ns}


# ---------------------------------------------------------- domain constraints
def domain_constraint(scope: Scope, name: str, dom) -> B:
    """The boolean that restricts variable ``name`` to its domain."""
    fmt = scope.fmt
    v = scope[name]
    if isinstance(dom, IntDomain):
        lo, hi = (b(fmt) if callable(b) else b for b in (dom.lo, dom.hi))
        if not (isinstance(lo, int) and isinstance(hi, int)) or lo > hi:
            raise InputError(f"variable {name}: integer bounds must be ints with lo <= hi, got {lo!r}, {hi!r}")
        if max(abs(lo), abs(hi)) >= INT_LIMIT:
            raise InputError(f"variable {name}: integer bounds must stay below 2^20 in magnitude")
        return (v >= lo) & (v <= hi)
    parts = []
    if dom.not_nan:
        parts.append(~v.is_nan())
    if dom.finite:
        parts.append(v.is_finite())
    if dom.normal:
        parts.append(v.is_normal())
    if dom.subnormal:
        parts.append(v.is_subnormal())
    if dom.nonzero:
        parts.append(~v.is_zero())
    if dom.pow2:
        parts.append(v.is_pow2())
    if dom.sign == "+":
        parts.append(v.is_positive())
    elif dom.sign == "-":
        parts.append(v.is_negative())
    for bound, op in ((dom.lo, "ge"), (dom.hi, "le"), (dom.mag_lo, "mag_ge"), (dom.mag_hi, "mag_le")):
        if bound is not None:
            b = bound(fmt) if callable(bound) else bound
            try:
                c = scope.const(b) if not (isinstance(b, float) and b in (float("inf"), float("-inf"))) \
                    else scope.inf(b < 0)
            except InputError as e:
                raise InputError(f"variable {name}: range bound: {e}") from None
            parts.append({"ge": lambda: v >= c, "le": lambda: v <= c, "mag_ge": lambda: abs(v) >= c,
                          "mag_le": lambda: abs(v) <= c}[op]())
    return scope.all(*parts) if parts else scope.true()
