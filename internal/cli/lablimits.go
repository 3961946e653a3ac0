package cli

import (
	"fmt"
	"io"

	"github.com/objbench/objbench/internal/lab"
)

// maxHotPartitions bounds the partitions writeThrottled names per API.
const maxHotPartitions = 5

// writeThrottled prints, for each limited API, the partitions that
// refused requests (Limiter.Hot, the hottest first): where the lab pushed
// back, and how far a partition's rate grew.
func writeThrottled(w io.Writer, l *lab.Lab) {
	for _, api := range lab.APIs {
		lm := l.Limiter(api)
		if lm == nil {
			continue
		}
		st := lm.Hot()
		if len(st) == 0 {
			fmt.Fprintf(w, "objbench lab: %s throttled nothing\n", api)
			continue
		}
		for i, p := range st {
			if i == maxHotPartitions {
				fmt.Fprintf(w, "  … and %d more partitions\n", len(st)-i)
				break
			}
			grew := ""
			if p.Doublings > 0 {
				grew = fmt.Sprintf(", its rate doubled %d times to %g/s", p.Doublings, p.Rate)
			}
			fmt.Fprintf(w, "objbench lab: %s %s %q throttled %d of %d requests%s\n", api, p.Class, p.Name, p.Throttled, p.Throttled+p.Admitted, grew)
		}
	}
}
