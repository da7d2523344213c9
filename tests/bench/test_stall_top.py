"""bench/gpu/stall_top.py: the instructions with the most warp stall samples of an ncu source page."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "gpu"))

from stall_top import LineLanes, lanes_by_line, top_idle_lanes, top_stalls  # noqa: E402


def test_the_rows_with_most_samples_come_first_with_the_total(tmp_path: Path) -> None:
    page = tmp_path / "sass.csv"
    page.write_text(
        '"Kernel Name","match_shared",\n'
        '"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed"\n'
        '"0x10","  LDG.E R1, [R2.64]","5","100"\n'
        '"0x20","  LOP3.LUT P4, RZ, R1","40","100"\n'
        '"0x30","  BRA 0x10","","7"\n'
        '"0x40","  IMAD R3, R1","15","90"\n'
    )
    total, top = top_stalls(page, 2)
    assert total == 60
    assert top == [(1, 40, 100, "LOP3.LUT P4, RZ, R1"), (3, 15, 90, "IMAD R3, R1")]


def test_the_rows_that_leave_most_lanes_idle_come_first_with_the_mean(tmp_path: Path) -> None:
    page = tmp_path / "sass.csv"
    page.write_text(
        '"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed",'
        '"Thread Instructions Executed"\n'
        '"0x10","  LDG.E R1, [R2.64]","5","100","3200"\n'
        '"0x20","  @P0 BRA 0x40","1","100","800"\n'
        '"0x30","  EXIT","0","0","0"\n'
        '"0x40","  IMAD R3, R1","2","50","1200"\n'
    )
    mean, top = top_idle_lanes(page, 2)
    assert mean == 5200 / 250
    assert top == [(1, 2400, 8.0, "@P0 BRA 0x40"), (3, 400, 24.0, "IMAD R3, R1")]


def test_a_page_without_thread_counts_has_no_lanes(tmp_path: Path) -> None:
    page = tmp_path / "sass.csv"
    page.write_text('"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed"\n'
                    '"0x10","  EXIT","1","4"\n')
    assert top_idle_lanes(page, 3) is None


def test_cuda_lines_carry_their_sass_sums_most_idle_first(tmp_path: Path) -> None:
    page = tmp_path / "cuda-sass.csv"
    names = ('"Line No","Source","Address","Source","Warp Stall Sampling (All Samples)",'
             '"Instructions Executed","Thread Instructions Executed"\n')
    page.write_text(
        '"File Path","/tmp/x.cubin.cu"\n"Function Name","match_tasks"\n' + names
        + '"7","<Unable to open source file>","-","-","3","10","320"\n'
        + '"","","0x10","  LDC R1","3","10","320"\n'
        + '"File Path","/work/kernels/match_body.cuh"\n' + names
        + '"354","if (c.b_filter != nullptr)","-","-","4","100","800"\n'
        + '"","","0x20","  LOP3.LUT P4","4","100","800"\n'
    )
    assert lanes_by_line(page) == [
        LineLanes("match_body.cuh", 354, 100, 800, 4, "if (c.b_filter != nullptr)"),
        LineLanes("x.cubin.cu", 7, 10, 320, 3, "<Unable to open source file>")]
