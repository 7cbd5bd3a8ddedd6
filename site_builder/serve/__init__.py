"""The dev server: HTTP, watching the archive, rebuilding and live reload."""
