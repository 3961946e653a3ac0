package explain

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/objbench/objbench/internal/document"
)

// Redundant and wasteful requests: requests the program did not need (the
// answer was in another response, or in its own memory) or sent in a
// shape that costs round trips. Each names its requests and prices their
// removal with the what-if model (dropRequests).

// timed is a request with its connection (index), in arrival order.
type timed struct {
	r  *document.ExplainRequest
	ci int
}

// byArrival is every request in arrival order.
func (f *facts) byArrival() []timed {
	var out []timed
	for ci := range f.e.Conns {
		for ri := range f.e.Conns[ci].Requests {
			out = append(out, timed{&f.e.Conns[ci].Requests[ri], ci})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].r.ArrivedS < out[j].r.ArrivedS })
	return out
}

func ok(r *document.ExplainRequest) bool { return r.Status > 0 && r.Status < 400 }

// isMeta: a request for an object's metadata alone.
func isMeta(r *document.ExplainRequest) bool {
	switch r.Operation {
	case "HeadObject", "GetObjectMetadata", "GetBlobProperties", "XML HeadObject":
		return r.Key != ""
	}
	return false
}

// isRead: a download of an object (whole, or a range when ranged).
func isRead(r *document.ExplainRequest, ranged bool) bool {
	switch r.Operation {
	case "GetObject", "GetObject (media)", "GetBlob", "XML GetObject":
		return r.Key != "" && (r.Range != "") == ranged
	}
	return false
}

// isWrite: a request that wrote (or began writing) an object.
func isWrite(r *document.ExplainRequest) bool {
	return r.Key != "" && (r.Method == http.MethodPut || r.Method == http.MethodPost || r.Method == http.MethodDelete)
}

// isList: a listing of a bucket's objects.
func isList(r *document.ExplainRequest) bool {
	switch r.Operation {
	case "ListObjectsV2", "ListObjects", "ListBlobs", "XML ListObjects":
		return true
	}
	return false
}

// isBucketOp: a request that checks or creates a bucket (container).
func isBucketOp(r *document.ExplainRequest) bool {
	switch r.Operation {
	case "HeadBucket", "CreateBucket", "GetBucket", "CreateContainer", "GetContainerProperties", "GetBucketLocation":
		return true
	}
	return false
}

// dropRequests re-times the program without the requests named. The
// program's own time before each goes too, down to what is left after the
// client's usual time to make a request (requestGap: the SDK building,
// signing and parsing one); the rest of that time, the program's own
// work, is kept.
func (g *graph) dropRequests(drop map[string]bool) float64 {
	perRequest := g.requestGap()
	return g.retime(fix{
		dur: func(k int, _ float64) float64 {
			if r := g.request(k); r != nil && drop[r.ID] {
				return 0
			}
			return g.nodes[k].end - g.nodes[k].start
		},
		gap: func(k int, d dep, _ float64) float64 {
			if r := g.request(k); r != nil && drop[r.ID] {
				return max(d.gap-perRequest, min(d.gap, 0))
			}
			return d.gap
		},
	})
}

// redundant makes a finding about requests (ids) the program need not
// send: their removal priced by the what-if model.
func (f *facts) redundant(id, sev string, ids map[string]bool, text func(n int, save float64) string, ev map[string]float64, kind string, low bool, falseIf string) []document.Finding {
	if len(ids) == 0 {
		return nil
	}
	save := f.e.WallS - f.g.dropRequests(ids)
	reqs := sortedIDs(ids)
	conns := f.connsOfRequests(reqs)
	ev["requests"], ev["save_s"] = float64(len(ids)), save
	fd := f.finding(id, sev, text(len(ids), save)+" Fix: "+f.advice(kind, conns)+".", ev, nil, reqs)
	return []document.Finding{f.confident(fd, low, falseIf, true)}
}

// redundantHeadRule: a metadata request (HEAD) followed by a GET of the
// same object, which answers the same headers: a round trip per object.
// A HEAD before ranged GETs (a transfer manager sizing its parts) is not.
func redundantHeadRule(f *facts) []document.Finding {
	reqs := f.byArrival()
	drop := map[string]bool{}
	for i, h := range reqs {
		if !isMeta(h.r) || !ok(h.r) {
			continue
		}
		for _, n := range reqs[i+1:] {
			if n.r.Key != h.r.Key || n.r.ArrivedS < h.r.DoneS {
				continue
			}
			if isRead(n.r, false) && ok(n.r) {
				drop[h.r.ID] = true
			}
			break // the next request about the object decides
		}
	}
	if f.rtt <= 0 || len(drop) < 2 {
		return nil
	}
	return f.redundant("explain-redundant-head", "warn", drop, func(n int, save float64) string {
		return fmt.Sprintf("%d metadata requests (HEAD) were each followed by a GET of the same object, whose response carries the same headers: "+
			"one round trip per object for nothing. Dropping them saves %d requests and about %.2f s at this RTT (what-if: without them).", n, n, save)
	}, map[string]float64{}, "head", len(drop) < 3, "the program needed the metadata before deciding to read (a conditional GET with If-Match does both in one request)")
}

// headAfterListRule: metadata requests for objects of a bucket the
// program had just listed: a list page carries each object's size, ETag
// and time.
func headAfterListRule(f *facts, claimed map[string]bool) []document.Finding {
	reqs := f.byArrival()
	listed := map[string]float64{} // bucket: when its listing was answered
	drop := map[string]bool{}
	for _, t := range reqs {
		r := t.r
		if isList(r) && ok(r) {
			if b := listBucket(f.e.Conns[t.ci].API, r.Path); b != "" {
				if _, seen := listed[b]; !seen {
					listed[b] = r.DoneS
				}
			}
			continue
		}
		if isMeta(r) && ok(r) && !claimed[r.ID] {
			b, _, _ := strings.Cut(r.Key, "/")
			if done, seen := listed[b]; seen && r.ArrivedS >= done {
				drop[r.ID] = true
			}
		}
	}
	if f.rtt <= 0 || len(drop) < 2 {
		return nil
	}
	return f.redundant("explain-head-after-list", "warn", drop, func(n int, save float64) string {
		return fmt.Sprintf("%d metadata requests (HEAD) asked for objects the program had just listed: a list page already gives each object's size, ETag and time "+
			"(up to 1,000 a page). Dropping them saves %d requests and about %.2f s at this RTT (what-if: without them).", n, n, save)
	}, map[string]float64{}, "list-head", len(drop) < 3, "the program needed headers a listing does not give (user metadata, content type)")
}

// listBucket is the bucket a listing lists ("" when not one).
func listBucket(api, path string) string {
	switch api {
	case "gcs":
		rest := strings.TrimPrefix(path, "/storage/v1/b/")
		b, _, _ := strings.Cut(rest, "/")
		return b
	case "azure":
		parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 3)
		if len(parts) >= 2 {
			return parts[1]
		}
		return ""
	}
	b, _ := pathParts(path)
	return b
}

// listPerObjectRule: a listing before each object request (an existence
// check by prefix): one listing, or the request itself, answers it.
func listPerObjectRule(f *facts) []document.Finding {
	reqs := f.byArrival()
	var lists []string
	followed := 0
	for i, t := range reqs {
		if !isList(t.r) {
			continue
		}
		lists = append(lists, t.r.ID)
		for _, n := range reqs[i+1:] {
			if isList(n.r) {
				break
			}
			if n.r.Key != "" {
				followed++
				break
			}
		}
	}
	if f.rtt <= 0 || len(lists) < 3 || followed < len(lists)-1 || f.e.Objects > 3*len(lists) {
		return nil
	}
	drop := map[string]bool{}
	for _, id := range lists[1:] {
		drop[id] = true
	}
	return f.redundant("explain-list-per-object", "warn", drop, func(n int, save float64) string {
		return fmt.Sprintf("The program listed the bucket %d times, once before each object (%d objects): one listing answers every key, "+
			"and a GET answers \"does it exist\" with the object. Dropping all listings but the first saves %d requests and about %.2f s at this RTT (what-if: without them).",
			len(lists), f.e.Objects, n, save)
	}, map[string]float64{"lists": float64(len(lists))}, "list-per-object", len(lists) < 4, "each listing asked for keys written since the one before (a queue polled through listings)")
}

// getAfterPutRule: a GET of an object the program had just uploaded (all
// it waited for was that object's upload): it read back what it sent.
func getAfterPutRule(f *facts) []document.Finding {
	drop := map[string]bool{}
	for k, n := range f.g.nodes {
		r := f.g.request(k)
		if r == nil || !isRead(r, false) || !ok(r) {
			continue
		}
		// Everything it waited for was that object's upload: a read-back,
		// not a download phase after an upload phase (which waits for
		// every upload).
		just := len(n.deps) > 0
		for _, d := range n.deps {
			if p := f.g.request(d.on); p == nil || p.Key != r.Key || !p.Object || !isWrite(p) || !ok(p) {
				just = false
			}
		}
		if just {
			drop[r.ID] = true
		}
	}
	if f.rtt <= 0 || len(drop) < 2 {
		return nil
	}
	return f.redundant("explain-get-after-put", "warn", drop, func(n int, save float64) string {
		return fmt.Sprintf("%d objects were read back right after the program uploaded them: it downloaded what it had just sent. "+
			"Dropping the reads saves %d requests and about %.2f s at this RTT (what-if: without them).", n, n, save)
	}, map[string]float64{}, "get-after-put", len(drop) < 3, "the program checks the store's copy on purpose (an integrity test; the upload's checksum does that without a read)")
}

// rereadRule: whole-object GETs of an object the program had already
// downloaded, not written since.
func rereadRule(f *facts, claimed map[string]bool) []document.Finding {
	read := map[string]bool{}
	drop := map[string]bool{}
	for _, t := range f.byArrival() {
		r := t.r
		switch {
		case isWrite(r):
			delete(read, r.Key)
		case isRead(r, false) && ok(r):
			if read[r.Key] && !claimed[r.ID] {
				drop[r.ID] = true
			}
			read[r.Key] = true
		}
	}
	if f.rtt <= 0 || len(drop) < 2 {
		return nil
	}
	return f.redundant("explain-reread", "warn", drop, func(n int, save float64) string {
		return fmt.Sprintf("%d GETs downloaded objects the program had already downloaded and not changed since. "+
			"Dropping them saves %d requests and about %.2f s at this RTT (what-if: without them).", n, n, save)
	}, map[string]float64{}, "reread", len(drop) < 3, "another writer changes the objects between reads (then a conditional GET with If-None-Match costs the round trip but not the bytes)")
}

// bucketPerObjectRule: bucket checks or creations repeated for objects
// (HeadBucket, CreateBucket before each upload), those of short-lived
// clients apart (their client per object finding prices them).
func bucketPerObjectRule(f *facts) []document.Finding {
	short, _, _ := f.connRoles()
	skip := map[int]bool{}
	if len(short) >= 2 {
		for _, ci := range short {
			skip[ci] = true
		}
	}
	seen := map[string]bool{}
	drop := map[string]bool{}
	n := 0
	for _, t := range f.byArrival() {
		if !isBucketOp(t.r) || skip[t.ci] {
			continue
		}
		n++
		if seen[t.r.Operation] {
			drop[t.r.ID] = true
		}
		seen[t.r.Operation] = true
	}
	if f.rtt <= 0 || len(drop) < 2 || 2*n < f.e.Objects/2 {
		return nil
	}
	return f.redundant("explain-bucket-per-object", "warn", drop, func(k int, save float64) string {
		return fmt.Sprintf("The program checked or created its bucket %d times for %d objects (%s): once is enough. "+
			"Dropping the repeats saves %d requests and about %.2f s at this RTT (what-if: without them).",
			n, f.e.Objects, opsText(f.e.Operations, "HeadBucket", "CreateBucket", "GetBucket", "CreateContainer", "GetContainerProperties", "GetBucketLocation"), k, save)
	}, map[string]float64{"bucket_requests": float64(n)}, "bucket", len(drop) < 3, "the program works on a different bucket each time")
}

// tinyRangeRule: ranged GETs of an object each much smaller than what
// the link carries in a round trip: every range pays a round trip for a
// few bytes.
func tinyRangeRule(f *facts) []document.Finding {
	if f.rtt <= 0 {
		return nil
	}
	worth := f.rttBytes()
	byKey := map[string][]string{}
	small := 0
	var rangeBytes, nRanged int64
	for _, t := range f.byArrival() {
		if isRead(t.r, true) && ok(t.r) {
			byKey[t.r.Key] = append(byKey[t.r.Key], t.r.ID)
			rangeBytes += t.r.BytesOut
			nRanged++
			if float64(t.r.BytesOut) < worth/4 {
				small++
			}
		}
	}
	drop := map[string]bool{}
	ranges := 0
	for _, ids := range byKey {
		if len(ids) < 4 {
			continue
		}
		ranges += len(ids)
		for _, id := range ids[1:] {
			drop[id] = true
		}
	}
	if len(drop) < 3 || small*4 < ranges*3 {
		return nil
	}
	return f.redundant("explain-tiny-ranges", "warn", drop, func(n int, save float64) string {
		return fmt.Sprintf("%d ranged GETs read %d objects a few bytes at a time (%s a range on average, where a round trip carries about %s): each range pays a round trip. "+
			"One GET per object saves %d requests and about %.2f s at this RTT (what-if: the first range of each object reads it whole, the bytes' time left out).",
			ranges, len(byKey), sizeText(rangeBytes/max(nRanged, 1)), sizeText(int64(worth)), n, save)
	}, map[string]float64{"ranges": float64(ranges), "rtt_bytes": worth}, "range", false, "the program needs only those bytes of large objects (then the ranges are right, and parallel ones hide the round trips)")
}

// rttBytes is what the link carries in a round trip: the best rate of
// the run's larger responses times the RTT (100 Mbit/s when none was
// large enough to show it).
func (f *facts) rttBytes() float64 {
	rate := 12.5e6
	best := 0.0
	for _, c := range f.e.Conns {
		for _, r := range c.Requests {
			if d := r.DoneS - r.FirstByteS; r.BytesOut >= 1<<20 && d > 0 {
				best = max(best, float64(r.BytesOut)/d)
			}
		}
	}
	if best > 0 {
		rate = best
	}
	return rate * f.rtt
}

// checksumCPURule: the SDK's default checksums over large request bodies,
// computed on the client's CPU before or while the body is sent. The
// timeline cannot tell that CPU from the program's own: the finding says
// so and gives no saving.
func checksumCPURule(f *facts) []document.Finding {
	const large = 16 << 20
	var reqs []string
	var bytes int64
	for _, c := range f.e.Conns {
		for _, r := range c.Requests {
			if r.BytesIn < large || !hasChecksum(r.Headers) {
				continue
			}
			reqs = append(reqs, r.ID)
			bytes += r.BytesIn
		}
	}
	if len(reqs) == 0 {
		return nil
	}
	conns := f.connsOfRequests(reqs)
	fd := f.finding("explain-checksum-cpu", "info", fmt.Sprintf(
		"%d uploads of %s in all carried the SDK's default checksum, computed on the client's CPU over every byte (CRC32 in pure Python or JavaScript runs at tens to hundreds of MB/s). "+
			"The what-if model cannot price it: the timeline does not tell that CPU from the program's own. To measure it, run once with %s.",
		len(reqs), sizeText(bytes), f.advice("checksum", conns)), map[string]float64{"bytes": float64(bytes)}, nil, reqs)
	return []document.Finding{f.confident(fd, true, "the library computes the checksum in native code (awscrt, crc32c's C extension), where it costs a few ms per 100 MiB", false)}
}

func hasChecksum(headers []string) bool {
	for _, h := range headers {
		if strings.HasPrefix(h, "x-amz-checksum-") || h == "x-amz-sdk-checksum-algorithm" || h == "x-goog-hash" || h == "content-md5" ||
			h == "x-ms-content-crc64" || h == "x-amz-trailer" {
			return true
		}
	}
	return false
}

// redundantRules runs the redundant-request rules so that a request is
// named by one of them only: a HEAD before the GET is redundant-head's,
// not head-after-list's; a GET right after its PUT is get-after-put's,
// not reread's.
func redundantRules(f *facts) []document.Finding {
	out := redundantHeadRule(f)
	claimed := map[string]bool{}
	for _, fd := range out {
		for _, id := range fd.Requests {
			claimed[id] = true
		}
	}
	out = append(out, headAfterListRule(f, claimed)...)
	gp := getAfterPutRule(f)
	for _, fd := range gp {
		for _, id := range fd.Requests {
			claimed[id] = true
		}
	}
	out = append(out, gp...)
	out = append(out, rereadRule(f, claimed)...)
	out = append(out, listPerObjectRule(f)...)
	out = append(out, bucketPerObjectRule(f)...)
	out = append(out, tinyRangeRule(f)...)
	out = append(out, checksumCPURule(f)...)
	return out
}

// requestGap is the client's usual own time between a request and the
// next: the median, over the requests that waited for another request, of
// the gap since the one that ended last before them.
func (g *graph) requestGap() float64 {
	var gaps []float64
	for _, n := range g.nodes {
		if n.req < 0 {
			continue
		}
		gap, found := 0.0, false
		for _, d := range n.deps {
			if g.nodes[d.on].req >= 0 && d.gap > 0 {
				gap, found = max(gap, d.gap), true
			}
		}
		if found {
			gaps = append(gaps, gap)
		}
	}
	if len(gaps) == 0 {
		return 0
	}
	sort.Float64s(gaps)
	return gaps[len(gaps)/2]
}
