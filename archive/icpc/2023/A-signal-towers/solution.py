import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, r = int(data[0]), int(data[1])
    xs = sorted(map(int, data[2:2 + n]))
    answer = 0
    for a, b in zip(xs, xs[1:]):
        # a gap of length g needs ceil(g / r) - 1 = (g - 1) // r new towers
        answer += (b - a - 1) // r
    print(answer)


main()
