"""The command layer: one module per subcommand (its options and its presentation:
tables, reports, plots, the PyTorch comparison), the options and validators they share
(:mod:`.options`), network files (:mod:`.netio`), targets (:mod:`.targets`) and the
PyTorch export (:mod:`.torch_export`); :mod:`.cli` is the parser and the exit codes."""
