"""Publishing: pages, search, the writer, and whether the published site is current."""
