"""How results are shown: JSON (with a schema per command), tables and colour, the compile header, highlighting."""
