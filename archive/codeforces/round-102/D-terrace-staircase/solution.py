import heapq
import sys


def main() -> None:
    data = sys.stdin.buffer.read().split()
    n, d = int(data[0]), int(data[1])
    heap: list[int] = []  # max-heap of breakpoints, stored negated
    cost = 0
    for i in range(n):
        c = int(data[2 + i]) - i * d  # reduce "step at least d" to "non-decreasing"
        if heap and -heap[0] > c:
            top = -heapq.heappop(heap)
            cost += top - c
            heapq.heappush(heap, -c)
        heapq.heappush(heap, -c)
    print(cost)


main()
