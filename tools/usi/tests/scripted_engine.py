"""A scripted USI engine, for the tests of the tools that play games (the referee, the SPSA
driver, the clock games).

Usage: scripted_engine.py [--record FILE] WORD [WORD ...]. It answers `usi` (with three spin
options: Threads, USI_Hash and Knob) and `isready`. Each `go` is answered with the next WORD:
`MOVE` at once, `MOVE@MS` after sleeping MS milliseconds (a move, `resign` or `win`), `STOP` with
no answer until `stop` comes (then `bestmove resign`), `HANG` with no answer at all, `EXIT` by
exiting. When the words run out it resigns. With --record every `go` line is appended to FILE.
"""

import sys
import time


def main() -> None:
    args = sys.argv[1:]
    record = None
    if args[:1] == ["--record"]:
        record, args = args[1], args[2:]
    words = list(args)
    waiting = None  # STOP or HANG while a `go` is left unanswered
    out = sys.stdout
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "usi":
            out.write("id name ScriptedEngine\n")
            out.write("option name Threads type spin default 1 min 1 max 4\n")
            out.write("option name USI_Hash type spin default 16 min 1 max 1024\n")
            out.write("option name Knob type spin default 10 min -5 max 50\n")
            out.write("usiok\n")
        elif cmd[0] == "isready":
            out.write("readyok\n")
        elif cmd[0] == "go":
            if record:
                with open(record, "a") as f:
                    f.write(line.strip() + "\n")
            word = words.pop(0) if words else "resign"
            if word in ("STOP", "HANG"):
                waiting = word
                continue
            if word == "EXIT":
                sys.exit(3)
            move, _, ms = word.partition("@")
            if ms:
                time.sleep(int(ms) / 1000)
            out.write(f"info depth 1 score cp 0\nbestmove {move}\n")
        elif cmd[0] == "stop":
            if waiting == "STOP":
                out.write("bestmove resign\n")
            waiting = None
        elif cmd[0] == "quit":
            return
        out.flush()


if __name__ == "__main__":
    main()
