"""Where a call enters: ``@to_static``, ``StaticFunction``, input signatures and the guarded Program cache.

A call's arguments pick a cached Program (``function_spec``, ``value_keys``), whose guards
(``guards``, ``guard_check``) say whether what the trace read is still true; a miss converts the
function (``dy2st.conversion``) and traces it into a new Program.
"""
