# rules: download (filled in by its issue)
