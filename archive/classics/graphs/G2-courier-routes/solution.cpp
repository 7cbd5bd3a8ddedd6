#include <bits/stdc++.h>
using namespace std;

const long long MOD = 1000000007LL;

int main() {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    vector<vector<pair<int, long long>>> adj(n + 1);
    for (int i = 0; i < m; i++) {
        int u, v;
        long long w;
        scanf("%d %d %lld", &u, &v, &w);
        adj[u].push_back({v, w});
        adj[v].push_back({u, w});
    }
    const long long INF = LLONG_MAX;
    vector<long long> dist(n + 1, INF), ways(n + 1, 0);
    priority_queue<pair<long long, int>, vector<pair<long long, int>>, greater<>> pq;
    dist[1] = 0;
    ways[1] = 1;
    pq.push({0, 1});
    while (!pq.empty()) {
        auto [d, v] = pq.top();
        pq.pop();
        if (d != dist[v]) continue;  // stale entry
        for (auto [u, w] : adj[v]) {
            long long nd = d + w;
            if (nd < dist[u]) {
                dist[u] = nd;
                ways[u] = ways[v];
                pq.push({nd, u});
            } else if (nd == dist[u]) {
                ways[u] = (ways[u] + ways[v]) % MOD;
            }
        }
    }
    if (dist[n] == INF) printf("-1\n");
    else printf("%lld %lld\n", dist[n], ways[n]);
    return 0;
}
