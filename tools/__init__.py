"""Hayate's Python tools, run by hand from the repository root with `python3 -m tools.NAME`
(tools/README.md lists them): the shared USI engine wrapper and referee (`tools.usi`), the SPSA
tuner (`tools.spsa`), the clock games (`tools.clock`) and the match and test-data helpers. The
repository root is on the import path that way, so the tools import each other as `tools.X`.
"""
