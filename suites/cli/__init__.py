"""The command line (harness/cli/): the page, the tables, the entry point, exit statuses, verdicts."""
