"""One pass per file; `dy2st.conversion.transform` applies them in order."""
