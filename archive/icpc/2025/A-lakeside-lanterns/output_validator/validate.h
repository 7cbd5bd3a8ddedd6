// validate.h: a small toolkit for output validators.
//
// A validator is started as
//     validator input_file answer_file feedback_dir < contestant_output
// and ends with exit code 42 (accepted) or 43 (rejected). The reason for the verdict is
// written to feedback_dir/judgemessage.txt. When the validator finds that the jury's own
// answer is wrong, it writes feedback_dir/judgeerror.txt and exits with code 1 instead.
//
// Usage:
//     #include "validate.h"
//     int main(int argc, char **argv) {
//         vld::Session s(argc, argv);
//         long long n = s.input.integer();            // trusted files: any problem aborts
//         long long k = s.team.integer(1, n, "k");    // team output: problems reject
//         s.team.finish();
//         s.accept("ok");
//     }
#pragma once

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

namespace vld {

constexpr int EXIT_ACCEPTED = 42;
constexpr int EXIT_REJECTED = 43;
constexpr int EXIT_JUDGE_ERROR = 1;

namespace detail {

inline std::string &feedback_dir() {
    static std::string dir;
    return dir;
}

inline std::string format(const char *fmt, va_list args) {
    va_list copy;
    va_copy(copy, args);
    int len = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    if (len < 0) return fmt;
    std::string text(static_cast<size_t>(len) + 1, '\0');
    std::vsnprintf(&text[0], text.size(), fmt, args);
    text.resize(static_cast<size_t>(len));
    return text;
}

inline void write_feedback(const char *file, const std::string &text) {
    std::string path = feedback_dir();
    if (!path.empty() && path.back() != '/') path += '/';
    path += file;
    std::ofstream out(path, std::ios::app);
    if (out) out << text << '\n';
    std::cerr << text << '\n';
}

[[noreturn]] inline void finish(int code, const char *file, const char *fmt, va_list args) {
    write_feedback(file, format(fmt, args));
    std::exit(code);
}

}  // namespace detail

[[noreturn]] inline void accept(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    detail::finish(EXIT_ACCEPTED, "judgemessage.txt", fmt, args);
}

[[noreturn]] inline void reject(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    detail::finish(EXIT_REJECTED, "judgemessage.txt", fmt, args);
}

[[noreturn]] inline void judge_error(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    detail::finish(EXIT_JUDGE_ERROR, "judgeerror.txt", fmt, args);
}

// Reads whitespace-separated tokens from one stream. What happens on a problem depends on
// who wrote the stream: the team's output is rejected, a jury file is a judge error.
class Tokens {
  public:
    Tokens(std::istream &in, bool trusted, const char *what)
        : in_(in), trusted_(trusted), what_(what) {}

    // Next token, or an empty string at the end of the stream.
    std::string peek() {
        if (!have_) {
            have_ = true;
            buffered_.clear();
            in_ >> buffered_;
        }
        return buffered_;
    }

    std::string word(const char *name) {
        std::string t = peek();
        if (t.empty()) fail("unexpected end of %s while reading %s", what_, name);
        have_ = false;
        ++count_;
        return t;
    }

    long long integer(long long lo, long long hi, const char *name) {
        std::string t = word(name);
        long long value = 0;
        if (!parse_integer(t, value))
            fail("%s: expected an integer for %s, got \"%s\"", what_, name, shorten(t).c_str());
        if (value < lo || value > hi)
            fail("%s: %s = %lld is outside [%lld, %lld]", what_, name, value, lo, hi);
        return value;
    }

    long long integer(const char *name = "an integer") {
        return integer(-(1LL << 62), 1LL << 62, name);
    }

    // Nothing but whitespace may follow.
    void finish() {
        std::string t = peek();
        if (!t.empty())
            fail("%s: unexpected extra output \"%s\" after token %lld", what_, shorten(t).c_str(),
                 count_);
    }

    long long tokens_read() const { return count_; }

    [[noreturn]] void fail(const char *fmt, ...) {
        va_list args;
        va_start(args, fmt);
        if (trusted_) detail::finish(EXIT_JUDGE_ERROR, "judgeerror.txt", fmt, args);
        detail::finish(EXIT_REJECTED, "judgemessage.txt", fmt, args);
    }

    // Optional sign followed by 1 to 18 digits; no leading "+", no leading zeros.
    static bool parse_integer(const std::string &t, long long &value) {
        size_t i = 0;
        bool negative = false;
        if (i < t.size() && t[i] == '-') {
            negative = true;
            ++i;
        }
        size_t digits = t.size() - i;
        if (digits == 0 || digits > 18) return false;
        if (t[i] == '0' && (digits > 1 || negative)) return false;
        value = 0;
        for (; i < t.size(); ++i) {
            if (!std::isdigit(static_cast<unsigned char>(t[i]))) return false;
            value = value * 10 + (t[i] - '0');
        }
        if (negative) value = -value;
        return true;
    }

    static std::string shorten(const std::string &t) {
        return t.size() <= 40 ? t : t.substr(0, 37) + "...";
    }

  private:
    std::istream &in_;
    bool trusted_;
    const char *what_;
    std::string buffered_;
    bool have_ = false;
    long long count_ = 0;
};

// Opens the three files of the calling convention.
class Session {
  public:
    Session(int argc, char **argv)
        : input(input_file_, true, "input file"),
          answer(answer_file_, true, "answer file"),
          team(std::cin, false, "output") {
        if (argc < 4) {
            std::fprintf(stderr, "usage: %s input_file answer_file feedback_dir < output\n",
                         argc > 0 ? argv[0] : "validator");
            std::exit(EXIT_JUDGE_ERROR);
        }
        detail::feedback_dir() = argv[3];
        input_file_.open(argv[1]);
        if (!input_file_) judge_error("cannot open input file %s", argv[1]);
        answer_file_.open(argv[2]);
        if (!answer_file_) judge_error("cannot open answer file %s", argv[2]);
    }

  private:
    std::ifstream input_file_, answer_file_;  // declared before the readers that use them

  public:
    Tokens input, answer, team;
};

}  // namespace vld
