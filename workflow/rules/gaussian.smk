# rules: gaussian (filled in by its issue)
