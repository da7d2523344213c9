"""Plans: matching orders, symmetry constraints (exactly one embedding per match), plan counts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from deltamatch.kernels.plan_table import LAST_COLLAPSE, LAST_EACH, LAST_PAIRS
from deltamatch.scheduler.patterns import BUILTIN_PATTERNS, parse_pattern
from deltamatch.scheduler.plans import (
    compile_plans,
    isomorphic_masks,
    matching_order,
    pair_bit,
    per_edge_plans,
    shared_plans,
    static_plan,
    symmetry_constraints,
)

SMALL = [n for n in BUILTIN_PATTERNS if parse_pattern(n).k <= 6]


@pytest.mark.parametrize("name", SMALL)
def test_full_group_constraints_keep_exactly_one_labelling_per_orbit(name):
    p = parse_pattern(name)
    aut = p.automorphisms
    cons = symmetry_constraints(aut, tuple(range(p.k)))
    # Labellings f of k distinct values: every Aut-orbit {f o s} has exactly one member satisfying cons.
    for f in itertools.permutations(range(p.k)):
        orbit = {tuple(f[s[x]] for x in range(p.k)) for s in aut}
        assert sum(all(g[a] < g[b] for a, b in cons) for g in orbit) == 1


@pytest.mark.parametrize("name", SMALL)
def test_shared_plan_constraints_break_only_the_seed_stabilizer(name):
    p = parse_pattern(name)
    for plan in shared_plans(p):
        a, b = plan.seed
        stab = p.automorphisms[(p.automorphisms[:, a] == a) & (p.automorphisms[:, b] == b)]
        for f in itertools.permutations(range(p.k)):
            orbit = {tuple(f[s[x]] for x in range(p.k)) for s in stab}
            assert sum(all(g[x] < g[y] for x, y in plan.constraints) for g in orbit) == 1


@pytest.mark.parametrize("name", BUILTIN_PATTERNS)
def test_plan_counts_shared_vs_per_edge(name):
    p = parse_pattern(name)
    assert len(shared_plans(p)) == len(p.edge_classes)
    assert len(per_edge_plans(p)) == len(p.oriented_pairs)
    assert len(shared_plans(p)) <= len(per_edge_plans(p))


def test_published_plan_counts():
    counts = {
        n: (len(per_edge_plans(parse_pattern(n))), len(shared_plans(parse_pattern(n))))
        for n in ("house", "P2", "P6")
    }
    assert counts == {"house": (12, 6), "P2": (18, 3), "P6": (28, 6)}


@pytest.mark.parametrize("hoist", [True, False], ids=["hoist", "greedy"])
@pytest.mark.parametrize("name", BUILTIN_PATTERNS)
def test_orders_start_at_the_seed_and_stay_connected(name, hoist):
    p = parse_pattern(name)
    for seed in p.oriented_pairs:
        order = matching_order(p, seed, hoist)
        assert order[:2] == seed and sorted(order) == list(range(p.k))
        for i in range(2, p.k):
            assert p.adjacency[order[i], list(order[:i])].any()
    assert static_plan(p, hoist).seed_is_edge


@pytest.mark.parametrize("name", BUILTIN_PATTERNS)
def test_hoisting_orders_end_with_every_sink(name):
    """Past the seed, the vertices no later vertex is adjacent to form the order's tail."""
    p = parse_pattern(name)
    for seed in p.oriented_pairs:
        order = matching_order(p, seed)
        sink = [i >= 2 and not p.adjacency[x, list(order[i + 1:])].any() for i, x in enumerate(order)]
        assert sink == sorted(sink)


def test_house_static_order_postpones_the_roof():
    """Greedy takes the roof (two matched neighbours) third; nothing depends on it, so it moves back."""
    p = parse_pattern("house")
    assert matching_order(p, (0, 1), hoist=False) == (0, 1, 4, 2, 3)
    assert matching_order(p, (0, 1)) == (0, 1, 2, 4, 3)


def test_analysis_hoists_the_house_roof_and_floor():
    """Static house order (0, 1, 2, 4, 3): the roof needs positions 0-1, the last wall vertex 0 and 2."""
    p = parse_pattern("house")
    hoisted = compile_plans(p, [static_plan(p)])
    assert hoisted.dep[0, 2:].tolist() == [1, 1, 2]
    assert hoisted.last_two[0] == LAST_COLLAPSE
    greedy = compile_plans(p, [static_plan(p, False)])
    assert greedy.dep[0, 2:].tolist() == [1, 2, 3] and greedy.last_two[0] == LAST_EACH


def test_compiled_plans_are_in_position_space():
    p = parse_pattern("tailed-triangle")
    plans = shared_plans(p)
    table = compile_plans(p, plans)
    for i, plan in enumerate(plans):
        pos = {x: j for j, x in enumerate(plan.order)}
        for x, y in itertools.combinations(range(p.k), 2):
            assert table.conn[i, pos[x], pos[y]] == p.adjacency[x, y]
        for x, y in plan.constraints:
            assert table.cmp[i, pos[x], pos[y]] == -1 and table.cmp[i, pos[y], pos[x]] == 1


def test_isomorphic_masks_count_the_labellings():
    for name, labellings in (("triangle", 1), ("4-path", 12), ("4-cycle", 3), ("diamond", 6)):
        masks = isomorphic_masks(parse_pattern(name, induced=True))
        assert masks.shape[0] == labellings and np.all(np.diff(masks) > 0)
    assert sorted(pair_bit(a, b) for a, b in itertools.combinations(range(8), 2)) == list(range(28))


# Static plans (hoisting on): (dep, base) of positions 2.. and how counting ends a task.
STATIC_ANALYSIS = {
    "triangle": ([1], [-1], LAST_EACH),
    "4-path": ([1, 2], [-1, -1], LAST_EACH),
    "3-star": ([1, 2], [-1, 2], LAST_PAIRS),
    "4-cycle": ([1, 2], [-1, -1], LAST_EACH),
    "tailed-triangle": ([1, 1], [-1, -1], LAST_COLLAPSE),
    "diamond": ([1, 2], [-1, 2], LAST_PAIRS),
    "4-clique": ([1, 2], [-1, 2], LAST_EACH),
    "5-cycle": ([1, 2, 3], [-1, -1, -1], LAST_EACH),
    "house": ([1, 1, 2], [-1, -1, -1], LAST_COLLAPSE),
    "5-clique": ([1, 2, 3], [-1, 2, 3], LAST_EACH),
    "P1": ([1, 1, 2], [-1, -1, -1], LAST_COLLAPSE),
    "P2": ([1, 2, 1, 2], [-1, -1, -1, -1], LAST_COLLAPSE),
    "P3": ([1, 2, 3, 1], [-1, 2, 3, -1], LAST_COLLAPSE),
    "P4": ([1, 1, 3, 2], [-1, -1, -1, -1], LAST_COLLAPSE),
    "P5": ([1, 2, 3, 2, 1], [-1, 2, 3, 2, -1], LAST_COLLAPSE),
    "P6": ([1, 2, 3, 1, 5], [-1, 2, 3, -1, 2], LAST_EACH),
}


@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_static_plan_analysis_of_every_builtin(name):
    p = parse_pattern(name)
    table = compile_plans(p, [static_plan(p)])
    got = (table.dep[0, 2:].tolist(), table.base[0, 2:].tolist(), int(table.last_two[0]))
    assert got == STATIC_ANALYSIS[name]


@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_induced_and_greedy_plans_hoist_nothing(name):
    """An induced level depends on every earlier position; without hoisting none is hoisted."""
    for p, hoist in ((parse_pattern(name, induced=True), True), (parse_pattern(name), False)):
        table = compile_plans(p, shared_plans(p, hoist))
        assert (table.dep == np.arange(-1, p.k - 1)).all()
        assert (table.last_two != LAST_COLLAPSE).all()


@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_reused_sets_contain_the_reusing_levels_set(name, induced):
    """base[l] = i: l has i's neighbours before i, obeys i's bounds, and i is built unhoisted in time."""
    p = parse_pattern(name, induced=induced)
    table = compile_plans(p, shared_plans(p))
    for q in range(table.order.shape[0]):
        for lv in range(3, p.k):
            i = int(table.base[q, lv])
            if i < 0:
                continue
            assert 2 <= i <= table.dep[q, lv] and table.dep[q, i] == i - 1
            assert (table.conn[q, lv, :i] == table.conn[q, i, :i]).all()
            bounds = table.cmp[q, i, :i]
            assert ((bounds == 0) | (bounds == table.cmp[q, lv, :i])).all()


def test_diamond_counts_pairs_of_common_neighbours():
    """Seeded at the middle edge, the two tips are any two common neighbours: C(|N(u) & N(v)|, 2)."""
    p = parse_pattern("diamond")
    table = compile_plans(p, shared_plans(p))
    middle = [q for q, plan in enumerate(shared_plans(p)) if p.adjacency[list(plan.seed)].sum() == 6]
    assert [int(table.last_two[q]) for q in middle] == [LAST_PAIRS]
    assert table.cmp[middle[0], 3, 2] != 0 and table.conn[middle[0], 3, 2] == 0


def test_seed_swaps_only_where_an_automorphism_reverses_the_seed_and_keeps_the_constraints():
    cycle, house = parse_pattern("4-cycle"), parse_pattern("house")
    assert compile_plans(cycle, shared_plans(cycle)).seed_swap.tolist() == [1]
    assert not compile_plans(cycle, per_edge_plans(cycle)).seed_swap.any()
    assert compile_plans(house, shared_plans(house)).seed_swap.tolist() == [1, 0, 0, 0, 1, 0]
    clique = parse_pattern("4-clique")
    assert not compile_plans(clique, shared_plans(clique)).seed_swap.any()  # level 2 joins both seeds
