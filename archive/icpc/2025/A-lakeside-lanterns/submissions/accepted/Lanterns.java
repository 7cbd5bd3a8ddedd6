import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.Arrays;
import java.util.StringTokenizer;

public class Lanterns {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer tok = new StringTokenizer(in.readLine());
        int n = Integer.parseInt(tok.nextToken());
        long circ = Long.parseLong(tok.nextToken());
        long[][] arcs = new long[n][];
        for (int i = 0; i < n; i++) {
            tok = new StringTokenizer(in.readLine());
            long a = Long.parseLong(tok.nextToken());
            long b = Long.parseLong(tok.nextToken());
            arcs[i] = new long[] {a, a + Math.floorMod(b - a, circ), i + 1};
        }
        Arrays.sort(arcs, (x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));

        int m = 2 * n;
        long[] start = new long[m];
        long[] end = new long[m];
        int[] label = new int[m];
        for (int p = 0; p < m; p++) {
            long shift = p < n ? 0 : circ;
            start[p] = arcs[p % n][0] + shift;
            end[p] = arcs[p % n][1] + shift;
            label[p] = (int) arcs[p % n][2];
        }

        int[] far = new int[m];
        for (int p = 0, best = 0; p < m; p++) {
            if (end[p] > end[best]) best = p;
            far[p] = best;
        }
        int[] nxt = new int[m];
        for (int p = 0; p < m; p++) {
            int lo = p, hi = m - 1;  // last position whose start is at most end[p]
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (start[mid] <= end[p]) lo = mid; else hi = mid - 1;
            }
            nxt[p] = far[lo];
        }

        int levels = 1;
        while ((1 << levels) <= m) levels++;
        int[][] jump = new int[levels][];
        jump[0] = nxt;
        for (int k = 1; k < levels; k++) {
            jump[k] = new int[m];
            for (int p = 0; p < m; p++) jump[k][p] = jump[k - 1][jump[k - 1][p]];
        }

        int bestCount = Integer.MAX_VALUE, bestFirst = -1;
        for (int p = 0; p < n; p++) {
            long target = start[p] + circ;
            int cur = p, steps = 0;
            for (int k = levels - 1; k >= 0; k--) {
                if (end[jump[k][cur]] < target) {
                    cur = jump[k][cur];
                    steps += 1 << k;
                }
            }
            if (end[nxt[cur]] >= target && steps + 2 < bestCount) {
                bestCount = steps + 2;
                bestFirst = p;
            }
        }

        if (bestFirst < 0) {
            System.out.println("impossible");
            return;
        }
        StringBuilder out = new StringBuilder();
        out.append(bestCount).append('\n');
        for (int i = 0, p = bestFirst; i < bestCount; i++, p = nxt[p]) {
            out.append(label[p]).append(i + 1 < bestCount ? ' ' : '\n');
        }
        System.out.print(out);
    }
}
