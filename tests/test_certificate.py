"""Certificates: `reproduce --certificate` writes every row's tree, `fpsmt check`
re-establishes it from scratch (exit 0), and names what a tampered certificate changed
(exit 3); a file that is not a certificate is exit 2."""

import copy
import json

import pytest
from conftest import fpsmt

from fpsmt.commands.cli import main


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("cert")
    path = d / "c.json"
    r = fpsmt("reproduce", "--lemma", "multiplication_transfer,cancellation_block", "--format", "float8_e4m3",
              "--store", str(d / "s.sqlite"), "--report", str(d / "r.md"), "--certificate", str(path))
    assert r.returncode == 0, r.stderr
    return json.loads(path.read_text())


def _check(tmp_path, doc, capsys):
    p = tmp_path / "c.json"
    p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    code = main(["check", str(p), "--json", "--timeout", "120"])
    cap = capsys.readouterr()
    return code, (json.loads(cap.out) if cap.out.strip() else None), cap.err


def _node(tree, name):
    if tree.get("name") == name:
        return tree
    for c in tree.get("children") or []:
        got = _node(c, name)
        if got is not None:
            return got
    return None


def _row(doc, lemma, variant):
    return next(r for r in doc["rows"] if r["lemma"] == lemma and r["variant"] == variant
                and "blocks then" not in r["statement"])


def test_the_certificate_holds_the_trees(cert):
    row = _row(cert, "multiplication_transfer", "repaired")
    kinds = [n["kind"] for n in row["tree"]["children"]]
    assert row["status"] == "PROVED" and kinds == ["stage", "stage", "stage"]
    target = _node(row["tree"], "multiplication_transfer.target")
    assert target["children"][0]["kind"] == "cases" and target["status"] == "PROVED"
    assert len(target["statement"]) == 64 and target["confirmed_by"]
    assert row["tree"]["children"][1]["terms"]["hypothesis"] == row["tree"]["children"][0]["terms"]["guarantee"]
    assert _node(_row(cert, "cancellation_block", "repaired")["tree"], "cancellation_block.stages")["kind"] == \
        "induction"


def test_check_re_establishes_an_honest_certificate(cert, tmp_path, capsys):
    code, js, err = _check(tmp_path, cert, capsys)
    assert code == 0, err
    assert js["ok"] and all(r["ok"] for r in js["rows"]) and len(js["rows"]) == len(cert["rows"])
    assert sum(len(r["nodes"]) for r in js["rows"]) >= 12


def _tamper(doc, how):
    doc = copy.deepcopy(doc)
    row = _row(doc, "multiplication_transfer", "repaired")
    if how == "statement":
        row["stated"] = row["stated"].replace("finite h != 0", "finite h")
    elif how == "shown":
        row["statement"] = row["statement"].replace("finite h != 0", "finite h")
    elif how == "hash":
        _node(row["tree"], "multiplication_transfer.scale")["statement"] = "0" * 64
    elif how == "removed":
        row["tree"]["children"].pop(1)
    elif how == "format":
        row["format"] = "float8_e5m2"
    elif how == "status":
        _node(row["tree"], "multiplication_transfer.significand")["status"] = "REFUTED"
    elif how == "unknown":
        _node(row["tree"], "multiplication_transfer.significand")["status"] = "UNKNOWN"
    elif how == "kind":
        _node(row["tree"], "multiplication_transfer.target.cases")["kind"] = "join"
    elif how == "terms":
        row["tree"]["children"][1]["terms"]["hypothesis"] = "f" * 16
    return doc


@pytest.mark.parametrize("how,named", [
    ("statement", "no row of the installed proof files has this statement"),
    ("shown", "the row's statement is not the one the re-decided row gives"),
    ("hash", "node multiplication_transfer.scale: SMT statement hash"),
    ("removed", "missing from the certificate"),
    ("format", "no row of the installed proof files"),
    ("status", "node multiplication_transfer.significand: re-decided PROVED, the certificate says REFUTED"),
    ("unknown", "node multiplication_transfer.significand: the certificate says UNKNOWN"),
    ("kind", "kind 'join' in the certificate, 'cases' installed"),
    ("terms", "interface terms differ"),
])
def test_a_tampered_certificate_is_exit_3_and_names_the_change(cert, tmp_path, capsys, how, named):
    code, js, err = _check(tmp_path, _tamper(cert, how), capsys)
    assert code == 3
    bad = [r for r in js["rows"] if not r["ok"]]
    assert len(bad) == 1 and bad[0]["row"].startswith("multiplication_transfer (repaired")
    assert any(named in p for p in bad[0]["problems"]), bad[0]["problems"]
    assert named in err


@pytest.mark.parametrize("doc", ["[1, 2]", "{\"certificate\": \"other\", \"rows\": []}", "not json",
                                 "{\"certificate\": \"fpsmt\", \"version\": 1, \"rows\": [{\"lemma\": 1}]}"])
def test_a_file_that_is_not_a_certificate_is_exit_2(tmp_path, capsys, doc):
    code, js, err = _check(tmp_path, doc, capsys)
    assert code == 2 and js is None and err.count("\n") == 1 and "fpsmt: error:" in err


@pytest.fixture(scope="module")
def profile_cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("pcert")
    path = d / "c.json"
    r = fpsmt("reproduce", "--lemma", "step_indicator_ge,theorem_3_1_relu", "--format", "float8_e4m3",
              "--semantics", "activation=ulp:1", "--semantics", "order=reversed", "--store", str(d / "s.sqlite"),
              "--report", str(d / "r.md"), "--certificate", str(path))
    assert r.returncode == 0, r.stderr
    assert "row(s) without a proof tree are not in the certificate" in r.stderr  # the theorem rows ran networks
    return json.loads(path.read_text())


def test_rows_under_a_profile_are_re_established_under_it(profile_cert, tmp_path, capsys):
    """A certificate row records its profile; fpsmt check decides it again under that
    profile (here the step indicator's whole-block claim: REFUTED under ulp:1, PROVED under
    order=reversed), and fails when the profile or the status is changed."""
    rows = profile_cert["rows"]
    assert [(r["lemma"], r["semantics"], r["status"]) for r in rows] == [
        ("step_indicator_ge", "order=left,backward=paper,activation=ulp:1", "REFUTED"),
        ("step_indicator_ge", "order=reversed,backward=paper,activation=correct", "PROVED")]
    code, got, err = _check(tmp_path, profile_cert, capsys)
    assert code == 0 and all(r["ok"] for r in got["rows"]), err
    swapped = copy.deepcopy(profile_cert)  # each row's tree under the other's profile
    swapped["rows"][0]["semantics"], swapped["rows"][1]["semantics"] = rows[1]["semantics"], rows[0]["semantics"]
    code, got, _ = _check(tmp_path, swapped, capsys)
    assert code == 3 and not any(r["ok"] for r in got["rows"])
    lying = copy.deepcopy(profile_cert)
    lying["rows"][0]["status"] = "PROVED"
    code, got, _ = _check(tmp_path, lying, capsys)
    assert code == 3 and not got["rows"][0]["ok"] and got["rows"][1]["ok"]
    bad = copy.deepcopy(profile_cert)
    bad["rows"][1]["semantics"] = "order=sideways"
    code, got, _ = _check(tmp_path, bad, capsys)
    assert code == 3 and any("semantics: unknown summation order" in p for p in got["rows"][1]["problems"])


@pytest.mark.slow  # about a minute: the paper's tree of theorem_3_1_relu in float8_e4m3, twice
def test_a_transferred_theorem_row_is_re_established(tmp_path, capsys):
    """The Theorem 3.1 row PROVED under backward=torch by transfer: its certificate row (the
    paper's tree and the transfer's claims) is decided again from scratch under the profile."""
    path = tmp_path / "c.json"
    r = fpsmt("reproduce", "--activation", "relu", "--lemma", "theorem_3_1_relu", "--format", "float8_e4m3",
              "--semantics", "backward=torch",
              "--store", str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r.md"), "--certificate", str(path))
    assert r.returncode == 0, r.stderr
    doc = json.loads(path.read_text())
    assert [(x["semantics"], x["status"], x["tree"]["name"]) for x in doc["rows"]] == [
        ("order=left,backward=torch,activation=correct", "PROVED", "theorem_3_1_relu.transferred")]
    code, got, err = _check(tmp_path, doc, capsys)
    assert code == 0 and got["rows"][0]["ok"], err
