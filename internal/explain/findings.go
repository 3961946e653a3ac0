package explain

import (
	"fmt"
	"sort"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/units"
)

// smallObject is the size below which one request beats a resumable or
// multipart upload (every SDK's single-request threshold is above it).
const smallObject = 8 << 20

// Findings are the ranked sentences of an explanation: what the program
// did that cost round trips, what to change, and what it would save at
// this RTT. in supplies what the document does not keep (the idle timeout,
// whether h2 was offered).
func Findings(e *document.Explain, in Input) []document.Finding {
	var out []document.Finding
	rtt := e.RTTms / 1000
	add := func(id, sev, text string, ev map[string]float64) {
		out = append(out, document.Finding{ID: id, Severity: sev, Text: text, Evidence: ev})
	}
	if e.Requests == 0 {
		return out
	}
	hs := 0.0 // handshake round trips of a new connection, on average
	for _, c := range e.Conns {
		hs += c.HandshakeRTTs / float64(len(e.Conns))
	}
	// One client (and connection) per object.
	perObject := e.Objects >= 2 && e.Connections >= e.Objects*4/5 && e.Connections > 1
	if perObject && rtt > 0 {
		keep := max(e.MaxInFlight, 1)
		save := float64(e.Connections-keep) * hs * rtt
		add("explain-client-per-object", "high", fmt.Sprintf(
			"%d objects used %d connections (%.2f per object, %d TLS handshakes): the program opens a new connection for almost every object, "+
				"as a new client per object does; each costs %.0f round trips (%.0f ms) before its request can leave. "+
				"Create one client and reuse it for every object: saves about %.2f s (%.0f round trips) at this RTT.",
			e.Objects, e.Connections, e.ConnectionsPerObject, e.TLSHandshakes, hs, hs*rtt*1000, save, float64(e.Connections-keep)*hs),
			map[string]float64{"objects": float64(e.Objects), "connections": float64(e.Connections), "handshake_rtts": hs, "save_s": save})
	}
	// Small uploads in several requests (resumable, multipart).
	init := 0
	for _, c := range e.Conns {
		for _, r := range c.Requests {
			if r.Operation == "ResumableInitiate" || r.Operation == "CreateMultipartUpload" {
				init++
			}
		}
	}
	if init > 0 && rtt > 0 && e.BytesUp/int64(max(init, 1)) < smallObject {
		extra := float64(e.Operations["ResumableInitiate"]) + 2*float64(e.Operations["CreateMultipartUpload"])
		save := extra * rtt / float64(max(e.MaxInFlight, 1))
		add("explain-multi-request-upload", "warn", fmt.Sprintf(
			"%d uploads averaging %s began with a separate request (%s): a small object needs one request. "+
				"Upload it in one request (a single PUT; in google-cloud-storage a size below the chunk size or upload_from_string): "+
				"saves %.0f requests and about %.2f s at this RTT.",
			init, sizeText(e.BytesUp/int64(max(init, 1))), opsText(e.Operations, "ResumableInitiate", "CreateMultipartUpload", "UploadPart", "ResumableChunk"),
			extra, save),
			map[string]float64{"uploads": float64(init), "extra_requests": extra, "save_s": save})
	}
	// Expect: 100-continue.
	waited := 0
	for _, c := range e.Conns {
		for _, r := range c.Requests {
			if r.RoundTrips["wait100"] > 0 {
				waited++
			}
		}
	}
	if e.ExpectContinue > 0 {
		save := float64(waited) * rtt / float64(max(e.MaxInFlight, 1))
		sev := "info"
		text := fmt.Sprintf("%d requests were sent with Expect: 100-continue", e.ExpectContinue)
		if waited > 0 && rtt > 0 {
			sev = "warn"
			text += fmt.Sprintf("; %d of them held their body back for the server's 100 Continue, one round trip each. "+
				"Turn the header off for small uploads (it only saves sending a body the server would refuse): saves about %.2f s at this RTT.", waited, save)
		} else {
			text += ", but sent the body at once: the header costs nothing here."
		}
		add("explain-expect-continue", sev, text, map[string]float64{"expect": float64(e.ExpectContinue), "waited": float64(waited), "save_s": save})
	}
	// Sequential requests.
	objRTTs := e.RoundTripsPerObject
	if e.MaxInFlight <= 1 && e.Objects >= 4 && rtt > 0 {
		const par = 8
		seq := float64(e.Objects) * objRTTs * rtt
		save := seq - seq/par
		add("explain-sequential", "warn", fmt.Sprintf(
			"The program sent one request at a time: %d objects x %.1f round trips = %.2f s waiting on the network. "+
				"Send them in parallel (a thread pool, asyncio, the SDK's transfer manager), e.g. %d at once with a connection pool of %d: saves about %.2f s at this RTT.",
			e.Objects, objRTTs, seq, par, par, save),
			map[string]float64{"objects": float64(e.Objects), "round_trips_per_object": objRTTs, "save_s": save})
	}
	// A pool smaller than the concurrency: connections beyond it are
	// opened, used and dropped.
	if e.MaxInFlight > 1 && e.Connections > e.MaxInFlight+e.MaxInFlight/5 && !perObject && rtt > 0 {
		churn := e.Connections - e.MaxInFlight
		save := float64(churn) * hs * rtt / float64(e.MaxInFlight)
		add("explain-pool-small", "warn", fmt.Sprintf(
			"%d connections for at most %d requests in flight: the client opened connections it did not keep, as a connection pool smaller than "+
				"the concurrency does (the ones beyond it are used and dropped). Make the pool at least as large as the concurrency "+
				"(boto3: max_pool_connections, default 10): saves %d handshakes, about %.2f s at this RTT.",
			e.Connections, e.MaxInFlight, churn, save),
			map[string]float64{"max_in_flight": float64(e.MaxInFlight), "connections": float64(e.Connections), "save_s": save})
	}
	// HTTP/2 where the service offers it: of the three, GCS only.
	gcsH1 := 0
	for _, c := range e.Conns {
		if c.API == "gcs" && c.ALPN != "h2" {
			gcsH1++
		}
	}
	if in.HTTP2Offered && gcsH1 > 1 && e.MaxInFlight > 1 && rtt > 0 {
		save := float64(gcsH1-1) * hs * rtt / float64(e.MaxInFlight)
		add("explain-http2", "info", fmt.Sprintf(
			"The program spoke HTTP/1.1 to GCS on %d connections with up to %d requests in flight. GCS offers HTTP/2 (as the lab does): "+
				"one connection carries every request at once, saving about %.2f s of handshakes at this RTT.",
			gcsH1, e.MaxInFlight, save), map[string]float64{"connections": float64(gcsH1), "save_s": save})
	}
	// Idle timeouts followed by new connections.
	idleClosed := 0
	for _, c := range e.Conns {
		if c.ClosedBy == "idle-timeout" && c.ClosedS < e.WallS {
			idleClosed++
		}
	}
	if idleClosed > 0 {
		add("explain-idle-timeout", "warn", fmt.Sprintf(
			"The server closed %d idle connections (after %s idle): the next request then paid a new handshake (%.0f round trips). "+
				"Keep the client's idle timeout below the service's, or send the requests closer together.",
			idleClosed, in.IdleTimeout, hs), map[string]float64{"closed": float64(idleClosed)})
	}
	// More requests than objects (HEAD before GET, lists...).
	if e.Objects > 0 && e.RequestsPerObject > 1.5 && init == 0 {
		add("explain-requests-per-object", "warn", fmt.Sprintf(
			"%.1f requests per object (%s): every request beyond the transfer costs at least a round trip (%.0f ms).",
			e.RequestsPerObject, opsText(e.Operations), rtt*1000), map[string]float64{"requests_per_object": e.RequestsPerObject})
	}
	if e.Errors > 0 {
		add("explain-errors", "warn", fmt.Sprintf("%d of %d requests failed (status 4xx/5xx or no answer): see the timeline.", e.Errors, e.Requests),
			map[string]float64{"errors": float64(e.Errors)})
	}
	if len(e.ExtraHeaders) > 0 {
		add("explain-checksum-headers", "info", fmt.Sprintf(
			"Requests carried headers the SDK adds on its own: %s (the 2025 SDK releases add checksums by default); each costs the client CPU to compute, no round trip.",
			units.FormatCounts(e.ExtraHeaders)), nil)
	}
	if e.WallS > 0 && e.NotStorageS > 0.5 && e.NotStorageS/e.WallS > 0.3 {
		add("explain-not-storage", "info", fmt.Sprintf(
			"The program spent %.2f s of its %.2f s (%.0f%%) not talking to storage: start-up, imports, its own work.",
			e.NotStorageS, e.WallS, 100*e.NotStorageS/e.WallS), map[string]float64{"not_storage_s": e.NotStorageS})
	}
	rank := map[string]int{"high": 0, "warn": 1, "info": 2}
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Severity] < rank[out[j].Severity] })
	return out
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// opsText lists operation counts, the named ones (or all) by count.
func opsText(m map[string]int, only ...string) string {
	if len(only) > 0 {
		sub := map[string]int{}
		for _, k := range only {
			if m[k] > 0 {
				sub[k] = m[k]
			}
		}
		m = sub
	}
	return units.FormatCounts(m)
}
