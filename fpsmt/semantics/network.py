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

#: Summation orders by name: ``order(n)`` gives the sequence (a permutation of range(n))
#: in which a row's n present terms, listed by column, are folded left to right; the
#: bias comes last.  This is the one place an order is defined: the IR's rows, D^AD's
#: sums over rows, the Z3 encoding (the same program), the block-aware evaluation
#: (:func:`fold_terms`) and the PyTorch export all read it.
ORDERS: dict = {}


def summation_order(name):
    """Register a summation order under ``name`` (a decorator on ``order(n)``)."""
    def register(fn):
        ORDERS[name] = fn
        return fn
    return register


@summation_order("left")
def left_to_right(n):
    """The paper's: ``((t_1 ⊕ t_2) ⊕ …) ⊕ t_n``, terms in column order."""
    return range(n)


@dataclass(frozen=True)
class Semantics:
    """The choices that fix a network's floating-point meaning.

    ``order``: the summation order of a matrix–vector product and of D^AD's sums over rows
    (a name of :data:`ORDERS`; ``"left"``: left to right, the paper's).  ``fold_init``:
    ``"first"`` (the paper's) or ``"+0"``.  ``backward``: name of the activation backward
    formula per activation name, with ``"*"`` as the default (``"paper"``: g ⊗ σ'(z)).
    """

    order: str = "left"
    fold_init: str = "first"
    backward: tuple = (("*", "paper"),)

    def __post_init__(self):
        if self.order not in ORDERS:
            raise InputError(f"unknown summation order {self.order!r} (known: {', '.join(ORDERS)})")
        if self.fold_init not in ("first", "+0"):
            raise InputError(f"unknown fold start {self.fold_init!r} (known: first, +0)")
        for _, f in self.backward:
            if f not in BACKWARD_FORMULAS:
                raise InputError(f"unknown backward formula {f!r} (known: {', '.join(BACKWARD_FORMULAS)})")

    def backward_formula(self, act: Activation):
        d = dict(self.backward)
        return BACKWARD_FORMULAS[d.get(act.name, d.get("*", "paper"))]

    def sequence(self, n: int) -> np.ndarray:
        """The order in which a row's n terms (listed by column) are folded."""
        return _sequence(self.order, int(n))


_SEQUENCES: dict = {}


def _sequence(order, n):
    key = (order, n)
    seq = _SEQUENCES.get(key)
    if seq is None:
        seq = np.asarray(list(ORDERS[order](n)), dtype=np.int64)
        if sorted(seq.tolist()) != list(range(n)):
            raise InputError(f"summation order {order!r} gives {seq.tolist()} for {n} terms: not a permutation")
        _SEQUENCES[key] = seq
    return seq


PAPER = Semantics()


# ------------------------------------------------------------------------ IR
class Pattern:
    """A sparsity pattern prepared for the fold, by fold step.

    ``positions[k] = (rows, cols, entry)``: the rows that have a k-th term in their fold
    sequence (the summation order applied to the row's entries listed by column), that
    entry's column and its index in the layer's entry list (``rows`` may be
    ``slice(None)`` for all rows, ``cols`` a one-column slice).  Step-major order lets
    one NumPy operation advance every row at once.
    """

    def __init__(self, n_rows, n_cols, rows, cols, sem: "Semantics" = None):
        self.n_rows, self.n_cols = n_rows, n_cols
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        order = np.lexsort((cols, rows))
        r, c = rows[order], cols[order]
        counts = np.bincount(r, minlength=n_rows)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rank = np.arange(len(r)) - starts[r]  # position in column order
        lengths = counts[r]
        for n in np.unique(lengths):  # the fold step of each entry: where the order puts its position
            seq = (sem or PAPER).sequence(int(n))
            step = np.empty(len(seq), dtype=np.int64)
            step[seq] = np.arange(len(seq))
            sel = lengths == n
            rank[sel] = step[rank[sel]]
        self.positions = []
        for k in range(int(counts.max()) if len(r) else 0):
            sel = rank == k
            rk, ck = r[sel], c[sel]
            # Plain slices where possible: every row at once, or one column broadcast.
            rows_idx = slice(None) if len(rk) == n_rows else rk
            cols_idx = slice(int(ck[0]), int(ck[0]) + 1) if len(ck) and (ck == ck[0]).all() else ck
            self.positions.append((rows_idx, cols_idx, order[sel]))
        self.absent_rows = np.nonzero(counts < n_cols)[0]
        self.present = (r, c)  # the (row, column) of every entry, sorted by row then column

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
        key = (direction, sem.order)
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


def fold(A, pattern: Pattern, W, v, product, sem: Semantics, zeros=None, zeros_after=False):
    """Sum over each row of ``product(v[..., j], W[entry])`` in the semantics' order
    (``pattern`` was prepared for it), then the absent entries' term, exactly; with
    ``zeros`` (one value per row), every row adds that value instead (see :class:`Zeros`),
    or after its own absent term with ``zeros_after``."""
    shape = np.broadcast_shapes(np.shape(v)[:-1], np.shape(W)[:-1]) + (pattern.n_rows,)  # per-sample W
    start = A.fmt.zero_bits(sem.fold_init == "first")  # −0 is ⊕'s identity
    S = np.array(A.full(shape, start), copy=True)
    for k, (rows, cols, entry) in enumerate(pattern.positions):
        prod = product(v[..., cols], W[..., entry])
        if k == 0 and sem.fold_init == "first":
            S[..., rows] = prod
        else:
            S[..., rows] = A.add(S[..., rows], prod)
    if (zeros is None or zeros_after) and len(pattern.absent_rows):
        Z = A.absent_zero_sum(v, pattern)
        rows = pattern.absent_rows
        S[..., rows] = A.add(S[..., rows], Z)
    return S if zeros is None else A.add(S, zeros)


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
    return fold(A, row, np.arange(n), np.stack(terms, axis=-1), lambda ts, _: ts, sem)[..., 0]


def row_terms(A, layer: "Layer", params, v, direction: str, row: int = 0, sem: Semantics = PAPER) -> list:
    """The products one row's fold adds, in the fold's order (the absent entries' term and
    the bias not included): forward, row ``row`` of the layer (``v``: the layer's inputs,
    products W ⊗ v); backward, input column ``row`` (``v``: the gradients w.r.t. the
    layer's pre-activations, products v ⊗ W) — the very products :func:`fold` adds
    (``params``: the values of the layer's symbolic parameters, as :func:`run` takes them)."""
    W = _values(A, layer.weights, params)
    pattern = layer.pattern(direction, sem)
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
        keep_absent=False, given_pre: dict | None = None) -> Trace:
    """Forward pass at inputs ``x`` (shape ``(..., n_in)``) and, when the upstream gradient
    ``y`` (shape ``(..., n_out)``) is given, D^AD: the gradient w.r.t. x.  ``zeros``:
    stand-ins for the absent entries' terms (:class:`Zeros`); ``keep_absent``: the trace
    keeps the absent entries' terms of every layer (for tests that compare a block beside
    others with its stage).  ``given_pre`` ({layer: values of shape ``(..., n_out)``}): that
    layer's pre-activations are these values instead of its sum — the rest of the run,
    the backward pass included, reads the layer's forward pass only through its pre- and
    post-activations, so a stage that holds for every pre-activation another stage
    proves possible covers the real run (tests/test_tree.py: with the real pre-activations
    given, every term is the plain run's)."""
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
            z = A.add(fold(A, layer.pattern("forward", sem), W, h, lambda xs, ws: A.mul(ws, xs), sem, zf.get(k), after), b)
        h = layer.act.value(A, z)
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
            g = sem.backward_formula(layer.act)(A, layer.act, g, z, a)
            if keep_absent:
                absent[k][1] = _absent_terms(A, layer.pattern("backward", sem), g)
            g = fold(A, layer.pattern("backward", sem), W, g, lambda gs, ws: A.mul(gs, ws), sem, zb.get(k), after)
        grad = g
    return Trace(h, grad, pre, post, upstream, absent)
