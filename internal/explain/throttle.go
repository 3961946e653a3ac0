package explain

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/objbench/objbench/internal/document"
)

// throttledStatus says an answer is a store pushing back on the request
// rate: S3's 503 SlowDown, GCS's 429 (and the 503 it sends alike), Azure's
// 503 ServerBusy. The timeline keeps the status, not the error code; a 503
// the SDK retried is treated as throttling either way, as the SDKs do.
func throttledStatus(status int) bool { return status == 429 || status == 503 }

// attempt is one request in a chain of attempts at one operation: the
// throttled answers and the retry that followed each.
type attempt struct {
	r    *document.ExplainRequest
	conn int // index in Explain.Conns
	// retry is the next attempt's index in throttling.attempts (-1: none,
	// the program gave up or the answer ended the chain).
	retry int
	// first is the chain's first attempt (its own index when it is one).
	first int
	// gap is the program's time between this attempt's throttled answer
	// reaching the client and its retry leaving: the SDK's backoff (and
	// its CPU, and a new connection's set-up start).
	gap float64
}

// throttling is what a timeline says about throttled requests.
type throttling struct {
	attempts []attempt
	// byID is an attempt's index by request id.
	byID map[string]int
	// throttled counts the throttled answers; retried the ones a retry
	// followed; gaveUp the chains that ended throttled; succeeded the
	// chains a retry turned into a success.
	throttled, retried, gaveUp, succeeded int
	// backoff is the sum of the gaps before each retry (what the SDKs'
	// logs sum); backoffWall the time some request was waiting to be
	// retried (the gaps' union).
	backoff, backoffWall float64
	// waits are those gaps, from the answer's arrival to the retry's
	// leaving.
	waits []interval
	// retriedOK are the throttled requests a retry turned into a success:
	// throttling, not errors.
	retriedOK map[string]bool
}

// invocation is the SDK's id of a request's operation, the same on each
// of its attempts ("" when it sent none).
func invocation(h http.Header) string {
	if v := h.Get("Amz-Sdk-Invocation-Id"); v != "" {
		return v
	}
	for _, f := range strings.Fields(h.Get("X-Goog-Api-Client")) {
		if id, ok := strings.CutPrefix(f, "gccl-invocation-id/"); ok {
			return id
		}
	}
	return "" // Azure's x-ms-client-request-id is new on each attempt
}

// opKey is what a retry repeats: the SDK's id of the operation when it
// sent one, else the method and the object (the path for a request about
// no object, or whose object is in its body: a GCS multipart upload).
func opKey(r *document.ExplainRequest) string {
	if r.Invocation != "" {
		return "id " + r.Invocation
	}
	if r.Key != "" {
		return r.Method + " " + r.Key
	}
	return r.Method + " " + r.Path
}

// throttles finds the throttled requests of e and their retries: each
// throttled answer is followed by the first later request of the same
// method and object that no other throttled answer claimed.
func throttles(e *document.Explain) *throttling {
	t := &throttling{byID: map[string]int{}, retriedOK: map[string]bool{}}
	rtt := e.RTTms / 1000
	type ref struct {
		conn, req int
	}
	var all []ref
	for ci, c := range e.Conns {
		for ri := range c.Requests {
			all = append(all, ref{ci, ri})
		}
	}
	slices.SortStableFunc(all, func(a, b ref) int {
		return cmp.Compare(e.Conns[a.conn].Requests[a.req].ArrivedS, e.Conns[b.conn].Requests[b.req].ArrivedS)
	})
	// The requests not yet claimed as a retry, by operation, in arrival order.
	pending := map[string][]ref{}
	for _, x := range all {
		r := &e.Conns[x.conn].Requests[x.req]
		pending[opKey(r)] = append(pending[opKey(r)], x)
	}
	claimed := map[string]bool{}
	index := func(x ref) int {
		r := &e.Conns[x.conn].Requests[x.req]
		if i, ok := t.byID[r.ID]; ok {
			return i
		}
		t.attempts = append(t.attempts, attempt{r: r, conn: x.conn, retry: -1, first: len(t.attempts)})
		t.byID[r.ID] = len(t.attempts) - 1
		return len(t.attempts) - 1
	}
	var waits []interval
	for _, x := range all {
		r := &e.Conns[x.conn].Requests[x.req]
		if !throttledStatus(r.Status) {
			continue
		}
		t.throttled++
		i := index(x)
		answered := r.DoneS + rtt/2 // the answer reaches the client
		for _, y := range pending[opKey(r)] {
			q := &e.Conns[y.conn].Requests[y.req]
			if q.ArrivedS <= r.DoneS || claimed[q.ID] {
				continue
			}
			claimed[q.ID] = true
			j := index(y)
			t.attempts[i].retry = j
			t.attempts[j].first = t.attempts[i].first
			// The retry left the client half a round trip before it
			// arrived, or when its connection began if that was opened
			// after the answer (a new connection's set-up is not backoff).
			left := q.ArrivedS - rtt/2
			if c := e.Conns[y.conn]; y.req == 0 && c.OpenedS >= answered {
				left = c.OpenedS
			}
			gap := max(left-answered, 0)
			t.attempts[i].gap = gap
			t.backoff += gap
			waits = append(waits, interval{answered, answered + gap})
			t.retried++
			break
		}
	}
	t.backoffWall, t.waits = union(waits, math.Inf(-1), math.Inf(1)), waits
	// Chains: the last attempt says how it ended.
	for i, a := range t.attempts {
		if a.first != i {
			continue
		}
		last := i
		for t.attempts[last].retry >= 0 {
			last = t.attempts[last].retry
		}
		switch st := t.attempts[last].r.Status; {
		case throttledStatus(st):
			t.gaveUp++
		case st > 0 && st < 400 && last != i:
			t.succeeded++
			for k := i; k != last; k = t.attempts[k].retry {
				t.retriedOK[t.attempts[k].r.ID] = true
			}
		}
	}
	return t
}

// isRetry says request id retried a throttled attempt.
func (t *throttling) isRetry(id string) bool {
	i, ok := t.byID[id]
	return ok && t.attempts[i].first != i
}

// hot is the prefix (S3: the key's folder in its bucket), bucket (GCS)
// or container (Azure) with the most throttled answers: where the store's
// limit applies, as each provider documents it.
func (t *throttling) hot(e *document.Explain) (name string, n int, reqs []string) {
	count := map[string]int{}
	ids := map[string][]string{}
	for _, a := range t.attempts {
		if !throttledStatus(a.r.Status) {
			continue
		}
		p := limitScope(e.Conns[a.conn].API, a.r)
		count[p]++
		ids[p] = append(ids[p], a.r.ID)
	}
	for p, c := range count {
		if c > n || (c == n && p < name) {
			name, n = p, c
		}
	}
	return name, n, ids[name]
}

// limitScope is where a request's rate limit applies: S3 partitions by
// key prefix (the folder here), GCS limits a bucket, Azure an account
// (named here by its container).
func limitScope(api string, r *document.ExplainRequest) string {
	k := r.Key
	if k == "" {
		b, _ := pathParts(r.Path)
		k = b + "/"
	}
	switch api {
	case "s3", "":
		if i := strings.LastIndex(k, "/"); i >= 0 {
			return k[:i+1]
		}
		return k
	}
	b, _, _ := strings.Cut(k, "/")
	return b
}

// rates are the requests that reached scope per second from its first
// throttled answer to its last, all attempts and those answered (not
// throttled): how much more the program asked for than the store gave.
func (t *throttling) rates(e *document.Explain, scope string) (asked, answered, span float64) {
	from, to := math.Inf(1), math.Inf(-1)
	for _, a := range t.attempts {
		if throttledStatus(a.r.Status) && limitScope(e.Conns[a.conn].API, a.r) == scope {
			from, to = min(from, a.r.ArrivedS), max(to, a.r.ArrivedS)
		}
	}
	span = to - from
	if span <= 0 {
		return 0, 0, 0
	}
	n, ok := 0, 0
	for ci, c := range e.Conns {
		for ri := range c.Requests {
			r := &c.Requests[ri]
			if r.ArrivedS < from || r.ArrivedS > to || limitScope(e.Conns[ci].API, r) != scope {
				continue
			}
			n++
			if !throttledStatus(r.Status) {
				ok++
			}
		}
	}
	return float64(n) / span, float64(ok) / span, span
}

// adaptiveText is, per library, how to make the SDK slow down on its own
// when throttled (its adaptive retry mode, by its setting's real name),
// or what to do where the library has none.
var adaptiveText = map[string]string{
	"boto3":                "boto3: Config(retries={'mode': 'adaptive'}) (or AWS_RETRY_MODE=adaptive): a client-side rate limiter that slows to what the store answers",
	"aws-sdk-js":           "JS SDK: new S3Client({retryMode: 'adaptive'}) (or AWS_RETRY_MODE=adaptive)",
	"aws-sdk-go-v2":        "Go SDK: config.WithRetryMode(aws.RetryModeAdaptive), i.e. retry.NewAdaptiveMode() (or AWS_RETRY_MODE=adaptive)",
	"google-cloud-storage": "google-cloud-storage has no adaptive mode: pace the uploads yourself, and ramp a bucket up by no more than doubling the rate every 20 minutes",
	"azure-storage-blob":   "azure-storage-blob has no adaptive mode, and its ExponentialRetry waits 15 s (±3) before the first retry: pace the requests yourself, or pass retry_policy=ExponentialRetry(initial_backoff=1, increment_base=2)",
	"":                     "a client-side rate limiter that slows down on throttled answers (the AWS SDKs' adaptive retry mode, AWS_RETRY_MODE=adaptive)",
}

// spreadText says how to spread the load past the limit of scope, per API.
func spreadText(api, scope string, n int) string {
	switch api {
	case "gcs":
		return fmt.Sprintf("spread the writes over %d buckets, or ramp bucket %s up gradually (GCS raises a bucket's limit as the load doubles, every 20 minutes at most)", n, scope)
	case "azure":
		return fmt.Sprintf("spread the requests over %d storage accounts (Azure's targets are per account, and per blob)", n)
	}
	return fmt.Sprintf("spread the keys over %d prefixes (e.g. a short hash before %s: S3's limits are per prefix)", n, scope)
}

// throttleRule: the store answered throttling errors (S3 503 SlowDown,
// GCS 429, Azure 503 ServerBusy) and the program waited to retry them.
func throttleRule(f *facts) []document.Finding {
	t := f.thr
	if t.throttled == 0 {
		return nil
	}
	scope, _, _ := t.hot(f.e)
	var ids []string
	var conns []int
	api := ""
	for _, a := range t.attempts {
		if throttledStatus(a.r.Status) {
			ids = append(ids, a.r.ID)
			if !slices.Contains(conns, a.conn) {
				conns = append(conns, a.conn)
			}
			if limitScope(f.e.Conns[a.conn].API, a.r) == scope {
				api = f.e.Conns[a.conn].API
			}
		}
	}
	asked, answered, _ := t.rates(f.e, scope)
	n := 2
	if answered > 0 {
		n = max(n, int(math.Ceil(asked/answered)))
	}
	unthrottled := f.g.unthrottled(t)
	save := f.e.WallS - unthrottled
	text := fmt.Sprintf("The store throttled %d of %d requests (%s): %d were retried, after %.2f s of backoff in all "+
		"(some request was waiting to be retried for %.2f s of the program's %.2f s)",
		t.throttled, f.e.Requests, throttleStatuses(f.e, t), t.retried, t.backoff, t.backoffWall, f.e.WallS)
	if t.gaveUp > 0 {
		text += fmt.Sprintf("; the program gave up on %d after their last attempt", t.gaveUp)
	}
	text += fmt.Sprintf(". The hot %s is %s", scopeWord(api), scope)
	if asked > 0 {
		text += fmt.Sprintf(": %.0f requests/s reached it while it answered %.0f/s", asked, answered)
	}
	text += fmt.Sprintf(". Fix: %s; or %s; or send at most %.0f requests/s there. "+
		"Without the throttling the program saves about %.2f s (what-if: no throttling; it keeps each request after the one that ended before it, "+
		"so with many threads in flight the saving may reach the %.2f s some request waited).",
		spreadText(api, scope, n), f.advice("adaptive", conns), answered, save, t.backoffWall)
	sev := "warn"
	if f.e.WallS > 0 && t.backoffWall/f.e.WallS >= 0.2 {
		sev = "high"
	}
	ev := map[string]float64{"throttled": float64(t.throttled), "retried": float64(t.retried), "gave_up": float64(t.gaveUp),
		"retried_ok": float64(t.succeeded), "backoff_s": t.backoff, "backoff_wall_s": t.backoffWall,
		"asked_per_s": asked, "answered_per_s": answered, "prefixes": float64(n), "save_s": save}
	fd := f.finding("explain-throttled", sev, text, ev, nil, ids)
	return []document.Finding{f.confident(fd, t.retried == 0,
		"the answers came from an overloaded or failing server rather than a request-rate limit (then spreading the keys does not help; the backoff still cost what it says)", true)}
}

func scopeWord(api string) string {
	switch api {
	case "gcs":
		return "bucket"
	case "azure":
		return "container"
	}
	return "prefix"
}

// throttleStatuses counts the throttled answers by status, in the
// provider's words.
func throttleStatuses(e *document.Explain, t *throttling) string {
	m := map[string]int{}
	for _, a := range t.attempts {
		if !throttledStatus(a.r.Status) {
			continue
		}
		switch api := e.Conns[a.conn].API; {
		case api == "azure":
			m["503 ServerBusy"]++
		case api == "gcs" || a.r.Status == 429:
			m[fmt.Sprint(a.r.Status)]++
		default:
			m["503 SlowDown"]++
		}
	}
	return opsText(m)
}

// unthrottled re-times the program as if the store had not throttled: each
// throttled answer goes, and the attempt that followed it starts when the
// chain's first attempt did (no answer to wait for, no backoff).
func (g *graph) unthrottled(t *throttling) float64 {
	node := map[string]int{} // request id to node
	for k := range g.nodes {
		if r := g.request(k); r != nil {
			node[r.ID] = k
		}
	}
	// retryOf is the attempt (index in t.attempts) a node retries, -1
	// for others; a connection opened for a retry (its first request is
	// one) goes with it: the first attempt's connection would have done.
	retryOf := func(k int) int {
		n := g.nodes[k]
		if len(g.e.Conns[n.conn].Requests) == 0 {
			return -1
		}
		r := &g.e.Conns[n.conn].Requests[max(n.req, 0)]
		if i, ok := t.byID[r.ID]; ok && t.attempts[i].first != i {
			return i
		}
		return -1
	}
	start := make([]float64, len(g.nodes))
	return g.retime(fix{
		gap: func(k int, d dep, after float64) float64 {
			if i := retryOf(k); i >= 0 {
				return start[node[t.attempts[t.attempts[i].first].r.ID]] - after
			}
			return d.gap
		},
		dur: func(k int, _ float64) float64 {
			if r := g.request(k); r != nil {
				if i, ok := t.byID[r.ID]; ok && t.attempts[i].retry >= 0 {
					return 0
				}
			} else if retryOf(k) >= 0 {
				return 0
			}
			return g.nodes[k].end - g.nodes[k].start
		},
		done: func(k int, s, _ float64) { start[k] = s },
	})
}
