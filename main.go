// Command strata is the Strata terrain editor and its headless tools.
//
// Each subcommand lives in its own cmd_*.go file and registers itself in init, so --help lists
// exactly the commands that are built in — and only working commands are built in.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	_ "early.local/locale" // before Fyne's lang package reads the locale: see internal/earlyenv
)

// Exit codes (SPEC "Command line").
const (
	exitOK    = 0
	exitFail  = 1 // invalid input or failed check
	exitUsage = 2
)

// command is one subcommand of strata.
type command struct {
	name    string
	summary string // one line for --help
	usage   string // full synopsis, shown by `strata help NAME` and on usage errors
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

// defaultCommand runs when strata is started without a subcommand.
var defaultCommand func(stdout, stderr io.Writer) int

func register(c command) { commands[c.name] = c }

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		if defaultCommand == nil {
			usage(stderr)
			return exitUsage
		}
		return defaultCommand(stdout, stderr)
	}
	switch args[0] {
	case "-h", "--help", "help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fmt.Fprintln(stdout, c.usage)
				return exitOK
			}
		}
		usage(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "strata: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: strata <command> [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "`strata help COMMAND` shows a command's arguments.")
}

// parseWithPath parses flags around one positional PATH argument, which may come before or after
// the flags (`strata render dunes.terrainData --out f.png` and `strata render --out f.png
// dunes.terrainData` both work). It reports a second positional argument, and a missing one named
// what (what "": the path is optional).
func parseWithPath(fs *flag.FlagSet, args []string, what string) (path string, err error) {
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return "", err
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		if path != "" {
			return "", fmt.Errorf("unexpected argument %q", rest[0])
		}
		path, rest = rest[0], rest[1:]
	}
	if path == "" && what != "" {
		return "", fmt.Errorf("missing %s", what)
	}
	return path, nil
}

// usageError prints a usage message for c and returns exitUsage.
func usageError(c command, stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "strata %s: %s\n", c.name, strings.TrimSpace(fmt.Sprintf(format, a...)))
	fmt.Fprintln(stderr, c.usage)
	return exitUsage
}
