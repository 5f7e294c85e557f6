"""SimGRAG: query to pattern, candidate pools, top-k subgraph search by GSD, answer."""
