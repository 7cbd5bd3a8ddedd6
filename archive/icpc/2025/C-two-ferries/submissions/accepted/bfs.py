# Breadth-first search from every pupil not reached yet. Ferry = parity of the distance.
# An edge inside one BFS layer closes an odd cycle through the point where the BFS paths
# of its two ends meet.
import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    us = list(map(int, data[2:2 + 2 * m:2]))
    vs = list(map(int, data[3:3 + 2 * m:2]))
    adj = [[] for _ in range(n + 1)]  # pupils are numbered from 1
    for u, v in zip(us, vs):
        adj[u].append(v)
        adj[v].append(u)

    dist = [-1] * (n + 1)
    parent = [0] * (n + 1)
    for root in range(1, n + 1):
        if dist[root] != -1:
            continue
        dist[root] = 0
        queue = [root]
        for v in queue:  # the list grows while we walk through it
            d = dist[v] + 1
            for w in adj[v]:
                if dist[w] == -1:
                    dist[w] = d
                    parent[w] = v
                    queue.append(w)

    for u, v in zip(us, vs):
        if dist[u] == dist[v]:
            # climb from both ends in lockstep until the two paths meet
            left, right = [u], [v]
            while u != v:
                u = parent[u]
                v = parent[v]
                left.append(u)
                right.append(v)
            # u .. meeting point .. v; the quarrel v-u closes a cycle of odd length 2h + 1
            cycle = left + right[-2::-1]
            print("impossible")
            print(len(cycle))
            print(" ".join(map(str, cycle)))
            return

    print("possible")
    print("".join("B" if dist[v] & 1 else "A" for v in range(1, n + 1)))


main()
