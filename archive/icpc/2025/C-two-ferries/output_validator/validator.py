#!/usr/bin/env python3
"""Output validator for "Two Ferries".

Usage: validator.py input_file answer_file feedback_dir < team_output
Exit code 42 accepts, 43 rejects; the reason goes to feedback_dir/judgemessage.txt.
The team's answer is checked on its own: a valid split or a valid odd cycle is a proof.
"""
import os
import sys

from graphcheck import Graph, Reject, Tokens, check_odd_cycle, check_split

ACCEPT, REJECT, JUDGE_ERROR = 42, 43, 1


def report(feedback_dir: str, name: str, message: str, code: int) -> None:
    with open(os.path.join(feedback_dir, name), "a", encoding="utf-8") as out:
        out.write(message + "\n")
    sys.exit(code)


def judge(graph: Graph, team: Tokens) -> str:
    """Returns the team's verdict after checking its proof; raises Reject if it fails."""
    verdict = team.word("'possible' or 'impossible'").lower()
    if verdict == "possible":
        check_split(graph, team.word("the ferry string"))
    elif verdict == "impossible":
        k = team.integer(3, graph.n, "the length of the cycle")
        cycle = [team.integer(1, graph.n, "a pupil number") for _ in range(k)]
        check_odd_cycle(graph, cycle)
    else:
        raise Reject(f"expected 'possible' or 'impossible', got {verdict[:30]!r}")
    team.finish()
    return verdict


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit("usage: validator.py input_file answer_file feedback_dir < team_output")
    input_file, answer_file, feedback_dir = sys.argv[1:4]
    with open(input_file, encoding="utf-8") as f:
        graph = Graph(f.read())
    with open(answer_file, encoding="utf-8") as f:
        jury_verdict = f.read().split()[0].lower()
    team = Tokens(sys.stdin.buffer.read().decode("utf-8", errors="replace"))

    try:
        verdict = judge(graph, team)
    except Reject as wrong:
        report(feedback_dir, "judgemessage.txt", str(wrong), REJECT)
        return
    if verdict != jury_verdict:
        report(feedback_dir, "judgeerror.txt",
               f"the team proved '{verdict}', the jury answer says '{jury_verdict}'", JUDGE_ERROR)
    if verdict == "possible":
        report(feedback_dir, "judgemessage.txt", "valid split onto the two ferries", ACCEPT)
    report(feedback_dir, "judgemessage.txt", "valid odd cycle of quarrels", ACCEPT)


if __name__ == "__main__":
    main()
