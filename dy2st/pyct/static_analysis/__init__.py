"""Which names a piece of code reads and writes, which are live after it, which are bound before it.

The branch and loop passes use these sets to decide what their generated functions take and
return: a name written in a branch is an output only if it is live after the `if`; a name a
function must receive is one it reads before writing, or one it might pass through unchanged.
"""
from dy2st.pyct.static_analysis.activity import reads, writes, free_reads, block_reads, block_writes, closure_cells
from dy2st.pyct.static_analysis.liveness import annotate_liveness, live_in
from dy2st.pyct.static_analysis.definedness import annotate_defined

__all__ = ["reads", "writes", "free_reads", "block_reads", "block_writes", "closure_cells",
           "annotate_liveness", "live_in", "annotate_defined"]
