"""Games between two USI engines at real clocks, to check time management
(tools/clock/README.md): `python3 -m tools.clock --help`.
"""
