"""From measured points to rules: the winner of each point, size ranges
with boundaries at geometric midpoints, layout ranges, equal rules merged."""
import math


def midpoint(lo, hi):
    """Geometric midpoint of two measured values, the last value of the lower range."""
    return int(math.floor(math.sqrt(max(lo, 1) * hi)))


def ranges(values):
    """Inclusive ranges around sorted values: first from `first`, last open (None)."""
    out = []
    for i, v in enumerate(values):
        lo = 0 if i == 0 else out[-1][1] + 1
        hi = None if i == len(values) - 1 else max(lo, midpoint(v, values[i + 1]))
        out.append([lo, hi])
    return out


def geomean(values):
    return math.prod(values) ** (1.0 / len(values))


def points_of(records):
    """{bytes: {algorithm: us}} of one (collective, P, layout). Each measured
    point is keyed by the bytes xchg sees for it, so several alltoallv
    --dists interleave (a rule cannot name a distribution, only sizes);
    points of different distributions with equal bytes keep the algorithms
    measured in all of them, with the geometric mean of their times."""
    by_bytes = {}
    for r in records:
        by_bytes.setdefault(r["bytes"], {}).setdefault(r["dist"], {})[r["algorithm"]] = r["us"]
    points = {}
    for b, per_dist in by_bytes.items():
        common = measured_in_all(per_dist.values())
        if common:
            points[b] = {algo: geomean([t[algo] for t in per_dist.values()]) for algo in common}
    return points


def measured_in_all(timings):
    """The algorithms timed in every {algorithm: us} of timings, in the order
    of the first (the variants' order: a tie goes to the earlier, and the
    file is the same from run to run; simulated times tie often)."""
    timings = list(timings)
    return [algo for algo in timings[0] if all(algo in t for t in timings[1:])]


def winners(points, tolerance):
    """[(bytes, algorithm)] per size: the fastest, or the previous size's winner
    when it is within `tolerance` of the fastest."""
    result, previous = [], None
    for b in sorted(points):
        times = points[b]
        best = min(times, key=times.get)
        if previous in times and times[previous] <= times[best] * (1 + tolerance):
            best = previous
        result.append((b, best))
        previous = best
    return result


def size_rules(points, tolerance):
    """Rules over bytes: adjacent sizes with the same winner merged."""
    won = winners(points, tolerance)
    sizes = [b for b, _ in won]
    rules = []
    for (b, algo), rng in zip(won, ranges(sizes)):
        if rules and rules[-1]["algorithm"] == algo:
            rules[-1]["bytes"][1] = rng[1]
        else:
            rules.append({"bytes": list(rng), "algorithm": algo})
    if len(rules) == 1:
        del rules[0]["bytes"]  # one winner for every size
    else:
        # Calls whose size xchg does not know (alltoallv without agreement:
        # bytes -1) match no bytes range: give them the algorithm closest to
        # the best over all sizes (smallest sum of time / best time).
        common = measured_in_all(points.values())
        if common:
            score = {a: sum(t[a] / min(t.values()) for t in points.values()) for a in common}
            rules.append({"comment": "size unknown", "algorithm": min(score, key=score.get)})
    return rules


def layout_rules(records, nprocs, tolerance):
    """[(ranks per node, size rules)] of one collective at P ranks, by ppn.
    Layouts with the same ranks per node (this machine: virtual nodes of
    P or more, and the real topology) keep the first's rules."""
    layouts = []
    for layout in sorted({r["layout"] for r in records if r["P"] == nprocs}):
        mine = [r for r in records if r["P"] == nprocs and r["layout"] == layout]
        points = points_of(mine)
        if points and mine[0]["ppn"] not in [ppn for ppn, _ in layouts]:
            layouts.append((mine[0]["ppn"], size_rules(points, tolerance)))
    return sorted(layouts, key=lambda layout: layout[0])


def merge_equal(blocks):
    """[(value, rules)] sorted by value -> [(range, rules)]: the ranges
    around the values (ranges()), adjacent ones with equal rules merged."""
    out = []
    for (_, rules), rng in zip(blocks, ranges([value for value, _ in blocks])):
        if out and out[-1][1] == rules:
            out[-1][0][1] = rng[1]
        else:
            out.append((list(rng), rules))
    return out


def build_rules(records, colls, tolerance, reach):
    """{coll: [rule]}: comm_size ranges (the measured P, `reach` times beyond
    the smallest and largest either way), ppn ranges (several layouts at one
    P), bytes ranges; both modes' records alike."""
    out = {}
    for coll in colls:
        mine = [r for r in records if r["coll"] == coll]
        per_p = [(p, merge_equal(layout_rules(mine, p, tolerance)))
                 for p in sorted({r["P"] for r in mine})]
        per_p = [(p, layouts) for p, layouts in per_p if layouts]
        if not per_p:
            out[coll] = []
            continue
        smallest, largest = per_p[0][0], per_p[-1][0]
        per_p = merge_equal(per_p)
        per_p[0][0][0] = max(1, math.ceil(smallest / reach))
        per_p[-1][0][1] = int(largest * reach)
        rules = []
        for p_rng, layouts in per_p:
            for ppn_rng, srules in layouts:
                for rule in srules:
                    keyed = {"comm_size": p_rng}
                    if len(layouts) > 1:
                        keyed["ppn"] = [max(1, ppn_rng[0]), ppn_rng[1]]
                    keyed.update(rule)
                    rules.append(keyed)
        out[coll] = rules
    return out
