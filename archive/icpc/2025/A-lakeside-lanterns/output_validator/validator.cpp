// Output validator for "Lakeside Lanterns".
// Checks that the chosen lanterns are distinct, light the whole circle and are as few as
// the jury's answer; "impossible" is accepted only if the jury found no lighting either.
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "validate.h"

static std::string lower(std::string s) {
    for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

int main(int argc, char **argv) {
    vld::Session s(argc, argv);

    long long n = s.input.integer(1, 100000, "n");
    long long circ = s.input.integer(2, 1000000000, "C");
    std::vector<long long> a(n), b(n);
    for (long long i = 0; i < n; ++i) {
        a[i] = s.input.integer(0, circ - 1, "a_i");
        b[i] = s.input.integer(0, circ - 1, "b_i");
    }

    // The jury's answer: "impossible" or the optimal number of lanterns.
    long long jury = -1;
    if (lower(s.answer.peek()) == "impossible")
        s.answer.word("the verdict");
    else
        jury = s.answer.integer(2, n, "the jury's k");

    if (lower(s.team.peek()) == "impossible") {
        s.team.word("the verdict");
        s.team.finish();
        if (jury >= 0) vld::reject("output says impossible, but %lld lanterns light the whole path", jury);
        vld::accept("correctly reported impossible");
    }
    if (s.team.peek().empty()) vld::reject("empty output");

    long long k = s.team.integer(1, n, "k");
    std::vector<char> used(n, 0);
    std::vector<std::pair<long long, long long>> lit;  // closed intervals inside [0, C]
    for (long long j = 0; j < k; ++j) {
        long long id = s.team.integer(1, n, "a lantern number");
        if (used[id - 1]) vld::reject("lantern %lld is listed twice", id);
        used[id - 1] = 1;
        long long from = a[id - 1];
        long long to = from + ((b[id - 1] - from) % circ + circ) % circ;
        if (to <= circ) {
            lit.push_back({from, to});
        } else {  // the stretch passes the pier: split it there
            lit.push_back({from, circ});
            lit.push_back({0, to - circ});
        }
    }
    s.team.finish();

    std::sort(lit.begin(), lit.end());
    long long covered = 0;  // [0, covered] is lit
    for (const auto &piece : lit) {
        if (piece.first > covered)
            vld::reject("the path between positions %lld and %lld stays dark", covered, piece.first);
        covered = std::max(covered, piece.second);
    }
    if (covered < circ)
        vld::reject("the path between positions %lld and %lld stays dark", covered, circ);

    if (jury < 0)
        vld::judge_error("the team lit the whole path with %lld lanterns, the jury said impossible", k);
    if (k > jury) vld::reject("%lld lanterns light the path, but %lld are enough", k, jury);
    if (k < jury) vld::judge_error("the team needs only %lld lanterns, the jury used %lld", k, jury);
    vld::accept("the path is lit by %lld lanterns", k);
}
