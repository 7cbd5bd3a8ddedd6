import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    x = [int(v) for v in data[1:1 + n]]
    w = [int(v) for v in data[1 + n:1 + 2 * n]]
    c = [int(v) for v in data[1 + 2 * n:1 + 3 * n]]

    # lines y = m * q + b, slopes strictly decreasing, queries q increasing
    ms: list[int] = []
    bs: list[int] = []
    head = 0
    dp_prev = 0   # dp[j - 1]
    W = 0         # sum of w over huts 1..j-1, then 1..j
    SX = 0        # sum of w * x over the same prefix
    for j in range(n):
        # line for a depot at hut j serving huts j.. (uses dp[j - 1], W[j - 1], SX[j - 1])
        m = -x[j]
        b = dp_prev + c[j] - SX + x[j] * W
        while len(ms) - head >= 2:
            m1, b1 = ms[-2], bs[-2]
            m2, b2 = ms[-1], bs[-1]
            # the middle line is useless if the new one overtakes the first no later than it does
            if (b - b1) * (m1 - m2) <= (b2 - b1) * (m1 - m):
                ms.pop()
                bs.pop()
            else:
                break
        ms.append(m)
        bs.append(b)
        if head >= len(ms):
            head = len(ms) - 1
        W += w[j]
        SX += w[j] * x[j]
        while len(ms) - head >= 2 and ms[head + 1] * W + bs[head + 1] <= ms[head] * W + bs[head]:
            head += 1
        dp_prev = SX + ms[head] * W + bs[head]
    print(dp_prev)


main()
