; An empty module: no functions at all.
