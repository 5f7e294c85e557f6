"""KG-RAG methods behind one Reasoner protocol."""
