# Iterative depth-first search, started from the highest-numbered pupils first.
# Ferry = parity of the depth. Every non-tree edge joins a pupil to one of its ancestors,
# so an edge between equal parities closes an odd cycle along the tree path.
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

    depth = [-1] * (n + 1)
    parent = [0] * (n + 1)
    for root in range(n, 0, -1):
        if depth[root] != -1:
            continue
        depth[root] = 0
        stack = [root]
        pending = [iter(adj[root])]  # the neighbours each open pupil has not looked at yet
        while stack:
            v = stack[-1]
            for w in pending[-1]:
                if depth[w] == -1:
                    depth[w] = depth[v] + 1
                    parent[w] = v
                    stack.append(w)
                    pending.append(iter(adj[w]))
                    break
            else:  # all neighbours done: leave v
                stack.pop()
                pending.pop()

    for u, v in zip(us, vs):
        if (depth[u] - depth[v]) % 2 == 0:
            if depth[u] < depth[v]:
                u, v = v, u
            cycle = [u]  # from the deeper end up to its ancestor v
            while u != v:
                u = parent[u]
                cycle.append(u)
            print("impossible")
            print(len(cycle))
            print(" ".join(map(str, cycle)))
            return

    print("possible")
    print("".join("B" if depth[v] & 1 else "A" for v in range(1, n + 1)))


main()
