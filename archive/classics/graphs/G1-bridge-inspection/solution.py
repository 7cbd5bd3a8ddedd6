import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    # Edge i is stored as two half-edges 2i and 2i+1; (e ^ 1) is the reverse half-edge.
    head = [-1] * (n + 1)
    nxt = [0] * (2 * m)
    to = [0] * (2 * m)
    for i in range(m):
        u, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        to[2 * i] = v
        nxt[2 * i] = head[u]
        head[u] = 2 * i
        to[2 * i + 1] = u
        nxt[2 * i + 1] = head[v]
        head[v] = 2 * i + 1

    tin = [0] * (n + 1)       # discovery time, 0 = unvisited
    low = [0] * (n + 1)
    parent_edge = [-1] * (n + 1)
    it = head[:]              # next half-edge to scan at each vertex
    timer = 1
    bridges = []

    for root in range(1, n + 1):
        if tin[root]:
            continue
        tin[root] = low[root] = timer
        timer += 1
        stack = [root]
        while stack:
            v = stack[-1]
            e = it[v]
            if e != -1:
                it[v] = nxt[e]
                if (e ^ 1) == parent_edge[v]:
                    continue  # skip only the very edge we came in by
                u = to[e]
                if tin[u]:
                    if tin[u] < low[v]:
                        low[v] = tin[u]
                else:
                    tin[u] = low[u] = timer
                    timer += 1
                    parent_edge[u] = e
                    stack.append(u)
            else:
                stack.pop()
                if stack:
                    p = stack[-1]
                    if low[v] < low[p]:
                        low[p] = low[v]
                    if low[v] > tin[p]:
                        bridges.append((parent_edge[v] >> 1) + 1)

    bridges.sort()
    sys.stdout.write(f"{len(bridges)}\n{' '.join(map(str, bridges))}\n")


main()
