#include <cstdio>
#include <queue>

int main() {
    int n;
    long long d;
    if (std::scanf("%d %lld", &n, &d) != 2) return 0;
    std::priority_queue<long long> heap;  // max-heap of breakpoints
    long long cost = 0;
    for (int i = 0; i < n; ++i) {
        long long a;
        std::scanf("%lld", &a);
        const long long c = a - i * d;  // reduce "step at least d" to "non-decreasing"
        if (!heap.empty() && heap.top() > c) {
            cost += heap.top() - c;
            heap.pop();
            heap.push(c);
        }
        heap.push(c);
    }
    std::printf("%lld\n", cost);
    return 0;
}
