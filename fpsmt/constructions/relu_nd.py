"""Theorem 3.1 for ReLU on d-dimensional inputs: the atoms of :mod:`fpsmt.constructions.relu`
for a point z of F^d.

* **Zero-gradient atom** ZGA(z, v): per coordinate j the repaired step pair
  1[x_j >= z_j], 1[x_j <= z_j] on input j (the 1-D step indicators' networks, side by
  side); then G_j1 = relu(−|v| ⊗ 1[x_j >= z_j] ⊕ |v|) = |v|·1[x_j < z_j] and G_j2 likewise
  (x_j > z_j); N = relu(Σ_j (−G_j1 − G_j2) ⊕ |v|) = |v|·1[x = z]; out = sgn(v) ⊗ N.  For
  d = 1 this is the 1-D atom.
* **Gradient atom** GA_i(z, h, g) (g the target gradient on input i only): the step pairs
  of every coordinate; T = relu(x_i ⊖ z_i⁻) beside them, on input i only; the killers of
  every coordinate, G_ja = relu(C ⊖ C·1[x_j >= z_j]) and G_jb, C = 2^e_max, collapsed in two
  layers into one killer G1 = C·1[x != z] (A = relu(C ⊖ Σ killers), G1 = relu(C ⊖ A)) and
  G2 = +0; from there the 1-D atom's gate row, chain and output on (T, G1, G2).  D^AD
  reaches input i through T only.  Two layers deeper than the 1-D atom (:func:`depth`).
* The network: every GA_i of every point with g*_i ≠ 0 (coordinate by coordinate), then
  every point's ZGA, side by side on the d inputs (:func:`fpsmt.constructions.relu.boxplus_copies`),
  one output row summing their terms in that order.

Where two or more coordinates differ from z, a row subtracts two or more killers of
2^e_max (or of |v|) and its sum may overflow to −inf: such a row is dead (relu gives +0,
whose derivative is 0), no +inf term meets it (so no NaN), and every value after a ReLU
stays finite, as the dense semantics' absent terms (+0 ⊗ value) need.

What is proved (``fpsmt reproduce``): the zero-gradient atom for every d (its tree:
proofs/zero_gradient_atom_nd.py), the gradient atom for every d (proofs/gradient_atom_nd.py:
the d-wide gate, then the 1-D atom's chain and output lemmas), and both as whole-block
claims for d = 2, 3; the sums over the coordinates by an induction over their killer
terms (proofs/coordinates_nd.py).
"""

from __future__ import annotations

from fpsmt.constructions import relu as R
from fpsmt.errors import InputError


def _steps(fmt, d):
    """Layers 1–5: per coordinate j the step pair on input ``x{j}`` (Plan neurons
    ``ge{j}_{k}``, ``le{j}_{k}``; parameters ``ge{j}_*``, ``le{j}_*``)."""
    layers = [[] for _ in range(5)]
    for j in range(d):
        for tag, sign in ((f"ge{j}", 1), (f"le{j}", -1)):
            src = f"x{j}"
            for k, (entries, bias) in enumerate(R._step_layers(fmt, tag, sign, 0)):
                layers[k].append((f"{tag}_{k}", [(src, w) for _, _, w in entries], bias[0]))
                src = f"{tag}_{k}"
    return layers


def _step_params(s, zs):
    params = {}
    for j, z in enumerate(zs):
        params.update(R.step_params(s, f"ge{j}", z))
        params.update(R.step_params(s, f"le{j}", -z))
    return params


def inputs(d):
    return tuple(f"x{j}" for j in range(d))


def at_point(s, d):
    """x = z in every coordinate (the scope's variables ``x0`` … and ``z0`` …; +0 = −0)."""
    return s.all(*[s[f"x{j}"].eq(s[f"z{j}"]) for j in range(d)])


def zero_gradient_atom(s, *args):
    """ZGA(z, v) for z = args[:-1] (d coordinates), v = args[-1] (module docstring)."""
    *zs, v = args
    d = len(zs)
    f = s.fmt
    P = R.Plan(f, inputs(d))
    for layer in _steps(f, d):
        P.add(layer)
    b, nb = R.Param("b"), R.Param("nb")
    P.add([(f"G{j}{c}", [(f"{t}{j}_4", nb)], b) for j in range(d) for c, t in (("a", "ge"), ("b", "le"))])
    P.add([("N", [(f"G{j}{c}", -1) for j in range(d) for c in "ab"], b)])
    P.add([("out", [("N", R.Param("sgn"))], R.NEG0)])
    params = _step_params(s, zs)
    params.update(b=abs(v), nb=-abs(v), sgn=s.where(v.is_negative(), -1, 1))
    return P.network(), params


def gradient_atom(i, variant=R.REPAIRED):
    """The builder of GA_i: ``(s, z_0 … z_{d−1}, h, g)`` → (network, params).

    * layers 0–4: the step pairs of every coordinate; beside them T = relu(x_i ⊖ z_i⁻),
      carried (the 1-D gate's T, on input i);
    * layer 5: T carried; the killers G_ja = relu(C ⊖ C ⊗ 1[x_j >= z_j]) and G_jb (from
      1[x_j <= z_j]) of every coordinate, C = 2^e_max: both +0 at x_j = z_j, one of them C
      elsewhere;
    * layer 6: T carried; A = relu(Σ_j (−G_ja − G_jb) ⊕ C): C at x = z, +0 elsewhere;
    * layer 7: T carried; G1 = relu(−A ⊕ C): +0 at x = z, C elsewhere; G2 (no terms): +0;
    * from layer 8 on, the 1-D atom's layers on (T, G1, G2) — its gate row R = relu(T − G1 −
      G2), its chain and its output (:func:`fpsmt.constructions.relu.repaired_gradient_atom`):
      (R, G1, G2) is the 1-D gate's (d, 0, 0) at x = z and (0, C, 0) elsewhere.
    Two layers deeper than the 1-D atom (:func:`depth`).

    ``variant="shallow"``: the gate row also holds K = relu(d), d = z_i − z_i⁻ (a constant
    neuron), and from there the 1-D shallow atom's chain and output
    (:func:`fpsmt.constructions.relu.shallow_chain_and_output`)."""
    def build(s, *args):
        *zs, h, g = args
        d = len(zs)
        f = s.fmt
        P = R.Plan(f, inputs(d))
        for k, layer in enumerate(_steps(f, d)):
            P.add(layer + [("T", [(f"x{i}", 1)], R.Param(f"ge{i}_nzm")) if k == 0 else R.carried(["T"])[0]])
        C = R.killer_constant(f)
        killers = [f"G{j}{c}" for j in range(d) for c in "ab"]
        P.add([R.carried(["T"])[0]] + [(f"G{j}{c}", [(f"{t}{j}_4", -C)], C)
                                        for j in range(d) for c, t in (("a", "ge"), ("b", "le"))])
        P.add([R.carried(["T"])[0], ("A", [(g_, -1) for g_ in killers], C)])
        P.add([R.carried(["T"])[0], ("G1", [("A", -1)], C), ("G2", [], R.NEG0)])
        params = _step_params(s, zs)
        if variant == R.SHALLOW:
            P.add([("R", [("T", 1), ("G1", -1), ("G2", -1)], R.NEG0), ("K", [], R.Param("d"))]
                  + R.carried(["G1", "G2"]))
            params["d"] = zs[i] - zs[i].next_down()
            params.update(R.shallow_chain_and_output(s, P, h, g))
        else:
            P.add([("R", [("T", 1), ("G1", -1), ("G2", -1)], R.NEG0)] + R.carried(["G1", "G2"]))
            params.update(R.chain_and_output(s, P, zs[i], h, g))
        return P.network(), params
    return build


#: the largest d the lemma rows state (proofs/coordinates_nd.py: 2d killer terms <= 2^16)
D_MAX = 1 << 15

#: the lemma rows the d-dimensional network rests on (``construct --certify``, ``--verify atoms``)
LEMMAS = ("zero_gradient_atom_nd", "gradient_atom_nd", "boxplus_neutrality", "theorem_3_1_relu_nd")


def depth(fmt, variant=R.REPAIRED):
    """The d-dimensional atoms' depth: the gradient atom's, two layers more than the 1-D one
    (A and G1 collapse the coordinates' killers into the 1-D gate's); shallow: two more
    than a 1-D gate of 7 layers (the repaired gate, K beside R) with the compact chain after
    it, the sign on a chain layer of its own — 15, where the 1-D shallow atom has 11."""
    if variant == R.SHALLOW:  # the 1-D gate of 7 layers, then the compact chain (the sign its own layer)
        return 7 + R.chain_length(fmt, variant) + 1 + 2
    return R.gradient_atom_depth(fmt, variant) + 2


least_depth = depth  # the d-dimensional Theorem 3.1 network's least depth


def _kinds(fmt, points, variant=R.REPAIRED):
    """The network's blocks kind by kind, in its order: (builder, one list of bit patterns
    per builder argument, the points — indices into ``points`` — the copies are built
    for): GA_i of the points with g*_i ≠ 0, input by input, then every point's ZGA."""
    d = len(points[0][0])
    kinds = []
    for i in range(d):
        own = [k for k, p in enumerate(points) if not fmt.is_zero(p[3][i])]
        if own:
            kinds.append((gradient_atom(i, variant), [[points[k][0][j] for k in own] for j in range(d)]
                          + [[points[k][2] for k in own], [points[k][3][i] for k in own]], own))
    kinds.append((zero_gradient_atom, [[p[0][j] for p in points] for j in range(d)] + [[p[1] for p in points]],
                  list(range(len(points)))))
    return kinds


def theorem_network(fmt, points, depth=None, variant=R.REPAIRED):
    """f = f2 ⊞ f1 for ``points`` = [(z: d patterns, f*, h*, g*: d patterns), …]: the
    gradient atoms GA_i of the points with g*_i ≠ 0, coordinate by coordinate, then every
    point's zero-gradient atom (module docstring).  ``depth``: at least :func:`least_depth`
    (default), every atom padded to it (:func:`fpsmt.constructions.relu.theorem_depth`).
    ``variant="shallow"``: the shallow gradient atoms."""
    check_points(fmt, points)
    depth_ = R.theorem_depth(fmt, depth, least=least_depth(fmt, variant))
    return R.boxplus_copies(fmt, [R.block_copies(b, fmt, args, depth_)
                                  for b, args, _ in _kinds(fmt, points, variant)])


def atom_kinds(fmt, points, depth=None, variant=R.REPAIRED) -> list:
    """The kinds of :func:`theorem_network`'s blocks, in its order, as
    :func:`fpsmt.constructions.blockrun.own_blocks` takes them: (template, the points — indices
    into ``points`` — its copies were built for).  The templates are the builders' for the
    first point of each kind (only their shape is read).  ``depth``: the network's."""
    depth_ = R.theorem_depth(fmt, depth, least=least_depth(fmt, variant))
    return [(R.block_copies(b, fmt, [a[:1] for a in args], depth_)[0], own)
            for b, args, own in _kinds(fmt, points, variant)]


def check_points(fmt, points):
    """The hypotheses on d-dimensional targets, each violation one error line naming x:
    a non-empty domain of distinct points of one dimension (+0 and −0 are one value),
    finite values, each coordinate in X, |h*| <= H (:func:`fpsmt.constructions.registry.check_bounds`,
    as for d = 1), g*_i = 0 where h* = 0."""
    from fpsmt.constructions.registry import check_bounds
    if not points:
        raise InputError("the domain is empty")
    d = len(points[0][0])
    c = R.constants(fmt)
    seen = set()
    for z, v, h, g in points:
        at = f"at x = ({', '.join(fmt.show(b) for b in z)})"
        if len(z) != d or len(g) != d:
            raise InputError(f"{at}: {len(z)} coordinates and {len(g)} gradient components; the domain has {d}")
        for what, b in [(f"x{j + 1}", b) for j, b in enumerate(z)] + [("f*", v), ("h*", h)] + \
                [(f"g*{j + 1}", b) for j, b in enumerate(g)]:
            if not fmt.is_finite(b):
                raise InputError(f"{at}: {what} = {fmt.show(b)} is not finite")
        key = tuple(fmt.to_fraction(b) for b in z)
        if key in seen:
            raise InputError(f"{at}: x appears twice (+0 and -0 are one value)")
        seen.add(key)
        check_bounds(fmt, c, "relu", at, [(f"x{j + 1}", b) for j, b in enumerate(z)], h)
        if fmt.is_zero(h) and any(not fmt.is_zero(b) for b in g):
            raise InputError(f"{at}: h* = 0 but g* is not zero: a zero upstream gradient gives a zero gradient")

