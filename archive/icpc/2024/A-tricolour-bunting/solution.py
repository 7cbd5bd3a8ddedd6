import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    s = data[1].decode()
    # prefix key (R - G, G - B), packed into one integer: both parts lie in [-n, n]
    shift = len(s) + 1
    seen = {0: 1}
    r_minus_g = 0
    g_minus_b = 0
    answer = 0
    for ch in s:
        if ch == "R":
            r_minus_g += 1
        elif ch == "G":
            r_minus_g -= 1
            g_minus_b += 1
        elif ch == "B":
            g_minus_b -= 1
        key = r_minus_g * 2 * shift + g_minus_b
        count = seen.get(key, 0)
        answer += count
        seen[key] = count + 1
    print(answer)


main()
