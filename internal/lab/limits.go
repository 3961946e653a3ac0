package lab

import (
	"fmt"
	"io"

	"github.com/objbench/objbench/internal/lab/server"
)

// limiter is api's request-rate limiter (Config.Limit), made once per
// API; nil when api is not limited.
func (l *Lab) limiter(api string) *server.Limiter {
	lim := l.cfg.Limit.For(api)
	if lim == nil {
		return nil
	}
	if l.limiters == nil {
		l.limiters = map[string]*server.Limiter{}
	}
	if lm := l.limiters[api]; lm != nil {
		return lm
	}
	lm := server.NewLimiter(*lim, nil)
	l.limiters[api] = lm
	return lm
}

// Limiter is api's request-rate limiter, for its partitions' record
// (server.Limiter.Stats); nil when api is not limited.
func (l *Lab) Limiter(api string) *server.Limiter { return l.limiters[api] }

// limitString is api's limit as the document records it; "" when none.
func (l *Lab) limitString(api string) string {
	if lim := l.cfg.Limit.For(api); lim != nil {
		return lim.String()
	}
	return ""
}

// maxHotPartitions bounds the partitions WriteThrottled names per API.
const maxHotPartitions = 5

// WriteThrottled prints, for each limited API, the partitions that
// refused requests (server.Limiter.Hot, the hottest first): where the lab
// pushed back, and how far a partition's rate grew. It is the lab's own
// record at its stop, read from its limiters; the lab writes it because
// the report packages never import the lab (docs/design.md).
func (l *Lab) WriteThrottled(w io.Writer) {
	for _, api := range APIs {
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
