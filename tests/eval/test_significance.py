"""Hit-rate intervals and paired tests, checked against scipy's implementations."""

import pandas as pd
import pytest
from scipy.stats import binomtest

from kgviz.eval.significance import exact_mcnemar, paired_table, wilson_interval
from kgviz.eval.tables import rows_frame


@pytest.mark.parametrize(("hits", "n"), [(0, 10), (3, 3), (1, 3), (261, 300), (50, 100)])
def test_wilson_interval_matches_scipy(hits, n):
    reference = binomtest(hits, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson_interval(hits, n) == pytest.approx((reference.low, reference.high), abs=1e-6)


def test_wilson_interval_of_nothing_is_everything():
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(("first", "second"), [(0, 6), (1, 9), (56, 22), (50, 53), (7, 0)])
def test_exact_mcnemar_is_the_two_sided_sign_test(first, second):
    reference = binomtest(first, first + second, 0.5).pvalue
    assert exact_mcnemar(first, second) == pytest.approx(reference, rel=1e-9)


def test_exact_mcnemar_without_discordant_questions_says_nothing():
    assert exact_mcnemar(0, 0) == 1.0


def paired_row(method, qid, hit):
    return {"method": method, "qid": qid, "hops": 1, "hit1": hit}


def test_paired_table_counts_only_shared_questions():
    rows = [paired_row("a", f"q{i}", True) for i in range(8)]
    rows += [paired_row("b", f"q{i}", i < 2) for i in range(8)]
    rows += [paired_row("c", f"q{i}", True) for i in range(4)]  # answered half the questions
    table = paired_table(rows_frame(rows))
    assert list(table.index) == [("a", "b"), ("a", "c"), ("b", "c")]
    ab = table.loc[("a", "b")]
    assert (ab["n"], ab["only method right"], ab["only vs right"]) == (8, 6, 0)
    assert ab["hits@1"] == 1.0 and ab["vs hits@1"] == 0.25
    assert ab["p (exact McNemar)"] == pytest.approx(2 / 2**6)
    bc = table.loc[("b", "c")]
    assert (bc["n"], bc["only method right"], bc["only vs right"]) == (4, 0, 2)
    assert table.loc[("a", "c"), "p (exact McNemar)"] == 1.0
    assert isinstance(table, pd.DataFrame)


def test_one_method_has_no_pairs():
    table = paired_table(rows_frame([paired_row("a", "q1", True)]))
    assert table.empty and list(table.index.names) == ["method", "vs"]
