import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    out = []
    for i in range(t):
        a = int(data[1 + 2 * i])
        b = int(data[2 + 2 * i])
        out.append(min(a, b, (a + b) // 4))
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
