"""Programs as files: the versioned JSON format, inference-model files and their validation.

``program_format`` maps a Program to a plain dict and back; ``program_check`` validates every op
read from a file against the registry; ``io`` saves and reads ``.pdmodel``/``.pdiparams``; no
format here can execute code when loaded.
"""
