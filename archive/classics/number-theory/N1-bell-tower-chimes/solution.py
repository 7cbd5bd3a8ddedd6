import sys
from math import gcd


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a, m = 0, 1  # invariant: the solutions so far are exactly t = a (mod m), 0 <= a < m
    for i in range(n):
        p, r = int(data[1 + 2 * i]), int(data[2 + 2 * i])
        g = gcd(m, p)
        if (r - a) % g:
            print(-1)
            return
        # a + m*k = r (mod p)  <=>  (m/g)*k = (r-a)/g (mod p/g)
        q = p // g
        k = (r - a) // g % q * pow(m // g % q, -1, q) % q
        a += m * k
        m *= q
        a %= m
    print(a)


main()
