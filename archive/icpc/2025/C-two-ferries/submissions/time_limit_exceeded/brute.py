# Correct but exponential: tries all 2^n ways to fill the ferries, and when none works,
# searches all simple paths for a cycle of odd length.
import sys
from itertools import product


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    edges = [(int(data[2 + 2 * i]) - 1, int(data[3 + 2 * i]) - 1) for i in range(m)]

    for ferry in product("AB", repeat=n):
        if all(ferry[u] != ferry[v] for u, v in edges):
            print("possible")
            print("".join(ferry))
            return

    adj = [set() for _ in range(n)]
    for u, v in edges:
        adj[u].add(v)
        adj[v].add(u)

    def extend(path, on_path):
        last = path[-1]
        if len(path) >= 3 and len(path) % 2 == 1 and path[0] in adj[last]:
            return path
        for w in adj[last]:
            if w not in on_path:
                on_path.add(w)
                path.append(w)
                found = extend(path, on_path)
                if found:
                    return found
                path.pop()
                on_path.discard(w)
        return None

    sys.setrecursionlimit(10000)
    for start in range(n):
        cycle = extend([start], {start})
        if cycle:
            print("impossible")
            print(len(cycle))
            print(" ".join(str(x + 1) for x in cycle))
            return


main()
