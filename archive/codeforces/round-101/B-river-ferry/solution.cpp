#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    int n;
    long long cap;
    if (std::scanf("%d %lld", &n, &cap) != 2) return 0;
    std::vector<long long> w(n);
    for (auto &x : w) std::scanf("%lld", &x);
    std::sort(w.begin(), w.end());
    int lo = 0, hi = n - 1;
    long long trips = 0;
    while (lo <= hi) {
        // The heaviest remaining car always leaves now; take the lightest along if it fits.
        if (lo < hi && w[lo] + w[hi] <= cap) ++lo;
        --hi;
        ++trips;
    }
    std::printf("%lld\n", trips);
    return 0;
}
