#include <bits/stdc++.h>
using namespace std;
typedef long long ll;

// Returns x with (a * x) % mod == 1, for gcd(a, mod) == 1 and mod >= 1.
ll inverse(ll a, ll mod) {
    ll old_r = a, r = mod, old_s = 1, s = 0;
    while (r != 0) {
        ll q = old_r / r;
        ll t = old_r - q * r; old_r = r; r = t;
        t = old_s - q * s; old_s = s; s = t;
    }
    ll x = old_s % mod;
    if (x < 0) x += mod;
    return x;
}

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    ll a = 0, m = 1;  // the solutions so far are exactly t = a (mod m), 0 <= a < m
    for (int i = 0; i < n; i++) {
        ll p, r;
        scanf("%lld %lld", &p, &r);
        ll g = std::gcd(m, p);
        ll diff = r - a;  // |diff| < 1e18, fits
        if (diff % g != 0) {
            printf("-1\n");
            return 0;
        }
        ll q = p / g;  // q <= 1e9, so products of two residues mod q fit in 64 bits
        ll rhs = ((diff / g) % q + q) % q;
        ll k = rhs * inverse((m / g) % q, q) % q;
        a += m * k;  // m * k < m * q = new modulus <= 1e18
        m *= q;
    }
    printf("%lld\n", a);
    return 0;
}
