"""SPSA tuning of the search parameters by self-play (tools/spsa/README.md):
`python3 -m tools.spsa --help`.
"""
