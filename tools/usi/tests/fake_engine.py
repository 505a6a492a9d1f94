"""A scripted USI engine for the referee's tests.

Usage: fake_engine.py WORD [WORD ...]. It answers `usi` (with one spin option) and `isready`, and
answers each `go` with the next word: a move or `resign`/`win` as `bestmove WORD`, `HANG` to never
answer, `EXIT` to exit at once. When the words run out it resigns.
"""

import sys


def main() -> None:
    words = sys.argv[1:]
    out = sys.stdout
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "usi":
            out.write("id name FakeEngine\n")
            out.write("option name Threads type spin default 1 min 1 max 4\n")
            out.write("option name USI_Hash type spin default 16 min 1 max 1024\n")
            out.write("option name Knob type spin default 10 min -5 max 50\n")
            out.write("usiok\n")
        elif cmd[0] == "isready":
            out.write("readyok\n")
        elif cmd[0] == "go":
            word = words.pop(0) if words else "resign"
            if word == "HANG":
                continue
            if word == "EXIT":
                sys.exit(3)
            out.write(f"info depth 1 score cp 0\nbestmove {word}\n")
        elif cmd[0] == "quit":
            return
        out.flush()


if __name__ == "__main__":
    main()
