#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    // Edge i is stored as half-edges 2i and 2i+1; e ^ 1 is the reverse of e.
    vector<int> head(n + 1, -1), nxt(2 * m), to(2 * m);
    for (int i = 0; i < m; i++) {
        int u, v;
        scanf("%d %d", &u, &v);
        to[2 * i] = v;     nxt[2 * i] = head[u];     head[u] = 2 * i;
        to[2 * i + 1] = u; nxt[2 * i + 1] = head[v]; head[v] = 2 * i + 1;
    }
    vector<int> tin(n + 1, 0), low(n + 1, 0), parentEdge(n + 1, -1), it(head);
    vector<int> bridges, st;
    int timer = 1;
    for (int root = 1; root <= n; root++) {
        if (tin[root]) continue;
        tin[root] = low[root] = timer++;
        st.push_back(root);
        while (!st.empty()) {
            int v = st.back();
            int e = it[v];
            if (e != -1) {
                it[v] = nxt[e];
                if ((e ^ 1) == parentEdge[v]) continue;  // only the edge we arrived by
                int u = to[e];
                if (tin[u]) {
                    low[v] = min(low[v], tin[u]);
                } else {
                    tin[u] = low[u] = timer++;
                    parentEdge[u] = e;
                    st.push_back(u);
                }
            } else {
                st.pop_back();
                if (!st.empty()) {
                    int p = st.back();
                    low[p] = min(low[p], low[v]);
                    if (low[v] > tin[p]) bridges.push_back((parentEdge[v] >> 1) + 1);
                }
            }
        }
    }
    sort(bridges.begin(), bridges.end());
    printf("%d\n", (int)bridges.size());
    for (size_t i = 0; i < bridges.size(); i++) printf(i ? " %d" : "%d", bridges[i]);
    printf("\n");
    return 0;
}
