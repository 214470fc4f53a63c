"""Proof trees: a lemma's row as stages, joins and inductions, each a claim the engine decides.

A stage proves something about one piece of a computation; a join proves that what one
stage guarantees is what the next one assumes; an induction proves an invariant at its
first index, from each index to the next (for a symbolic index) and what follows from it
at the last.  Each is a ∀ claim.  What ties them together is not prose: the interfaces
are :class:`Pred` objects — a name, variables with their domains, and a boolean function
— and a node states its premises and conclusions by *calling* them.  A join's premise is
the guarantee predicate of the stage before it (the same object, rendered to the same
SMT-LIB term: :meth:`Pred.term_hash`), its conclusion the hypothesis predicate of the
stage after it.  :func:`sequence` refuses a chain whose links do not match, and
:func:`check_ties` recomputes every term hash (a certificate records them).

Semantics of a sequence ``stage A, join J, stage B``::

    A: ∀ u. H_A(u) → G_A(f_A(u))      J: ∀ v. G_A(v) → H_B(v)      B: ∀ v. H_B(v) → G_B(f_B(v))

give ∀ u. H_A(u) → G_B(f_B(f_A(u))) by instantiating v := f_A(u) (pure logic); that
f_B ∘ f_A is the whole computation is a fact about the code that builds it (the stage
computations are slices of the whole; the tests compare them).  An induction with
invariant I(k, v) over lo <= k <= hi::

    base: ∀ u. H(u) → I(lo, f_0(u))    step: ∀ k ∈ [lo, hi), v. I(k, v) → I(k + 1, f(k, v))
    conclusion: ∀ v. I(hi, v) → G(v)

or, for a run whose length is part of the state (``done``: its last index), the step
for every k with ¬done(k, v) and the conclusion ∀ k ∈ [lo, hi], v. I(k, v) ∧ done(k, v)
→ G(v).

A ``fact`` node is a claim that other nodes use through instances of it (``assumes``):
u ⊗ 1 = u, or congruence of ⊗ decided with ⊗ uninterpreted (:attr:`Claim.uninterpreted`).

A row built from a tree is PROVED only when every claim node of it is.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable

from fpsmt.proof.claims import Claim, FloatDomain, I, IntDomain, Scope, domain_constraint, forall

KINDS = ("lemma", "sequence", "stage", "join", "cases", "part", "induction", "base", "step", "conclusion", "fact")


class TreeError(Exception):
    """A proof tree whose links do not match: a bug in a proof file (exit 1)."""


# ------------------------------------------------------------------ interface predicates
@dataclass(frozen=True, eq=False)
class Pred:
    """An interface predicate: ``fn`` over the variables ``variables`` (name -> domain),
    their domains included.  Identity is the object: two predicates with the same text are
    still two interfaces."""

    name: str
    variables: dict
    fn: Callable
    doc: str = ""

    def holds(self, s, **terms):
        """The predicate at ``terms`` (name -> F, I, or a constant); a variable not given is
        the scope's own variable of that name."""
        vals = {}
        for n, dom in self.variables.items():
            v = terms[n] if n in terms else s[n]
            if not hasattr(v, "v"):  # a Python constant
                v = s.const(v) if isinstance(dom, FloatDomain) else I(s, s.int_const(int(v)))
            vals[n] = v
        unknown = set(terms) - set(self.variables)
        if unknown:
            raise TreeError(f"predicate {self.name} has no variable {', '.join(sorted(unknown))}")
        sub = Scope(s.A, s.fmt, vals, instances=getattr(s, "_instances", None), sem=getattr(s, "sem", None))
        parts = [domain_constraint(sub, n, d) for n, d in self.variables.items()]
        r = self.fn(sub)
        parts += _listed(r)
        return sub.all(*parts)

    def claim(self) -> Claim:
        """The predicate as a claim over its own variables (what its term hash renders)."""
        return forall(f"{self.name}", self.variables, goal=lambda s: self.holds(s))

    def text(self, fmt) -> str:
        """The SMT-LIB 2 text of the predicate over its own variables."""
        from fpsmt.proof.encoding import Encoding
        from fpsmt.semantics.arith import symbolic
        enc = Encoding(self.claim(), fmt, symbolic(fmt), {}, {})
        return enc.A.render([self.holds(enc.scope).v[()]])

    def term_hash(self, fmt) -> str:
        return hashlib.sha256(f"{fmt.name}\n{self.text(fmt)}".encode()).hexdigest()[:16]


# ------------------------------------------------------------------ nodes
@dataclass(eq=False)
class Node:
    kind: str
    name: str
    claim: Claim | None = None
    children: list = field(default_factory=list)
    doc: str = ""
    #: the interface predicates the node's claim is stated with, by role: "hypothesis",
    #: "guarantee", "premise" (a list: what it assumes that another node of the tree must
    #: state), "conclusion", "invariant", "side" (a list: what its side conditions state
    #: for other nodes)
    uses: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise TreeError(f"node {self.name}: unknown kind {self.kind!r}")

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def claims(self) -> list:
        """Every claim of the tree, in the order they are decided (depth first)."""
        seen, out = set(), []
        for n in self.walk():
            if n.claim is not None and n.claim.name not in seen:
                seen.add(n.claim.name)
                out.append(n.claim)
        return out


def _vars(*preds, extra=None):
    out = dict(extra or {})
    for p in preds:
        for n, d in p.variables.items():
            if n in out and out[n] != d:
                raise TreeError(f"variable {n} has two domains in {', '.join(q.name for q in preds)}")
            out[n] = d
    return out


def _uses(**roles) -> dict:
    """A node's ``uses``: the roles given a predicate (or a nonempty list of them), lists
    copied."""
    return {r: (list(p) if isinstance(p, (list, tuple)) else p) for r, p in roles.items() if p}


def stage(name, variables, guarantee: Pred, outputs: Callable, hypothesis: Pred | None = None, *,
          side: Callable | None = None, cases: dict | None = None, enumerate=False, doc="", kind="stage",
          states: list = (), premise: list = (), uninterpreted: tuple = (), anchors=None, parts: int = 1) -> Node:
    """∀ variables. hypothesis → guarantee(outputs) ∧ side: ``outputs(s)`` gives the terms
    of the guarantee's variables (name -> term; a variable left out is the stage's own);
    ``side(s)``, conditions proved with it that no later stage of this tree assumes (they
    are stated for the lemmas that use this one); ``states``: the predicates that ``side``
    states and other nodes of the tree take as premises (check_ties finds them);
    ``premise``: the predicates its hypothesis uses that another node of the tree states
    (check_ties requires a provider for each); ``uninterpreted``: operations its claim
    decides uninterpreted (:attr:`Claim.uninterpreted`); ``anchors``: its claim's
    :attr:`Claim.anchors`.

    ``cases`` ({variable: [constants]}, one variable of the hypothesis): the stage is
    decided at each constant (the variable is not free in its claim: solvers and
    enumerations get constants), and a child node ``<name>.cases`` proves ∀ v.
    hypothesis → v is one of them, so that the two together are the ∀ statement.

    ``parts`` (> 1): the goal's conjuncts (the guarantee's, then the side's) are decided as
    that many claims over the same variables and hypothesis, contiguous slices of the list:
    the stage's own claim the first, child nodes ``<name>.part<i>`` the others.  ∀ v. H → A
    and ∀ v. H → B are ∀ v. H → A ∧ B, so the stage holds when every part does; a solver
    that stalls on the whole conjunction may decide its parts (not with ``cases``)."""
    extra = {n: d for n, d in variables.items()}
    allv = _vars(*([hypothesis] if hypothesis else []), extra=extra)

    def goal_at(s):
        g = guarantee.holds(s, **outputs(s))
        if side is None:
            return [g]
        return [g] + _listed(side(s))
    uses = _uses(guarantee=guarantee, hypothesis=hypothesis, side=states, premise=premise)
    if parts > 1:
        if cases:
            raise TreeError(f"stage {name}: parts and cases together are not supported")

        def part(i):
            def g(s):
                whole = goal_at(s)
                n = len(whole)
                if n < parts:
                    raise TreeError(f"stage {name}: {parts} parts of a goal of {n} conjuncts")
                return whole[i * n // parts:(i + 1) * n // parts]
            return forall(name if i == 0 else f"{name}.part{i}", allv,
                          given=(lambda s: hypothesis.holds(s)) if hypothesis else None, goal=g, enumerate=enumerate,
                          doc=doc if i == 0 else f"part {i + 1} of {parts} of {name}'s goal",
                          uninterpreted=uninterpreted, anchors=anchors)
        children = [Node("part", f"{name}.part{i}", part(i)) for i in range(1, parts)]
        return Node(kind, name, part(0), children, doc=doc, uses=uses)
    if not cases:
        c = forall(name, allv, given=(lambda s: hypothesis.holds(s)) if hypothesis else None,
                   goal=lambda s: goal_at(s), enumerate=enumerate, doc=doc, uninterpreted=uninterpreted,
                   anchors=anchors)
        return Node(kind, name, c, doc=doc, uses=uses)
    if hypothesis is None or len(cases) != 1 or next(iter(cases)) not in hypothesis.variables:
        raise TreeError(f"stage {name}: cases must name one variable of the hypothesis")
    (var, values), = cases.items()
    rest = {n: d for n, d in allv.items() if n != var}

    def goal(s):
        out = []
        for v in values:
            at = _At(s, {var: s.const(v)})
            out += [hypothesis.holds(at).implies(g) for g in goal_at(at)]
        return out
    c = forall(name, rest, goal=goal, enumerate=enumerate, doc=doc, uninterpreted=uninterpreted, anchors=anchors)
    cover = forall(f"{name}.cases", hypothesis.variables, given=lambda s: hypothesis.holds(s),
                   goal=lambda s: s.any(*[s[var].same(s.const(v)) for v in values]))
    return Node(kind, name, c, [Node("cases", cover.name, cover, uses={"premise": [hypothesis]})], doc=doc, uses=uses)


class _At(Scope):
    """A scope that is ``s`` with some variables bound to terms."""

    def __init__(self, s, terms):
        super().__init__(s.A, s.fmt, {**s._vals, **terms}, instances=s._instances)


def join(name, premises, conclusion: Pred, *, doc="", facts: Callable | None = None, assumes: tuple = ()) -> Node:
    """∀ (the predicates' variables). premise_1 ∧ … → conclusion.  ``facts(s)``: instances of
    the fact nodes ``assumes`` names (``s.instance``), added to the premises — e.g. a
    congruence that a bit-level solver would otherwise have to find inside two copies of
    one circuit."""
    premises = list(premises)

    def given(s):
        return s.all(*[p.holds(s) for p in premises], *(_listed(facts(s)) if facts else []))
    c = forall(name, _vars(*premises, conclusion), given=given, goal=lambda s: conclusion.holds(s), doc=doc,
               assumes=tuple(assumes))
    return Node("join", name, c, doc=doc, uses={"premise": premises, "conclusion": conclusion})


def induction(name, invariant: Pred, index: str, lo: int, hi: int, base: Node, step: Callable,
              conclusion: Pred, *, doc="", step_vars: dict | None = None, done: Callable | None = None,
              step_given: Callable | None = None, step_side: Callable | None = None,
              step_assumes: tuple = (), step_premise: list = (), step_states: list = (),
              step_uninterpreted: tuple = (), step_anchors=None, step_cases: tuple = ()) -> Node:
    """The invariant ``invariant`` (its Int variable ``index`` ranging over [lo, hi]):
    ``base`` (a stage whose guarantee is the invariant, at index lo), the step
    ∀ k ∈ [lo, hi), v, t. I(k, v) → I(k + 1, step(s)) (``step(s)``: the terms of the next
    state; ``step_vars``: the variables t of a step that are not state, e.g. the next
    term of a sum), and ∀ v. I(hi, v) → conclusion — or, with ``done(s)`` (a boolean
    of the state: the last index of a run of symbolic length, at most hi), the step is
    for every k not done (∀ k ∈ [lo, hi), v, t. I(k, v) ∧ ¬done → I(k + 1, step(s))) and
    the conclusion ∀ k ∈ [lo, hi], v. I(k, v) ∧ done → conclusion: I holds up to the first
    index that is done, and there the conclusion follows.  ``step_given(s)``: hypotheses
    on the step variables (e.g. a layer's weight in its set); ``step_side(s)``: more
    goals of the step (what each step also shows, e.g. its gradients); ``step_assumes``: the
    names of proved claims (``fact`` nodes before it in the tree) whose instances the step's
    hypotheses use (``s.instance``); ``step_premise``: the predicates ``step_given`` uses
    that other nodes of the tree state (check_ties requires a provider for each);
    ``step_states``: the predicates ``step_side`` states for other nodes;
    ``step_uninterpreted``: operations the step decides uninterpreted
    (:attr:`Claim.uninterpreted`, with facts among ``step_assumes``); ``step_anchors``: the
    step claim's :attr:`Claim.anchors`; ``step_cases``: n > 1 functions of the scope, each a
    condition on the step's variables — the step is then decided as n claims, the i-th with condition i
    among its hypotheses (the step node's own claim the first, child nodes
    ``<name>.step.case<i>`` the others), and a child ``<name>.step.cover`` proves that
    under the step's hypotheses one of them holds: ∀ v. (H → c_1 ∨ … ∨ c_n) and
    ∀ v. H ∧ c_i → G for every i are ∀ v. H → G.  A solver that stalls on the whole step
    (one claim with a case analysis inside) may decide its cases."""
    dom = invariant.variables.get(index)
    if not isinstance(dom, IntDomain):
        raise TreeError(f"induction {name}: the invariant has no integer variable {index!r}")
    if base.uses.get("guarantee") is not invariant:
        raise TreeError(f"induction {name}: the base must guarantee the invariant {invariant.name}")
    clash = set(step_vars or {}) & set(invariant.variables)
    if clash:
        raise TreeError(f"induction {name}: step variables {', '.join(sorted(clash))} are state variables")
    base.kind = "base"
    state = {n: d for n, d in invariant.variables.items() if n != index}
    step_domain = {**state, **(step_vars or {}), index: IntDomain(lo, hi - 1)}

    def step_hyp(s):
        return ([invariant.holds(s)] + ([] if done is None else [~done(s)])
                + ([] if step_given is None else _listed(step_given(s))))

    def step_goal(s):
        return ([invariant.holds(s, **{index: s[index] + 1, **step(s)})]
                + ([] if step_side is None else _listed(step_side(s))))

    def step_claim(cname, case=None, doc=""):
        given = step_hyp if case is None else (lambda s: step_hyp(s) + [step_cases[case](s)])
        return forall(cname, step_domain, given=given, goal=step_goal, assumes=step_assumes,
                      uninterpreted=step_uninterpreted, anchors=step_anchors, doc=doc)
    step_uses = _uses(invariant=invariant, premise=step_premise, side=step_states)
    if not step_cases:
        step_node = Node("step", f"{name}.step", step_claim(f"{name}.step"), uses=step_uses)
    else:
        n_cases = len(step_cases)
        if n_cases < 2:
            raise TreeError(f"induction {name}: step_cases needs at least two cases")
        kids = [Node("part", f"{name}.step.case{i}",
                     step_claim(f"{name}.step.case{i}", i, doc=f"the step of {name}, case {i + 1} of {n_cases}"))
                for i in range(1, n_cases)]
        cover = forall(f"{name}.step.cover", step_domain, given=step_hyp,
                       goal=lambda s: s.any(*[c(s) for c in step_cases]),
                       doc=f"under the step's hypotheses one of its {n_cases} cases holds")
        kids.append(Node("cases", cover.name, cover))
        step_node = Node("step", f"{name}.step", step_claim(f"{name}.step", 0,
                                                            doc=f"the step of {name}, case 1 of {n_cases}"),
                         kids, uses=step_uses)
    if done is None:
        concl = forall(f"{name}.conclusion", _vars(conclusion, extra=state),
                       given=lambda s: invariant.holds(s, **{index: hi}), goal=lambda s: conclusion.holds(s))
    else:
        concl = forall(f"{name}.conclusion", _vars(conclusion, extra={**state, index: IntDomain(lo, hi)}),
                       given=lambda s: [invariant.holds(s), done(s)], goal=lambda s: conclusion.holds(s))
    children = [base, step_node,
                Node("conclusion", concl.name, concl, uses={"invariant": invariant, "conclusion": conclusion})]
    return Node("induction", name, None, children, doc=doc,
                uses={"invariant": invariant, "guarantee": conclusion,
                      **({"hypothesis": base.uses["hypothesis"]} if "hypothesis" in base.uses else {})})


def fact(claim: Claim, doc="") -> Node:
    """A claim that other nodes use through instances of it (``assumes``): a fact of the
    arithmetic (e.g. u ⊗ 1 = u) or of logic (congruence, decided with ⊗ uninterpreted)."""
    return Node("fact", claim.name, claim, doc=doc or claim.doc)


def _listed(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


def _ends(node):
    """(the hypothesis a node needs, the guarantee it gives) as predicates (None: none)."""
    if node.kind == "join":
        prem = node.uses["premise"]
        return (prem[0] if len(prem) == 1 else None), node.uses["conclusion"]
    return node.uses.get("hypothesis"), node.uses.get("guarantee")


def sequence(name, items, *, doc="", kind="sequence") -> Node:
    """Stages and inductions linked by joins: every join's premises include the guarantee of
    the item before it, and its conclusion is the hypothesis of the item after it (the
    same predicate objects).  Raises :class:`TreeError` where a link does not match."""
    items = list(items)
    for a, b in zip(items, items[1:]):
        if b.kind == "join":
            if a.kind == "join" or _ends(a)[1] not in b.uses["premise"]:
                raise TreeError(f"{name}: join {b.name} does not take the guarantee of {a.name} as a premise")
        elif a.kind == "join":
            if _ends(b)[0] is not a.uses["conclusion"]:
                raise TreeError(f"{name}: join {a.name} does not conclude the hypothesis of {b.name}")
        elif _ends(b)[0] is not None and _ends(b)[0] is not _ends(a)[1]:
            raise TreeError(f"{name}: {b.name} needs {_ends(b)[0].name}, which {a.name} does not guarantee "
                            "(join them)")
    hyp, guar = _ends(items[0])[0], _ends(items[-1])[1]
    return Node(kind, name, None, items, doc=doc,
                uses={**({"hypothesis": hyp} if hyp else {}), **({"guarantee": guar} if guar else {})})


def tie_hashes(root: Node, fmt) -> dict:
    """:func:`check_ties` of a tree (its interface terms' hashes by node), or {} for a tree
    without interfaces."""
    return check_ties(root, fmt) if any(n.uses for n in root.walk()) else {}


def check_ties(root: Node, fmt) -> dict:
    """Every interface predicate's term hash, by node name and role; raises
    :class:`TreeError` where a join's premise or conclusion is not the term of the stage
    it links, or where a premise (of a join, an induction step, a cases node or a stage
    that lists one) is the term of no guarantee, conclusion or side condition anywhere in
    the tree (recomputed, not trusted from the objects)."""
    hashes: dict = {}
    memo: dict = {}

    def h(p):
        if id(p) not in memo:
            memo[id(p)] = p.term_hash(fmt)
        return memo[id(p)]

    for n in root.walk():
        hashes[n.name] = {r: ([h(p) for p in v] if isinstance(v, list) else h(v)) for r, v in n.uses.items()}
    provided = {x for n in root.walk() for r in ("guarantee", "conclusion", "side") if r in hashes[n.name]
                for x in _listed(hashes[n.name][r])}
    for n in root.walk():
        for p, x in zip(n.uses.get("premise", []), hashes[n.name].get("premise", [])):
            if x not in provided:
                raise TreeError(f"{n.name}: its premise {p.name} is stated by no node of the tree (no guarantee, "
                                "conclusion or side condition has its term)")
    for n in root.walk():
        if n.kind not in ("sequence", "lemma"):
            continue
        for a, b in zip(n.children, n.children[1:]):
            if b.kind == "join" and hashes[a.name].get("guarantee") not in hashes[b.name]["premise"]:
                raise TreeError(f"{b.name}: no premise has the term of {a.name}'s guarantee")
            if a.kind == "join" and hashes[b.name].get("hypothesis") not in (None, hashes[a.name]["conclusion"]):
                raise TreeError(f"{a.name}: its conclusion is not the term of {b.name}'s hypothesis")
    return hashes


def to_json(root: Node, results: dict | None = None, hashes: dict | None = None) -> dict:
    """The tree as data: kind, name, statement (the claim's doc or name), children; with
    ``results`` (claim name -> dict) each claim node carries its result, with ``hashes``
    its interface terms' hashes."""
    out = {"kind": root.kind, "name": root.name}
    if root.doc:
        out["doc"] = root.doc
    if hashes is not None and hashes.get(root.name):
        out["terms"] = hashes[root.name]
    if root.claim is not None and results is not None and root.claim.name in results:
        out.update(results[root.claim.name])
    if root.children:
        out["children"] = [to_json(c, results, hashes) for c in root.children]
    return out


def walk_json(node: dict):
    """Every node of a tree as data (:func:`to_json`), depth first."""
    yield node
    for c in node.get("children") or []:
        yield from walk_json(c)
