# rules: multiuser (filled in by its issue)
