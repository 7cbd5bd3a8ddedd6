#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long circ;
    if (scanf("%d %lld", &n, &circ) != 2) return 0;
    vector<array<long long, 3>> arcs(n);  // start, unrolled end, lantern number
    for (int i = 0; i < n; ++i) {
        long long a, b;
        scanf("%lld %lld", &a, &b);
        arcs[i] = {a, a + ((b - a) % circ + circ) % circ, i + 1};
    }
    sort(arcs.begin(), arcs.end());

    // Two laps of the circle: position p + n is arc p shifted by C.
    int m = 2 * n;
    vector<long long> start(m), end_(m);
    vector<int> label(m);
    for (int p = 0; p < m; ++p) {
        long long shift = p < n ? 0 : circ;
        start[p] = arcs[p % n][0] + shift;
        end_[p] = arcs[p % n][1] + shift;
        label[p] = (int)arcs[p % n][2];
    }

    // nxt[p]: among all arcs starting no later than end_[p], the one reaching furthest.
    vector<int> far(m), nxt(m);
    for (int p = 0, best = 0; p < m; ++p) {
        if (end_[p] > end_[best]) best = p;
        far[p] = best;
    }
    for (int p = 0; p < m; ++p) {
        int last = int(upper_bound(start.begin(), start.end(), end_[p]) - start.begin()) - 1;
        nxt[p] = far[last];
    }

    int levels = 1;
    while ((1 << levels) <= m) ++levels;
    vector<vector<int>> jump(levels, vector<int>(m));
    jump[0] = nxt;
    for (int k = 1; k < levels; ++k)
        for (int p = 0; p < m; ++p) jump[k][p] = jump[k - 1][jump[k - 1][p]];

    int bestCount = INT_MAX, bestFirst = -1;
    for (int p = 0; p < n; ++p) {
        long long target = start[p] + circ;
        int cur = p, steps = 0;
        for (int k = levels - 1; k >= 0; --k)
            if (end_[jump[k][cur]] < target) {
                cur = jump[k][cur];
                steps += 1 << k;
            }
        if (end_[nxt[cur]] >= target && steps + 2 < bestCount) {
            bestCount = steps + 2;
            bestFirst = p;
        }
    }

    if (bestFirst < 0) {
        puts("impossible");
        return 0;
    }
    printf("%d\n", bestCount);
    for (int i = 0, p = bestFirst; i < bestCount; ++i, p = nxt[p])
        printf("%d%c", label[p], i + 1 < bestCount ? ' ' : '\n');
    return 0;
}
