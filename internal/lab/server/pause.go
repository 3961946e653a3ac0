package server

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// parsePause reads the value of pause=PAUSE/EVERY, e.g. 1s/10s.
func parsePause(v string) (pause, every time.Duration, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(v), "/")
	if ok {
		pause, err = time.ParseDuration(strings.TrimSpace(a))
		if err == nil {
			every, err = time.ParseDuration(strings.TrimSpace(b))
		}
	}
	if !ok || err != nil || pause <= 0 || every <= pause {
		return 0, 0, fmt.Errorf("bad fault pause=%s: use pause=PAUSE/EVERY with 0 < PAUSE < EVERY, e.g. pause=1s/10s", v)
	}
	return pause, every, nil
}

// PausedUntil returns the end of the pause window that t falls in, or the
// zero time when t is outside every window. Windows start at multiples of
// every since the Unix epoch, so that tests can compute them too.
func (f Faults) PausedUntil(t time.Time) time.Time {
	if f.Pause <= 0 || f.PauseEvery <= 0 {
		return time.Time{}
	}
	ns := t.UnixNano()
	start := ns - ns%int64(f.PauseEvery)
	if ns-start >= int64(f.Pause) {
		return time.Time{}
	}
	return time.Unix(0, start+int64(f.Pause))
}

// paused holds a request that arrives during a pause window until the
// window ends; false when the request went away (or the lab stopped) first.
func (b *Behaviour) paused(r *http.Request) bool {
	until := b.Faults.PausedUntil(time.Now())
	if until.IsZero() {
		return true
	}
	t := time.NewTimer(time.Until(until))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-b.Stop:
		return false
	}
}
