# Wrong: starts the chain at the longest lantern. That lantern need not belong to any
# optimal choice, and the greedy chain from it can then use one lantern too many.
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
    start = [s for s, _, _ in arcs] + [s + circ for s, _, _ in arcs]
    end = [e for _, e, _ in arcs] + [e + circ for _, e, _ in arcs]
    label = [i for _, _, i in arcs] * 2

    first = max(range(n), key=lambda p: end[p] - start[p])
    target = start[first] + circ
    chosen = [label[first]]
    reach = end[first]
    best_seen = first
    scan = 0
    while reach < target:
        # among all arcs that start inside the lit stretch, take the one reaching furthest
        limit = bisect_right(start, reach)
        while scan < limit:
            if end[scan] > end[best_seen]:
                best_seen = scan
            scan += 1
        if end[best_seen] <= reach:
            print("impossible")
            return
        reach = end[best_seen]
        chosen.append(label[best_seen])
    print(len(chosen))
    print(" ".join(map(str, chosen)))


main()
