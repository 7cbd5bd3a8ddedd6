#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<double> x(n), v(n), y2(n), v2(n);
    double lo = 0, hi = 0;
    for (int i = 0; i < n; ++i) {
        double y;
        scanf("%lf %lf %lf", &x[i], &y, &v[i]);
        y2[i] = y * y;
        v2[i] = v[i] * v[i];
        lo = max(lo, fabs(y) / v[i]);  // nobody reaches the road earlier
    }
    // Meeting on the road right below picker 0 is always possible by this time.
    for (int i = 0; i < n; ++i) hi = max(hi, hypot(x[i] - x[0], sqrt(y2[i])) / v[i]);
    hi = max(hi, lo);

    auto feasible = [&](double t) {
        double left = -1e18, right = 1e18;
        for (int i = 0; i < n; ++i) {
            double reach = sqrt(max(0.0, v2[i] * t * t - y2[i]));
            left = max(left, x[i] - reach);
            right = min(right, x[i] + reach);
        }
        return left <= right;
    };
    for (int it = 0; it < 100; ++it) {
        double mid = (lo + hi) / 2;
        if (feasible(mid))
            hi = mid;
        else
            lo = mid;
    }
    printf("%.9f\n", hi);
    return 0;
}
