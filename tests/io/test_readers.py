"""Edge-file readers: formats, gzip, normalization to the simple graph, errors with file and line."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest
import scipy.io
import scipy.sparse

from deltamatch.io.readers import EdgeFileError, EdgeFileTooLarge, parse_edges, read_edge_file, read_edges


def test_snap_text_drops_comments_loops_duplicates_and_keeps_first_appearance_order(tmp_path):
    f = tmp_path / "g.txt"
    f.write_text("# a comment\n% another\n\n5 3\n3 5\n2 2\n1 9\t17\n9 1\n0 5\n")
    e = read_edge_file(f)
    assert e.pairs.tolist() == [[3, 5], [1, 9], [0, 5]]
    assert (e.records, e.self_loops, e.duplicates, e.format) == (6, 1, 2, "snap")
    assert e.pairs.dtype == np.int64


def test_gzip_is_read_directly(tmp_path):
    f = tmp_path / "g.txt.gz"
    f.write_bytes(gzip.compress(b"1 2\n2 3\n"))
    assert read_edges(f).tolist() == [[1, 2], [2, 3]]


def test_csv_with_extra_columns_and_header(tmp_path):
    f = tmp_path / "ratings.csv"
    f.write_text("source,target,rating,time\n6,2,4,1289241912\n6,5,-2,1289241942\n2,6,1,1289243140\n")
    e = read_edge_file(f)
    assert e.format == "csv" and e.pairs.tolist() == [[2, 6], [5, 6]] and e.duplicates == 1


def test_matrix_market_via_scipy(tmp_path):
    f = tmp_path / "g.mtx"
    m = scipy.sparse.coo_matrix((np.ones(3), ([0, 1, 3], [1, 2, 0])), shape=(4, 4))
    scipy.io.mmwrite(str(f), m)
    assert sorted(map(tuple, read_edges(f).tolist())) == [(0, 1), (0, 3), (1, 2)]


def test_npy_pairs(tmp_path):
    f = tmp_path / "g.npy"
    np.save(f, np.array([[4, 1], [1, 4], [2, 3]], dtype=np.int32))
    assert read_edges(f).tolist() == [[1, 4], [2, 3]]


@pytest.mark.parametrize(
    "text, line, what",
    [
        ("1 2\n3 x\n", 2, "integers"),
        ("1 2\n# c\n3\n", 3, "two columns"),
        ("1 2\n-1 4\n", 2, "outside"),
        ("1 2\n5 2147483648\n", 2, "outside"),
        ("1 2\n1.5 3\n", 2, "integers"),
    ],
    ids=["not-int", "one-column", "negative", "oversized", "float"],
)
def test_malformed_text_names_file_and_line(tmp_path, text, line, what):
    f = tmp_path / "bad.txt"
    f.write_text(text)
    with pytest.raises(EdgeFileError, match=rf"bad\.txt:{line}: .*{what}"):
        read_edges(f)


def test_empty_and_missing_files_are_errors(tmp_path):
    f = tmp_path / "empty.txt"
    f.write_text("# only a comment\n")
    with pytest.raises(EdgeFileError, match="empty.txt: no edges"):
        read_edges(f)
    with pytest.raises(EdgeFileError, match="missing.txt: cannot read"):
        read_edges(tmp_path / "missing.txt")


@pytest.mark.parametrize(
    "array, what",
    [
        (np.zeros((3, 3), dtype=np.int64), "shape"),
        (np.zeros((3, 2), dtype=np.float64), "integers"),
        (np.array([[0, 1], [-2, 1]]), "row 1"),
    ],
    ids=["shape", "dtype", "negative"],
)
def test_bad_npy_arrays(tmp_path, array, what):
    f = tmp_path / "bad.npy"
    np.save(f, array)
    with pytest.raises(EdgeFileError, match=rf"bad\.npy: .*{what}"):
        read_edges(f)


def test_corrupt_gzip_and_binary_garbage():
    with pytest.raises(EdgeFileError, match="upload: corrupt gzip"):
        parse_edges(b"\x1f\x8b" + b"\x00" * 20, "upload")
    with pytest.raises(EdgeFileError, match="upload: not a text edge list"):
        parse_edges(b"\xff\xfe\x00\x01", "upload")


@pytest.mark.parametrize(
    "name, edges, records",
    [
        ("ca-GrQc.txt.gz", 14484, 14496),
        ("wiki-Vote.txt.gz", 100762, 100762),
        ("CollegeMsg.txt.gz", 13838, 59835),
        ("soc-sign-bitcoinotc.csv.gz", 21492, 35592),
    ],
)
def test_real_files_give_the_published_simple_edge_counts(data_dir, name, edges, records):
    e = read_edge_file(data_dir / name)
    assert (e.pairs.shape[0], e.records) == (edges, records)
    assert (e.pairs[:, 0] < e.pairs[:, 1]).all()


def test_names_are_read_as_strings_in_first_appearance_order(tmp_path):
    f = tmp_path / "mail.txt"
    f.write_text("# sender recipient\nalice@x.org bob@y.org\nbob@y.org alice@x.org\ncarol 42\ncarol carol\n")
    e = read_edge_file(f)
    assert e.pairs.dtype.kind == "U"
    assert e.pairs.tolist() == [["alice@x.org", "bob@y.org"], ["42", "carol"]]
    assert (e.records, e.self_loops, e.duplicates) == (4, 1, 1)


def test_csv_quoted_names_with_columns_by_header_name(tmp_path):
    f = tmp_path / "payments.csv"
    f.write_text('amount,payer,payee\n10,"Smith, Ann",Bob\n5,Bob,"Smith, Ann"\n7,Bob,Cy\n')
    assert read_edges(f, ("payer", "payee")).tolist() == [["Bob", "Smith, Ann"], ["Bob", "Cy"]]
    with pytest.raises(EdgeFileError, match="payments.csv:1: no column 'to'"):
        read_edges(f, ("payer", "to"))


def test_tsv_names_with_columns_by_position(tmp_path):
    f = tmp_path / "g.tsv"
    f.write_text("1\tAnn Lee\tBob Ray\n2\tBob Ray\tCy Do\n")
    assert read_edges(f, (1, 2)).tolist() == [["Ann Lee", "Bob Ray"], ["Bob Ray", "Cy Do"]]


def test_integer_columns_by_position(tmp_path):
    f = tmp_path / "g.txt"
    f.write_text("100 1 2\n101 2 3\n")
    assert read_edges(f, (1, 2)).tolist() == [[1, 2], [2, 3]]


def test_gzip_inflating_past_the_byte_limit_is_refused_while_inflating():
    bomb = gzip.compress(b"1 2\n" * (1 << 20))  # 4 MiB of text in a few KB
    with pytest.raises(EdgeFileTooLarge, match="inflates to more than the limit of 1048576"):
        parse_edges(bomb, "body", max_bytes=1 << 20)
    assert parse_edges(bomb, "body", max_bytes=8 << 20).pairs.tolist() == [[1, 2]]


def test_npy_header_declaring_too_many_rows_is_refused_before_allocating():
    header = {"descr": "<i8", "fortran_order": False, "shape": (2**36, 2)}
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, header)
    data = buf.getvalue() + bytes(32)
    with pytest.raises(EdgeFileTooLarge, match="declares 68719476736 edges"):
        parse_edges(data, "big.npy", max_edges=1000)
    with pytest.raises(EdgeFileError, match="more than the file holds"):
        parse_edges(data, "big.npy")


def test_matrix_market_header_declaring_too_many_entries_is_refused_before_allocating():
    data = b"%%MatrixMarket matrix coordinate pattern general\n% c\n1000 1000 1000000000000\n1 2\n"
    with pytest.raises(EdgeFileTooLarge, match="declares 1000000000000 edges"):
        parse_edges(data, "big.mtx", max_edges=1000)
    with pytest.raises(EdgeFileError, match="more than the file holds"):
        parse_edges(data, "big.mtx")
