package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"strata/landscape"
	"strata/terraindata"
)

func init() {
	register(command{
		name:    "info",
		summary: "print a landscape's placement, layers with their control slot, and children",
		usage: `usage: strata info PATH.terrainData

Prints the placement (size, origin, height range), the layer table with each layer's control
texture and channel, every child with its format and size, the stored field channels and the
scatter populations. Opening the container first recovers an interrupted save. The manifest and
stack are checked as every reader checks them: problems are listed on stderr and the exit status is
1 (strata validate also decodes every payload).`,
		run: runInfo,
	})
}

func runInfo(args []string, stdout, stderr io.Writer) int {
	c := commands["info"]
	if len(args) != 1 || len(args[0]) == 0 || args[0][0] == '-' {
		return usageError(c, stderr, "want exactly one PATH.terrainData")
	}
	ct, err := terraindata.Open(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "strata info: %v\n", err)
		return exitFail
	}
	unreadable := printInfo(stdout, ct)
	probs := landscape.CheckContainer(ct)
	for _, p := range probs {
		fmt.Fprintln(stderr, p.String())
	}
	for _, err := range unreadable {
		fmt.Fprintln(stderr, strings.TrimPrefix(err.Error(), "terraindata: "))
	}
	if n := len(probs) + len(unreadable); n > 0 {
		fmt.Fprintf(stderr, "strata info: %s: %d problem(s); no reader will load it\n", args[0], n)
		return exitFail
	}
	return exitOK
}

var channelNames = [4]string{"R", "G", "B", "A"}

// printInfo prints the landscape and returns the children it could not open: a texture.yaml or a
// payload header that no reader would get past (info reads headers, not pixels).
func printInfo(w io.Writer, ct *terraindata.Container) []error {
	var unreadable []error
	m := ct.Manifest()
	p := ct.Placement()
	fmt.Fprintf(w, "%s\n", ct.Path())
	fmt.Fprintf(w, "  version %d, guid %s\n", m.Version, m.GUID)
	fmt.Fprintf(w, "placement\n  size %g x %g m (X, Z), origin (%g, %g), height range [%g, %g] m\n",
		p.Size[0], p.Size[1], p.Origin[0], p.Origin[1], p.HeightRange[0], p.HeightRange[1])

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "layers (%d)\n", len(m.Layers))
	for i, l := range m.Layers {
		t, ch := terraindata.LayerSlot(i)
		var extra []string
		if l.Tiling != 0 {
			extra = append(extra, fmt.Sprintf("tiling %g m", l.Tiling))
		}
		for _, kv := range [][2]string{{"tint", l.Tint}, {"albedo", l.Albedo}, {"normal", l.Normal}, {"mask", l.Mask}} {
			if kv[1] != "" {
				extra = append(extra, kv[0]+" "+kv[1])
			}
		}
		row := fmt.Sprintf("  %d\t%s\tcontrol%d.%s", i, l.Name, t, channelNames[ch])
		if len(extra) > 0 {
			row += "\t" + strings.Join(extra, ", ")
		}
		fmt.Fprintln(tw, row)
	}
	tw.Flush()

	fmt.Fprintln(tw, "children")
	refs := []*terraindata.Ref{ct.Height(), ct.Holes()}
	refs = append(refs, ct.Controls()...)
	if a := ct.Atlas(); a != nil {
		refs = append(refs, a.Albedo, a.Normal, a.Mask)
	}
	names := make([]string, 0, len(m.Channels))
	for n := range m.Channels {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		refs = append(refs, ct.Channel(n))
	}
	for _, r := range refs {
		if r == nil {
			continue
		}
		s, err := r.Stream()
		if err != nil {
			fmt.Fprintf(tw, "  %s\t%s\tunreadable\n", r.Role, r.Rel)
			unreadable = append(unreadable, err)
			continue
		}
		s.Close()
		info := s.Info
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%dx%d\t%s\n", r.Role, r.Rel, info.Format, info.Width, info.Height, info.ColorSpace)
	}
	if m.Holes == "" {
		fmt.Fprintf(tw, "  holes\t(none: the ground is solid)\n")
	}
	if m.Atlas == nil {
		fmt.Fprintf(tw, "  atlas\t(none: no layer carries a texture)\n")
	}
	if m.Stack != "" {
		fmt.Fprintf(tw, "  stack\t%s\n", m.Stack)
	}
	tw.Flush()

	if len(m.Scatter) > 0 {
		fmt.Fprintf(tw, "scatter (%d)\n", len(m.Scatter))
		for _, s := range m.Scatter {
			fmt.Fprintf(tw, "  %s\tdensity %s\tspacing %g m\tseed %d\tscale %g..%g\tmesh %s\t%d instances\n",
				s.Name, s.Density, s.Spacing, s.Seed, s.Scale[0], s.Scale[1], s.Mesh, s.Count)
		}
		tw.Flush()
	}
	return unreadable
}
