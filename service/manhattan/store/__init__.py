"""Storage: the state cache (``cache``: Redis or an in-process LRU) and the versioned records
that tables keep (``cas``: a compare-and-set on one key). Bytes in, bytes out: no rules."""
