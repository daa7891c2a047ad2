"""Source -> generated code: the one pass pipeline (``transform``) and the ``_jst`` interface.

``transform`` parses a function (``dy2st.pyct``), runs the AST passes of ``dy2st.transformers`` in
one listed order and loads the generated Python; ``convert_call`` converts callees on first use;
``convert_operators`` is the namespace generated code calls (``dy2st.operators`` behind it).
"""
