package export

import (
	"strings"
	"testing"

	"strata/erode"
)

// The channels strata erode stores are exported in metres; any other erosion.* channel as stored,
// and a mask is not exported.
func TestErosionMapUnits(t *testing.T) {
	units := map[string]string{}
	for _, m := range mapSpecs([]string{erode.ChannelDeposit, erode.ChannelWear, erode.ChannelFlow, "erosion.custom", "mask.snow"}) {
		units[m.name] = m.unit
	}
	for _, n := range []string{erode.ChannelDeposit, erode.ChannelWear, erode.ChannelFlow} {
		if !strings.HasPrefix(units[n], "m (") {
			t.Errorf("%s: unit %q, want metres", n, units[n])
		}
	}
	if units["erosion.custom"] != "as stored" {
		t.Errorf("erosion.custom: unit %q", units["erosion.custom"])
	}
	if _, ok := units["mask.snow"]; ok {
		t.Error("a mask is exported as a map")
	}
}
