// Package probe is the probe round as a reusable unit: a round of K
// GETs of random keys from a small pool of objects, on a client that lives
// as long as the process, so that a later round (a later invocation of a
// function or service) shows whether its first request found a connection
// left by an earlier one. `objbench probe` runs one round; `objbench serve`
// and the Lambda handler run many on the same Targets.
package probe

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
	"github.com/objbench/objbench/internal/usage"
)

// Options are one round's settings; the zero value of a field takes the
// seed's default.
type Options struct {
	// Count is the number of GETs (default 50).
	Count int `json:"count,omitempty"`
	// Pool is the number of objects the keys are drawn from (default 10).
	Pool int `json:"pool,omitempty"`
	// Size is each pool object's size in bytes (default 1 KiB).
	Size int64 `json:"size,omitempty"`
	// Prepare creates pool objects that are missing.
	Prepare bool `json:"prepare,omitempty"`
	// Timeout bounds each GET (default 30 s).
	Timeout time.Duration `json:"-"`
}

// Limits keep a round bounded whatever a caller asks for.
const (
	MaxCount = 10_000
	MaxPool  = 1_000
	MaxSize  = 64 << 20
)

// WithDefaults fills zero fields and checks the bounds.
func (o Options) WithDefaults() (Options, error) {
	if o.Count == 0 {
		o.Count = 50
	}
	if o.Pool == 0 {
		o.Pool = 10
	}
	if o.Size == 0 {
		o.Size = 1024
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	switch {
	case o.Count < 0 || o.Count > MaxCount:
		return o, fmt.Errorf("count %d: use 1 to %d", o.Count, MaxCount)
	case o.Pool < 0 || o.Pool > MaxPool:
		return o, fmt.Errorf("pool %d: use 1 to %d", o.Pool, MaxPool)
	case o.Size < 0 || o.Size > MaxSize:
		return o, fmt.Errorf("size %d: use 1 B to %s", o.Size, units.FormatSize(MaxSize))
	}
	return o, nil
}

// Target is one probed bucket with the measured client every round uses.
type Target struct {
	// Info is the target block of the round's document.
	Info document.TargetInfo
	Lab  *document.LabInfo
	// Strategy is the connection strategy of Client.
	Strategy string
	// PeerName is the host name requests go to (net.peer.name).
	PeerName string
	// Client is measured and kept for the life of the process.
	Client *load.Client
	// Setup is an unmeasured client that retries, for the pool.
	Setup storage.Backend
	// Prefix is where the pool lives, e.g. "objbench/probe/".
	Prefix string

	seq      atomic.Int64
	rounds   atomic.Int64
	poolMu   sync.Mutex
	poolSeen map[string]bool // pools found or made: checked once
}

// ErrPoolMissing says the pool objects are not there and --prepare was not given.
var ErrPoolMissing = errors.New("probe pool missing")

// PoolKeys names the pool objects: <pool>_<n>_<size>.obj.
func PoolKeys(prefix string, pool int, size int64) []string {
	keys := make([]string, pool)
	for i := range keys {
		keys[i] = prefix + strconv.Itoa(pool) + "_" + strconv.Itoa(i+1) + "_" + strconv.FormatInt(size, 10) + ".obj"
	}
	return keys
}

// EnsurePool checks that every pool object exists with its size, creating
// the missing ones when o.Prepare is set. Objects are never deleted: the
// pool outlives the process, so that the next one finds it.
func (t *Target) EnsurePool(ctx context.Context, o Options) error {
	keys := PoolKeys(t.Prefix, o.Pool, o.Size)
	id := keys[0] + "/" + strconv.Itoa(o.Pool)
	t.poolMu.Lock()
	defer t.poolMu.Unlock()
	if t.poolSeen[id] {
		return nil
	}
	var missing []string
	for _, k := range keys {
		info, err := t.Setup.Head(ctx, k)
		switch {
		case err == nil && info.Size == o.Size:
		case err == nil || storage.Classify(err) == storage.ClassNotFound:
			missing = append(missing, k)
		default:
			return fmt.Errorf("check pool object %s: %w", k, err)
		}
	}
	if len(missing) > 0 && !o.Prepare {
		return fmt.Errorf("%w: %d of %d objects of %s under %s are not there (create them with --prepare, or \"prepare\": true)",
			ErrPoolMissing, len(missing), o.Pool, units.FormatSize(o.Size), t.Info.URL+"/"+t.Prefix)
	}
	for _, k := range missing {
		body := make([]byte, o.Size)
		_, _ = rand.Read(body)
		if err := t.Setup.Put(ctx, k, bytes.NewReader(body), o.Size); err != nil {
			return fmt.Errorf("create pool object %s: %w", k, err)
		}
	}
	if t.poolSeen == nil {
		t.poolSeen = map[string]bool{}
	}
	t.poolSeen[id] = true
	return nil
}

// Hooks see a round as it happens; every field is optional.
type Hooks struct {
	// OnSample receives each request as it ends (metrics).
	OnSample func(t *Target, s *nettrace.Sample)
	// OnRound receives the whole round once it ends (traces).
	OnRound func(ctx context.Context, r *Round)
}

// Round is what one round on one target measured.
type Round struct {
	Target *Target
	// Number counts this target's rounds in this process, from 1.
	Number int64
	Start  time.Time
	Wall   time.Duration
	// Samples are every request, with Seq counting across rounds.
	Samples []nettrace.Sample
	// Result is the round's step: its first_request is the round's first GET.
	Result document.Result
	// Histograms are the step's encoded TTFB and total histograms.
	Histograms map[string][]byte
	// Failed counts requests that did not succeed.
	Failed int64
}

// Run makes one round: o.Count GETs, one at a time, of random pool keys.
// It returns the partial round with ctx's error when ctx ends first.
func Run(ctx context.Context, t *Target, o Options, h Hooks) (*Round, error) {
	o, err := o.WithDefaults()
	if err != nil {
		return nil, err
	}
	if err := t.EnsurePool(ctx, o); err != nil {
		return nil, err
	}
	keys := PoolKeys(t.Prefix, o.Pool, o.Size)
	r := &Round{Target: t, Number: t.rounds.Add(1), Start: time.Now()}
	rec := stats.NewRecorder()
	var runErr error
	for i := range o.Count {
		if err := ctx.Err(); err != nil {
			runErr = err
			break
		}
		key := keys[mrand.IntN(len(keys))]
		s, err := load.Timed(ctx, o.Timeout, func(ctx context.Context) error {
			_, err := t.Client.Backend.Get(ctx, key, io.Discard)
			return err
		})
		if err != nil && ctx.Err() != nil {
			runErr = ctx.Err()
			break
		}
		s.Op, s.Key, s.Size = "get", key, o.Size
		if err != nil {
			s.Err, s.ErrClass = err.Error(), string(storage.Classify(err))
			r.Failed++
		}
		// The recorder sees the round's own order, so that the round's
		// first request is its first_request; the sample keeps the
		// process-wide count.
		s.Seq = i
		rec.Add(&s)
		s.Seq = int(t.seq.Add(1) - 1)
		r.Samples = append(r.Samples, s)
		if h.OnSample != nil {
			h.OnSample(t, &s)
		}
	}
	r.Wall = time.Since(r.Start)
	r.Result = document.FromSummary("probe", "get", o.Size, 1, t.Strategy, r.Wall, rec.Summarize(o.Size, r.Wall))
	r.Histograms, _ = rec.Histograms() // encoding in-memory histograms cannot fail
	if h.OnRound != nil {
		h.OnRound(ctx, r)
	}
	return r, runErr
}

// Seq is the number of requests this target has made in this process.
func (t *Target) Seq() int64 { return t.seq.Load() }

// Settings are a round's flags as the user writes them; Options checks
// them.
type Settings struct {
	Count, Pool int
	Size        string
	Prepare     bool
}

// Options checks the settings into round options with timeout per GET.
// Every error is the user's to fix; a setting is named by its field.
func (s Settings) Options(timeout time.Duration) (Options, error) {
	size, err := units.ParseSize(s.Size)
	if err != nil || size <= 0 {
		return Options{}, usage.Fieldf("{Size} %q: use a size such as 1KiB", s.Size)
	}
	o := Options{Count: s.Count, Pool: s.Pool, Size: size, Prepare: s.Prepare, Timeout: timeout}
	if s.Count <= 0 || s.Pool <= 0 {
		return o, usage.Fieldf("{Count} and {Pool} must be positive")
	}
	if _, err := o.WithDefaults(); err != nil {
		return o, err
	}
	return o, nil
}
