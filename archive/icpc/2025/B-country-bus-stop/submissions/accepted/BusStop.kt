import java.io.BufferedReader
import java.io.InputStreamReader
import java.util.StringTokenizer
import kotlin.math.abs
import kotlin.math.hypot
import kotlin.math.max
import kotlin.math.min
import kotlin.math.sqrt

fun main() {
    val reader = BufferedReader(InputStreamReader(System.`in`))
    var tokens = StringTokenizer("")
    fun next(): String {
        while (!tokens.hasMoreTokens()) tokens = StringTokenizer(reader.readLine())
        return tokens.nextToken()
    }

    val n = next().toInt()
    val x = DoubleArray(n)
    val y = DoubleArray(n)
    val v = DoubleArray(n)
    for (i in 0 until n) {
        x[i] = next().toDouble()
        y[i] = next().toDouble()
        v[i] = next().toDouble()
    }

    // Nobody reaches the road before |y| / v; meeting right below picker 0 always works.
    var lo = 0.0
    var hi = 0.0
    for (i in 0 until n) {
        lo = max(lo, abs(y[i]) / v[i])
        hi = max(hi, hypot(x[i] - x[0], y[i]) / v[i])
    }
    hi = max(hi, lo)

    fun feasible(t: Double): Boolean {
        var left = Double.NEGATIVE_INFINITY
        var right = Double.POSITIVE_INFINITY
        for (i in 0 until n) {
            val reach = sqrt(max(0.0, v[i] * v[i] * t * t - y[i] * y[i]))
            left = max(left, x[i] - reach)
            right = min(right, x[i] + reach)
        }
        return left <= right
    }

    for (round in 1..100) {
        val mid = (lo + hi) / 2
        if (feasible(mid)) {
            hi = mid
        } else {
            lo = mid
        }
    }
    println("%.9f".format(java.util.Locale.ROOT, hi))
}
