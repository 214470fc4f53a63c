"""Block-aware evaluation of a ⊞ network: value and D^AD at many points, bit for bit.

A network built by :func:`fpsmt.constructions.relu.boxplus` is block diagonal on one shared input:
each part (a *block*) is a small network, and only the output row (a left-to-right sum
of every block's output terms) and D^AD's sum over the first layer's rows join them.
:func:`blockwise` computes exactly what :func:`fpsmt.semantics.network.run` computes (the test
suite compares the bits, NaN and inf inputs included), without the whole width:

* blocks of one *shape* (same layer sizes, sparsity pattern and activations — every
  gradient atom of a format has one, every zero-gradient atom another) run together as
  one network whose weights and biases are per-sample parameters, on every
  (block, point) pair;
* **runs**: the (block, point) pairs are kept in order and, after each layer, adjacent
  pairs whose state is bit-identical (the layer's values, and whatever the backward
  formula reads) are merged into one *run* that the later layers compute once.  An
  atom's state is the same at every x on one side of its point after its step
  indicators, so most layers compute a few runs per block instead of one row per
  point.  The backward pass does the same with (forward run, upstream gradient),
  splitting runs again where the forward state below differs.  Nothing is assumed:
  every merged pair had equal bits, and every operation is the IR's.

Then the output terms and the first layer's gradient terms are summed across blocks by
the network's own summation code (:func:`fpsmt.semantics.network.fold_terms`, in the
semantics' order), with the absent entries' zero term and the bias as the IR adds them.
"""

from __future__ import annotations

import numpy as np

from fpsmt.semantics.network import PAPER, Layer, fold, fold_terms, paper_backward, run

CHUNK = 1 << 20  # (block, point) pairs evaluated at once


def _blocks(net):
    """The hidden neurons of each block of a network whose hidden layers are block diagonal
    on one shared input: [[indices in hidden layer k] for k …] per block (in the order of
    their first neurons), or None if some block has no neuron in some layer or a hidden
    neuron reads nothing.  Neurons are labelled by a first-layer neuron they descend
    from; labels that meet in one neuron are joined (union by minimum, to a fixed point)."""
    L = net.layers
    label = np.arange(L[0].n_out)
    labels, joins = [label], []
    for k in range(1, len(L) - 1):
        rows, cols = L[k].rows, L[k].cols
        if len(np.unique(rows)) != L[k].n_out:
            return None
        lo = np.full(L[k].n_out, np.iinfo(np.int64).max)
        np.minimum.at(lo, rows, label[cols])
        joins.append((label[cols], lo[rows]))
        label = lo
        labels.append(label)
    root = np.arange(L[0].n_out)
    if joins:
        a = np.concatenate([j[0] for j in joins])
        b = np.concatenate([j[1] for j in joins])
        while True:
            m = np.minimum(root[a], root[b])
            if (root[a] == m).all() and (root[b] == m).all():
                break
            np.minimum.at(root, root[a], m)
            np.minimum.at(root, root[b], m)
            while (root[root] != root).any():
                root = root[root]
    labels = [root[lab] for lab in labels]
    roots = np.unique(labels[0])
    if any(len(np.unique(lab)) != len(roots) for lab in labels):
        return None
    order = [np.argsort(lab, kind="stable") for lab in labels]
    cuts = [np.append(np.searchsorted(lab[o], roots), len(lab)) for lab, o in zip(labels, order)]
    return [[o[c[i]:c[i + 1]].tolist() for o, c in zip(order, cuts)] for i in range(len(roots))]


def _block_networks(net, blocks, sign_bit):
    """Each block alone (list, in block order): ``(layers, output columns, unread)`` — its
    layers as ``(n_out, n_in, rows, cols, weights, bias, activation)``: its hidden layers,
    then one output row per output entry that reads it (bias −0, identity) in column
    order; the entries' columns; the block's last-layer neurons the output row does not
    read.  None for a block that does not reach the output or whose first-layer neuron
    does not read x."""
    L = net.layers
    nb = len(blocks)
    owner, local = [], []
    for k in range(len(L) - 1):
        o = np.empty(L[k].n_out, dtype=np.int64)
        loc = np.empty(L[k].n_out, dtype=np.int64)
        for b, per in enumerate(blocks):
            o[per[k]] = b
            loc[per[k]] = np.arange(len(per[k]))
        owner.append(o)
        local.append(loc)
    per_layer = []  # per layer: entries of each block, in the layer's entry order
    for k in range(len(L)):
        Lk = L[k]
        eb = owner[k - 1][Lk.cols] if k == len(L) - 1 else owner[k][Lk.rows]
        order = np.argsort(eb, kind="stable")
        cuts = np.searchsorted(eb[order], np.arange(nb + 1))
        per_layer.append([order[cuts[b]:cuts[b + 1]] for b in range(nb)])
    out = []
    for b, per in enumerate(blocks):
        layers = []
        for k in range(len(L) - 1):
            Lk, es = L[k], per_layer[k][b]
            cols = local[k - 1][Lk.cols[es]] if k else Lk.cols[es]
            layers.append((len(per[k]), len(per[k - 1]) if k else 1, local[k][Lk.rows[es]], cols,
                           [Lk.weights[e] for e in es], [Lk.bias[r] for r in per[k]], Lk.activation))
        es = per_layer[-1][b]
        if len(layers[0][2]) != layers[0][0] or not len(es):
            out.append(None)
            continue
        out_l = L[-1]
        es = es[np.argsort(out_l.cols[es], kind="stable")]
        cols = out_l.cols[es]
        layers.append((len(es), len(per[-1]), np.arange(len(es)), local[-1][cols],
                       [out_l.weights[e] for e in es], [sign_bit] * len(es), "identity"))
        unread = sorted(set(range(len(per[-1]))) - set(local[-1][cols].tolist()))
        out.append((layers, cols.tolist(), unread))
    return out


def _shape(layers):
    return tuple((n_out, n_in, rows.tobytes(), cols.tobytes(), act) for n_out, n_in, rows, cols, _, _, act in layers)


def blockwise(A, net, x, y, sem=PAPER):
    """Value and D^AD of a one-input, one-output network at inputs ``x`` (shape (n,)) with
    upstream ``y`` — the same bits as :func:`fpsmt.semantics.network.run`, computed per block of
    one shape and per run of equal states (module docstring).  Falls back to the whole
    network where it is not block diagonal on its input."""
    L = net.layers
    blocks = _blocks(net) if net.n_in == 1 and net.n_out == 1 and len(L) >= 2 else None
    parts = _block_networks(net, blocks, A.fmt.sign_bit) if blocks else None
    if not parts or any(p is None for p in parts) or sem.fold_init != "first" or sem.wide is not None \
            or sem.order not in ("left", "reversed") or sem.activation != "correct":  # fold_terms folds the
        # present terms as a dense row; the blocks' runs read the activation itself
        return _whole(A, net, x, y, sem)
    columns = [c for _, cols, _ in parts for c in cols]
    rows = [r for per in blocks for r in per[0]]
    if columns != sorted(columns) or rows != sorted(rows):  # the sums would not meet the blocks in block order
        return _whole(A, net, x, y, sem)
    out_l = L[-1]
    n = len(np.ravel(x))
    v_terms, g_terms = [], []  # the output row's terms and D^AD's terms over the first layer, by column
    any_nonfinite = np.zeros(n, dtype=bool)
    all_neg = np.ones(n, dtype=bool)
    absent = len(out_l.weights) < L[-2].n_out
    i = 0
    while i < len(parts):  # consecutive blocks of one shape, at most CHUNK pairs at once
        shape = _shape(parts[i][0])
        j = i + 1
        while j < len(parts) and j - i < max(1, CHUNK // max(n, 1)) and _shape(parts[j][0]) == shape:
            j += 1
        out, post, gterms = _run_group(A, [p[0] for p in parts[i:j]], x, y, sem, [p[2] for p in parts[i:j]])
        for b in range(j - i):
            v_terms += [out[b, :, t] for t in range(out.shape[2])]
            g_terms += [gterms[b, :, t] for t in range(gterms.shape[2])]
            for c in parts[i + b][2]:  # the block's last-layer neurons the output row does not read
                v = post[b][:, c]
                any_nonfinite |= ~np.asarray(A.is_finite(v))
                all_neg &= np.asarray(A.signbit(v))
        i = j
    S_v, S_g = fold_terms(A, v_terms, sem), fold_terms(A, g_terms, sem)  # the network's own order
    if absent:  # x ⊕ (the absent entries' order-free sum), as the IR adds it
        Z = np.where(any_nonfinite, A.fmt.nan_bits, np.where(all_neg, A.fmt.sign_bit, 0)).astype(np.uint64)
        S_v = A.add(S_v, A.const(Z))
    S_v = A.add(S_v, A.const(np.full(n, out_l.bias[0], dtype=np.uint64)))
    return S_v, S_g


def _whole(A, net, x, y, sem=PAPER):
    t = run(A, net, np.reshape(x, (-1, 1)), np.reshape(y, (-1, 1)), sem=sem)
    return t.out[:, 0], t.grad[:, 0]


def _merge(block, keys):
    """Positions of the runs that start a new state: the first, and every one whose block
    or key bits differ from its predecessor's."""
    new = np.ones(len(block), dtype=bool)
    if len(block) > 1:
        diff = block[1:] != block[:-1]
        for k in keys:
            diff |= (k[1:] != k[:-1]).reshape(len(block) - 1, -1).any(axis=1)
        new[1:] = diff
    return np.nonzero(new)[0]


def _expand(values, starts, total):
    """Run values (runs, …) back to one row per (block, point) pair."""
    return np.repeat(values, np.diff(np.append(starts, total)), axis=0)


def _run_group(A, specs, x, y, sem, absent_cols):
    """Blocks of one shape on every point.  Returns the output terms (G, n, m), the
    last hidden layer's values (G, n, width), or None when no block has a column the
    output row does not read (``absent_cols``), and the first layer's gradient terms (G, n, n1):
    (upstream ⊗ σ'(pre)) ⊗ w for each first-layer neuron, in row order."""
    G, n = len(specs), len(np.ravel(x))
    xb = np.ravel(A.to_bits(x)).astype(np.uint64)
    yb = np.ravel(A.to_bits(y)).astype(np.uint64)
    out, post, terms, _ = _run_pairs(A, specs, np.repeat(np.arange(G), n), np.tile(xb, G), np.tile(yb, G), sem,
                                     any(absent_cols))
    return out.reshape(G, n, -1), None if post is None else post.reshape(G, n, -1), terms.reshape(G, n, -1)


def _run_pairs(A, specs, block, xb, yb, sem, need_post):
    """Blocks of one shape at (block, input, upstream) triples (``block``: indices into
    ``specs``, non-decreasing; ``xb``, ``yb``: patterns), each pair computed exactly as
    the block alone computes it.  Returns what :func:`_run_copies` returns."""
    G = len(specs)
    layers = [Layer(n_out, n_in, rows, cols, [0] * len(rows), [0] * n_out, act)
              for n_out, n_in, rows, cols, _, _, act in specs[0]]  # the shape; values below
    Wb = [np.array([spec[k][4] for spec in specs], dtype=np.uint64).reshape(G, -1) for k in range(len(layers))]
    Bb = [np.array([spec[k][5] for spec in specs], dtype=np.uint64).reshape(G, -1) for k in range(len(layers))]
    return _run_copies(A, layers, Wb, Bb, block, xb, yb, sem, need_post)


def _run_copies(A, layers, Wb, Bb, block, xb, yb, sem, need_post):
    """Copies of one shape at (copy, input, upstream) triples, each computed exactly as
    the copy alone computes it: ``layers`` the shape (Layers whose own weights are not
    read), ``Wb[k]`` (copies × the layer's entries, in its entry order) and ``Bb[k]``
    (copies × neurons) the copies' patterns; ``block`` the copy of each triple
    (non-decreasing), ``xb`` its input — (P,) for one input, (P, d) for d — and ``yb``
    its upstream (P,).  Returns per triple the output terms (P, m), the last hidden
    layer's values (P, width) when ``need_post`` (else None), the first layer's gradient
    terms (P, entries): g_r ⊗ w for each first-layer entry (r, j), g_r the upstream of
    neuron r after its activation's backward formula, in (row, column) order — and those
    upstreams g_r (P, n1)."""
    total = len(block)
    # ---- forward, merging equal states
    starts = np.arange(total)
    h = A.const(xb)[:, None] if np.ndim(xb) == 1 else A.const(xb)
    fwd = []
    for k, layer in enumerate(layers):
        W, b = A.const(Wb[k][block]), A.const(Bb[k][block])
        z = fold(A, layer.pattern("forward", sem), W, h, lambda B, xs, ws: B.mul(ws, xs), sem, bias=b)
        a = layer.act.value(A, z)
        fwd.append((starts, block, z, a))
        keys = [A.to_bits(a)]
        if not layer.act.is_identity:
            keys.append(A.to_bits(layer.act.derivative(A, z)))
            if sem.backward_formula(layer.act) is not paper_backward:
                keys.append(A.to_bits(z))
        keep = _merge(block, keys)
        starts, block, h = starts[keep], block[keep], a[keep]
    out = _expand(fwd[-1][3], fwd[-1][0], total)
    s_last, _, _, a_last = fwd[-2] if len(fwd) > 1 else fwd[-1]
    post = _expand(a_last, s_last, total) if need_post else None
    # ---- backward: runs of (forward run, upstream); split where the forward runs below split
    m = layers[-1].n_out
    bstarts = np.arange(total)
    g = A.const(np.repeat(yb[:, None], m, axis=1))
    for k in range(len(layers) - 1, -1, -1):
        fstarts, fblock, z, a = fwd[k]
        mark = np.zeros(total, dtype=bool)
        mark[bstarts] = mark[fstarts] = True
        u = np.flatnonzero(mark)  # both run partitions at once
        fi = np.searchsorted(fstarts, u, side="right") - 1
        bi = np.searchsorted(bstarts, u, side="right") - 1
        g = g[bi]
        keep = _merge(fi, [A.to_bits(g)])
        u, fi, g = u[keep], fi[keep], g[keep]
        layer = layers[k]
        g = sem.backward_formula(layer.act)(A, layer.act, g, z[fi], a[fi])
        if k == 0:
            W0 = A.const(Wb[0][fblock[fi]])
            order = np.lexsort((layer.cols, layer.rows))  # the first layer's entries by (row, column)
            terms = A.mul(g[:, layer.rows[order]], W0[:, order])
            return out, post, _expand(terms, u, total), _expand(g, u, total)
        W = A.const(Wb[k][fblock[fi]])
        g = fold(A, layer.pattern("backward", sem), W, g, lambda B, gs, ws: B.mul(gs, ws), sem)
        bstarts = u



def copy_layout(net, kinds):
    """The blocks of a ⊞ network laid out kind after kind (as
    :func:`fpsmt.constructions.relu.boxplus_copies` lays them out): ``kinds`` = [(template
    network: the network's inputs, one output, output bias −0; number of copies), …].
    Checks that ``net`` is exactly those copies side by side — per layer the same neurons,
    entries (row, column) and activations, every copy reading the shared inputs and the output row
    reading every copy's output entries in order — and returns per kind (the template's
    layers in (row, column) entry order, Wb, Bb: per layer the copies' weights (copies ×
    entries) and biases (copies × neurons) read from ``net``, the template's last-layer
    neurons its output row does not read).  InputError, naming the layer, where ``net``
    is not that layout."""
    from fpsmt.errors import InputError
    L = net.layers
    depth = len(L)
    if any(T.depth != depth or T.n_in != net.n_in or T.n_out != 1 for T, _ in kinds) or net.n_out != 1:
        raise InputError("the network is not the copies' layout: the depths or the inputs and outputs differ")
    out = [([], [], [], None) for _ in kinds]
    for k in range(depth):
        Lk = L[k]
        order = np.lexsort((Lk.cols, Lk.rows))
        rows, cols = Lk.rows[order], Lk.cols[order]
        w = np.asarray([int(Lk.weights[i]) for i in order], dtype=np.uint64) if not isinstance(Lk.weights, np.ndarray) \
            else np.asarray(Lk.weights, dtype=np.uint64)[order]
        bias = np.asarray([int(b) for b in Lk.bias], dtype=np.uint64) if not isinstance(Lk.bias, np.ndarray) \
            else np.asarray(Lk.bias, dtype=np.uint64)
        last = k == depth - 1
        r0 = c0 = e0 = 0
        for (T, C), acc in zip(kinds, out):
            Tk = T.layers[k]
            if Tk.activation != Lk.activation:
                raise InputError(f"layer {k}: activation {Lk.activation}, the template's {Tk.activation}")
            t_order = np.lexsort((Tk.cols, Tk.rows))
            tr, tc = Tk.rows[t_order], Tk.cols[t_order]
            ne = len(tr) * C
            er, ec = rows[e0:e0 + ne].reshape(C, -1) if ne else rows[:0].reshape(C, 0), \
                cols[e0:e0 + ne].reshape(C, -1) if ne else cols[:0].reshape(C, 0)
            i = np.arange(C)[:, None]
            want_r = np.zeros_like(er) if last else r0 + i * Tk.n_out + tr[None, :]
            want_c = tc[None, :].repeat(C, 0) if k == 0 else c0 + i * Tk.n_in + tc[None, :]
            if er.shape != (C, len(tr)) or not (np.array_equal(er, want_r) and np.array_equal(ec, want_c)):
                raise InputError(f"layer {k}: the entries are not {C} copies of the template's")
            acc[0].append(Layer(Tk.n_out, Tk.n_in, tr, tc, [0] * len(tr), [0] * Tk.n_out, Tk.activation))
            acc[1].append(w[e0:e0 + ne].reshape(C, -1))
            if last:
                acc[2].append(np.full((C, 1), net.fmt.sign_bit, dtype=np.uint64))
            else:
                acc[2].append(bias[r0:r0 + C * Tk.n_out].reshape(C, -1))
            e0 += ne
            r0 += C * Tk.n_out
            c0 += C * Tk.n_in
        if e0 != len(rows) or (not last and r0 != Lk.n_out) or (k and c0 != Lk.n_in):
            raise InputError(f"layer {k}: the network has more than the copies")
        if last and int(bias[0]) != net.fmt.sign_bit:
            raise InputError("the output bias is not -0")
    result = []
    for (T, C), (layers, Wb, Bb, _) in zip(kinds, out):
        unread = sorted(set(range(T.layers[-1].n_in)) - set(T.layers[-1].cols.tolist()))
        result.append((layers, Wb, Bb, unread))
    return result


def own_blocks(A, net, kinds, x, y, sem=PAPER):
    """Value and D^AD at inputs ``x`` ((n,) for one input, (n, d) for d) with upstream
    ``y`` (n,) from only the blocks each point owns.  ``kinds`` = [(template, owners), …]:
    the network is the template's copies side by side, kind after kind (checked by
    :func:`copy_layout`), copy c of a kind built for point ``owners[c]``.  Each copy runs
    at its own point alone (one pair per copy: linear in the number of copies).  The output
    row is folded, per point, from its own copies' outputs (each copy's output terms summed
    as the copy alone sums them, bias −0), with −0 in place of every copy it does not own;
    D^AD w.r.t. each input j from its own copies' first-layer terms in column j, one by one
    in the whole's row order, with −0 for the others'.  Left to right (the paper's rows
    only), that is the network's value and D^AD up to the sign of a zero wherever every
    other copy contributes zeros, term by term — what the caller's lemmas must state — and
    a copy's partial sum before its own terms is then a zero, so summing its terms first
    changes nothing but that sign.  The absent entries' sums (the output row's, and with d
    inputs each column's over the first-layer rows that do not read it) are a zero, or NaN
    where a point's own copy has a non-finite value there; the other copies' are finite by
    the same lemmas.  A copy's terms at its own point are computed, never assumed.  A
    point's terms keep the kinds' order.  Returns (value (n,), D^AD (n,) for one input,
    (n, d) for d) as arrays of the format."""
    from fpsmt.errors import InputError
    d = net.n_in
    n = len(np.ravel(y))
    if sem.fold_init != "first" or sem.wide is not None or sem.order != "left" or sem.activation != "correct":
        raise InputError(f"the atoms' evaluation is the paper's left-to-right rows, not {sem.spec}")
    owners = [np.asarray(o, dtype=np.int64) for _, o in kinds]
    if any(len(o) and (o.min() < 0 or o.max() >= n) for o in owners):
        raise InputError(f"an owner is not one of the {n} points")
    layout = copy_layout(net, [(T, len(o)) for (T, _), o in zip(kinds, owners)])
    xb = np.asarray(A.to_bits(x)).astype(np.uint64).reshape(n, d)
    yb = np.ravel(A.to_bits(y)).astype(np.uint64)
    neg0 = A.fmt.sign_bit
    v_cols = []  # per kind: (n, slots × terms) patterns, −0 where a point has no copy
    g_cols = [[] for _ in range(d)]  # per input, per kind: the same for its first-layer terms
    bad_absent = np.zeros(n, dtype=bool)
    bad_column = np.zeros((n, d), dtype=bool)  # a non-finite upstream at a first-layer row that does not read x_j
    for (layers, Wb, Bb, unread), own in zip(layout, owners):
        C = len(own)
        if not C:
            continue
        slot = np.zeros(C, dtype=np.int64)  # the copy's place among its point's copies of this kind
        order = np.argsort(own, kind="stable")
        slot[order] = np.arange(C) - np.searchsorted(own[order], own[order])
        slots = int(slot.max()) + 1
        first = layers[0]
        entry = np.lexsort((first.cols, first.rows))  # the terms' order: (row, column)
        ecol = first.cols[entry]
        reads = np.zeros((first.n_out, d), dtype=bool)
        reads[first.rows, first.cols] = True
        m = layers[-1].n_out
        V = np.full((n, slots * m), neg0, dtype=np.uint64)
        Gr = [np.full((n, slots * int((ecol == j).sum())), neg0, dtype=np.uint64) for j in range(d)]
        for a in range(0, C, CHUNK):
            b = min(C, a + CHUNK)
            o, post, gterms, g0 = _run_copies(A, layers, [W[a:b] for W in Wb], [B[a:b] for B in Bb],
                                              np.arange(b - a), xb[own[a:b]], yb[own[a:b]], sem, bool(unread))
            o, gterms = np.asarray(A.to_bits(o)), np.asarray(A.to_bits(gterms))
            for t in range(m):
                V[own[a:b], slot[a:b] * m + t] = o[:, t]
            for j in range(d):
                mine = np.flatnonzero(ecol == j)
                for t, e in enumerate(mine):
                    Gr[j][own[a:b], slot[a:b] * len(mine) + t] = gterms[:, e]
                if not reads[:, j].all():  # the rows that do not read x_j: +0 ⊗ their upstream
                    nf = ~np.asarray(A.is_finite(g0[:, ~reads[:, j]])).all(axis=1)
                    np.logical_or.at(bad_column[:, j], own[a:b], nf)
            if unread:  # an unread value of a point's own copy: the absent sum's NaN
                np.logical_or.at(bad_absent, own[a:b], ~np.asarray(A.is_finite(post[:, unread])).all(axis=1))
        v_cols.append(V)
        for j in range(d):
            g_cols[j].append(Gr[j])
    terms_v = np.concatenate(v_cols, axis=1)
    S_v = fold_terms(A, [A.const(terms_v[:, k]) for k in range(terms_v.shape[1])], sem)
    if len(net.layers[-1].weights) < net.layers[-2].n_out:  # ⊕ the absent entries' sum: a zero, or NaN
        S_v = A.add(S_v, A.const(np.where(bad_absent, A.fmt.nan_bits, neg0).astype(np.uint64)))
    S_v = A.add(S_v, A.const(np.full(n, int(net.layers[-1].bias[0]), dtype=np.uint64)))
    L0 = net.layers[0]
    read = np.zeros(d, dtype=np.int64)
    np.add.at(read, L0.cols, 1)
    grads = []
    for j in range(d):
        terms_g = np.concatenate(g_cols[j], axis=1)
        S_g = fold_terms(A, [A.const(terms_g[:, k]) for k in range(terms_g.shape[1])], sem) if terms_g.shape[1] \
            else A.const(np.full(n, neg0, dtype=np.uint64))
        if read[j] < L0.n_out:  # rows of the whole's first layer that do not read x_j: their absent sum
            S_g = A.add(S_g, A.const(np.where(bad_column[:, j], A.fmt.nan_bits, neg0).astype(np.uint64)))
        grads.append(S_g)
    return S_v, (grads[0] if d == 1 else np.stack(grads, axis=1))
