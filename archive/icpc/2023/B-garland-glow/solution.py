import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    run = 0.0    # expected length of the lit run that ends at the current bulb
    total = 0.0  # expected glow of the prefix processed so far
    for token in data[1:1 + n]:
        p = float(token)
        # a lit bulb extends a run of length L to L + 1: the glow grows by 2L + 1
        total += p * (2.0 * run + 1.0)
        run = p * (run + 1.0)
    print(f"{total:.9f}")


main()
