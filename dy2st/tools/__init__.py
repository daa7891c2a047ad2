"""What shows the work: the ``dy2st`` command line, the demo, the staging report and error mapping.

``error`` and ``entry`` put the user's own file and line on errors from converted code and from the
public entry points; ``staging`` reports which constructs became graph ops and why.
"""
