package server

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limit is one API's request-rate limits, as its provider documents them:
// token buckets per partition that answer with the provider's own error
// once a partition's rate is spent. S3 partitions by key prefix, GCS by
// bucket, Azure by account and by blob. The lab has none unless asked
// (ParseLimit); docs/design.md#request-rate-limits describes the model.
type Limit struct {
	// API is s3, gcs or azure.
	API string
	// Read and Write are the requests per second one partition admits:
	// GET/HEAD, and PUT/POST/COPY/DELETE (GCS: uploads, updates and
	// deletes). S3 and GCS only; 0 is no limit.
	Read, Write float64
	// Account and Blob are Azure's: requests of any kind per second per
	// storage account and per blob. 0 is no limit.
	Account, Blob float64
	// Grow is how long a partition must be throttled without a pause
	// before its rate doubles: S3 splitting a hot prefix's partition,
	// GCS's ramp (a bucket's capacity doubling every 20 minutes of
	// sustained load). 0 never grows.
	Grow time.Duration
	// Scale divides the model's periods (Grow and its windows), never the
	// rates: 60 makes 20 minutes 20 s, so a laptop shows in a minute what
	// the cloud does in an hour. 0 is 1.
	Scale float64
	// Depth is how an S3 key's prefix is cut: 0 up to and including its
	// last '/' (the key's folder), n its first n '/'-ended segments,
	// DepthBucket none (the bucket is one partition, as a directory
	// bucket's is). A key without a '/' (within the depth) falls in the
	// bucket's root prefix "".
	Depth int
}

// DepthBucket is the Depth that makes a whole S3 bucket one partition.
const DepthBucket = -1

// The providers' documented defaults, taken by a bare "s3", "gcs" or
// "azure": S3's per-prefix rates, GCS's initial per-bucket capacity and
// its 20-minute doubling, Azure's standard account and single-blob
// targets. S3 does not document how long a hot prefix waits for its
// partition to split: S3Split is the lab's choice.
const (
	S3Read, S3Write   = 5500, 3500
	S3Split           = 30 * time.Minute
	GCSRead, GCSWrite = 5000, 1000
	GCSRamp           = 20 * time.Minute
	AzureAccount      = 20000
	AzureBlob         = 500
)

// LimitSyntax is what ParseLimit reads, for errors and help.
const LimitSyntax = "s3[:get=N/s,put=N/s,partition=off|DURATION,prefix=dir|N|bucket,scale=N], gcs[:read=N/s,write=N/s,ramp[=off|DURATION],scale=N] or azure[:account=N/s,blob=N/s,scale=N]; several joined by ';'"

// Defaults is api's documented limit.
func Defaults(api string) (Limit, error) {
	switch api {
	case "s3":
		return Limit{API: api, Read: S3Read, Write: S3Write, Grow: S3Split, Scale: 1}, nil
	case "gcs":
		return Limit{API: api, Read: GCSRead, Write: GCSWrite, Grow: GCSRamp, Scale: 1}, nil
	case "azure":
		return Limit{API: api, Account: AzureAccount, Blob: AzureBlob, Scale: 1}, nil
	}
	return Limit{}, fmt.Errorf("unknown API %q: use s3, gcs or azure", api)
}

// ParseLimit reads one API's limit: its name alone for its provider's
// documented defaults, or with the settings that differ, e.g.
// "s3:get=200/s", "s3:get=5500/s,put=3500/s,scale=60,partition=off",
// "gcs:read=5000/s,write=1000/s,ramp", "azure:account=2000/s,blob=50/s".
// Rates are N/s, N/min or a plain N per second; "off" or 0 lifts one.
func ParseLimit(s string) (Limit, error) {
	api, opts, _ := strings.Cut(strings.TrimSpace(s), ":")
	api = strings.ToLower(strings.TrimSpace(api))
	l, err := Defaults(api)
	if err != nil {
		return l, err
	}
	if strings.TrimSpace(opts) == "" {
		return l, nil
	}
	for _, part := range strings.Split(opts, ",") {
		k, v, hasValue := strings.Cut(strings.TrimSpace(part), "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		bad := func(format string, a ...any) (Limit, error) {
			return l, fmt.Errorf(format, a...)
		}
		var rate *float64
		switch {
		case api != "azure" && (k == "get" || k == "read"):
			rate = &l.Read
		case api != "azure" && (k == "put" || k == "write"):
			rate = &l.Write
		case api == "azure" && k == "account":
			rate = &l.Account
		case api == "azure" && k == "blob":
			rate = &l.Blob
		case k == "scale":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= 1 && f <= 100000) {
				return bad("scale %q: use a factor from 1 to 100000, e.g. scale=60 (20 minutes pass in 20 s)", v)
			}
			l.Scale = f
			continue
		case api == "s3" && k == "partition", api == "gcs" && k == "ramp":
			switch {
			case !hasValue && k == "ramp", v == "on":
				l.Grow = map[string]time.Duration{"s3": S3Split, "gcs": GCSRamp}[api]
			case v == "off" || v == "0":
				l.Grow = 0
			default:
				d, err := time.ParseDuration(v)
				if err != nil || d < time.Second || d > 24*time.Hour {
					return bad("%s=%s: use on, off or a period from 1s to 24h (e.g. %s=20m)", k, v, k)
				}
				l.Grow = d
			}
			continue
		case api == "s3" && k == "prefix":
			switch v {
			case "dir":
				l.Depth = 0
				continue
			case "bucket":
				l.Depth = DepthBucket
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 64 {
				return bad("prefix=%s: use dir (a key's folder, the default), a count of leading segments (prefix=1) or bucket (the whole bucket one partition)", v)
			}
			l.Depth = n
			continue
		default:
			return bad("unknown setting %q for %s: use %s", k, api, keysOf(api))
		}
		if !hasValue {
			return bad("%s needs a rate, e.g. %s=200/s", k, k)
		}
		r, err := parseRate(v)
		if err != nil {
			return bad("%s=%s: %v", k, v, err)
		}
		*rate = r
	}
	return l, nil
}

// keysOf lists an API's settings, for errors.
func keysOf(api string) string {
	switch api {
	case "s3":
		return "get, put, partition, prefix or scale"
	case "gcs":
		return "read, write, ramp or scale"
	}
	return "account, blob or scale"
}

// parseRate reads "200/s", "12000/min" or "200" (per second); "off" or 0
// is no limit.
func parseRate(v string) (float64, error) {
	if v == "off" {
		return 0, nil
	}
	num, unit, _ := strings.Cut(v, "/")
	per := 1.0
	switch strings.TrimSpace(unit) {
	case "", "s", "sec":
	case "m", "min":
		per = 60
	default:
		return 0, fmt.Errorf("use requests per second or minute, e.g. 200/s or 12000/min")
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || f != f {
		return 0, fmt.Errorf("use a number of requests, e.g. 200/s")
	}
	if f /= per; f > 0 && f < 0.01 || f > 1e7 {
		return 0, fmt.Errorf("use a rate from 0.01/s to 10000000/s")
	}
	return f, nil
}

// String prints the limit the way ParseLimit reads it, every setting
// spelled out.
func (l Limit) String() string {
	rate := func(k string, v float64) string {
		if v == 0 {
			return k + "=off"
		}
		return k + "=" + strconv.FormatFloat(v, 'f', -1, 64) + "/s"
	}
	var parts []string
	switch l.API {
	case "azure":
		parts = append(parts, rate("account", l.Account), rate("blob", l.Blob))
	case "gcs":
		parts = append(parts, rate("read", l.Read), rate("write", l.Write), "ramp="+growString(l.Grow))
	default:
		parts = append(parts, rate("get", l.Read), rate("put", l.Write), "partition="+growString(l.Grow))
		switch {
		case l.Depth == DepthBucket:
			parts = append(parts, "prefix=bucket")
		case l.Depth > 0:
			parts = append(parts, "prefix="+strconv.Itoa(l.Depth))
		}
	}
	if l.Scale > 1 {
		parts = append(parts, "scale="+strconv.FormatFloat(l.Scale, 'f', -1, 64))
	}
	return l.API + ":" + strings.Join(parts, ",")
}

func growString(d time.Duration) string {
	if d == 0 {
		return "off"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Limits are the lab's limits, at most one per API.
type Limits []Limit

// ParseLimits reads one limit or several joined by ';' (ParseLimit each),
// e.g. "s3:get=200/s;gcs". "" is none.
func ParseLimits(s string) (Limits, error) {
	var out Limits
	for _, part := range strings.Split(s, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		l, err := ParseLimit(part)
		if err != nil {
			return nil, err
		}
		if out.For(l.API) != nil {
			return nil, fmt.Errorf("%s is limited twice: give each API once", l.API)
		}
		out = append(out, l)
	}
	return out, nil
}

// For is api's limit; nil when api is not limited.
func (ls Limits) For(api string) *Limit {
	for i := range ls {
		if ls[i].API == api {
			return &ls[i]
		}
	}
	return nil
}

// String prints the limits the way ParseLimits reads them.
func (ls Limits) String() string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.String()
	}
	return strings.Join(parts, ";")
}

// burst is how much of a second's rate a full bucket holds: small, so
// that the rate over any window of a second or more is the rate asked
// for (a 2 s count at 200/s admits at most 5% more than 400).
const burst = 0.1

// window is the span in which a throttled partition must see a throttled
// request for its load to count as sustained (before the scale): a
// partition left a whole window without one starts its Grow period over.
const window = time.Minute

// Limiter applies a Limit to requests: one token bucket per partition
// and class of request. It is safe for concurrent use.
type Limiter struct {
	lim Limit
	now func() time.Time

	mu      sync.Mutex
	parts   map[partKey]*bucket
	evicted time.Time // the last sweep (see evict)
}

type partKey struct {
	class string // read, write, account or blob
	name  string // the prefix, bucket, account or blob
}

// bucket is one partition's tokens and its growth.
type bucket struct {
	rate, tokens float64
	last         time.Time
	doublings    int
	admitted     int64
	throttled    int64
	// The growth clock: since is when the current sustained run of
	// throttling began (zero: none), win the start of the current window
	// and hot whether it has seen a throttled request.
	since, win time.Time
	hot        bool
}

// NewLimiter is a limiter for l; now is the clock (nil: time.Now).
func NewLimiter(l Limit, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	if l.Scale < 1 {
		l.Scale = 1
	}
	return &Limiter{lim: l, now: now, parts: map[partKey]*bucket{}}
}

// Limit is the limit the limiter applies.
func (lm *Limiter) Limit() Limit { return lm.lim }

// Partition is where a request was refused: the class of its bucket
// (read, write, account or blob) and the partition's name (an S3 bucket
// and prefix, a GCS bucket, an Azure account or blob).
type Partition struct {
	Class, Name string
}

// partitions are the buckets r draws from: none for the lab's own ping
// (PingPath), which is not the program's.
func (lm *Limiter) partitions(r *http.Request) []partKey {
	l := lm.lim
	if r.URL.Path == PingPath {
		return nil
	}
	path := strings.TrimPrefix(r.URL.Path, "/")
	var out []partKey
	switch l.API {
	case "azure":
		account, rest, _ := strings.Cut(path, "/")
		if l.Account > 0 {
			out = append(out, partKey{"account", account})
		}
		if container, blob, ok := strings.Cut(rest, "/"); ok && blob != "" && l.Blob > 0 {
			out = append(out, partKey{"blob", account + "/" + container + "/" + blob})
		}
	case "gcs":
		class := classOf(r)
		if rate := l.rateOf(class); rate > 0 {
			out = append(out, partKey{class, gcsBucket(r)})
		}
	default:
		class := classOf(r)
		if rate := l.rateOf(class); rate > 0 {
			out = append(out, partKey{class, s3Prefix(r, l.Depth)})
		}
	}
	return out
}

func (l Limit) rateOf(class string) float64 {
	switch class {
	case "read":
		return l.Read
	case "write":
		return l.Write
	case "account":
		return l.Account
	case "blob":
		return l.Blob
	}
	return 0
}

// classOf sorts a request as S3 and GCS count them: GET and HEAD read,
// every other method (PUT, POST, COPY as a PUT, PATCH, DELETE) writes.
func classOf(r *http.Request) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return "read"
	}
	return "write"
}

// s3Prefix is the prefix of a path-style S3 request's key (a list's
// prefix parameter for a request to the bucket), cut at depth (see
// Limit.Depth), with its bucket: "objbench/photos/".
func s3Prefix(r *http.Request, depth int) string {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if key == "" {
		key = r.URL.Query().Get("prefix")
	}
	return bucket + "/" + CutPrefix(key, depth)
}

// CutPrefix is key's partitioning prefix (see Limit.Depth): up to and
// including its last '/' at depth 0, its first depth segments above, ""
// when the key has no '/' there or depth is DepthBucket.
func CutPrefix(key string, depth int) string {
	if depth == DepthBucket {
		return ""
	}
	if depth <= 0 {
		return key[:strings.LastIndex(key, "/")+1]
	}
	end := 0
	for range depth {
		i := strings.Index(key[end:], "/")
		if i < 0 {
			break
		}
		end += i + 1
	}
	return key[:end]
}

// gcsBucket is the bucket a GCS JSON API request names (the upload,
// download and metadata paths, or the XML-style /BUCKET/OBJECT); one that
// names none (a resumable upload's session, /upload/resumable/ID) counts
// against the lab's bucket.
func gcsBucket(r *http.Request) string {
	path := strings.Trim(r.URL.Path, "/")
	segs := strings.Split(path, "/")
	if i := slices.Index(segs, "b"); i >= 0 && i+1 < len(segs) {
		return segs[i+1]
	}
	if strings.HasPrefix(path, "upload/") || strings.HasPrefix(path, "batch/") || len(segs) < 2 {
		return Bucket
	}
	return segs[0]
}

// Admit takes a token from each of r's buckets, or none when one is
// empty: false then, with the partition that refused it.
func (lm *Limiter) Admit(r *http.Request) (bool, Partition) {
	keys := lm.partitions(r)
	if len(keys) == 0 {
		return true, Partition{}
	}
	now := lm.now()
	lm.mu.Lock()
	defer lm.mu.Unlock()
	lm.evict(now)
	bs := make([]*bucket, len(keys))
	refused := -1
	for i, k := range keys {
		b := lm.parts[k]
		if b == nil {
			rate := lm.lim.rateOf(k.class)
			b = &bucket{rate: rate, tokens: capacity(rate), last: now, win: now}
			lm.parts[k] = b
		}
		b.refill(now)
		bs[i] = b
		if b.tokens < 1 && refused < 0 {
			refused = i
		}
	}
	if refused < 0 {
		for _, b := range bs {
			b.tokens--
			b.admitted++
			lm.observe(b, now, false)
		}
		return true, Partition{}
	}
	b := bs[refused]
	b.throttled++
	lm.observe(b, now, true)
	return false, Partition{Class: keys[refused].class, Name: keys[refused].name}
}

// capacity is a full bucket's tokens at rate: a tenth of a second's, at
// least one request.
func capacity(rate float64) float64 { return max(1, rate*burst) }

func (b *bucket) refill(now time.Time) {
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(capacity(b.rate), b.tokens+d.Seconds()*b.rate)
		b.last = now
	}
}

// observe runs b's growth clock: a partition throttled in every window
// (window, scaled) for Grow (scaled) doubles its rate and starts over.
func (lm *Limiter) observe(b *bucket, now time.Time, throttled bool) {
	grow := time.Duration(float64(lm.lim.Grow) / lm.lim.Scale)
	if grow <= 0 {
		return
	}
	win := min(time.Duration(float64(window)/lm.lim.Scale), grow/10)
	if n := now.Sub(b.win) / win; n >= 1 {
		if !b.hot || n > 1 { // a window (or more) went by without a throttle
			b.since = time.Time{}
		}
		b.win = b.win.Add(n * win)
		b.hot = false
	}
	if !throttled {
		return
	}
	b.hot = true
	if b.since.IsZero() {
		b.since = now
	}
	if now.Sub(b.since) >= grow {
		b.rate *= 2
		b.doublings++
		b.since = now
	}
}

// maxParts bounds the partitions kept: past it, buckets that are full
// again and never grew are forgotten (they start over full), in a sweep
// at most once a second.
const maxParts = 1 << 16

func (lm *Limiter) evict(now time.Time) {
	if len(lm.parts) < maxParts || now.Sub(lm.evicted) < time.Second {
		return
	}
	lm.evicted = now
	for k, b := range lm.parts {
		if b.doublings == 0 && now.Sub(b.last).Seconds()*b.rate >= capacity(b.rate) {
			delete(lm.parts, k)
		}
	}
}

// PartitionStats is one partition's record: its class (read, write,
// account, blob), name, rate now (after growth), requests admitted and
// throttled, and times its rate doubled.
type PartitionStats struct {
	Class, Name         string
	Rate                float64
	Admitted, Throttled int64
	Doublings           int
}

// Stats lists the partitions seen (those kept: see maxParts), by name.
func (lm *Limiter) Stats() []PartitionStats {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	out := make([]PartitionStats, 0, len(lm.parts))
	for k, b := range lm.parts {
		out = append(out, PartitionStats{Class: k.class, Name: k.name, Rate: b.rate,
			Admitted: b.admitted, Throttled: b.throttled, Doublings: b.doublings})
	}
	slices.SortFunc(out, func(a, b PartitionStats) int {
		return strings.Compare(a.Name+"\x00"+a.Class, b.Name+"\x00"+b.Class)
	})
	return out
}

// Hot lists the partitions that refused requests, the most refusals
// first (by name among equals): where the lab pushed back.
func (lm *Limiter) Hot() []PartitionStats {
	st := slices.DeleteFunc(lm.Stats(), func(p PartitionStats) bool { return p.Throttled == 0 })
	slices.SortStableFunc(st, func(a, b PartitionStats) int { return cmp.Compare(b.Throttled, a.Throttled) })
	return st
}

// Throttle answers a refused request with its provider's error: S3's
// 503 SlowDown, GCS's 429 rateLimitExceeded, Azure's 503 ServerBusy
// (status, code and headers the provider's; GCS's message the lab's own
// words). None of the three documents a Retry-After on these answers, and
// the lab sends none: a client's backoff is its own.
func Throttle(w http.ResponseWriter, api string, p Partition) {
	id := requestID()
	h := w.Header()
	switch api {
	case "gcs":
		h.Set("Content-Type", "application/json; charset=UTF-8")
		h.Set("X-GUploader-UploadID", id)
		w.WriteHeader(http.StatusTooManyRequests)
		msg := "The rate of requests to bucket " + p.Name + " exceeds its capacity. Please reduce your request rate and ramp it up gradually."
		_, _ = fmt.Fprintf(w, `{"error":{"code":429,"message":%q,"errors":[{"message":%q,"domain":"usageLimits","reason":"rateLimitExceeded"}]}}`,
			msg, msg)
	case "azure":
		id = guid() // Azure's request ids are GUIDs
		msg := "Operations per second is over the account limit."
		if p.Class == "blob" {
			msg = "The server is currently unable to receive requests. Please retry your request."
		}
		h.Set("Content-Type", "application/xml")
		h.Set("x-ms-error-code", "ServerBusy")
		h.Set("x-ms-request-id", id)
		h.Set("x-ms-version", "2025-01-05")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = fmt.Fprintf(w, "\ufeff<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>ServerBusy</Code><Message>%s\nRequestId:%s\nTime:%s</Message></Error>",
			msg, id, time.Now().UTC().Format("2006-01-02T15:04:05.0000000Z"))
	default:
		h.Set("Content-Type", "application/xml")
		h.Set("x-amz-request-id", id)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>%s</RequestId></Error>", id)
	}
}

func requestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return strings.ToUpper(hex.EncodeToString(b[:]))
}

func guid() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
