"""KGs kept in a triple store: read through a SPARQL endpoint (`kb.sparql`), exported to one."""
