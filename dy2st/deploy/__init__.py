"""A Program outside the user's Python: ``dy2st.save`` / ``dy2st.load``, ``TranslatedLayer`` and ONNX export.

Nothing here executes code from a file: models are JSON Programs plus raw parameter arrays,
validated against the op registry when read.
"""
