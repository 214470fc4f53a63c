"""The logistic family's backward program proved for every |y| <= H_σ in any format: a
proof tree in the family's arithmetic, every term (u ⊗ 1/4) ⊗ w (ReLU's tree,
proofs/theorem_3_2_relu.py, rewritten for it).

In formats of at most 16 bits proofs/logi_theorem_3_2.py decides the program by
enumerating y; wider formats (float32, float64) cannot be enumerated, so the program
(:func:`gated_logi.point_program`, then the paths' carries and weights on x) is cut where
its builders cut it, and each cut is a claim over (y, the cut's value):

* **Y** — every staircase starts from the program's first step,
  Y = (((y ⊗ 4) ⊗ 1/4) ⊗ 4 ⊗ 1/4) ⊗ 2^(m+2), which is y ⊗ 2^(m+2) exactly for |y| <= H
  (the stage ``start``);
* **staircase stages** of a threshold (block or below(t)) on (y, u), u in Y's units: the
  invariant "u = y ⊗ 2^(m+2) for |y| < t; th <= |u| <= U_k above, u a multiple of 4ω
  ((u ⊗ 1/4) ⊗ 4 = u), u not of y's opposite sign", th the threshold on Y the plan
  decides; each stage runs gated_logi.stage_steps (its gadget included), runs of stages
  of one form are one induction each, as for ReLU;
* **a block's final map** (gated_logi.final_steps): C·sign(y)·1[|y| >= t];
* **below(b)** at scale 2^−j: A = the scale steps on u (bounded above b), the block
  Z = 2^e_max·sign(y)·1[|y| >= b] and (A ⊕ Z) ⊖ Z as the program takes it — a zero from b
  on, and Ā = ((A_Y ⊗ 1/4) ⊗ 4) below b, A_Y the scale steps run on y ⊗ 2^(m+2);
* **a linear part** [a, b) at scale 2^−j, with its path's ×2^p: below(b) ⊖ below(a), then
  the ×2^p steps: y ⊗ 2^(m+2−j+p) on a <= |y| < b, a zero elsewhere;
* **a constant piece** c on [t, t'): its two blocks' sum, 4c·sign(y) on [t, t'); the
  constant pieces' pairwise sums (theorem32.tree_sum), one path;
* **the root**: the paths' values, each carried at least once, times their weights on x,
  summed left to right — g(y) (a zero target met by either zero).

Every stage also states that every value it computes is finite.

**Padding.**  A program run beside a longer one is padded at its end by ×1 steps, and the
network carries each path up to its depth: in this arithmetic a ×1 step is
pad(u) = (u ⊗ 1/4) ⊗ 4, exact only on multiples of 4ω.  The claims compute one pad where
the program pads a value once or more: the fact ``quarter_pad`` (pad(pad(u)) = pad(u) for
every finite u; pad(u) is 4·RN(u/4), a multiple of 4ω) makes n >= 1 pads one.  Which
values are padded how often is read from the builders' own lengths when the tree is
built.  The body must need no splitting by theorem32.binary_sums (every step of at most
two terms per unit; gated_logi's builders write their three-term sums as two steps):
checked when the tree is built, since a split would insert carries into the other parts'
running programs.

What is argued, not a node: that these cuts are the program's (the tree runs the
builders' own steps: stage_steps, final_steps, the scale steps; the sums, pads and carries
are written here as the builders make them), as for ReLU; a test runs the tree's model
(rationals rounded once) against gated_logi.eval_program at every |y| <= H of the 8-bit
formats, for the built-in g and random pieces.
"""

from __future__ import annotations

from fractions import Fraction

from fpsmt.constructions import threshold as T
from fpsmt.errors import InputError
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.tree import Node, Pred, fact, sequence, stage
from fpsmt.proofs import theorem_3_2_relu as PT
from fpsmt.semantics.formats import parse_format, pow2

V = Float(finite=True)
FOUR = Fraction(4)


def y_var(fmt):
    """y with |y| <= H_σ (every float of that interval)."""
    from fpsmt.constructions import gated_logi as GL
    fmt = parse_format(fmt)
    H = fmt.round(GL.y_bound(fmt))
    return Float(finite=True, range=(fmt.hex(fmt.round(-GL.y_bound(fmt))), fmt.hex(H)))


class _SeenQ(PT.Quarter):
    """:class:`theorem_3_2_relu.Quarter` that keeps every value it computes."""

    def __init__(self, s):
        super().__init__(s)
        self.seen = []

    def mul(self, a, b):
        self.seen.append(super().mul(a, b))
        return self.seen[-1]

    def add(self, a, b):
        self.seen.append(super().add(a, b))
        return self.seen[-1]


class ExactQ(PT.Exact):
    """The same computations on exact rationals, each product and sum rounded once, every
    term (u ⊗ 1/4) ⊗ w: the model the tests compare with gated_logi.eval_program."""

    def mul(self, a, b):
        return self._rn(self._rn(Fraction(a) / 4) * b)


def pad(o, v, n=1):
    """n >= 1 ×1 steps of the arithmetic ``o`` on v, as one (fact ``quarter_pad``)."""
    return o.mul(v, o.const(FOUR)) if n else v


def pad_fact() -> Node:
    def goal(s):
        o = PT.Quarter(s)
        once = pad(o, s.u)
        return [pad(o, once).same(once)]
    c = forall("quarter_pad", {"u": Float(finite=True)}, goal=goal,
               doc="pad(pad(u)) has pad(u)'s bits for every finite u, pad(u) = (u ⊗ 1/4) ⊗ 4: n >= 1 of the "
                   "program's ×1 steps (padding, carries) on a value are one")
    return fact(c)


class QStairs(PT.Stairs):
    """The staircases of the family's programs: u in Y's units, from the program's first
    step; above the threshold u is a multiple of 4ω."""

    ops = ops_w = PT.Quarter
    seen = seen_w = _SeenQ
    below_doc, above_doc = "u = Y", ", (u ⊗ 1/4) ⊗ 4 = u"

    def __init__(self, fmt):
        from fpsmt.constructions import gated_logi as GL
        self.fmt = fmt
        self.y = y_var(fmt)
        self.scale = GL.y_scale(fmt)
        self.start_doc = f"u = Y = (d ⊗ 1/4) ⊗ 2^{GL.scale_exponent(fmt) + 2}, d = ((y ⊗ 4) ⊗ 1/4) ⊗ 4"

    def steps(self, fmt, P, sh):
        from fpsmt.constructions import gated_logi as GL
        return GL.stage_steps(fmt, P, sh)

    def start(self, s):
        o = PT.Quarter(s)
        return o.mul(o.mul(s.y * s.const(4), o.const(FOUR)), o.const(self.scale))

    def unit(self, s):
        return s.y * s.const(self.scale)

    def above(self, s, u):
        return [pad(PT.Quarter(s), u).same(u)]

    def top(self, fmt):
        from fpsmt.constructions import gated_logi as GL
        return GL._top(fmt)

    def start_model(self, o, y):
        return o.mul(o.mul(T.rn(self.fmt, 4 * Fraction(y)), o.const(FOUR)), o.const(self.scale))


def _scale_steps(o, v, weights):
    for w in weights:
        v = o.mul(v, o.const(w))
    return v


def _where(s, cond, v):
    return s.where(cond, v, s.const(0))


def _stair_model(fmt, st, stages):
    """(model(ops, y): u after the staircase ``stages`` from the program's first step, the
    staircase's number of steps)."""
    progs = [st.steps(fmt, P, sh) for P, sh, _ in stages]

    def run(o, y):
        u = st.start_model(o, y)
        for prog in progs:
            u = PT._steps(o, prog, u)
        return u
    return run, sum(len(prog) for prog in progs)


def _block(fmt, st, tag, t, C, ovar):
    """(nodes, guarantee, model, length) of the block C·sign(y)·1[|y| >= t]
    (gated_logi.block_program of gated_logi.plan): its staircase, then its final map."""
    from fpsmt.constructions import gated_logi as GL
    p = GL.plan(fmt, t, C)
    items, invs, _ = PT._stairs(fmt, tag, t, p.stages, st, th=p.t)
    out = Pred(f"{tag}.out", {"y": st.y, ovar: V},
               lambda s: [s[ovar].eq(_where(s, abs(s.y) >= s.const(t),
                                            s.where(s.y > 0, s.const(C), s.const(-C))))],
               doc=f"{ovar} = {float(C):g}·sign(y)·1[|y| >= {PT._show(t)}] (a zero below)")
    fin = GL.final_steps(p)
    items.append(stage(f"{tag}.final", {}, out, lambda s: {ovar: PT._steps(PT.Quarter(s), fin, s.u)},
                       hypothesis=invs[-1], side=lambda s: PT._finite(s, lambda o: PT._steps(o, fin, s.u), seen=_SeenQ),
                       doc="×m1 ×m, the quarter gadget at P, 4ω taken to C"))
    stairs, _ = _stair_model(fmt, st, p.stages)

    def model(o, y):
        return PT._steps(o, fin, stairs(o, y))
    return [sequence(tag, items, doc=p.describe())], out, model, len(GL.block_program(p))


def _combine(tag, premises, out, ovar, compute, doc):
    return PT._combine(tag, premises, out, ovar, compute, doc, ops=PT.Quarter, seen=_SeenQ)


def _length(fmt, b, j, n):
    from fpsmt.constructions import gated_logi as GL
    if len(GL._below(fmt, b, j)) != n:
        raise AssertionError(f"below({PT._show(b)}) has {len(GL._below(fmt, b, j))} steps, the tree's {n}")


def _below(fmt, st, tag, b, j, ovar):
    """(nodes, guarantee, model, length) of gated_logi._below(b, j): Y·2^−j (the scale
    steps) for |y| < b, carried once (pad), and a zero from b on; b None: the scale steps
    on Y everywhere, not carried."""
    from fpsmt.constructions import gated_logi as GL
    from fpsmt.constructions import theorem32 as M
    ws = GL.scale_steps(fmt, j)

    def A_of_y(o, s):  # the scale steps on Y, below b
        return _scale_steps(o, st.unit(s), ws)
    if b is None:
        out = Pred(f"{tag}.out", {"y": st.y, ovar: V}, lambda s: [s[ovar].eq(A_of_y(PT.Quarter(s), s))],
                   doc=f"{ovar} = Y's scale steps (×2^-{j})")
        node = stage(tag, {"y": st.y}, out, lambda s: {ovar: _scale_steps(PT.Quarter(s), st.start(s), ws)},
                     side=lambda s: PT._finite(s, lambda o: _scale_steps(o, st.start(s), ws), seen=_SeenQ),
                     doc=f"A = Y ×2^-{j}")
        _length(fmt, b, j, len(ws))
        return [node], out, lambda o, y: _scale_steps(o, st.start_model(o, y), ws), len(ws)
    stair = GL._staircase(fmt, b)
    items, invs, top = PT._stairs(fmt, tag, b, stair, st, th=st.scale * b)
    amax = GL.scaled_bound(fmt, top, j)
    if amax is None:
        raise InputError(f"below({PT._show(b)}) at scale 2^-{j} overflows {fmt.name}")
    apred = Pred(f"{tag}.A", {"y": st.y, "a": V},
                 lambda s: [(abs(s.y) < s.const(b)).implies(s.a.eq(A_of_y(PT.Quarter(s), s))),
                            (abs(s.y) >= s.const(b)).implies(abs(s.a) <= s.const(amax))],
                 doc=f"a = Y's scale steps for |y| < {PT._show(b)}; |a| <= {float(amax):g} above")
    items.append(stage(f"{tag}.A", {}, apred, lambda s: {"a": _scale_steps(PT.Quarter(s), s.u, ws)},
                       hypothesis=invs[-1],
                       side=lambda s: PT._finite(s, lambda o: _scale_steps(o, s.u, ws), seen=_SeenQ),
                       doc=f"A = u ×2^-{j} (steps {', '.join(f'{float(w):g}' for w in ws)})"))
    znodes, zpred, zmodel, zlen = _block(fmt, st, f"{tag}.Z", b, M._swamp(fmt), "z")
    stairs, slen = _stair_model(fmt, st, stair)
    alen = slen + len(ws)
    depth = max(alen, zlen)

    def absorb(o, a, z):
        # the parallel's pads and its final step ((A, Z, Z) each ×1: at least one pad each, so
        # one), then p = A ⊗ 1 ⊕ Z ⊗ 1 with the second Z carried, then p ⊗ 1 ⊕ Z ⊗ (−1)
        # (gated_logi._below): n >= 1 pads of a value are one (quarter_pad)
        p = o.add(pad(o, pad(o, a)), pad(o, pad(o, z)))
        return o.add(pad(o, p), o.mul(pad(o, z), o.const(-FOUR)))
    out = Pred(f"{tag}.out", {"y": st.y, ovar: V},
               lambda s: [s[ovar].eq(_where(s, abs(s.y) < s.const(b), pad(PT.Quarter(s), A_of_y(PT.Quarter(s), s))))],
               doc=f"{ovar} = pad(Y's scale steps) for |y| < {PT._show(b)}, a zero from there on")
    comb = _combine(f"{tag}.cancel", [apred, zpred], out, ovar, lambda o, s: absorb(o, s.a, s.z),
                    doc=f"(A ⊕ Z) ⊖ Z, each ×1 as the program carries them: A carried below {PT._show(b)}; above, "
                        f"±2^{fmt.e_max} absorbs A and the result is a zero")
    def model(o, y):
        return absorb(o, _scale_steps(o, stairs(o, y), ws), zmodel(o, y))
    _length(fmt, b, j, depth + 3)
    return ([sequence(f"{tag}.staircase", items, doc=f"the staircase of {PT._show(b)} on Y, then A")] + znodes
            + [comb], out, model, depth + 3)


def _linear(fmt, st, tag, a, b, j, up, ovar):
    """(nodes, guarantee, model) of a linear part's path: gated_logi.linear_program(a, b, j)
    then ×2^up: y ⊗ 2^(m+2−j+up) on a <= |y| < b, a zero elsewhere."""
    from fpsmt.constructions import gated_logi as GL
    e = GL.scale_exponent(fmt) + 2 - j + up
    ups = GL._scaled(fmt, up)
    nb, pb, mb, lb = _below(fmt, st, f"{tag}.below_b", b, j, "vb")
    inside = (lambda s: abs(s.y) >= s.const(a)) if b is None else \
        (lambda s: (abs(s.y) >= s.const(a)) & (abs(s.y) < s.const(b)))
    out = Pred(f"{tag}.out", {"y": st.y, ovar: V}, lambda s: [s[ovar].eq(_where(s, inside(s), s.y * s.const(pow2(e))))],
               doc=f"{ovar} = y ⊗ 2^{e} on {PT._show(a)} <= |y| < {PT._show(b)}, a zero elsewhere")
    scale = f", then ×2^{up}" if up else ""
    if a > fmt.omega:
        na, pa, ma, la = _below(fmt, st, f"{tag}.below_a", a, j, "va")
        depth = max(la, lb)

        def diff(o, vb, va):  # the parallel's pads, then its final step vb ⊗ 1 ⊕ va ⊗ (−1)
            d = o.add(o.mul(pad(o, vb, depth - lb), o.const(FOUR)), o.mul(pad(o, va, depth - la), o.const(-FOUR)))
            return _scale_steps(o, d, ups)
        comb = _combine(tag, [pb, pa], out, ovar, lambda o, s: diff(o, s.vb, s.va),
                        doc=f"below({PT._show(b)}) ×1 ⊕ below({PT._show(a)}) ×(−1), each padded as the program "
                            f"pads it{scale}")
        return nb + na + [comb], out, lambda o, y: diff(o, mb(o, y), ma(o, y))
    comb = _combine(tag, [pb], out, ovar, lambda o, s: _scale_steps(o, s.vb, ups), doc=f"below({PT._show(b)}){scale}")
    return nb + [comb], out, lambda o, y: _scale_steps(o, mb(o, y), ups)


def _const(fmt, st, tag, lo, hi, c, ovar):
    """(nodes, guarantee, model, length) of a constant piece c on lo <= |y| < hi: the blocks
    4c·sign(y)·1[|y| >= lo] and −4c·sign(y)·1[|y| >= hi] side by side, summed (each ×1)."""
    C = 4 * c
    if hi is None:
        return _block(fmt, st, f"{tag}.from", lo, C, ovar)
    n1, p1, m1, l1 = _block(fmt, st, f"{tag}.from", lo, C, "o1")
    n2, p2, m2, l2 = _block(fmt, st, f"{tag}.to", hi, -C, "o2")
    depth = max(l1, l2)

    def total(o, v1, v2):
        return o.add(o.mul(pad(o, v1, depth - l1), o.const(FOUR)), o.mul(pad(o, v2, depth - l2), o.const(FOUR)))
    out = Pred(f"{tag}.out", {"y": st.y, ovar: V},
               lambda s: [s[ovar].eq(PT._segs_term(s, s.y, [(lo, hi, "const", C)]))],
               doc=f"{ovar} = {float(C):g}·sign(y) on {PT._show(lo)} <= |y| < {PT._show(hi)}, a zero elsewhere")
    comb = _combine(tag, [p1, p2], out, ovar, lambda o, s: total(o, s.o1, s.o2),
                    doc="the two blocks, each padded as the program pads it, ×1 and summed")
    return n1 + n2 + [comb], out, lambda o, y: total(o, m1(o, y), m2(o, y)), depth + 1


def _pairwise(o, vals):
    """theorem32.tree_sum's final step (each ×1) and its pairwise sums, an odd one carried."""
    vals = [pad(o, v) for v in vals]
    while len(vals) > 1:
        nxt = [o.add(pad(o, vals[2 * i]), pad(o, vals[2 * i + 1])) for i in range(len(vals) // 2)]
        vals = nxt + ([pad(o, vals[-1])] if len(vals) % 2 else [])
    return vals[0]


def program_tree(fmt, pieces, name, doc=""):
    """(root, model): the proof tree of one point's program in the family's arithmetic
    (module docstring) and ``model(ops, y)``, the same computations (:class:`ExactQ`: the
    tests' reading), D for the upstream y."""
    from fpsmt.constructions import gated_logi as GL
    from fpsmt.constructions import theorem32 as M
    fmt = parse_format(fmt)
    segs = PT.segments(pieces)
    prog = GL.point_body(fmt, pieces)  # the program is its first step (Y) and binary_sums of this body
    if prog is None or not segs:
        raise InputError("every piece is 0: the point has no backward program (its gradient is the zero atom's)")
    body, weights = prog
    if M.binary_sums(body, one=FOUR) != body:
        raise AssertionError("the program has a step of more than two terms: the tree models binary steps only")
    st = QStairs(fmt)
    nodes, paths = [], []  # paths: (guarantee, model, length, weight)
    consts = []  # (name, (nodes, guarantee, model, length), segment)
    for i, p in enumerate(pieces):
        nxt = pieces[i + 1].t if i + 1 < len(pieces) else None
        if p.c != 0 and p.kind == "const":
            consts.append((f"c{i + 1}", _const(fmt, st, f"g.piece{i + 1}", p.t, nxt, p.c, f"c{i + 1}"),
                           (p.t, nxt, "const", 4 * p.c)))
    if len(consts) == 1:
        (_, (cnodes, cpred, cmodel, clen), _), = consts
        nodes += cnodes
        paths.append((cpred, cmodel, clen, Fraction(1)))
    elif consts:
        names = [n for n, _, _ in consts]
        lens = [c[3] for _, c, _ in consts]
        models = [c[2] for _, c, _ in consts]
        csegs = [seg for _, _, seg in consts]
        depth = max(lens)

        def csum(o, vals):
            return _pairwise(o, [pad(o, v, depth - n) for v, n in zip(vals, lens)])
        cpred = Pred("g.consts.out", {"y": st.y, "r0": V}, lambda s: [s.r0.eq(PT._segs_term(s, s.y, csegs))],
                     doc="r0 = the constant pieces' 4c·sign(y) on their ranges, a zero elsewhere")
        nodes += [n for _, c, _ in consts for n in c[0]]
        nodes.append(_combine("g.consts", [c[1] for _, c, _ in consts], cpred, "r0",
                              lambda o, s: csum(o, [s[n] for n in names]),
                              doc="theorem32.tree_sum of the constant pieces, each padded as the program pads it "
                                  "(at most one nonzero at any y)"))
        paths.append((cpred, lambda o, y, models=models: csum(o, [m(o, y) for m in models]),
                      depth + 1 + (len(consts) - 1).bit_length(), Fraction(1)))
    k = 0
    for i, p in enumerate(pieces):
        nxt = pieces[i + 1].t if i + 1 < len(pieces) else None
        if p.c == 0 or p.kind != "linear":
            continue
        for a, b, j in GL.linear_parts(fmt, p.t, nxt, p.c):
            k += 1
            up, w = GL.path_weight(fmt, p.c, j)
            ln, lp, lm = _linear(fmt, st, f"g.piece{i + 1}.part{k}", a, b, j, up, f"l{k}")
            nodes += ln
            paths.append((lp, lm, len(GL.linear_program(fmt, a, b, j)) + len(GL._scaled(fmt, up)), w))
    if [w for *_, w in paths] != list(weights):
        raise AssertionError("the tree's paths are not the program's")
    if len(body) != max(n for _, _, n, _ in paths) + 1:
        raise AssertionError(f"the tree's paths make {max(n for _, _, n, _ in paths) + 1} steps, the program "
                             f"{len(body)}")
    rnames = [[n for n in pp.variables if n != "y"][0] for pp, *_ in paths]

    def D(o, vals):
        acc = None
        for v, (_, _, _, w) in zip(vals, paths):  # each path carried at least once, times its weight on x
            term = o.mul(pad(o, v), o.const(w))
            acc = term if acc is None else o.add(acc, term)
        return acc
    gpred = Pred("g.out", {"y": st.y, "d": V}, lambda s: [s.d.eq(PT._segs_term(s, s.y, segs))],
                 doc="d = g(y), a zero target met by either zero")
    nodes.append(_combine("g", [pp for pp, *_ in paths], gpred, "d", lambda o, s: D(o, [s[n] for n in rnames]),
                          doc="the paths, each carried (pad) as the body's last step and the network's carries do, "
                              "times their weights on x, summed left to right"))
    root = Node("lemma", name, None, [pad_fact()] + nodes, doc=doc)
    return root, (lambda o, y: D(o, [m(o, y) for _, m, _, _ in paths]))
