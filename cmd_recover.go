package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"text/tabwriter"

	"strata/bake"
	"strata/recovery"
	"strata/terraindata"
)

func init() {
	register(command{
		name:    "recover",
		summary: "list and write the landscapes the editor was editing when it died (recovery copies)",
		usage: `usage: strata recover --list
       strata recover --latest [--out PATH.terrainData] [--cpu]
       strata recover ID [--out PATH.terrainData] [--cpu]

  --list     the recovery copies: id, landscape, time of its last step, steps, where it came
             from; a copy an editor still has open says "open (pid N)"
  --latest   the copy of the newest last step among those no editor has open
  ID         that copy (an id --list shows)
  --out P    write the recovered landscape to P as the editor's Save would (stack, painted
             masks and holes; weights and scatter evaluated afresh, the guid of the container it
             came from kept); without --out, say what would be recovered
  --cpu      evaluate with the Go reference

While a landscape is open and modified, the editor keeps a copy of it in
$XDG_STATE_HOME/strata/recovery (default ~/.local/state/strata/recovery), written after every
step; the editor removes it when it closes cleanly or saves. The copy stays after recover: the
editor's next start still offers it (Restore / Later / Discard).`,
		run: runRecover,
	})
}

func runRecover(args []string, stdout, stderr io.Writer) int {
	c := commands["recover"]
	fs := flag.NewFlagSet("recover", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	list := fs.Bool("list", false, "")
	latest := fs.Bool("latest", false, "")
	out := fs.String("out", "", "")
	cpu := fs.Bool("cpu", false, "")
	id, err := parseWithPath(fs, args, "")
	if err != nil {
		return usageError(c, stderr, "%v", err)
	}
	n := 0
	for _, b := range []bool{*list, *latest, id != ""} {
		if b {
			n++
		}
	}
	if n != 1 {
		return usageError(c, stderr, "give one of --list, --latest or an ID")
	}
	if *list && (*out != "" || *cpu) {
		return usageError(c, stderr, "--list takes no --out or --cpu")
	}
	root, err := recovery.Root()
	if err != nil {
		fmt.Fprintf(stderr, "strata recover: %v\n", err)
		return exitFail
	}
	copies, err := recovery.List(root)
	if err != nil {
		fmt.Fprintf(stderr, "strata recover: %v\n", err)
		return exitFail
	}
	if *list {
		if len(copies) == 0 {
			fmt.Fprintf(stdout, "no recovery copies in %s\n", root)
			return exitOK
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tLANDSCAPE\tLAST STEP\tSTEPS\tFROM\t")
		for _, e := range copies {
			if e.Err != nil {
				fmt.Fprintf(tw, "%s\t?\t?\t?\tunreadable: %v\t\n", e.ID, e.Err)
				continue
			}
			from := e.Meta.Base.Describe()
			if e.Live {
				from += fmt.Sprintf("; open (pid %d)", e.Meta.PID)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t\n", e.ID, e.Meta.Name, e.Last.Local().Format("2006-01-02 15:04:05"), e.Steps, from)
		}
		tw.Flush()
		return exitOK
	}
	var pick *recovery.Entry
	for i := range copies {
		e := &copies[i]
		if (*latest && !e.Live && e.Err == nil) || (!*latest && e.ID == id) {
			pick = e
			break
		}
	}
	if pick == nil {
		if *latest {
			fmt.Fprintf(stderr, "strata recover: no recovery copy to recover in %s (an editor that closed cleanly or saved leaves none)\n", root)
		} else {
			fmt.Fprintf(stderr, "strata recover: no recovery copy %q in %s (strata recover --list shows them)\n", id, root)
		}
		return exitFail
	}
	if pick.Err != nil {
		fmt.Fprintf(stderr, "strata recover: %v\n", pick.Err)
		return exitFail
	}
	what := fmt.Sprintf("%s (%s), last step %s, %d steps", pick.Meta.Name, pick.Meta.Base.Describe(),
		pick.Last.Local().Format("2006-01-02 15:04:05"), pick.Steps)
	if *out == "" {
		fmt.Fprintf(stdout, "%s: %s\nwrite it with: strata recover %s --out PATH.terrainData\n", pick.ID, what, pick.ID)
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	st, err := recovery.Read(pick.Dir)
	if err != nil {
		fmt.Fprintf(stderr, "strata recover: %v\n", err)
		return exitFail
	}
	if st.Torn != "" {
		fmt.Fprintf(stderr, "strata recover: note: %s\n", st.Torn)
	}
	l, err := st.Landscape(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "strata recover: %v\n", err)
		return exitFail
	}
	bar := newBakeBar(stderr)
	defer bar.Finish()
	r, err := bake.Rebake(ctx, l, *out, bake.RebakeOptions{EvalOptions: bake.EvalOptions{
		Options: bake.Options{Resolution: st.Meta.Resolution, Progress: bar.Func(),
			Warn: func(msg string) { fmt.Fprintf(stderr, "strata recover: warning: %s\n", msg) }},
		CPU: *cpu,
	}, Lock: terraindata.LockPath(*out)}) // as strata bake: two writers of one --out take turns
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "strata recover: interrupted; %s is as it was: %v\n", *out, err)
		} else {
			fmt.Fprintf(stderr, "strata recover: %s: %v\n", *out, err)
		}
		return exitFail
	}
	bar.Finish()
	fmt.Fprintf(stdout, "recovered %s\n", what)
	if r.Landscape.Stack != nil && r.Landscape.Weights != nil {
		printBaked(stdout, *out, r)
	} else {
		fmt.Fprintf(stdout, "wrote %s: %s\n", *out, r.Backend)
	}
	return exitOK
}
