import sys
from bisect import bisect_right


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, circ = int(data[0]), int(data[1])
    arcs = []
    for i in range(n):
        a = int(data[2 + 2 * i])
        b = int(data[3 + 2 * i])
        arcs.append((a, a + (b - a) % circ, i + 1))
    arcs.sort()

    # Unroll the circle: every arc appears twice, the second copy one lap later.
    m = 2 * n
    start = [s for s, _, _ in arcs] + [s + circ for s, _, _ in arcs]
    end = [e for _, e, _ in arcs] + [e + circ for _, e, _ in arcs]
    label = [i for _, _, i in arcs] * 2

    # far[p]: among positions 0..p, the one whose arc reaches furthest.
    far = [0] * m
    best = 0
    for p in range(m):
        if end[p] > end[best]:
            best = p
        far[p] = best
    # nxt[p]: the arc to light next when the lit stretch currently ends at end[p].
    nxt = [far[bisect_right(start, end[p]) - 1] for p in range(m)]

    levels = 1
    while (1 << levels) <= m:
        levels += 1
    jump = [nxt]
    for _ in range(levels - 1):
        j = jump[-1]
        jump.append([j[j[p]] for p in range(m)])

    # Some lantern of every lighting lights the pier (position 0 = C), so only those
    # lanterns need to be tried as the first one of the chain.
    firsts = [p for p in range(n) if start[p] == 0 or end[p] >= circ]
    # For all of them at once: the most jumps that still stay short of start[p] + C.
    target = [start[p] + circ for p in firsts]
    cur = firsts[:]
    steps = [0] * len(firsts)
    for k in range(levels - 1, -1, -1):
        j = jump[k]
        cand = [j[c] for c in cur]
        short = [end[c] < t for c, t in zip(cand, target)]
        cur = [c if s else o for c, o, s in zip(cand, cur, short)]
        w = 1 << k
        steps = [st + w if s else st for st, s in zip(steps, short)]

    best_count = 0
    best_first = -1
    for q, p in enumerate(firsts):
        if end[nxt[cur[q]]] >= target[q]:
            count = steps[q] + 2
            if best_first < 0 or count < best_count:
                best_count = count
                best_first = p

    if best_first < 0:
        print("impossible")
        return
    chosen = [label[best_first]]
    p = best_first
    for _ in range(best_count - 1):
        p = nxt[p]
        chosen.append(label[p])
    print(best_count)
    print(" ".join(map(str, chosen)))


main()
