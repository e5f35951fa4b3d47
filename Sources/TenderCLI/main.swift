// The entry point: run the command, and turn every failure into exit status 1 with one line on stderr.
await CommandLine.runTender()
