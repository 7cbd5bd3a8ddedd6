#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    vector<int> eu(m), ev(m);
    vector<vector<pair<int, int>>> adj(n);  // (neighbour, edge id)
    for (int e = 0; e < m; ++e) {
        scanf("%d %d", &eu[e], &ev[e]);
        --eu[e];
        --ev[e];
        adj[eu[e]].push_back({ev[e], e});
        adj[ev[e]].push_back({eu[e], e});
    }

    // 1. bridges by an iterative DFS with low-links
    vector<int> tin(n, -1), low(n, 0), pedge(n, -1), par(n, -1), ptr(n, 0);
    vector<char> bridge(m, 0);
    int timer = 0;
    for (int root = 0; root < n; ++root) {
        if (tin[root] != -1) continue;
        tin[root] = low[root] = timer++;
        vector<int> st = {root};
        while (!st.empty()) {
            int v = st.back();
            if (ptr[v] < (int)adj[v].size()) {
                auto [to, e] = adj[v][ptr[v]++];
                if (e == pedge[v]) continue;
                if (tin[to] == -1) {
                    tin[to] = low[to] = timer++;
                    pedge[to] = e;
                    par[to] = v;
                    st.push_back(to);
                } else {
                    low[v] = min(low[v], tin[to]);
                }
            } else {
                st.pop_back();
                int p = par[v];
                if (p != -1) {
                    low[p] = min(low[p], low[v]);
                    if (low[v] > tin[p]) bridge[pedge[v]] = 1;
                }
            }
        }
    }

    // 2. 2-edge-connected components
    vector<int> comp(n, -1);
    int k = 0;
    for (int s = 0; s < n; ++s) {
        if (comp[s] != -1) continue;
        comp[s] = k;
        vector<int> todo = {s};
        while (!todo.empty()) {
            int v = todo.back();
            todo.pop_back();
            for (auto [to, e] : adj[v])
                if (comp[to] == -1 && !bridge[e]) {
                    comp[to] = k;
                    todo.push_back(to);
                }
        }
        ++k;
    }

    // 3. bridge tree, depths, binary lifting
    vector<vector<int>> tree(k);
    for (int e = 0; e < m; ++e)
        if (bridge[e]) {
            tree[comp[eu[e]]].push_back(comp[ev[e]]);
            tree[comp[ev[e]]].push_back(comp[eu[e]]);
        }
    int LOG = 1;
    while ((1 << LOG) < k) ++LOG;
    vector<vector<int>> up(LOG, vector<int>(k, 0));
    vector<int> depth(k, 0);
    vector<char> seen(k, 0);
    vector<int> bfs = {0};
    seen[0] = 1;
    for (size_t i = 0; i < bfs.size(); ++i) {
        int v = bfs[i];
        for (int to : tree[v])
            if (!seen[to]) {
                seen[to] = 1;
                depth[to] = depth[v] + 1;
                up[0][to] = v;
                bfs.push_back(to);
            }
    }
    for (int j = 1; j < LOG; ++j)
        for (int v = 0; v < k; ++v) up[j][v] = up[j - 1][up[j - 1][v]];
    auto lca = [&](int a, int b) {
        if (depth[a] < depth[b]) swap(a, b);
        int diff = depth[a] - depth[b];
        for (int j = 0; j < LOG; ++j)
            if (diff >> j & 1) a = up[j][a];
        if (a == b) return a;
        for (int j = LOG - 1; j >= 0; --j)
            if (up[j][a] != up[j][b]) {
                a = up[j][a];
                b = up[j][b];
            }
        return up[0][a];
    };

    int q;
    if (scanf("%d", &q) != 1) return 0;
    string out;
    while (q--) {
        int a, b;
        scanf("%d %d", &a, &b);
        a = comp[a - 1];
        b = comp[b - 1];
        out += to_string(depth[a] + depth[b] - 2 * depth[lca(a, b)]);
        out += '\n';
    }
    fputs(out.c_str(), stdout);
    return 0;
}
