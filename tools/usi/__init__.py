"""What every tool that plays games needs: the USI engine wrapper (`engine`: one engine process,
its options, `go` with a deadline) and the referee (`referee`: the rules with cshogi, one game
between two engines).
"""
