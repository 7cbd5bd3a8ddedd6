import sys


def find_bridges(n, adj_to, adj_eid, m):
    """Iterative DFS; returns a list is_bridge indexed by edge id."""
    tin = [-1] * n
    low = [0] * n
    parent_edge = [-1] * n
    parent = [-1] * n
    ptr = [0] * n
    is_bridge = [False] * m
    timer = 0
    for root in range(n):
        if tin[root] != -1:
            continue
        tin[root] = low[root] = timer
        timer += 1
        stack = [root]
        while stack:
            v = stack[-1]
            i = ptr[v]
            if i < len(adj_to[v]):
                ptr[v] = i + 1
                e = adj_eid[v][i]
                if e == parent_edge[v]:
                    continue  # the edge we came by; a parallel copy has another id
                to = adj_to[v][i]
                if tin[to] == -1:
                    tin[to] = low[to] = timer
                    timer += 1
                    parent_edge[to] = e
                    parent[to] = v
                    stack.append(to)
                elif tin[to] < low[v]:
                    low[v] = tin[to]
            else:
                stack.pop()
                p = parent[v]
                if p != -1:
                    if low[v] < low[p]:
                        low[p] = low[v]
                    if low[v] > tin[p]:
                        is_bridge[parent_edge[v]] = True
    return is_bridge


def label_components(n, adj_to, adj_eid, is_bridge):
    comp = [-1] * n
    count = 0
    for s in range(n):
        if comp[s] != -1:
            continue
        comp[s] = count
        todo = [s]
        while todo:
            v = todo.pop()
            for to, e in zip(adj_to[v], adj_eid[v]):
                if comp[to] == -1 and not is_bridge[e]:
                    comp[to] = count
                    todo.append(to)
        count += 1
    return comp, count


def main() -> None:
    data = list(map(int, sys.stdin.buffer.read().split()))
    n, m = data[0], data[1]
    adj_to = [[] for _ in range(n)]
    adj_eid = [[] for _ in range(n)]
    us = [u - 1 for u in data[2:2 + 2 * m:2]]
    vs = [v - 1 for v in data[3:3 + 2 * m:2]]
    pos = 2 + 2 * m
    for e in range(m):
        u = us[e]
        v = vs[e]
        adj_to[u].append(v)
        adj_eid[u].append(e)
        adj_to[v].append(u)
        adj_eid[v].append(e)

    is_bridge = find_bridges(n, adj_to, adj_eid, m)
    comp, k = label_components(n, adj_to, adj_eid, is_bridge)

    # the bridge tree: one node per 2-edge-connected component, one edge per bridge
    tree = [[] for _ in range(k)]
    for e in range(m):
        if is_bridge[e]:
            a, b = comp[us[e]], comp[vs[e]]
            tree[a].append(b)
            tree[b].append(a)
    depth = [0] * k
    tparent = [-1] * k
    order = []
    seen = [False] * k
    seen[0] = True
    stack = [0]
    while stack:
        v = stack.pop()
        order.append(v)
        for to in tree[v]:
            if not seen[to]:
                seen[to] = True
                tparent[to] = v
                depth[to] = depth[v] + 1
                stack.append(to)

    q = data[pos]
    qa = [comp[a - 1] for a in data[pos + 1:pos + 1 + 2 * q:2]]
    qb = [comp[b - 1] for b in data[pos + 2:pos + 2 + 2 * q:2]]
    at = [[] for _ in range(k)]
    for i in range(q):
        at[qa[i]].append(i)
        at[qb[i]].append(i)

    # offline LCA (Tarjan): the reversed stack order is a post-order of the tree
    dsu = list(range(k))
    done = [False] * k
    lca = [0] * q
    for u in reversed(order):
        done[u] = True
        for i in at[u]:
            other = qb[i] if qa[i] == u else qa[i]
            if done[other]:
                r = other
                while dsu[r] != r:
                    r = dsu[r]
                while dsu[other] != r:  # path compression
                    dsu[other], other = r, dsu[other]
                lca[i] = r
        if tparent[u] != -1:
            dsu[u] = tparent[u]

    out = [str(depth[qa[i]] + depth[qb[i]] - 2 * depth[lca[i]]) for i in range(q)]
    sys.stdout.write("\n".join(out) + "\n")


main()
