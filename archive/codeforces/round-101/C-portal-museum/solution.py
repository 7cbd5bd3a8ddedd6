import sys
from collections import deque


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    grid = b"".join(data[2:2 + n])
    size = n * m
    start = grid.index(b"S")
    target = grid.index(b"T")

    # Cells of every portal letter, so a letter's jumps are expanded only once.
    groups: dict[int, list[int]] = {}
    for v, ch in enumerate(grid):
        if 97 <= ch <= 122:
            groups.setdefault(ch, []).append(v)

    wall = ord("#")
    parent = [-2] * size  # -2: not reached yet
    parent[start] = -1
    dist = [0] * size
    queue = deque([start])
    while queue and parent[target] == -2:
        v = queue.popleft()
        r, c = divmod(v, m)
        nxt = []
        if r > 0:
            nxt.append(v - m)
        if r < n - 1:
            nxt.append(v + m)
        if c > 0:
            nxt.append(v - 1)
        if c < m - 1:
            nxt.append(v + 1)
        ch = grid[v]
        if ch in groups:
            nxt.extend(groups.pop(ch))
        for u in nxt:
            if parent[u] == -2 and grid[u] != wall:
                parent[u] = v
                dist[u] = dist[v] + 1
                queue.append(u)

    if parent[target] == -2:
        print(-1)
        return
    route = []
    v = target
    while v != -1:
        route.append(v)
        v = parent[v]
    route.reverse()
    out = [str(dist[target])]
    out.extend(f"{v // m + 1} {v % m + 1}" for v in route)
    sys.stdout.write("\n".join(out) + "\n")


main()
