// Breadth-first layering; an edge inside one layer gives an odd cycle through the
// lowest common ancestor of its two ends in the BFS forest.
#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    vector<int> eu(m), ev(m);
    vector<vector<int>> adj(n);
    for (int i = 0; i < m; ++i) {
        scanf("%d %d", &eu[i], &ev[i]);
        --eu[i];
        --ev[i];
        adj[eu[i]].push_back(ev[i]);
        adj[ev[i]].push_back(eu[i]);
    }

    vector<int> dist(n, -1), parent(n, -1), queue;
    queue.reserve(n);
    for (int root = 0; root < n; ++root) {
        if (dist[root] != -1) continue;
        dist[root] = 0;
        queue.push_back(root);
        for (size_t head = queue.size() - 1; head < queue.size(); ++head) {
            int v = queue[head];
            for (int w : adj[v])
                if (dist[w] == -1) {
                    dist[w] = dist[v] + 1;
                    parent[w] = v;
                    queue.push_back(w);
                }
        }
    }

    for (int i = 0; i < m; ++i) {
        int u = eu[i], v = ev[i];
        if (dist[u] != dist[v]) continue;
        vector<int> left = {u}, right = {v};
        while (u != v) {
            u = parent[u];
            v = parent[v];
            left.push_back(u);
            right.push_back(v);
        }
        right.pop_back();  // the meeting point is already the last entry of left
        left.insert(left.end(), right.rbegin(), right.rend());
        printf("impossible\n%d\n", (int)left.size());
        for (size_t j = 0; j < left.size(); ++j)
            printf("%d%c", left[j] + 1, j + 1 < left.size() ? ' ' : '\n');
        return 0;
    }

    string rooms(n, 'A');
    for (int v = 0; v < n; ++v)
        if (dist[v] & 1) rooms[v] = 'B';
    printf("possible\n%s\n", rooms.c_str());
    return 0;
}
