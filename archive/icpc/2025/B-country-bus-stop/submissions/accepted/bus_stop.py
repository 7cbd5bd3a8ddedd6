import sys
from math import sqrt


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    xs = [float(v) for v in data[1:1 + 3 * n:3]]
    ys = [float(v) for v in data[2:2 + 3 * n:3]]
    vs = [float(v) for v in data[3:3 + 3 * n:3]]
    y2 = [y * y for y in ys]
    v2 = [v * v for v in vs]

    # Nobody reaches the road before |y| / v; meeting below picker 0 works for sure.
    lo = max(abs(y) / v for y, v in zip(ys, vs))
    hi = max(sqrt((x - xs[0]) ** 2 + yy) / v for x, yy, v in zip(xs, y2, vs))
    hi = max(hi, lo)

    for _ in range(60):
        t = (lo + hi) / 2
        tt = t * t
        # Picker i can be at any road point within `reach` of x_i by time t.
        reach = [sqrt(max(0.0, vv * tt - yy)) for vv, yy in zip(v2, y2)]
        left = max([x - r for x, r in zip(xs, reach)])
        right = min([x + r for x, r in zip(xs, reach)])
        if left <= right:
            hi = t
        else:
            lo = t
    print(f"{hi:.9f}")


main()
