package main

import (
	"fmt"
	"io"

	"strata/landscape"
)

func init() {
	register(command{
		name:    "validate",
		summary: "check a landscape the way the publish gate does; list every problem",
		usage: `usage: strata validate PATH.terrainData

Exits 0 when the container is valid: info, render, export and the editor can then load it. Every
payload is decoded (block by block, never whole), every child path must stay inside the container,
and the stack, scatter and weights must be what a re-bake and the readers expect. Otherwise prints
every problem on stderr, one a line, as FILE: FIELD: what is wrong, and exits 1. Validation only
reads, as every reader does: a container an interrupted save left behind is put right by the next
save (or bake) of it, never by a reader. docs/limits.md lists every limit it enforces.`,
		run: runValidate,
	})
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	c := commands["validate"]
	if len(args) != 1 || len(args[0]) == 0 || args[0][0] == '-' {
		return usageError(c, stderr, "want exactly one PATH.terrainData")
	}
	path := args[0]
	probs := landscape.Validate(path)
	if len(probs) == 0 {
		fmt.Fprintf(stdout, "%s: valid\n", path)
		return exitOK
	}
	for _, p := range probs {
		fmt.Fprintln(stderr, p.String())
	}
	fmt.Fprintf(stderr, "strata validate: %s: %d problem(s)\n", path, len(probs))
	return exitFail
}
