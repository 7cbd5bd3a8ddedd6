import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, cap = int(data[0]), int(data[1])
    w = sorted(map(int, data[2:2 + n]))
    lo, hi = 0, n - 1
    trips = 0
    while lo <= hi:
        # The heaviest remaining car always leaves now; take the lightest along if it fits.
        if lo < hi and w[lo] + w[hi] <= cap:
            lo += 1
        hi -= 1
        trips += 1
    print(trips)


main()
