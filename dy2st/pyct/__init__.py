"""A small, generic Python-to-Python toolkit (parse, annotate, analyse, template, generate, load).

Nothing here knows about tensors; the passes in `dy2st.transformers` build on it.
"""
