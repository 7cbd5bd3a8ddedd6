#include <bits/stdc++.h>
using namespace std;
typedef long long ll;
typedef __int128 lll;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<ll> x(n), w(n), c(n);
    for (auto &v : x) scanf("%lld", &v);
    for (auto &v : w) scanf("%lld", &v);
    for (auto &v : c) scanf("%lld", &v);

    // lines y = m*q + b with strictly decreasing slopes; queries q increase
    vector<ll> ms, bs;
    ms.reserve(n);
    bs.reserve(n);
    size_t head = 0;
    ll dpPrev = 0, W = 0, SX = 0;
    for (int j = 0; j < n; ++j) {
        ll m = -x[j];
        ll b = dpPrev + c[j] - SX + x[j] * W;
        while (ms.size() - head >= 2) {
            ll m1 = ms[ms.size() - 2], b1 = bs[bs.size() - 2];
            ll m2 = ms.back(), b2 = bs.back();
            if ((lll)(b - b1) * (m1 - m2) <= (lll)(b2 - b1) * (m1 - m)) {
                ms.pop_back();
                bs.pop_back();
            } else {
                break;
            }
        }
        ms.push_back(m);
        bs.push_back(b);
        if (head >= ms.size()) head = ms.size() - 1;
        W += w[j];
        SX += w[j] * x[j];
        while (ms.size() - head >= 2 && ms[head + 1] * W + bs[head + 1] <= ms[head] * W + bs[head]) ++head;
        dpPrev = SX + ms[head] * W + bs[head];
    }
    printf("%lld\n", dpPrev);
    return 0;
}
