#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    string s;
    if (!(cin >> n >> s)) return 0;
    // all prefix keys (R - G, G - B), then count equal pairs after sorting
    vector<pair<int, int>> keys;
    keys.reserve(n + 1);
    int rg = 0, gb = 0;
    keys.push_back({0, 0});
    for (char ch : s) {
        if (ch == 'R') ++rg;
        else if (ch == 'G') { --rg; ++gb; }
        else if (ch == 'B') --gb;
        keys.push_back({rg, gb});
    }
    sort(keys.begin(), keys.end());
    long long answer = 0;
    for (size_t i = 0, j; i < keys.size(); i = j) {
        j = i;
        while (j < keys.size() && keys[j] == keys[i]) ++j;
        long long k = (long long)(j - i);
        answer += k * (k - 1) / 2;
    }
    cout << answer << "\n";
    return 0;
}
