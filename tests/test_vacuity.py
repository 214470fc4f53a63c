"""VACUOUS is a status: a ∀ claim whose domains and hypotheses nothing meets is never PROVED."""

import json

import pytest
from conftest import fpsmt

from fpsmt.proof.claims import Claim, Float
from fpsmt.proof.engine import Engine, VACUOUS
from fpsmt.proof import lemmas
from fpsmt.proof.store import Store
from fpsmt.semantics.formats import parse_format

BF16 = parse_format("bfloat16")
LT_SELF = Claim("lt_self", "forall", universal={"a": Float()}, given=lambda s: s.a < s.a,
                goal=lambda s: s.a.eq(s.a + 1))
EMPTY_RANGE = Claim("empty_range", "forall", universal={"a": Float(range=(2, 1))}, goal=lambda s: s.a.is_nan())
#: the witness c > 5 leaves no a in [1, 2] with a > c: true, and vacuous
EF = Claim("ef", "exists_forall", witness={"c": Float(finite=True)}, universal={"a": Float(range=(1, 2))},
           such_that=lambda s: s.c > 5, given=lambda s: s.a > s.c, goal=lambda s: s.a.is_nan())
FINE = Claim("fine", "forall", universal={"a": Float(finite=True)}, given=lambda s: s.a > 1,
             goal=lambda s: (s.a * 1).same(s.a))


@pytest.mark.parametrize("solver", ["z3", "exhaustive"])
@pytest.mark.parametrize("claim", [LT_SELF, EMPTY_RANGE, EF], ids=lambda c: c.name)
def test_unsatisfiable_hypotheses_are_vacuous_not_proved(claim, solver):
    r = Engine(solver=solver, timeout=60).prove(claim, BF16, {claim.name: claim})
    assert r.status == VACUOUS and "vacuously" in r.reason
    assert r.to_json()["status"] == "VACUOUS" and r.to_json()["hypotheses_met_by"] is None


@pytest.mark.parametrize("solver", ["z3", "exhaustive"])
def test_a_proved_claim_carries_a_replayed_assignment_of_its_hypotheses(solver):
    r = Engine(solver=solver, timeout=60).prove(FINE, BF16, {"fine": FINE})
    assert r.status == "PROVED"
    a = r.satisfiable_by["a"]
    assert BF16.is_finite(a) and BF16.to_fraction(a) > 1  # it meets the hypotheses
    assert r.to_json()["hypotheses_met_by"] == {"a": BF16.hex(a)}


def test_vacuous_is_stored_and_an_assumption_on_it_is_refused(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    first = Engine(solver="z3", timeout=30, store=store).prove(LT_SELF, BF16, {"lt_self": LT_SELF})
    again = Engine(solver="z3", timeout=30, store=store).prove(LT_SELF, BF16, {"lt_self": LT_SELF})
    assert first.status == again.status == VACUOUS and again.cached
    user = Claim("user", "forall", universal={"a": Float()}, goal=lambda s: s.a.same(s.a), assumes=("lt_self",))
    from fpsmt.errors import InputError
    with pytest.raises(InputError, match="assumes lt_self"):
        Engine(solver="z3", timeout=30, store=store).prove(user, BF16, {"lt_self": LT_SELF, "user": user})


def test_a_lemma_row_with_a_vacuous_stage_is_vacuous(monkeypatch):
    good = Claim("good", "forall", universal={"a": Float(finite=True)}, goal=lambda s: (s.a * 1).same(s.a))
    fake = lemmas.Lemma("fake", "a test lemma", {"repaired": lambda fmt: ([good, LT_SELF, FINE], "two stages")})
    monkeypatch.setitem(lemmas.discover(), "fake", fake)
    rows = lemmas.run(Engine(solver="z3", timeout=30), ["fake"], ["repaired"], ["bfloat16"])
    assert rows[0]["status"] == VACUOUS and rows[0]["statement"].startswith("stage lt_self is VACUOUS")


def test_cli_prints_vacuous(tmp_path):
    f = tmp_path / "c.py"
    f.write_text("from fpsmt.proof.claims import Claim, Float\n"
                 "c = Claim('empty', 'forall', universal={'a': Float(range=(2, 1))}, goal=lambda s: s.a.is_nan())\n")
    r = fpsmt("prove", str(f), "--format", "bfloat16", "--store", str(tmp_path / "s.sqlite"), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["status"] == "VACUOUS"
