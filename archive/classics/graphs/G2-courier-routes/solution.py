import sys
import heapq

MOD = 1_000_000_007


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    adj = [[] for _ in range(n + 1)]
    pos = 2
    for _ in range(m):
        u, v, w = int(data[pos]), int(data[pos + 1]), int(data[pos + 2])
        pos += 3
        adj[u].append((v, w))
        adj[v].append((u, w))

    INF = float("inf")
    dist = [INF] * (n + 1)
    ways = [0] * (n + 1)
    dist[1] = 0
    ways[1] = 1
    heap = [(0, 1)]
    while heap:
        d, v = heapq.heappop(heap)
        if d != dist[v]:
            continue  # stale entry
        # dist[v] is final, and so is ways[v]: every predecessor has a smaller distance.
        wv = ways[v]
        for u, w in adj[v]:
            nd = d + w
            if nd < dist[u]:
                dist[u] = nd
                ways[u] = wv
                heapq.heappush(heap, (nd, u))
            elif nd == dist[u]:
                ways[u] = (ways[u] + wv) % MOD

    if dist[n] == INF:
        print(-1)
    else:
        print(dist[n], ways[n])


main()
