"""Output validator for Portal Museum (Kattis convention).

Usage: python3 checker.py INPUT_FILE ANSWER_FILE FEEDBACK_DIR < CONTESTANT_OUTPUT
Exit code 42 accepts, 43 rejects (with a reason in FEEDBACK_DIR/judgemessage.txt).
The answer file is used only for the optimal number of moves (or -1).
"""

import os
import re
import sys

ACCEPT = 42
REJECT = 43


def reject(feedback_dir: str, message: str) -> None:
    with open(os.path.join(feedback_dir, "judgemessage.txt"), "w") as f:
        f.write(message + "\n")
    sys.exit(REJECT)


def parse_int(token: bytes) -> int | None:
    if re.fullmatch(rb"-?[0-9]{1,11}", token) is None:
        return None
    return int(token)


def read_grid(path: str) -> tuple[int, int, list[bytes]]:
    with open(path, "rb") as f:
        data = f.read().split()
    n, m = int(data[0]), int(data[1])
    return n, m, data[2:2 + n]


def find(grid: list[bytes], ch: int) -> tuple[int, int]:
    for r, row in enumerate(grid):
        c = row.find(bytes([ch]))
        if c >= 0:
            return r + 1, c + 1
    raise ValueError("cell not found in input")


def check_route(fb: str, grid: list[bytes], n: int, m: int, tokens: list[bytes], moves: int) -> None:
    if len(tokens) != 2 * (moves + 1):
        reject(fb, f"expected {2 * (moves + 1)} coordinates after the move count, got {len(tokens)}")
    cells = []
    for i in range(0, len(tokens), 2):
        r, c = parse_int(tokens[i]), parse_int(tokens[i + 1])
        if r is None or c is None:
            reject(fb, f"cell {i // 2 + 1}: coordinates are not integers")
        if not (1 <= r <= n and 1 <= c <= m):
            reject(fb, f"cell {i // 2 + 1}: ({r}, {c}) is outside the museum")
        if grid[r - 1][c - 1] == ord("#"):
            reject(fb, f"cell {i // 2 + 1}: ({r}, {c}) is a wall")
        cells.append((r, c))
    if cells[0] != find(grid, ord("S")):
        reject(fb, "the route does not start at S")
    if cells[-1] != find(grid, ord("T")):
        reject(fb, "the route does not end at T")
    for i in range(moves):
        (r1, c1), (r2, c2) = cells[i], cells[i + 1]
        if abs(r1 - r2) + abs(c1 - c2) == 1:
            continue
        a, b = grid[r1 - 1][c1 - 1], grid[r2 - 1][c2 - 1]
        if (r1, c1) != (r2, c2) and a == b and 97 <= a <= 122:
            continue
        reject(fb, f"move {i + 1}: ({r1}, {c1}) -> ({r2}, {c2}) is neither a step nor a portal jump")


def main() -> None:
    input_file, answer_file, fb = sys.argv[1], sys.argv[2], sys.argv[3]
    n, m, grid = read_grid(input_file)
    with open(answer_file, "rb") as f:
        best = int(f.read().split()[0])

    tokens = sys.stdin.buffer.read().split()
    if not tokens:
        reject(fb, "empty output")
    moves = parse_int(tokens[0])
    if moves is None:
        reject(fb, "the first token is not an integer")
    if best == -1:
        if moves != -1 or len(tokens) != 1:
            reject(fb, "T is unreachable, the only correct output is -1")
        sys.exit(ACCEPT)
    if moves == -1:
        reject(fb, f"T is reachable in {best} moves, but -1 was printed")
    if moves < 0:
        reject(fb, f"negative move count {moves}")
    if moves > best:
        reject(fb, f"the route has {moves} moves, the optimum is {best}")
    check_route(fb, grid, n, m, tokens[1:], moves)
    if moves < best:
        reject(fb, f"judge error: a valid route with {moves} < {best} moves was found")
    sys.exit(ACCEPT)


if __name__ == "__main__":
    main()
