"""One pass per file; `dy2st.transform` applies them in order."""
