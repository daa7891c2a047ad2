"""The runtime operators generated code calls, one module per construct.

Generated code reaches them through `dy2st.conversion.convert_operators` (imported there as `_jst`), which
re-exports them; import from that module, not from here.
"""
