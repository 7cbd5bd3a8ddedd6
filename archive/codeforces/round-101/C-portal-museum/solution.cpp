#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int n, m;
    if (!(std::cin >> n >> m)) return 0;
    std::string grid;
    for (int r = 0; r < n; ++r) {
        std::string row;
        std::cin >> row;
        grid += row;
    }
    const int size = n * m;
    const int start = static_cast<int>(grid.find('S'));
    const int target = static_cast<int>(grid.find('T'));

    // Cells of every portal letter, so a letter's jumps are expanded only once.
    std::vector<std::vector<int>> groups(26);
    for (int v = 0; v < size; ++v)
        if (grid[v] >= 'a' && grid[v] <= 'z') groups[grid[v] - 'a'].push_back(v);
    std::vector<bool> used(26, false);

    std::vector<int> parent(size, -2), dist(size, 0), queue;
    queue.reserve(size);
    parent[start] = -1;
    queue.push_back(start);
    auto visit = [&](int u, int v) {
        if (parent[u] != -2 || grid[u] == '#') return;
        parent[u] = v;
        dist[u] = dist[v] + 1;
        queue.push_back(u);
    };
    for (std::size_t head = 0; head < queue.size() && parent[target] == -2; ++head) {
        const int v = queue[head];
        const int r = v / m, c = v % m;
        if (r > 0) visit(v - m, v);
        if (r < n - 1) visit(v + m, v);
        if (c > 0) visit(v - 1, v);
        if (c < m - 1) visit(v + 1, v);
        if (grid[v] >= 'a' && grid[v] <= 'z' && !used[grid[v] - 'a']) {
            used[grid[v] - 'a'] = true;
            for (int u : groups[grid[v] - 'a']) visit(u, v);
        }
    }

    if (parent[target] == -2) {
        std::printf("-1\n");
        return 0;
    }
    std::vector<int> route;
    for (int v = target; v != -1; v = parent[v]) route.push_back(v);
    std::reverse(route.begin(), route.end());
    std::string out = std::to_string(dist[target]) + "\n";
    for (int v : route) out += std::to_string(v / m + 1) + " " + std::to_string(v % m + 1) + "\n";
    std::fputs(out.c_str(), stdout);
    return 0;
}
