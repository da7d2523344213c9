"""Vertex names: parsing user ids, coding string names, listed forms in the names' order."""

from __future__ import annotations

import numpy as np
import pytest

from deltamatch.scheduler.names import MAX_NAME_LENGTH, VertexIdError, VertexNames, parse_vertex_pairs
from deltamatch.scheduler.patterns import parse_pattern


def test_integers_parse_to_int64():
    arr = parse_vertex_pairs([[1, 2], [3, 2**31 - 1]])
    assert arr.dtype == np.int64 and arr.tolist() == [[1, 2], [3, 2**31 - 1]]


def test_strings_parse_to_str():
    arr = parse_vertex_pairs([["alice@x.org", "bob"], ["10.0.0.1", "bob"]])
    assert arr.dtype.kind == "U" and arr.tolist() == [["alice@x.org", "bob"], ["10.0.0.1", "bob"]]


@pytest.mark.parametrize("items, message", [
    ([[1, 2], [3, True]], r"insert\[1\]: .*got True"),
    ([[1, 2.0]], r"insert\[0\]: .*got 2.0"),
    ([[1, "b"]], r"insert\[0\]: .*got 'b'"),
    ([["a", 2]], r"insert\[0\]: .*got 2"),
    ([[1, None]], r"insert\[0\]: .*got None"),
    ([[1, 2], [3]], r"insert\[1\]: every edge must be a pair"),
    ([[1, 2, 3]], r"insert\[0\]: every edge must be a pair"),
    ([[]], r"insert\[0\]: every edge must be a pair"),
    ([[-1, 2]], r"insert\[0\]: integer vertex ids must be in 0\.\."),
    ([[2**40, 2]], r"insert\[0\]: integer vertex ids must be in 0\.\."),
    ([[2**70, 2]], r"insert\[0\]: integer vertex ids must be in 0\.\."),
    ([["", "b"]], r"insert\[0\]: vertex names must have 1\.\."),
    ([["a" * (MAX_NAME_LENGTH + 1), "b"]], r"insert\[0\]: vertex names must have 1\.\."),
    ([["a", "b"], ["c", "c"]], r"insert\[1\]: self-loop"),
    ("ab", r"insert\[0\]: every edge must be a pair"),
])
def test_bad_ids_name_the_item(items, message):
    with pytest.raises(VertexIdError, match=message):
        parse_vertex_pairs(items, "insert")


def test_integer_names_pass_through_unchanged():
    names = VertexNames()
    enc = names.encode((parse_vertex_pairs([[7, 9]]), "insert"))
    assert enc.pairs[0].tolist() == [[7, 9]] and enc.kind == "int" and enc.new_names == []


def test_string_names_get_codes_in_first_seen_order_on_commit():
    names = VertexNames()
    enc = names.encode((parse_vertex_pairs([["zed", "amy"], ["amy", "bo"]]), "insert"),
                       (parse_vertex_pairs([["cy", "zed"]]), "delete"))
    assert enc.new_names == ["zed", "amy", "bo", "cy"]
    assert [p.tolist() for p in enc.pairs] == [[[0, 1], [1, 2]], [[3, 0]]]
    assert names.names == []  # nothing kept before commit
    names.commit(enc)
    again = names.encode((parse_vertex_pairs([["bo", "dan"]]), "insert"))
    assert again.pairs[0].tolist() == [[2, 4]] and again.new_names == ["dan"]


def test_truncate_forgets_the_names_of_an_undone_batch():
    names = VertexNames()
    names.commit(names.encode((parse_vertex_pairs([["a", "b"]]), "insert")))
    kind, count = names.kind, len(names)
    names.commit(names.encode((parse_vertex_pairs([["c", "d"]]), "insert")))
    names.truncate(kind, count)
    assert names.names == ["a", "b"] and len(names) == 2
    assert names.encode((parse_vertex_pairs([["e", "a"]]), "insert")).pairs[0].tolist() == [[2, 0]]


def test_one_kind_per_graph():
    names = VertexNames()
    names.commit(names.encode((parse_vertex_pairs([["a", "b"]]), "insert")))
    with pytest.raises(VertexIdError, match="named by strings"):
        names.encode((parse_vertex_pairs([[1, 2]]), "delete"))
    names.reset()
    assert names.encode((parse_vertex_pairs([[1, 2]]), "insert")).kind == "int"


def test_listed_takes_the_smallest_relabelling_by_name():
    names = VertexNames()
    names.commit(names.encode((parse_vertex_pairs([["c", "b"], ["b", "a"], ["a", "c"]]), "insert")))
    aut = parse_pattern("triangle").automorphisms
    assert names.listed(np.array([[0, 1, 2]]), aut).tolist() == [["a", "b", "c"]]
