package landscape

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// childName turns a channel or population name into its child folder: "mask.snow" →
// "mask_snow.texture", "pine trees" → "scatter_pine_trees.texture". Anything but letters, digits,
// '_' and '-' becomes '_', so no name can make a path (a '/' or '..'), a hidden file or a name a
// file system refuses.
func childName(prefix, name string) string {
	return prefix + cleanName(name) + ".texture"
}

// cleanName is name with anything but letters, digits, '_' and '-' as '_': safe as a file name.
func cleanName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return '_'
	}, name)
}

// reservedChildren are the names Write gives the container's fixed children.
var reservedChildren = map[string]string{
	"height.texture": "the height", "holes.texture": "the holes mask", "control0.texture": "control 0",
	"control1.texture": "control 1", "atlas_albedo.texture": "the albedo atlas",
	"atlas_normal.texture": "the normal atlas", "atlas_mask.texture": "the mask atlas",
}

// childNames is the child folder of every channel and population Write stores. Two names that
// would share one folder — "mask.snow" and "mask_snow", a channel "scatter_trees" beside a
// population "trees", populations "a/b" and "a_b", a channel "holes", names differing only in
// case (one folder on macOS and Windows) — are refused by name: written, one data set would
// silently overwrite the other.
func childNames(channels []string, populations []string) (chans map[string]string, pops []string, err error) {
	owner := map[string]string{}
	for k, v := range reservedChildren {
		owner[k] = v
	}
	claim := func(child, who string) error {
		key := strings.ToLower(child)
		if other, taken := owner[key]; taken {
			return fmt.Errorf("bake: %s and %s would both be stored as %s: rename one", who, other, child)
		}
		owner[key] = who
		return nil
	}
	sort.Strings(channels)
	chans = map[string]string{}
	for _, name := range channels {
		c := childName("", name)
		if err := claim(c, fmt.Sprintf("channel %q", name)); err != nil {
			return nil, nil, err
		}
		chans[name] = c
	}
	for i, name := range populations {
		c := childName("scatter_", name)
		if err := claim(c, fmt.Sprintf("population %q (populations[%d])", name, i)); err != nil {
			return nil, nil, err
		}
		pops = append(pops, c)
	}
	return chans, pops, nil
}

// childNames runs the child-name checks over what l will store.
func (l *Landscape) childNames() (map[string]string, []string, error) {
	var chans []string
	if l.Field != nil {
		for name := range l.Field.Channels {
			chans = append(chans, name)
		}
	}
	var pops []string
	if l.Stack != nil {
		for i := range l.Stack.Populations {
			pops = append(pops, l.Stack.Populations[i].Name)
		}
	}
	if len(l.Scatter) > 0 {
		pops = pops[:0]
		for _, p := range l.Scatter {
			pops = append(pops, p.Name)
		}
	}
	return childNames(chans, pops)
}
