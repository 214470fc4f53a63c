"""Constructions of the Theorem 3.1 network, one per activation, found without a hand-kept list.

A :class:`Construction` ties an activation (as ``--activation`` spells it) to the
blocks that build its networks (a module of builders, a *family*), the lemmas that
prove them (the proof files whose :class:`~fpsmt.proof.lemmas.Lemma` names that family)
and the theorem's constants for it (the domain X = [−M_σ, M_σ], the bound H_σ on the
upstream gradient, the paper's depth).  The blocks build hidden layers with the
construction's activation while it is active (:meth:`Construction.active`).

Constructions are discovered: every module of :mod:`fpsmt.constructions` that defines
``CONSTRUCTIONS`` (a list) contributes them; :func:`register` adds one at run time (a
user's or a test's).  Adding an activation's construction means adding its module and
its proof files, nothing else.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from fpsmt.errors import InputError

_registered: dict = {}
_discovered = [False]


class HiddenActivation:
    """The activation of a construction family's hidden layers: ``hidden()`` names it (the
    family's default, or the one a construction of the family made active for one run,
    :meth:`Construction.active`); ``hidden.using(name)`` makes ``name`` active meanwhile.
    Read when a network is built (claims build theirs when the engine evaluates them), so
    it is process-wide, not per thread: one construction is active at a time."""

    def __init__(self, default: str):
        self._name = default

    def __call__(self) -> str:
        return self._name

    @contextlib.contextmanager
    def using(self, name: str):
        saved = self._name
        self._name = name
        try:
            yield
        finally:
            self._name = saved


@dataclass
class Construction:
    activation: str  # the σ of every hidden layer, as --activation and the network JSON spell it
    family: str  # the proof files it rests on: lemmas whose ``family`` is this
    blocks: object  # the module of builders (theorem_network, check_points, hidden_activation)
    constants: Callable  # fmt -> an object with M_sigma, H_sigma (Fractions) and domain() (patterns)
    paper_depth: object = 7  # the paper's depth for this activation (an int, or a description)

    @contextlib.contextmanager
    def active(self):
        """The blocks build hidden layers with this construction's activation meanwhile."""
        with self.blocks.hidden_activation(self.activation):
            yield

    def check_points(self, fmt, points):
        """Refuse targets outside the hypotheses: the blocks' own checks, then x outside X or
        |h*| > H_σ (one line naming x and the bound)."""
        with self.active():
            self.blocks.check_points(fmt, points)
        c = self.constants(fmt)
        for z, _, h, _ in points:
            check_bounds(fmt, c, self.activation, f"at x = {fmt.show(z)}", [("x", z)], h)

    def network(self, fmt, points, depth=None, variant="repaired"):
        """The Theorem 3.1 network f2 ⊞ f1 for ``points`` = [(x, f*, h*, g*)] (patterns);
        ``depth``: a depth above the least (every family pads: its ``theorem_depth``);
        ``variant``: "shallow" for the relu family's shallow gradient atoms."""
        with self.active():
            kw = {} if variant == "repaired" else {"variant": variant}
            if depth is None:
                return self.blocks.theorem_network(fmt, points, **kw)
            return self.blocks.theorem_network(fmt, points, depth=depth, **kw)


def check_bounds(fmt, c, activation, at, coordinates, h):
    """Theorem 3.1's hypotheses on one target point, one error line naming it (``at``): each
    of ``coordinates`` ([(name, pattern)]) in X = [−M_σ, M_σ] and |h*| <= H_σ (``c``: the
    theorem's constants for ``activation`` in ``fmt``)."""
    for name, b in coordinates:
        if abs(fmt.to_fraction(b)) > c.M_sigma:
            raise InputError(f"{at}: {name} is outside X = [-{show_bound(c.M_sigma)}, {show_bound(c.M_sigma)}] "
                             f"of Theorem 3.1 for {activation} in {fmt.name}")
    if abs(fmt.to_fraction(h)) > c.H_sigma:
        raise InputError(f"{at}: |h*| = {fmt.describe(h)} exceeds H = {show_bound(c.H_sigma)} "
                         f"of Theorem 3.1 for {activation} in {fmt.name}")


def show_bound(q: Fraction) -> str:
    q = Fraction(q)
    if q > 0 and q.denominator == 1 and q.numerator & (q.numerator - 1) == 0:
        return f"2^{q.numerator.bit_length() - 1}"
    return str(q)


def register(construction: Construction) -> Construction:
    """Add a construction (replacing one of the same activation)."""
    _registered[construction.activation] = construction
    return construction


_offers: list = []  # the families' ``user_construction``, by module name


def _discover():
    if _discovered[0]:
        return
    import fpsmt.constructions
    for info in sorted(pkgutil.iter_modules(fpsmt.constructions.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"fpsmt.constructions.{info.name}")
        for c in getattr(module, "CONSTRUCTIONS", ()):
            _registered.setdefault(c.activation, c)
        if getattr(module, "user_construction", None) is not None:
            _offers.append(module.user_construction)
    _discovered[0] = True


def constructions() -> dict:
    """Every known construction, by activation name."""
    _discover()
    return dict(_registered)


def find_construction(activation) -> Construction | None:
    """The activation's construction: a registered one (by the activation's name), or for
    any other activation (a user's ``FILE.py:NAME`` included) the first family (in module
    order) whose ``user_construction`` offers one — a family offers to the activations of
    its shape (the rectifying one: σ the identity above some 2^a), the saturating one to
    every activation — registered under the
    spelling given: its requirements decide, per format, whether a network is built
    (``construct`` refuses naming the first that is not PROVED).  None when no family
    offers one."""
    from fpsmt.semantics.activations import get_activation
    name = get_activation(activation).name  # an unknown activation is its own error
    known = constructions()
    if name in known:
        return known[name]
    spec = str(activation).strip()
    if spec in known:
        return known[spec]
    for offer in _offers:  # in module order; the saturating family offers to every activation
        c = offer(spec)
        if c is not None:
            return register(c)
    return None


def get_construction(activation) -> Construction:
    c = find_construction(activation)
    if c is None:
        from fpsmt.semantics.activations import get_activation
        raise InputError(f"no Theorem 3.1 construction for {get_activation(activation).name} yet (constructions "
                         f"exist for {', '.join(sorted(constructions()))})")
    return c
