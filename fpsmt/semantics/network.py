"""The network IR and its semantics: forward pass and reverse-mode D^AD, written once.

A :class:`Network` is a list of affine layers ``z = A ⊗ x ⊕ b`` each followed by an
activation (``identity`` after the last).  Weights are stored sparsely (COO entries,
row ``i``, column ``j``); an absent entry is +0 *with the dense semantics unchanged*.
Every weight or bias is a bit pattern of the network's format or a symbolic
:class:`Param`.

:func:`run` interprets the network in any :class:`~fpsmt.semantics.arith.Arith`: with the
executor it runs it, with Z3 terms it encodes it.  The paper's semantics
(BRIEF §2–3) is the default :data:`PAPER`:

* a matrix–vector product is a left-to-right rounded sum over columns,
  ``((A_i1⊗x_1 ⊕ A_i2⊗x_2) ⊕ …) ⊕ A_in⊗x_n``, then ``⊕ b_i`` last.  The fold starts
  from the first product (``fold_init="first"``); this equals starting from −0, which is
  the exact identity of ⊕ (−0 ⊕ t = t for every t).  ``fold_init="+0"`` differs only
  when every product is −0 (then the row sum is +0 instead of −0).
* D^AD runs from the output to the input, left-associatively: at each layer
  ``g ← formula(g, z, σ(z))`` (the paper's: ``g ⊗ σ'(z)``), then
  ``g_j ← ((g_1⊗A_1j ⊕ g_2⊗A_2j) ⊕ …)`` over rows left to right.

Absent entries are handled exactly, in O(nonzeros): their products are ±0 or NaN,
and a sum that has ±0/NaN terms equals the sum without them ⊕ (their order-free sum),
because x ⊕ ±0 = x for x ≠ 0 and a zero result is −0 exactly when every term is −0.
So ``row = (sum over present entries) ⊕ Z`` with Z = NaN if an absent column holds
±inf/NaN, −0 if every absent column is negative-signed, +0 otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fpsmt.semantics.activations import Activation, get_activation
from fpsmt.semantics import backward as _framework_formulas
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format


@dataclass(frozen=True)
class Param:
    """A symbolic network parameter (a weight or bias left to the solver)."""

    name: str


# ----------------------------------------------------------------- semantics
def paper_backward(A, act: Activation, g, z, y):
    """The paper's activation backward step: ``g ⊗ σ'(z)`` (identity: g itself, exactly)."""
    if act.is_identity:
        return g
    return A.mul(g, act.derivative(A, z))


BACKWARD_FORMULAS = {"paper": paper_backward}
_framework_formulas.register(BACKWARD_FORMULAS)  # torch, jax (fpsmt.semantics.backward)

#: Summation orders by name.  ``ORDERS[name] = (fn, takes_arg)``; ``fn(n)`` (or ``fn(n, k)``
#: for an order written ``name:k``) gives the fold of a *dense* row of n terms (one per
#: column): a *sequence* (a permutation of range(n), folded left to right) or a *tree*
#: (nested pairs of column indices, each pair one ⊕ of its two sides' sums).  The bias
#: comes last.  A sparse row is its dense row with +0 in the absent columns; its sum is the
#: dense order *pruned* to the present columns (a node with one side absent is its other
#: side), then ⊕ the absent products' order-free sum (:func:`fold`; the proof is in
#: :func:`row_plan`).  An order may give ``fn.prune(n, cols)``, the pruned tree over the
#: positions of the present columns ``cols`` (sorted), without walking the dense tree.
#: This is the one place an order is defined: the IR's rows, D^AD's sums over rows, the Z3
#: encoding (the same program), the block-aware evaluation (:func:`fold_terms`) and the
#: PyTorch export all read it (through :func:`row_plan`).
ORDERS: dict = {}


def summation_order(name, takes_arg=False):
    """Register a summation order under ``name`` (a decorator on ``order(n)``, or on
    ``order(n, k)`` with ``takes_arg``: the order is then written ``name:k``, k >= 1)."""
    def register(fn):
        ORDERS[name] = (fn, takes_arg)
        return fn
    return register


@summation_order("left")
def left_to_right(n):
    """The paper's: ``((t_1 ⊕ t_2) ⊕ …) ⊕ t_n``, terms in column order."""
    return range(n)


@summation_order("reversed")
def right_to_left(n):
    """``((t_n ⊕ t_(n−1)) ⊕ …) ⊕ t_1``: the paper's fold over the terms in reverse column order."""
    return range(n - 1, -1, -1)


@summation_order("pairwise")
def pairwise(n):
    """Recursive halving (Higham's pairwise summation) over the dense row: the sum of the
    first ⌊n/2⌋ columns ⊕ the sum of the rest, each summed the same way."""
    def tree(lo, hi):
        if hi - lo == 1:
            return lo
        m = lo + (hi - lo) // 2
        return (tree(lo, m), tree(m, hi))
    return tree(0, n) if n else ()


def _pairwise_pruned(n, cols):
    import bisect

    def tree(lo, hi, a, b):  # the present columns cols[a:b] lie in [lo, hi)
        if b - a == 1:
            return a
        m = lo + (hi - lo) // 2
        c = bisect.bisect_left(cols, m, a, b)
        if c == a:
            return tree(m, hi, a, b)
        if c == b:
            return tree(lo, m, a, b)
        return (tree(lo, m, a, c), tree(m, hi, c, b))
    return tree(0, n, 0, len(cols))


pairwise.prune = _pairwise_pruned


def _comb(items):
    t = items[0]
    for u in items[1:]:
        t = (t, u)
    return t


@summation_order("blocked", takes_arg=True)
def blocked(n, k):
    """Blocks of k consecutive columns, each summed left to right; then the blocks' sums
    left to right (a tiled BLAS kernel's order)."""
    if not n:
        return ()
    return _comb([_comb(list(range(i, min(i + k, n)))) for i in range(0, n, k)])


def _blocked_pruned(n, cols, k):
    groups, last = [], None
    for i, c in enumerate(cols):
        if c // k != last:
            groups.append([])
            last = c // k
        groups[-1].append(i)
    return _Comb([_Comb(g) for g in groups])


blocked.prune = _blocked_pruned


class _Comb(list):
    """A left fold of its items (leaves or subtrees): a pair chain without deep nesting."""


@dataclass(frozen=True)
class Plan:
    """How one row's present terms (n of them, listed by column) are summed: ``ops`` is a
    list of ⊕ steps ``(dst, a, b)`` over n slots (slot i holds term i at the start), each
    setting ``slot[dst] = slot[a] ⊕ slot[b]``; the sum ends in slot ``root``.  ``seq``: for
    an order that folds a sequence left to right, that sequence (None for a tree)."""

    ops: tuple
    root: int
    seq: tuple | None


def _dense(order: str, n: int):
    """The order's fold of a dense row of n terms: ("seq", permutation) or ("tree", tree)."""
    key = (order, n)
    got = _DENSE.get(key)
    if got is not None:
        return got
    if order == ANY:
        raise InputError("order=any has no fixed order: a claim chooses each row's permutation (run's choices)")
    name, _, arg = order.partition(":")
    fn, takes = ORDERS[name]
    t = fn(n, int(arg)) if takes else fn(n)
    if isinstance(t, (tuple, int, np.integer)):
        leaves = []
        stack = [t] if n else []
        while stack:
            u = stack.pop()
            if isinstance(u, tuple):
                if len(u) != 2:
                    raise InputError(f"summation order {order!r} gives a node of {len(u)} children for {n} terms")
                stack.extend(u)
            else:
                leaves.append(int(u))
        got = ("tree", t)
    else:
        leaves = [int(i) for i in t]
        got = ("seq", np.asarray(leaves, dtype=np.int64))
    if sorted(leaves) != list(range(n)):
        raise InputError(f"summation order {order!r} gives {sorted(leaves)} for {n} terms: not a permutation")
    _DENSE[key] = got
    return got


def _prune_tree(t, where):
    """The dense tree ``t`` pruned to the present columns (``where``: column -> position)."""
    if isinstance(t, tuple):
        a, b = _prune_tree(t[0], where), _prune_tree(t[1], where)
        return b if a is None else a if b is None else (a, b)
    return where.get(int(t))


def _compile(tree, n) -> Plan:
    ops = []

    def emit(t):
        if isinstance(t, _Comb):
            r = emit(t[0])
            for u in t[1:]:
                ops.append((r, r, emit(u)))
            return r
        if isinstance(t, tuple):
            a, b = emit(t[0]), emit(t[1])
            ops.append((a, a, b))
            return a
        return int(t)
    root = emit(tree) if n else 0
    seq = None
    if all(op[1] == root for op in ops):  # every step adds one term to the running sum: a left fold
        seq = (root,) + tuple(op[2] for op in ops)
    return Plan(tuple(ops), root, seq)


def row_plan(order: str, n: int, cols) -> Plan:
    """How a row whose present columns are ``cols`` (sorted) among ``n`` is summed under
    ``order``: the dense order pruned to the present columns, over their positions.

    Why pruning is exact: the absent columns' products are ±0 (or NaN, when the column
    holds ±inf/NaN).  With a NaN every bracketing gives NaN.  Otherwise, by induction on
    the dense tree, each subtree's value equals its pruned value whenever the pruned value
    is nonzero, and is a zero when it is a zero (x ⊕ ±0 = x for x ≠ 0; a zero ⊕ a zero is
    a zero); and a sum of floats is −0 exactly when every term is −0 (a nonzero term
    survives or cancels to +0, ⊕ never underflows to zero), in any bracketing.  So the dense
    sum is the pruned sum ⊕ the absent products' sum, the order-free Z of :func:`fold`."""
    cols = [int(c) for c in cols]
    kind, dense = _dense(order, n)
    k = len(cols)
    if kind == "seq":
        inv = np.empty(n, dtype=np.int64)
        inv[dense] = np.arange(n)
        seq = np.argsort(inv[np.asarray(cols, dtype=np.int64)], kind="stable") if k else []
        ops = tuple((int(seq[0]), int(seq[0]), int(j)) for j in seq[1:]) if k else ()
        return Plan(ops, int(seq[0]) if k else 0, tuple(int(j) for j in seq))
    if not k:
        return Plan((), 0, ())
    name, _, arg = order.partition(":")
    fn, takes = ORDERS[name]
    prune = getattr(fn, "prune", None)
    if prune is not None:
        tree = prune(n, cols, int(arg)) if takes else prune(n, cols)
    else:
        tree = _prune_tree(dense, {c: i for i, c in enumerate(cols)})
    return _compile(tree, k)


_DENSE: dict = {}
_IMPLEMENTED: dict = {}


@dataclass(frozen=True)
class Semantics:
    """The choices that fix a network's floating-point meaning.

    ``order``: the summation order of a matrix–vector product and of D^AD's sums over rows
    (a name of :data:`ORDERS`, ``name:k`` for an order with an argument; ``"left"``: left to
    right, the paper's).  ``wide``: None (every ⊕ and ⊗ of a row in the network's format,
    the paper's) or a format name: each product of a row, each ⊕ and the bias computed in
    that wider format, then one rounding to the network's format at the row's end (PyTorch's
    bfloat16/float16 matmul accumulates in float32).  ``fold_init``: ``"first"`` (the
    paper's) or ``"+0"``.  ``backward``: name of the activation backward formula per
    activation name, with ``"*"`` as the default (``"paper"``: g ⊗ σ'(z)).
    ``activation``: how σ and σ' are evaluated (``"correct"``: correctly rounded, the paper's;
    ``"numpy"``, ``"torch"``: those libraries' values, as tables, formats of at most 16 bits;
    ``"ulp:K"``: any implementation within K ulps, see :func:`ulp_step` — a choice claims
    quantify over, like ``order=any``).
    """

    order: str = "left"
    fold_init: str = "first"
    backward: tuple = (("*", "paper"),)
    wide: str | None = None
    activation: str = "correct"

    def __post_init__(self):
        name, colon, arg = self.order.partition(":")
        if self.order == ANY:
            pass
        elif name not in ORDERS:
            raise InputError(f"unknown summation order {self.order!r} (known: {', '.join(_order_names())})")
        takes = ORDERS[name][1] if name in ORDERS else False
        if takes and not (colon and arg.isdigit() and int(arg) >= 1):
            raise InputError(f"summation order {name!r} needs a block size: {name}:K with K >= 1, got {self.order!r}")
        if not takes and colon:
            raise InputError(f"summation order {name!r} takes no argument, got {self.order!r}")
        if self.fold_init not in ("first", "+0"):
            raise InputError(f"unknown fold start {self.fold_init!r} (known: first, +0)")
        for _, f in self.backward:
            if f not in BACKWARD_FORMULAS:
                raise InputError(f"unknown backward formula {f!r} (known: {', '.join(BACKWARD_FORMULAS)})")
        if self.wide is not None:
            from fpsmt.semantics.formats import parse_format
            parse_format(self.wide)
        from fpsmt.semantics.activations.implementations import IMPLEMENTATIONS
        kind, colon, arg = self.activation.partition(":")
        if kind == ULP:
            if not (colon and arg.isdigit() and 1 <= int(arg) <= ULP_MAX):
                raise InputError(f"activation=ulp:K needs an integer K from 1 to {ULP_MAX} (ulp:0 is "
                                 f"activation=correct), got {self.activation!r}")
        elif self.activation != "correct" and self.activation not in IMPLEMENTATIONS:
            raise InputError(f"unknown activation implementation {self.activation!r} "
                             f"(known: correct, {', '.join(IMPLEMENTATIONS)}, ulp:K)")

    @property
    def ulp(self) -> int | None:
        """K of ``activation=ulp:K``, else None."""
        kind, _, arg = self.activation.partition(":")
        return int(arg) if kind == ULP else None

    @property
    def chooses(self) -> bool:
        """Whether the profile leaves choices to a claim (``order=any``, ``activation=ulp:K``):
        a ∀ claim quantifies over them; a run cannot execute it."""
        return self.order == ANY or self.ulp is not None

    def act_of(self, act: Activation) -> Activation:
        """The activation as this profile evaluates it: ``act`` itself (correctly rounded),
        or an implementation's tables (:mod:`fpsmt.semantics.activations.implementations`)."""
        if self.activation == "correct" or act.is_identity or self.ulp is not None:
            return act  # ulp:K: the correctly rounded value, then the claim's step (run)
        from fpsmt.semantics.activations.implementations import Implemented
        key = (act.name, self.activation)
        got = _IMPLEMENTED.get(key)
        if got is None:
            got = _IMPLEMENTED[key] = Implemented(act, self.activation)
        return got

    def backward_formula(self, act: Activation):
        d = dict(self.backward)
        return BACKWARD_FORMULAS[d.get(act.name, d.get("*", "paper"))]

    def row_plan(self, n: int, cols) -> Plan:
        """How a row with present columns ``cols`` (sorted) of ``n`` is summed (:func:`row_plan`)."""
        return row_plan(self.order, int(n), cols)

    def is_sequence(self, n: int) -> bool:
        """Whether the order folds a dense row of n terms as a sequence (left to right)."""
        return _dense(self.order, int(n))[0] == "seq"

    def sequence(self, n: int) -> np.ndarray:
        """The order in which a dense row's n terms (listed by column) are folded, for an
        order that folds a sequence; InputError for a tree order."""
        kind, dense = _dense(self.order, int(n))
        if kind != "seq":
            raise InputError(f"summation order {self.order!r} sums {n} terms as a tree, not a sequence")
        return dense

    def wide_format(self):
        from fpsmt.semantics.formats import parse_format
        return None if self.wide is None else parse_format(self.wide)

    def check(self, fmt, activations=(), claims=False):
        """Refuse (InputError, one line) a profile that cannot apply to networks of ``fmt``
        with these activations — before any work.  ``order=any`` is a choice a claim
        quantifies over (``claims=True``), not something a run can execute."""
        if self.order == ANY and not claims:
            raise InputError("order=any means every order, a choice claims quantify over (prove, reproduce, "
                             "counterexample hypothesis); a run needs one order")
        if self.ulp is not None and not claims and not isinstance(self, SteppedAt):
            raise InputError(f"activation={self.activation} means every implementation within {self.ulp} ulps, a "
                             "choice claims quantify over (prove, reproduce, counterexample hypothesis); a run needs "
                             "one implementation (step=ACTIVATION:value|derivative:0xPATTERN:K names one)")
        W = self.wide_format()
        if W is not None:
            from fpsmt.semantics.formats import contains
            if not contains(W, fmt) or (W.E, W.M) == (fmt.E, fmt.M):
                raise InputError(f"order=wide:{W.name} needs a format wider than {fmt.name} that holds its values")
        for a in activations:
            act = get_activation(a)
            if self.activation != "correct" and self.ulp is None and not act.is_identity:
                from fpsmt.semantics.activations.implementations import supports as implemented
                why = implemented(act, fmt, self.activation)
                if why:
                    raise InputError(why)
            why_not = getattr(self.backward_formula(act), "why_not", None)
            why = why_not(self.act_of(act), fmt) if why_not is not None else None
            if why:
                raise InputError(why)
        return self

    @property
    def spec(self) -> str:
        """The profile as ``--semantics`` spells it (every part named)."""
        b = dict(self.backward)
        back = b.get("*", "paper") if len(b) == 1 else ";".join(f"{k}:{v}" for k, v in self.backward)
        order = f"wide:{self.wide}" if self.wide is not None and self.order == "left" else self.order
        parts = [f"order={order}"]
        if self.wide is not None and self.order != "left":
            parts.append(f"wide={self.wide}")
        parts += [f"backward={back}", f"activation={self.activation}"]
        if self.fold_init != "first":
            parts.append(f"fold={self.fold_init}")
        return ",".join(parts)

    @property
    def is_paper(self) -> bool:
        return self == PAPER

    @property
    def ulp_rows(self) -> bool:
        """Whether a run steps every hidden σ and σ' by its own choice (``activation=ulp:K``
        with the claim's step variables); a :class:`SteppedAt` implementation does not."""
        return self.ulp is not None


@dataclass(frozen=True)
class SteppedAt(Semantics):
    """One implementation of ``activation=ulp:K`` that a run executes: every hidden σ and σ'
    correctly rounded except at the pre-activation patterns of ``steps``, each a tuple
    (activation name, ``"value"`` | ``"derivative"``, pattern, k with 1 <= |k| <= K), where
    that function's result is moved k floats (:func:`ulp_step`).  A function of its input,
    within K ulps of the correctly rounded value everywhere: so a network that misses a
    target under it refutes a claim made for every implementation within K ulps."""

    steps: tuple = ()

    def __post_init__(self):
        super().__post_init__()
        if self.ulp is None:
            raise InputError(f"step= needs activation=ulp:K (one implementation within K ulps), not activation={self.activation}")
        for name, part, _, k in self.steps:
            if part not in ("value", "derivative") or not 1 <= abs(k) <= self.ulp:
                raise InputError(f"a step of {name}'s {part} by {k} is not within {self.ulp} ulps")

    @property
    def chooses(self) -> bool:
        return self.order == ANY

    @property
    def ulp_rows(self) -> bool:
        return False

    def act_of(self, act: Activation) -> Activation:
        mine = [(part, at, k) for name, part, at, k in self.steps if name == act.name]
        return act if act.is_identity or not mine else _SteppedAt(act, mine, self.ulp)

    @property
    def spec(self) -> str:
        return ",".join([super().spec, *(f"step={name}:{part}:0x{at:x}:{k:+d}" for name, part, at, k in self.steps)])

    def check(self, fmt, activations=(), claims=False):
        super().check(fmt, activations, claims)
        for name, _, at, _ in self.steps:
            if at >> fmt.nbits:
                raise InputError(f"step={name}:…:0x{at:x}: not a pattern of {fmt.name} ({fmt.nbits} bits)")
            if get_activation(name).name != name:
                raise InputError(f"step={name}:…: name the activation as fpsmt does ({get_activation(name).name})")
        return self

    def describe(self, fmt) -> str:
        """The implementation in words, with patterns in hex."""
        return "; ".join(f"{name}{'' if part == 'value' else chr(39)} at {fmt.hex(at)} moved {k:+d} float(s)"
                         for name, part, at, k in self.steps) + ", correctly rounded elsewhere"


class _SteppedAt:
    """An activation whose σ or σ' is moved at given input patterns (:class:`SteppedAt`)."""

    def __init__(self, act, steps, K):
        self._act, self._steps, self._K = act, steps, K

    def __getattr__(self, name):
        return getattr(self._act, name)

    def _moved(self, A, z, v, part):
        for p, at, k in self._steps:
            if p == part:
                v = A.where(A.same(z, A.full(np.shape(z), at)), ulp_step(A, v, A.int_const(k), self._K), v)
        return v

    def value(self, A, z):
        return self._moved(A, z, self._act.value(A, z), "value")

    def derivative(self, A, z):
        return self._moved(A, z, self._act.derivative(A, z), "derivative")


def _order_names():
    return [f"{k}:K" if takes else k for k, (_, takes) in ORDERS.items()] + ["wide:FORMAT", ANY]


def any_order_variables(net: "Network", prefix: str = "perm") -> dict:
    """For ``order=any``: the permutation variables a claim about ``net`` declares, as
    {name: (layer, direction, row, position, n)} — one integer in [0, n−1] per position of
    every forward row and D^AD column with n >= 2 present terms (names
    ``{prefix}{layer}{f|b}{row}_{position}``).  The claim makes them distinct
    (:func:`any_order_choices` gives the run's ``choices`` and that condition)."""
    out = {}
    for k, L in enumerate(net.layers):
        for direction, tag, lines, n_lines in (("forward", "f", L.rows, L.n_out), ("backward", "b", L.cols, L.n_in)):
            counts = np.bincount(np.asarray(lines, dtype=np.int64), minlength=n_lines)
            for i in np.nonzero(counts >= 2)[0].tolist():
                n = int(counts[i])
                if n > ANY_MAX_TERMS:
                    raise InputError(f"order=any: layer {k} has a {'row' if direction == 'forward' else 'column'} "
                                     f"of {n} terms; every order is encoded for at most {ANY_MAX_TERMS}")
                for pos in range(n):
                    out[f"{prefix}{k}{tag}{i}_{pos}"] = (k, direction, i, pos, n)
    rows = len({v[:3] for v in out.values()})
    if rows > ANY_MAX_ROWS:
        raise InputError(f"order=any: the network has {rows} rows and columns of two or more terms; every order is "
                         f"encoded for at most {ANY_MAX_ROWS} of them (a claim's encoding grows with each)")
    return out


def any_order_choices(A, values: dict, variables: dict):
    """From the variables' values (name -> integer value in interpretation A): the run's
    ``choices`` and the condition that each row's values are a permutation (pairwise
    distinct; each is in [0, n−1] by its domain)."""
    choices: dict = {}
    for name, (k, direction, i, pos, n) in variables.items():
        choices.setdefault((k, direction), {}).setdefault(i, [None] * n)[pos] = values[name]
    conds = []
    for rows in choices.values():
        for perm in rows.values():
            for a in range(len(perm)):
                for b in range(a + 1, len(perm)):
                    conds.append(A.not_(A.int_cmp("eq", perm[a], perm[b])))
    return choices, conds


#: ``order=any``: every row's present terms folded left to right in a permutation that is a
#: claim's choice — integer variables, one per position, ``choices[(layer, direction)][row]``
#: (see :func:`any_order_variables`), so that "for every order" is a ∀ claim the solver
#: proves or refutes and whose counterexample names the permutation; the bias comes last.
ANY = "any"
ANY_MAX_TERMS = 8  # n! orders as n² selections per row: lemma blocks, not whole networks
ANY_MAX_ROWS = 64  # rows (forward) and columns (D^AD) of two or more terms in one claim's network

#: ``activation=ulp:K``: σ and σ' of every hidden neuron are any value within K ulps of the
#: correctly rounded one — an integer step k in [−K, K] per application (:func:`ulp_step`),
#: a claim's variable (:func:`ulp_variables`), the same k wherever the same function meets
#: the same input (:func:`ulp_consistent`: an implementation is a function).
ULP = "ulp"
ULP_MAX = 64
ULP_MAX_NEURONS = 64  # hidden neurons of one claim's network under ulp:K


def ulp_step(A, v, k, K: int):
    """``v`` moved ``k`` floats along the finite floats (k in [−K, K], an integer of ``A``):
    nextUp applied k times for k > 0, nextDown −k times for k < 0 — across zero, ±0 count as
    one point, so ±0 steps to ±(the least subnormal).  A step that would leave the finite
    floats stays at ``v``, and ±inf and NaN are not moved: "within K ulps" of a finite value
    is finite.  Exact (a selection) in every interpretation."""
    out = v
    up = down = v
    for i in range(1, K + 1):
        up, down = A.next_up(up), A.next_down(down)
        for step, cand in ((i, up), (-i, down)):
            out = A.where(A.int_cmp("eq", k, A.int_const(step)), A.where(A.is_finite(cand), cand, v), out)
    return A.where(A.is_finite(v), out, v)


def ulp_variables(net: "Network", prefix: str = "ulp") -> dict:
    """For ``activation=ulp:K``: the step variables a claim about one run of ``net`` declares,
    {name: (layer, "value" | "derivative", row)} — one per hidden neuron for σ and one for
    σ' (names ``{prefix}{layer}v{row}``, ``{prefix}{layer}d{row}``), each in [−K, K]."""
    out = {}
    for k, L in enumerate(net.layers):
        if get_activation(L.activation).is_identity:
            continue
        for i in range(L.n_out):
            out[f"{prefix}{k}v{i}"] = (k, "value", i)
            out[f"{prefix}{k}d{i}"] = (k, "derivative", i)
    if len(out) > 2 * ULP_MAX_NEURONS:
        raise InputError(f"activation=ulp:K: the network has {len(out) // 2} hidden neurons; every implementation is "
                         f"encoded for at most {ULP_MAX_NEURONS} (a step per σ and σ', and that the steps form a "
                         "function: pairs of them)")
    return out


def ulp_choices(values: dict, variables: dict) -> dict:
    """The run's ``choices`` from the step variables' values: {(layer, "value" |
    "derivative"): {row: k}}."""
    choices: dict = {}
    for name, (k, part, i) in variables.items():
        choices.setdefault((k, part), {})[i] = values[name]
    return choices


def ulp_consistent(A, net: "Network", trace: "Trace", choices: dict) -> list:
    """Conditions that the steps form an implementation: wherever one activation's σ (or σ')
    meets the same pre-activation twice in a run, the step is the same (a hypothesis of a
    claim under ``activation=ulp:K``).  ``trace``: the run's."""
    seen: dict = {}
    conds = []
    for k, L in enumerate(net.layers):
        act = get_activation(L.activation)
        if act.is_identity:
            continue
        for part in ("value", "derivative"):
            if (k, part) not in choices:
                continue
            for i in range(L.n_out):
                z, c = trace.pre[k][..., i], choices[(k, part)][i]
                for z2, c2 in seen.get((act.name, part), ()):
                    conds.append(A.or_(A.not_(A.same(z, z2)), A.int_cmp("eq", c, c2)))
                seen.setdefault((act.name, part), []).append((z, c))
    return conds


class _Stepped:
    """An activation whose σ' is stepped (``activation=ulp:K``): the backward formula reads
    σ' of this row through it."""

    def __init__(self, act, A, steps, K):
        self._act, self._A, self._steps, self._K = act, A, steps, K

    def __getattr__(self, name):
        return getattr(self._act, name)

    def derivative(self, A, z):
        d = self._act.derivative(A, z)
        return _step_rows(A, d, self._steps, self._K)


def _step_rows(A, v, steps, K):
    """Each row (last axis) of ``v`` stepped by its own step (``steps``: {row: k})."""
    if steps is None:
        raise InputError("activation=ulp:K: a run needs the claim's step variables (ulp_variables)")
    out = np.array(v, copy=True)
    for i in range(np.shape(v)[-1]):
        out = _put(out, i, ulp_step(A, v[..., i], steps[i], K))
    return out


def parse_semantics(text) -> "Semantics":
    """A profile from ``key=value`` parts joined by commas: ``order=`` (left, reversed,
    pairwise, blocked:K, wide:FORMAT, any), ``backward=`` (paper, torch, jax), ``activation=``
    (correct, numpy, torch, ulp:K), ``fold=`` (first, +0); ``paper`` alone is the paper's
    profile.  Unnamed parts keep the paper's choice.  One clear InputError for anything else."""
    if isinstance(text, Semantics):
        return text
    if text is None or not str(text).strip() or str(text).strip().lower() == "paper":
        return PAPER
    kw, steps = {}, []
    keys = "order, backward, activation, fold, step"
    for part in str(text).split(","):
        key, eq, value = part.strip().partition("=")
        key, value = key.strip().lower(), value.strip()
        if not eq or not value:
            raise InputError(f"semantics part {part.strip()!r} is not key=value (keys: {keys})")
        if key == "step":  # one implementation of activation=ulp:K: ACT:value|derivative:0xPATTERN:±k
            bits = value.split(":")
            if len(bits) != 4 or bits[1] not in ("value", "derivative") or not bits[2].lower().startswith("0x"):
                raise InputError(f"step={value}: not ACTIVATION:value|derivative:0xPATTERN:K (e.g. relu:value:0x0:+1)")
            try:
                at, k = int(bits[2], 16), int(bits[3])
            except ValueError:
                raise InputError(f"step={value}: the pattern is hex and K an integer") from None
            steps.append((bits[0].strip().lower(), bits[1], at, k))
            continue
        if key in kw or (key == "order" and "order" in kw):
            raise InputError(f"semantics part {key!r} given twice in {text!r}")
        if key == "order":
            if value.lower().startswith("wide:"):
                kw["order"], kw["wide"] = "left", value.split(":", 1)[1].strip()
                from fpsmt.semantics.formats import parse_format
                kw["wide"] = parse_format(kw["wide"]).name
            else:
                kw["order"] = value.lower()
        elif key == "wide":
            from fpsmt.semantics.formats import parse_format
            kw["wide"] = parse_format(value).name
        elif key == "backward":
            kw["backward"] = (("*", value.lower()),)
        elif key == "activation":
            kw["activation"] = value.lower()
        elif key == "fold":
            kw["fold_init"] = value
        else:
            raise InputError(f"unknown semantics key {key!r} in {text!r} (keys: {keys})")
    if steps:
        return SteppedAt(**kw, steps=tuple(steps))
    return Semantics(**kw)


PAPER = Semantics()


# ------------------------------------------------------------------------ IR
class Pattern:
    """A sparsity pattern prepared for the fold.

    For an order that folds a sequence (:attr:`Plan.seq`, e.g. the paper's), by fold step:
    ``positions[k] = (rows, cols, entry)``: the rows that have a k-th term in their fold
    sequence (the summation order applied to the row's entries listed by column), that
    entry's column and its index in the layer's entry list (``rows`` may be
    ``slice(None)`` for all rows, ``cols`` a one-column slice).  Step-major order lets
    one NumPy operation advance every row at once.

    For a tree order, ``positions`` is None and ``groups`` lists, per row length n,
    ``(rows, cols, entries, plan)``: the rows with n terms, their terms' columns and entry
    indices (arrays of shape (rows, n), by column) and the order's :class:`Plan` for n —
    one NumPy operation per ⊕ step advances every row of the group.

    For ``order=any`` both are None: :func:`fold` reads ``present`` and ``entry_sorted`` and
    folds each row in the permutation a claim chose.
    """

    def __init__(self, n_rows, n_cols, rows, cols, sem: "Semantics" = None):
        sem = sem or PAPER
        self.n_rows, self.n_cols = n_rows, n_cols
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        order = np.lexsort((cols, rows))
        r, c = rows[order], cols[order]
        counts = np.bincount(r, minlength=n_rows)
        self.absent_rows = np.nonzero(counts < n_cols)[0]
        self.present = (r, c)  # the (row, column) of every entry, sorted by row then column
        self.entry_sorted = order  # each of those entries' index in the layer's entry list
        self.positions, self.groups = None, None
        if sem.order == ANY:  # each row in its chosen permutation, from ``present`` (fold: _fold_any)
            return
        if not sem.is_sequence(n_cols):
            self._tree_groups(sem, r, c, order, counts)
            return
        inv = np.empty(n_cols, dtype=np.int64)  # each column's step in the dense fold
        inv[sem.sequence(n_cols)] = np.arange(n_cols)
        by_step = np.lexsort((inv[c], r))  # entries by row, then by the dense fold's step
        r, c, order = r[by_step], c[by_step], order[by_step]
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rank = np.arange(len(r)) - starts[r]  # the fold step of each entry within its row
        self.positions = []
        for k in range(int(counts.max()) if len(r) else 0):
            sel = rank == k
            rk, ck = r[sel], c[sel]
            # Plain slices where possible: every row at once, or one column broadcast.
            rows_idx = slice(None) if len(rk) == n_rows else rk
            cols_idx = slice(int(ck[0]), int(ck[0]) + 1) if len(ck) and (ck == ck[0]).all() else ck
            self.positions.append((rows_idx, cols_idx, order[sel]))

    def _tree_groups(self, sem, r, c, order, counts):
        """Rows grouped by their pruned plan (same term count, same ⊕ steps)."""
        ends = np.cumsum(counts)
        groups: dict = {}
        for i in np.nonzero(counts)[0].tolist():
            a, b = int(ends[i] - counts[i]), int(ends[i])
            plan = sem.row_plan(self.n_cols, c[a:b].tolist())
            groups.setdefault((b - a, plan.ops, plan.root), (plan, []))[1].append((i, a, b))
        self.groups = []
        for (n, _, _), (plan, members) in groups.items():
            idx = np.asarray([np.arange(a, b) for _, a, b in members], dtype=np.int64).reshape(-1, n)
            self.groups.append((np.asarray([i for i, _, _ in members], dtype=np.int64), c[idx], order[idx], plan))

    def absent_cols(self):
        """For each row with absent entries, the list of its absent columns."""
        r, c = self.present
        present = [set() for _ in range(self.n_rows)]
        for i, j in zip(r.tolist(), c.tolist()):
            present[i].add(j)
        return [[j for j in range(self.n_cols) if j not in present[i]] for i in self.absent_rows]


@dataclass
class Layer:
    """``z = W ⊗ x ⊕ b`` then the activation.  ``weights[k]`` sits at (rows[k], cols[k])."""

    n_out: int
    n_in: int
    rows: np.ndarray
    cols: np.ndarray
    weights: list  # int bit patterns or Param
    bias: list  # int bit patterns or Param, length n_out
    activation: str = "identity"

    def __post_init__(self):
        self.rows = np.asarray(self.rows, dtype=np.int64)
        self.cols = np.asarray(self.cols, dtype=np.int64)
        if not (len(self.rows) == len(self.cols) == len(self.weights)):
            raise InputError("layer entries: rows, cols and weights differ in length")
        if len(self.bias) != self.n_out:
            raise InputError(f"layer bias has {len(self.bias)} entries, expected {self.n_out}")
        if len(self.rows) and (self.rows.min() < 0 or self.rows.max() >= self.n_out
                               or self.cols.min() < 0 or self.cols.max() >= self.n_in):
            raise InputError(f"layer entry index outside the {self.n_out}x{self.n_in} shape")
        if len(set(zip(self.rows.tolist(), self.cols.tolist()))) != len(self.rows):
            raise InputError("layer has a duplicate weight entry")
        get_activation(self.activation)

    @classmethod
    def dense(cls, W, b, activation="identity"):
        """From dense rows ``W[i][j]`` (patterns or Params; every entry explicit)."""
        n_out = len(W)
        n_in = len(W[0]) if n_out else 0
        if any(len(row) != n_in for row in W):
            raise InputError("dense weight rows differ in length")
        rows, cols = np.divmod(np.arange(n_out * n_in), max(n_in, 1))
        return cls(n_out, n_in, rows, cols, [w for row in W for w in row], list(b), activation)

    def pattern(self, direction: str, sem: Semantics = None) -> Pattern:
        """The layer's entries prepared for the forward fold over its rows
        (``direction="forward"``) or D^AD's fold over its columns (``"backward"``)."""
        sem = sem or PAPER
        cache = self.__dict__.setdefault("_patterns", {})
        key = (direction, sem.order)  # the pattern depends on the order only
        if key not in cache:
            cache[key] = (Pattern(self.n_out, self.n_in, self.rows, self.cols, sem) if direction == "forward"
                          else Pattern(self.n_in, self.n_out, self.cols, self.rows, sem))
        return cache[key]

    @property
    def act(self) -> Activation:
        return get_activation(self.activation)

    def params(self):
        return [w.name for w in list(self.weights) + list(self.bias) if isinstance(w, Param)]


@dataclass
class Network:
    fmt: Format
    layers: list = field(default_factory=list)

    def __post_init__(self):
        for a, b in zip(self.layers, self.layers[1:]):
            if b.n_in != a.n_out:
                raise InputError(f"layer widths do not chain: {a.n_out} outputs feed {b.n_in} inputs")
        if not self.layers:
            raise InputError("a network needs at least one layer")

    @property
    def n_in(self):
        return self.layers[0].n_in

    @property
    def n_out(self):
        return self.layers[-1].n_out

    @property
    def depth(self):
        return len(self.layers)

    def params(self):
        out = []
        for layer in self.layers:
            out += [p for p in layer.params() if p not in out]
        return out

    def bound(self, values: dict) -> "Network":
        """The network with every symbolic parameter replaced by its value in ``values``
        ({name: bit pattern})."""
        def sub(e):
            return values[e.name] if isinstance(e, Param) else e
        return Network(self.fmt, [Layer(L.n_out, L.n_in, L.rows, L.cols, [sub(w) for w in L.weights],
                                        [sub(b) for b in L.bias], L.activation) for L in self.layers])

    def n_parameters(self):
        return sum(len(layer.weights) + layer.n_out for layer in self.layers)


# ----------------------------------------------------------------- semantics
@dataclass
class Trace:
    """What one run computed: outputs, D^AD and every pre-/post-activation."""

    out: object
    grad: object
    pre: list
    post: list
    upstream: list = field(default_factory=list)  # per layer: the gradient w.r.t. its output (D^AD only)
    #: with ``keep_absent``: per layer, the absent entries' terms, forward {row: value} and
    #: backward {input column: value} (what :class:`Zeros` stands in for)
    absent: list = field(default_factory=list)


def _values(A, entries, params):
    """Interpretation values for a list of patterns / Params: shape (n,), or (batch…, n)
    when a parameter has one value per sample (e.g. enumerated by the exhaustive solver)."""
    bits = [0 if isinstance(e, Param) else e for e in entries]
    vals = np.array(A.const(np.asarray(bits, dtype=np.uint64 if A.fmt.nbits <= 64 else object)), copy=True)
    found = {}
    for k, e in enumerate(entries):
        if isinstance(e, Param):
            if params is None or e.name not in params:
                raise InputError(f"parameter {e.name!r} has no value")
            v = params[e.name]
            found[k] = v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v
    batch = np.broadcast_shapes(*[np.shape(v) for v in found.values()]) if found else ()
    if batch:
        vals = np.array(np.broadcast_to(vals, batch + vals.shape), copy=True)
    for k, v in found.items():
        vals[..., k] = v
    return vals


def _chosen(A, terms, perm):
    """The terms in the order ``perm`` gives (integer values: the k-th term folded is
    ``terms[perm[k]]``), by selection: exact in every interpretation."""
    out = []
    for p in perm:
        t = terms[-1]
        for j in range(len(terms) - 2, -1, -1):
            t = A.where(A.int_cmp("eq", p, A.int_const(j)), terms[j], t)
        out.append(t)
    return out


def _fold_any(A, pattern, W, v, product, choices, S):
    """``order=any``: each row's present terms (listed by column) folded left to right in the
    permutation ``choices[row]`` (rows of one term need none)."""
    r, c = pattern.present
    e = pattern.entry_sorted
    for i in np.unique(r).tolist():
        sel = np.flatnonzero(r == i)
        terms = [product(A, v[..., int(c[k])], W[..., int(e[k])]) for k in sel]
        if len(terms) > 1:
            perm = None if choices is None else choices.get(i)
            if perm is None or len(perm) != len(terms):
                raise InputError(f"order=any: row {i} has {len(terms)} terms and needs a permutation of them "
                                 f"(got {0 if perm is None else len(perm)} choices)")
            terms = _chosen(A, terms, perm)
        acc = terms[0]
        for t in terms[1:]:
            acc = A.add(acc, t)
        S = _put(S, i, acc)
    return S


def _put(S, i, value):
    """``S[..., i] = value``, ``S`` first broadcast to a larger shape where ``value`` has one
    (the claim's choice variables enumerated on axes of their own)."""
    shape = np.broadcast_shapes(np.shape(S)[:-1], np.shape(value))
    if shape != np.shape(S)[:-1]:
        S = np.array(np.broadcast_to(S, shape + np.shape(S)[-1:]), copy=True)
    S[..., i] = value
    return S


def fold(A, pattern: Pattern, W, v, product, sem: Semantics, zeros=None, zeros_after=False, bias=None,
         choices=None):
    """Sum over each row of ``product(B, v[..., j], W[entry])`` in the semantics' order
    (``pattern`` was prepared for it), then the absent entries' term, exactly; with
    ``zeros`` (one value per row), every row adds that value instead (see :class:`Zeros`),
    or after its own absent term with ``zeros_after``; then ``bias`` (one value per row)
    when given.  ``B`` is ``A``, or with ``sem.wide`` its sibling in the wide format: the
    inputs are converted to it (exactly: the wide format holds every value), every product
    and ⊕ of the row is computed there, and the row's sum is rounded once to ``A``'s format
    at the end."""
    Wf = sem.wide_format()
    B = A if Wf is None else A.sibling(Wf)
    if B is not A:
        W, v = B.convert(A, W), B.convert(A, v)
        zeros = None if zeros is None else B.convert(A, zeros)
        bias = None if bias is None else B.convert(A, bias)
    shape = np.broadcast_shapes(np.shape(v)[:-1], np.shape(W)[:-1]) + (pattern.n_rows,)  # per-sample W
    start = B.fmt.zero_bits(sem.fold_init == "first")  # −0 is ⊕'s identity
    S = np.array(B.full(shape, start), copy=True)
    if sem.order == ANY:
        if sem.fold_init != "first":
            raise InputError("order=any folds from the first chosen term; fold=+0 is not combined with it")
        S = _fold_any(B, pattern, W, v, product, choices, S)
    elif pattern.positions is not None:
        for k, (rows, cols, entry) in enumerate(pattern.positions):
            prod = product(B, v[..., cols], W[..., entry])
            if k == 0 and sem.fold_init == "first":
                S[..., rows] = prod
            else:
                S[..., rows] = B.add(S[..., rows], prod)
    else:
        for rows, cols, entry, plan in pattern.groups:
            T = product(B, v[..., cols], W[..., entry])  # (..., rows of the group, n), by column
            slots = [T[..., i] for i in range(T.shape[-1])]
            for dst, a, b in plan.ops:
                slots[dst] = B.add(slots[a], slots[b])
            r = slots[plan.root]
            if sem.fold_init != "first":
                r = B.add(B.full(np.shape(r), 0), r)
            S[..., rows] = r
    if (zeros is None or zeros_after) and len(pattern.absent_rows):
        Z = B.absent_zero_sum(v, pattern)
        rows = pattern.absent_rows
        S[..., rows] = B.add(S[..., rows], Z)
    if zeros is not None:
        S = B.add(S, zeros)
    if bias is not None:
        S = B.add(S, bias)
    return S if B is A else A.convert(B, S)


@dataclass
class Zeros:
    """Stand-ins for the absent entries' terms of a block that runs beside others in one
    dense network.  There each row of the block also sums +0 ⊗ the other blocks' values
    (forward) and each column +0 ⊗ their gradients (backward): the whole's row is the
    block's present terms ⊕ one zero whose sign the other blocks decide (when their values
    are finite; :meth:`Arith.absent_zero_sum`).  A block run with ``Zeros`` adds
    ``forward[k]`` (one value per row of layer k) to every row of layer k instead of its
    own absent term, and ``backward[k]`` (one per input column of layer k) to every
    column of the gradient w.r.t. layer k's input; a stage that proves its claim for every
    ±0 there covers the block inside any such whole (tests/test_tree.py: the terms are
    the whole's when the stand-ins are the whole's absent terms).  Layers not listed keep
    their own absent terms."""

    forward: dict = field(default_factory=dict)
    backward: dict = field(default_factory=dict)
    #: the stand-ins are the other blocks' share only: each row (column) keeps its own
    #: absent term and adds the stand-in after it — the whole's row exactly, since a sum of
    #: ±0/NaN terms does not depend on their grouping (fpsmt.proof.approx compares the two)
    others: bool = False

    @staticmethod
    def names(net: "Network", first: int = 1) -> dict:
        """Variable names for the stand-ins of layers ``first``… of ``net`` (by default
        every layer but the first, which reads the network's inputs): {"forward": {k:
        [names]}, "backward": {k: [names]}}."""
        return {"forward": {k: [f"zf{k}_{r}" for r in range(net.layers[k].n_out)]
                            for k in range(first, len(net.layers))},
                "backward": {k: [f"zb{k}_{j}" for j in range(net.layers[k].n_in)]
                             for k in range(first, len(net.layers))}}


def fold_terms(A, terms, sem: Semantics):
    """A row's sum from its terms (a list of value arrays of one shape, listed by column):
    :func:`fold` itself on one dense row whose products are the terms, so the order and
    the fold start are the IR's by construction."""
    n = len(terms)
    row = Pattern(1, n, np.zeros(n, dtype=np.int64), np.arange(n), sem)
    if sem.wide is not None:
        raise InputError("a row summed from terms already rounded cannot follow order=wide")
    return fold(A, row, np.arange(n), np.stack(terms, axis=-1), lambda B, ts, _: ts, sem)[..., 0]


def row_terms(A, layer: "Layer", params, v, direction: str, row: int = 0, sem: Semantics = PAPER) -> list:
    """The products one row's fold adds, in the fold's order (the absent entries' term and
    the bias not included): forward, row ``row`` of the layer (``v``: the layer's inputs,
    products W ⊗ v); backward, input column ``row`` (``v``: the gradients w.r.t. the
    layer's pre-activations, products v ⊗ W) — the very products :func:`fold` adds
    (``params``: the values of the layer's symbolic parameters, as :func:`run` takes them)."""
    W = _values(A, layer.weights, params)
    pattern = layer.pattern(direction, sem)
    if pattern.positions is None or sem.wide is not None:
        raise InputError(f"a row's terms in fold order exist for orders that fold a sequence in the format, "
                         f"not for {sem.spec}")
    out = []
    for rows, cols, entry in pattern.positions:
        if isinstance(rows, slice):
            i = row
        else:
            hit = np.nonzero(np.asarray(rows) == row)[0]
            if not len(hit):
                continue
            i = int(hit[0])
        c = cols.start if isinstance(cols, slice) else int(cols[i])
        w, x = W[..., int(entry[i])], v[..., c]
        out.append(A.mul(w, x) if direction == "forward" else A.mul(x, w))
    return out


def _absent_terms(A, pattern, v):
    Z = A.absent_zero_sum(v, pattern)
    return {} if Z is None else {int(r): Z[..., i] for i, r in enumerate(pattern.absent_rows)}


def run(A, net: Network, x, y=None, params=None, sem: Semantics = PAPER, zeros: Zeros | None = None,
        keep_absent=False, given_pre: dict | None = None, choices: dict | None = None) -> Trace:
    """Forward pass at inputs ``x`` (shape ``(..., n_in)``) and, when the upstream gradient
    ``y`` (shape ``(..., n_out)``) is given, D^AD: the gradient w.r.t. x.  ``zeros``:
    stand-ins for the absent entries' terms (:class:`Zeros`); ``keep_absent``: the trace
    keeps the absent entries' terms of every layer (for tests that compare a block beside
    others with its stage).  ``given_pre`` ({layer: values of shape ``(..., n_out)``}): that
    layer's pre-activations are these values instead of its sum — the rest of the run,
    the backward pass included, reads the layer's forward pass only through its pre- and
    post-activations, so a stage that holds for every pre-activation another stage
    proves possible covers the real run (tests/test_tree.py: with the real pre-activations
    given, every term is the plain run's).  ``choices`` (``order=any``): {(layer,
    "forward" | "backward"): {row: [integer values]}}, each row's permutation of its
    present terms (:func:`any_order_variables`); ``activation=ulp:K``: {(layer, "value" |
    "derivative"): {row: integer step}} (:func:`ulp_variables`)."""
    ch = choices or {}
    zf = zeros.forward if zeros is not None else {}
    zb = zeros.backward if zeros is not None else {}
    after = zeros is not None and zeros.others
    if np.shape(x)[-1] != net.n_in:
        raise InputError(f"network takes {net.n_in} inputs, got {np.shape(x)[-1]}")
    pre, post, weights = [], [], []
    absent = [[{}, {}] for _ in net.layers] if keep_absent else []
    h = x
    for k, layer in enumerate(net.layers):
        W = _values(A, layer.weights, params)
        b = _values(A, layer.bias, params)
        weights.append(W)
        if given_pre is not None and k in given_pre:
            z = given_pre[k]
            if np.shape(z)[-1] != layer.n_out:
                raise InputError(f"layer {k} has {layer.n_out} rows, got {np.shape(z)[-1]} pre-activations")
        else:
            if keep_absent:
                absent[k][0] = _absent_terms(A, layer.pattern("forward", sem), h)
            z = fold(A, layer.pattern("forward", sem), W, h, lambda B, xs, ws: B.mul(ws, xs), sem, zf.get(k), after, b,
                     ch.get((k, "forward")))
        h = sem.act_of(layer.act).value(A, z)
        if sem.ulp_rows and not layer.act.is_identity:
            h = _step_rows(A, h, ch.get((k, "value")), sem.ulp)
        pre.append(z)
        post.append(h)
    grad = None
    upstream = [None] * len(net.layers)
    if y is not None:
        if np.shape(y)[-1] != net.n_out:
            raise InputError(f"network has {net.n_out} outputs, got {np.shape(y)[-1]} upstream gradients")
        g = y
        for k, layer, W, z, a in reversed(list(zip(range(len(pre)), net.layers, weights, pre, post))):
            upstream[k] = g
            act = sem.act_of(layer.act)
            if sem.ulp_rows and not layer.act.is_identity:
                act = _Stepped(act, A, ch.get((k, "derivative")), sem.ulp)
            g = sem.backward_formula(layer.act)(A, act, g, z, a)
            if keep_absent:
                absent[k][1] = _absent_terms(A, layer.pattern("backward", sem), g)
            g = fold(A, layer.pattern("backward", sem), W, g, lambda B, gs, ws: B.mul(gs, ws), sem, zb.get(k), after,
                     choices=ch.get((k, "backward")))
        grad = g
    return Trace(h, grad, pre, post, upstream, absent)
