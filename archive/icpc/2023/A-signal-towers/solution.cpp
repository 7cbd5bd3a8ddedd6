#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long r;
    if (!(cin >> n >> r)) return 0;
    vector<long long> x(n);
    for (auto &v : x) cin >> v;
    sort(x.begin(), x.end());
    long long answer = 0;
    for (int i = 0; i + 1 < n; ++i) {
        long long gap = x[i + 1] - x[i];
        answer += (gap - 1) / r;  // ceil(gap / r) - 1
    }
    cout << answer << "\n";
    return 0;
}
