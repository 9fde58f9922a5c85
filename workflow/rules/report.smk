# rules: report (filled in by its issue)
