#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    double run = 0.0;    // expected length of the lit run ending at the current bulb
    double total = 0.0;  // expected glow of the processed prefix
    for (int i = 0; i < n; ++i) {
        double p;
        if (scanf("%lf", &p) != 1) return 0;
        total += p * (2.0 * run + 1.0);
        run = p * (run + 1.0);
    }
    printf("%.9f\n", total);
    return 0;
}
